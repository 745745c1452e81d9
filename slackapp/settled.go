package slackapp

import (
	"container/list"
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
// longer instead of "gone". Per process and bounded in entries and in bytes (a record is a few
// kilobytes, one resolved by many long votes up to a few hundred): the oldest goes first.
//
// A click that comes while another's answer is being recorded here is told that one's outcome
// (inquiry.Service.Recorded, waited for at most settledWait), which is then kept here too.
type settled struct {
	ttl           time.Duration
	max, maxBytes int

	mu    sync.Mutex
	recs  map[string]*list.Element // of *settledEntry
	order *list.List               // oldest first
	bytes int                      // approxBytes of the entries held
}

type settledEntry struct {
	rec   *inquiry.Record // read-only: shared by every click that reads it
	until time.Time
	bytes int
}

// Bounds of the settled cache: enough for every message a busy workspace answers in a few
// minutes, in a few megabytes.
const (
	settledMax      = 4096
	settledMaxBytes = 8 << 20
	settledTTL      = 5 * time.Minute
	// settledWait bounds a click's wait for another's answer being recorded (its commit): well
	// within the three seconds Slack gives an ack, with room for a modal to open after it.
	settledWait = 500 * time.Millisecond
)

func newSettled(max, maxBytes int, ttl time.Duration) *settled {
	return &settled{ttl: ttl, max: max, maxBytes: maxBytes, recs: make(map[string]*list.Element, max), order: list.New()}
}

// get is the resolved record of key, when it was seen resolved within the TTL.
func (s *settled) get(key string, now time.Time) (*inquiry.Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.recs[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*settledEntry)
	if !now.Before(e.until) {
		return nil, false
	}
	return e.rec, true
}

// put remembers rec when it is resolved; a pending one is not remembered (it may change), nor
// one larger than the whole cache.
func (s *settled) put(rec *inquiry.Record, now time.Time) {
	if rec == nil || rec.Status == inquiry.StatusPending {
		return
	}
	e := &settledEntry{rec: rec, until: now.Add(s.ttl), bytes: approxBytes(rec)}
	if e.bytes > s.maxBytes {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.recs[rec.Key]; ok {
		s.drop(el)
	}
	for s.order.Len() > 0 && (s.order.Len() >= s.max || s.bytes+e.bytes > s.maxBytes) {
		s.drop(s.order.Front())
	}
	s.recs[rec.Key] = s.order.PushBack(e)
	s.bytes += e.bytes
}

// drop forgets the entry el (s.mu held).
func (s *settled) drop(el *list.Element) {
	e := s.order.Remove(el).(*settledEntry)
	delete(s.recs, e.rec.Key)
	s.bytes -= e.bytes
}

// approxBytes is about what rec holds in memory: its texts, and a fixed part for the rest.
func approxBytes(rec *inquiry.Record) int {
	n := 1024 + len(rec.Question) + len(rec.Context)
	for _, o := range rec.Options {
		n += 64 + len(o.Value) + len(o.Label) + len(o.Description)
	}
	votes := func(vs []inquiry.Vote) {
		for _, v := range vs {
			n += 128 + len(v.Text)
		}
	}
	votes(rec.Votes)
	if a := rec.Answer; a != nil {
		n += len(a.Text)
		votes(a.Votes)
	}
	return n
}
