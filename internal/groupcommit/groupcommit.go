package groupcommit

import (
	"context"
	"slices"
	"sync"
)

// Committer gathers the writes given to Do into batches (see the package's doc). The zero value
// is not usable: make one with New.
type Committer[T any] struct {
	alone    func(T)
	batch    func([]T)
	maxBatch int
	maxQueue int

	mu    sync.Mutex
	busy  bool // a write alone or a batch is committing
	held  int  // Hold calls not released: every write queues
	queue []*entry[T]
}

// entry is a value waiting for its batch.
type entry[T any] struct {
	v     T
	taken bool          // taken out of the queue into a batch (under mu)
	done  chan struct{} // closed when its batch returned
}

// New returns a Committer that writes a value with alone, or up to maxBatch values together with
// batch; at most maxQueue values wait, and past that a value is written alone at once.
func New[T any](maxBatch, maxQueue int, alone func(T), batch func([]T)) *Committer[T] {
	return &Committer[T]{alone: alone, batch: batch, maxBatch: max(maxBatch, 1), maxQueue: maxQueue}
}

// Do writes v: alone at once when no commit is running (or the queue is full), else in the batch
// that starts when the running commit ends. It returns once v's write returned, or with ctx's
// error when ctx ends first (see the package's doc for what is then written).
func (c *Committer[T]) Do(ctx context.Context, v T) error {
	c.mu.Lock()
	free := !c.busy && c.held == 0
	if free || len(c.queue) >= c.maxQueue {
		if free {
			c.busy = true
		}
		c.mu.Unlock()
		c.alone(v)
		if free {
			c.ended()
		}
		return nil
	}
	e := &entry[T]{v: v, done: make(chan struct{})}
	c.queue = append(c.queue, e)
	c.mu.Unlock()
	select {
	case <-e.done:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		if !e.taken {
			c.queue = slices.DeleteFunc(c.queue, func(q *entry[T]) bool { return q == e })
		}
		c.mu.Unlock()
		return ctx.Err()
	}
}

// ended ends the running commit and starts the next batch, if values wait.
func (c *Committer[T]) ended() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy = false
	c.startLocked()
}

// startLocked starts a batch of the queued values when nothing commits. Call with mu held.
func (c *Committer[T]) startLocked() {
	if len(c.queue) == 0 || c.busy || c.held > 0 {
		return
	}
	n := min(len(c.queue), c.maxBatch)
	batch := slices.Clone(c.queue[:n])
	c.queue = slices.Delete(c.queue, 0, n)
	values := make([]T, n)
	for i, e := range batch {
		e.taken = true
		values[i] = e.v
	}
	c.busy = true
	go func() {
		c.batch(values)
		for _, e := range batch {
			close(e.done)
		}
		c.ended()
	}()
}

// Hold makes every write queue, as if a commit were running, until release is called: a test then
// knows which writes share a batch, and in what order.
func (c *Committer[T]) Hold() (release func()) {
	c.mu.Lock()
	c.held++
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.held--
			c.startLocked()
		})
	}
}

// Queued is how many values wait for a batch.
func (c *Committer[T]) Queued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}
