package inquiry

import (
	"sync"
	"sync/atomic"
)

// Hub wakes long-poll waiters the moment an inquiry leaves pending. A waiter costs one small
// buffered channel, or one callback (SubscribeFunc), and no goroutine of the hub's, so thousands
// of waiters are cheap; nothing polls. Wakes from another replica arrive through the store's
// LISTEN/NOTIFY and are fed in with Wake; Wake("") wakes everybody (after a lost connection,
// when a notification may be missed).
type Hub struct {
	mu      sync.Mutex
	waiters map[string]*waiterSet
	closing chan struct{}
	closed  bool          // under mu: Close has run, so a callback subscribed from now on is called at once
	wakes   atomic.Uint64 // wake-ups so far (Mark)
	once    sync.Once
}

// waiterSet is a pointer so that an ending subscription can tell whether the set it joined is
// still the one in the map.
type waiterSet struct {
	chans map[chan struct{}]struct{}
	one   *hubFunc // the first callback, without a map: most keys have one waiter
	funcs map[*hubFunc]struct{}
}

// each calls fn with every callback of the set.
func (set *waiterSet) each(fn func(*hubFunc)) {
	if set.one != nil {
		fn(set.one)
	}
	for f := range set.funcs {
		fn(f)
	}
}

// hubFunc is a callback subscription: a pointer, so that each is its own map key.
type hubFunc struct{ fn func() }

// NewHub returns an empty hub.
func NewHub() *Hub { return &Hub{waiters: map[string]*waiterSet{}, closing: make(chan struct{})} }

// Close tells every waiter, now and later, to stop waiting: on shutdown a long-poll returns the
// inquiry as it stands rather than holding the server up. Every callback subscribed is called
// (once more), as by a wake; Closing is closed before, so the callback can tell.
func (h *Hub) Close() {
	h.once.Do(func() {
		close(h.closing)
		h.mu.Lock()
		h.closed = true
		var fns []*hubFunc
		for _, set := range h.waiters {
			set.each(func(f *hubFunc) { fns = append(fns, f) })
		}
		h.mu.Unlock()
		for _, f := range fns {
			f.fn()
		}
	})
}

// Closing is closed when the hub is.
func (h *Hub) Closing() <-chan struct{} { return h.closing }

// Subscribe returns a channel that receives when key is woken, and a function that ends the
// subscription. Subscribe before reading the record, so that a wake between the read and the
// wait is not lost.
func (h *Hub) Subscribe(key string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	set := h.set(key)
	if set.chans == nil {
		set.chans = map[chan struct{}]struct{}{}
	}
	set.chans[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(set.chans, ch)
		h.drop(key, set)
		h.mu.Unlock()
	}
}

// SubscribeFunc is Subscribe with a callback instead of a channel, for a waiter that holds no
// goroutine while it waits (Service.Park): fn is called on every wake of key and on Close (at
// once when the hub is closed already), without the hub's lock held, from the waker's
// goroutine — so it must return quickly (hand the work to a goroutine of its own). It may be
// called again while a call runs, and after the subscription has ended, once.
func (h *Hub) SubscribeFunc(key string, fn func()) (unsubscribe func()) {
	f := &hubFunc{fn: fn}
	h.mu.Lock()
	set := h.set(key)
	switch {
	case set.one == nil:
		set.one = f
	case set.funcs == nil:
		set.funcs = map[*hubFunc]struct{}{f: {}}
	default:
		set.funcs[f] = struct{}{}
	}
	closed := h.closed
	h.mu.Unlock()
	if closed {
		fn()
	}
	return func() {
		h.mu.Lock()
		if set.one == f {
			set.one = nil
		} else {
			delete(set.funcs, f)
		}
		h.drop(key, set)
		h.mu.Unlock()
	}
}

// set is key's waiter set, made when there is none; h.mu is held.
func (h *Hub) set(key string) *waiterSet {
	set := h.waiters[key]
	if set == nil {
		set = &waiterSet{} // its maps are made by the first subscription of their kind
		h.waiters[key] = set
	}
	return set
}

// drop forgets key's set once it is empty; h.mu is held.
func (h *Hub) drop(key string, set *waiterSet) {
	if len(set.chans) == 0 && set.one == nil && len(set.funcs) == 0 && h.waiters[key] == set {
		delete(h.waiters, key)
	}
}

// Mark is the count of wake-ups so far (of any key): a read made after Mark that finds an
// inquiry pending is still what a read would find while Mark has not moved (Service.ParkRead).
func (h *Hub) Mark() uint64 { return h.wakes.Load() }

// Wake wakes every waiter of key, or of every key when key is "".
func (h *Hub) Wake(key string) {
	h.wakes.Add(1) // before any waiter of key is looked up: a Mark read after a Get sees it
	var fns []*hubFunc
	h.mu.Lock()
	if key == "" {
		for _, set := range h.waiters {
			fns = set.wakeAll(fns)
		}
	} else if set := h.waiters[key]; set != nil {
		fns = set.wakeAll(fns)
	}
	h.mu.Unlock()
	for _, f := range fns {
		f.fn()
	}
}

// wakeAll wakes the set's channels and appends its callbacks to fns, to be called once the
// hub's lock is released (a callback may end its subscription).
func (set *waiterSet) wakeAll(fns []*hubFunc) []*hubFunc {
	for ch := range set.chans {
		select {
		case ch <- struct{}{}:
		default: // already woken; one pending wake is enough
		}
	}
	set.each(func(f *hubFunc) { fns = append(fns, f) })
	return fns
}

// Waiters counts current waiters (for metrics).
func (h *Hub) Waiters() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, set := range h.waiters {
		n += len(set.chans) + len(set.funcs)
		if set.one != nil {
			n++
		}
	}
	return n
}
