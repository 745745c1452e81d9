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
// longer instead of "gone". Per process and bounded: the oldest entry goes first (a record is
// a few kilobytes; one with many long votes, up to a few hundred).
//
// The answers of one inquiry are also recorded in turn (turn), and a click that comes while one
// is being recorded waits for it (await, bounded by settledWait) and then finds its decision
// here, instead of reading the inquiry while still pending and trying to answer it in vain. Only
// the recording takes a turn: what may take long (a user group's lookup in Slack, opening a
// modal) never holds another click up.
type settled struct {
	ttl     time.Duration
	maxWait time.Duration // the longest a click waits for another's answer to be recorded

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

// Bounds of the settled cache: enough for every message a busy workspace answers in a few
// minutes.
const (
	settledMax = 4096
	settledTTL = 5 * time.Minute
	// settledWait bounds a click's wait for another's answer (a vote, an answer being
	// committed): far within the three seconds Slack gives an ack.
	settledWait = time.Second
)

func newSettled(max int, ttl time.Duration) *settled {
	return &settled{ttl: ttl, maxWait: settledWait, busy: map[string]chan struct{}{}, recs: make(map[string]settledEntry, max),
		ring: make([]string, 0, max)}
}

// turn waits until no other answer of key is being recorded in this process, and makes it this
// one's turn until done is called. It waits at most settledWait (and not past ctx): then it goes
// on without a turn, as before turns were taken — the first answer wins in the store anyway. Only
// the answers being recorded are held, so the map is bounded by the requests being served.
func (s *settled) turn(ctx context.Context, key string) (done func()) {
	return s.wait(ctx, key, true)
}

// await waits as turn does, without taking the turn: a click that comes while another's answer
// is being recorded finds its decision here after it.
func (s *settled) await(ctx context.Context, key string) {
	s.wait(ctx, key, false)
}

func (s *settled) wait(ctx context.Context, key string, take bool) (done func()) {
	var timeout <-chan time.Time
	for {
		s.mu.Lock()
		ch, busy := s.busy[key]
		if !busy {
			if !take {
				s.mu.Unlock()
				return func() {}
			}
			ch = make(chan struct{})
			s.busy[key] = ch
			s.mu.Unlock()
			var once sync.Once
			return func() {
				once.Do(func() {
					s.mu.Lock()
					delete(s.busy, key)
					s.mu.Unlock()
					close(ch)
				})
			}
		}
		s.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(s.maxWait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-ch:
		case <-timeout:
			return func() {} // held too long: go on without a turn
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
