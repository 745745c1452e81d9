package inflight

import (
	"context"
	"errors"
	"sync"
)

// ErrNoOutcome is what the waiters of a flight get when its fn panicked: nothing was decided,
// so they may try for themselves.
var ErrNoOutcome = errors.New("the work in flight ended without an outcome")

// Group holds the flights of one kind of work, by key. The zero value is ready to use.
type Group[V any] struct {
	mu sync.Mutex
	m  map[string]*flight[V]
}

// flight is one fn running; v and err are set before done is closed.
type flight[V any] struct {
	done    chan struct{}
	v       V
	err     error
	waiting int // callers waiting for it (under Group.mu)
}

// New returns an empty Group.
func New[V any]() *Group[V] { return &Group[V]{} }

// Do runs fn for key, unless a flight for key is running already: then it waits for that one
// and returns its outcome with shared true, or ctx.Err() (shared true, v zero) when ctx ends
// first. A shared outcome is another caller's: the caller decides what it means for its own.
func (g *Group[V]) Do(ctx context.Context, key string, fn func() (V, error)) (v V, err error, shared bool) {
	g.mu.Lock()
	if f, ok := g.m[key]; ok {
		f.waiting++
		g.mu.Unlock()
		select {
		case <-f.done:
			return f.v, f.err, true
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err(), true
		}
	}
	if g.m == nil {
		g.m = map[string]*flight[V]{}
	}
	f := &flight[V]{done: make(chan struct{}), err: ErrNoOutcome}
	g.m[key] = f
	g.mu.Unlock()
	// Published however fn ends: a panic in it must not leave key in flight, or every later
	// caller for it would wait in vain.
	defer func() {
		g.mu.Lock()
		delete(g.m, key)
		g.mu.Unlock()
		close(f.done)
	}()
	v, err = fn()
	f.v, f.err = v, err
	return v, err, false
}

// Waiting is how many callers run or wait for the flight of key: 0 when none is in flight.
func (g *Group[V]) Waiting(key string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f, ok := g.m[key]; ok {
		return 1 + f.waiting
	}
	return 0
}
