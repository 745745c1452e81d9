package inquiry

import "sync"

// Hub wakes long-poll waiters the moment an inquiry leaves pending. A waiter costs one small
// buffered channel and no goroutine of the hub's, so thousands of waiters are cheap; nothing
// polls. Wakes from another replica arrive through the store's LISTEN/NOTIFY and are fed in with
// Wake; Wake("") wakes everybody (after a lost connection, when a notification may be missed).
type Hub struct {
	mu      sync.Mutex
	waiters map[string]*waiterSet
	closing chan struct{}
	once    sync.Once
}

// waiterSet is a pointer so that an ending subscription can tell whether the set it joined is
// still the one in the map.
type waiterSet struct{ chans map[chan struct{}]struct{} }

// NewHub returns an empty hub.
func NewHub() *Hub { return &Hub{waiters: map[string]*waiterSet{}, closing: make(chan struct{})} }

// Close tells every waiter, now and later, to stop waiting: on shutdown a long-poll returns the
// inquiry as it stands rather than holding the server up.
func (h *Hub) Close() { h.once.Do(func() { close(h.closing) }) }

// Closing is closed when the hub is.
func (h *Hub) Closing() <-chan struct{} { return h.closing }

// Subscribe returns a channel that receives when key is woken, and a function that ends the
// subscription. Subscribe before reading the record, so that a wake between the read and the
// wait is not lost.
func (h *Hub) Subscribe(key string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	set := h.waiters[key]
	if set == nil {
		set = &waiterSet{chans: map[chan struct{}]struct{}{}}
		h.waiters[key] = set
	}
	set.chans[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(set.chans, ch)
		if len(set.chans) == 0 && h.waiters[key] == set {
			delete(h.waiters, key)
		}
		h.mu.Unlock()
	}
}

// Wake wakes every waiter of key, or of every key when key is "".
func (h *Hub) Wake(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if key == "" {
		for _, set := range h.waiters {
			set.wakeAll()
		}
		return
	}
	if set := h.waiters[key]; set != nil {
		set.wakeAll()
	}
}

func (set *waiterSet) wakeAll() {
	for ch := range set.chans {
		select {
		case ch <- struct{}{}:
		default: // already woken; one pending wake is enough
		}
	}
}

// Waiters counts current waiters (for metrics).
func (h *Hub) Waiters() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, set := range h.waiters {
		n += len(set.chans)
	}
	return n
}
