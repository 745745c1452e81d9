// Package wake wakes long-poll waiters the moment an inquiry leaves pending, and the holders of
// requests the moment a token is revoked through this process (Signal). The service is given a
// Hub as its inquiry.Waker: Service.Wait subscribes to a key before it reads the inquiry, and
// every resolution (Service, this process) or notification (Store.Listen, another replica) wakes
// the key's subscribers. Nothing polls.
//
// Lifecycle: a subscription lives for one wait and is ended by it; Wake("") wakes every waiter
// after a lost LISTEN connection, when a notification may have been missed; Close, on shutdown,
// closes Closing, so that every wait returns the inquiry as it stands rather than holding the
// server up, now and later.
package wake

import "sync"

// Hub holds the waiters of each key. A waiter costs one small buffered channel and no goroutine
// of the hub's, so thousands of waiters are cheap.
type Hub struct {
	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
	closing chan struct{}
	once    sync.Once
}

// NewHub returns an empty hub.
func NewHub() *Hub {
	return &Hub{waiters: map[string]map[chan struct{}]struct{}{}, closing: make(chan struct{})}
}

// Close tells every waiter, now and later, to stop waiting.
func (h *Hub) Close() { h.once.Do(func() { close(h.closing) }) }

// Closing is closed when the hub is.
func (h *Hub) Closing() <-chan struct{} { return h.closing }

// Subscribe returns a channel that receives when key is woken, and a function that ends the
// subscription. Subscribe before reading the record, so that a wake between the read and the
// wait is not lost.
func (h *Hub) Subscribe(key string) (woken <-chan struct{}, unsubscribe func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	set := h.waiters[key]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		h.waiters[key] = set
	}
	set[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(set, ch)
		if len(set) == 0 && len(h.waiters[key]) == 0 {
			delete(h.waiters, key)
		}
	}
}

// Wake wakes every waiter of key, or of every key when key is "".
func (h *Hub) Wake(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if key != "" {
		wakeAll(h.waiters[key])
		return
	}
	for _, set := range h.waiters {
		wakeAll(set)
	}
}

// wakeAll wakes a set's channels; one pending wake per channel is enough.
func wakeAll(set map[chan struct{}]struct{}) {
	for ch := range set {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Waiters counts current waiters (for metrics).
func (h *Hub) Waiters() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, set := range h.waiters {
		n += len(set)
	}
	return n
}

// Signal tells whoever waits for the next event of one kind — a token revoked through this
// process — that it came: Next returns a channel that the next Fire closes.
type Signal struct {
	mu   sync.Mutex
	next chan struct{}
}

// Next returns the channel the next Fire closes. Take it before looking, so that an event
// meanwhile is not missed.
func (s *Signal) Next() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next == nil {
		s.next = make(chan struct{})
	}
	return s.next
}

// Fire closes the channel Next returned, once; Next returns a new one after.
func (s *Signal) Fire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next != nil {
		close(s.next)
		s.next = nil
	}
}
