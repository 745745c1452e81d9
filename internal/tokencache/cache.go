package tokencache

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Cache holds what was read of each id lately: a T, or its zero value when nothing has the id
// (so that a flood of made-up ids costs a read a TTL per id, and the table stays bounded).
type Cache[T comparable] struct {
	ttl time.Duration
	max int

	mu       sync.Mutex
	m        map[string]entry[T]
	inflight map[string]*read[T] // reads under way, by id: concurrent misses share one
	gen      uint64              // Forgets so far
	revoked  chan struct{}       // closed, and replaced, by the next Forget
}

type entry[T comparable] struct {
	v    T
	read time.Time
}

// read is one store read of an id that concurrent misses of it wait for.
type read[T comparable] struct {
	done chan struct{}
	v    T
	err  error
}

// errUnfinished is what the waiters of a read that panicked get.
var errUnfinished = errors.New("read the token: the store's read did not finish")

// New returns a cache that trusts what it read for ttl and keeps at most max ids; a ttl of zero
// keeps nothing.
func New[T comparable](ttl time.Duration, max int) *Cache[T] {
	return &Cache[T]{ttl: ttl, max: max}
}

// Get returns what was read of id within the TTL before now, or what load returns, read once
// for every Get of id that misses meanwhile. A waiter whose ctx ends stops waiting; the read
// itself does not end with its first caller's ctx, since others may be waiting for it.
func (c *Cache[T]) Get(ctx context.Context, id string, now time.Time, load func(context.Context, string) (T, error)) (T, error) {
	if c.ttl <= 0 {
		return load(ctx, id)
	}
	c.mu.Lock()
	if e, ok := c.m[id]; ok && now.Sub(e.read) < c.ttl && !now.Before(e.read) {
		c.mu.Unlock()
		return e.v, nil
	}
	if r, ok := c.inflight[id]; ok {
		c.mu.Unlock()
		select {
		case <-r.done:
			return r.v, r.err
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
	r := &read[T]{done: make(chan struct{}), err: errUnfinished}
	if c.inflight == nil {
		c.inflight = make(map[string]*read[T])
	}
	c.inflight[id] = r
	gen := c.gen
	c.mu.Unlock()
	// Ended even when the read panics: otherwise every later miss of id would wait for it.
	defer func() {
		c.mu.Lock()
		if c.inflight[id] == r { // not when a Forget dropped it, and a later miss began its own
			delete(c.inflight, id)
		}
		c.mu.Unlock()
		close(r.done)
	}()
	v, err := load(context.WithoutCancel(ctx), id)
	if err == nil {
		c.keep(id, v, now, gen)
	}
	r.v, r.err = v, err
	return v, err
}

// keep remembers v, read of id at now by a read that began at Forget count gen, unless a Forget
// came since; a full table first drops what is stale, and is emptied when nothing is.
func (c *Cache[T]) keep(id string, v T, now time.Time, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.m == nil {
		c.m = make(map[string]entry[T])
	}
	if len(c.m) >= c.max {
		for k, e := range c.m {
			if now.Sub(e.read) >= c.ttl {
				delete(c.m, k)
			}
		}
		if len(c.m) >= c.max {
			clear(c.m)
		}
	}
	c.m[id] = entry[T]{v: v, read: now}
}

// Forget drops every entry drop names (a revocation through this process), lets no read under
// way keep what it finds, and closes the channel Revocations returned.
func (c *Cache[T]) Forget(drop func(T) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if c.revoked != nil {
		close(c.revoked)
		c.revoked = nil
	}
	clear(c.inflight) // a miss from now on reads again rather than waiting for an older read
	var zero T
	for k, e := range c.m {
		if e.v != zero && drop(e.v) {
			delete(c.m, k)
		}
	}
}

// Revocations returns a channel that the next Forget closes. Take it before rechecking, so that
// a revocation meanwhile is not missed.
func (c *Cache[T]) Revocations() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.revoked == nil {
		c.revoked = make(chan struct{})
	}
	return c.revoked
}
