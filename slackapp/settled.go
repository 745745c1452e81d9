package slackapp

import (
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
// A click that comes while another's answer is being recorded here is told that one's outcome
// (inquiry.Service.Recorded, waited for at most settledWait), which is then kept here too.
type settled struct {
	ttl time.Duration

	mu   sync.Mutex
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
	// settledWait bounds a click's wait for another's answer being recorded (its commit): far
	// within the three seconds Slack gives an ack.
	settledWait = time.Second
)

func newSettled(max int, ttl time.Duration) *settled {
	return &settled{ttl: ttl, recs: make(map[string]settledEntry, max), ring: make([]string, 0, max)}
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
