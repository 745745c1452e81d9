package slackapp

import (
	"context"
	"sync"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// settled remembers, for a while, the inquiries this process saw resolved, so that the clicks
// that come after a decision — a double click, Slack's retries, the rest of a channel clicking
// a few seconds late — are told who decided without a read of the database. Nothing such a
// click is told can change once an inquiry left pending: who may answer and who asked are
// fixed when it is created, and its status and answer are fixed when it resolves (doc.go: a
// resolution is final). A click on one purged meanwhile is told the outcome for a little
// longer instead of "gone". Per process and bounded: the oldest entry goes first.
//
// Clicks of one inquiry also take turns (turn): a duplicate that comes while the first click
// is still being recorded waits for it and then finds its decision here, instead of reading the
// inquiry while still pending and trying to answer it in vain.
type settled struct {
	ttl time.Duration

	mu   sync.Mutex
	busy map[string]chan struct{} // the inquiries a click is being answered of, closed when done
	recs map[string]settledEntry
	ring []string // keys in the order they came, ring[next] the oldest once full
	next int
}

type settledEntry struct {
	rec   *inquiry.Record // read-only: shared by every click that reads it
	until time.Time
}

// Sizes of the settled cache: enough for every message a busy workspace answers in a few
// minutes, a few megabytes at most.
const (
	settledMax = 4096
	settledTTL = 5 * time.Minute
)

func newSettled(max int, ttl time.Duration) *settled {
	return &settled{ttl: ttl, busy: map[string]chan struct{}{}, recs: make(map[string]settledEntry, max),
		ring: make([]string, 0, max)}
}

// turn waits until no other click of key is being answered in this process (or ctx ends), and
// makes it this one's turn until done is called. Only the clicks in flight are held, so the
// map is bounded by the requests being served.
func (s *settled) turn(ctx context.Context, key string) (done func()) {
	for {
		s.mu.Lock()
		ch, busy := s.busy[key]
		if !busy {
			ch = make(chan struct{})
			s.busy[key] = ch
			s.mu.Unlock()
			return func() {
				s.mu.Lock()
				delete(s.busy, key)
				s.mu.Unlock()
				close(ch)
			}
		}
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return func() {} // gone: whatever it does next fails on its own
		}
	}
}

// get is the resolved record of key, when it was seen resolved within the TTL.
func (s *settled) get(key string, now time.Time) (*inquiry.Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.recs[key]
	if !ok || !now.Before(e.until) {
		return nil, false
	}
	return e.rec, true
}

// put remembers rec when it is resolved; a pending one is not remembered (it may change).
func (s *settled) put(rec *inquiry.Record, now time.Time) {
	if rec == nil || rec.Status == inquiry.StatusPending {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.recs[rec.Key]; !ok {
		if len(s.ring) < cap(s.ring) {
			s.ring = append(s.ring, rec.Key)
		} else {
			delete(s.recs, s.ring[s.next])
			s.ring[s.next] = rec.Key
			s.next = (s.next + 1) % len(s.ring)
		}
	}
	s.recs[rec.Key] = settledEntry{rec: rec, until: now.Add(s.ttl)}
}
