package inquiry

import (
	"context"
	"errors"
	"sync"
)

// errNoOutcome is the outcome of an answer in flight whose recording ended without one (it
// panicked): those waiting for it go to the store themselves. No caller ever sees it.
var errNoOutcome = errors.New("the answer in flight ended without an outcome")

// answering holds the answers this process is recording, by inquiry key. A person's answer to an
// inquiry whose answer is already being recorded here waits for that one rather than racing it to
// the database, where it could only lose: the conditional update of the second waits for the
// first's row lock and then finds the row resolved. It gets CodeAlreadyResolved with the record
// the first left — what the store would have told it — without a transaction of its own held
// open on that lock (a double click, or several people pressing one message at once). When the
// answer in flight ends otherwise (the database away, its caller gone), or the waiting caller's
// context ends, the waiting one goes to the store itself, as before.
//
// Votes (an inquiry that needs several people) never wait here: every person's vote counts.
type answering struct {
	mu sync.Mutex
	m  map[string]*flight
}

// flight is one answer being recorded; rec and err are set before done is closed.
type flight struct {
	done    chan struct{}
	rec     *Record
	err     error
	waiting int // answers (and Recorded) waiting for it (under answering.mu)
}

// begin returns the answer in flight for key, or registers f as it when there is none (lead
// false: the caller records it and then calls end).
func (a *answering) begin(key string) (f *flight, lead bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f, ok := a.m[key]; ok {
		f.waiting++
		return f, false
	}
	if a.m == nil {
		a.m = map[string]*flight{}
	}
	f = &flight{done: make(chan struct{})}
	a.m[key] = f
	return f, true
}

// end publishes f's outcome and takes it out of the answers in flight.
func (a *answering) end(key string, f *flight, rec *Record, err error) {
	a.mu.Lock()
	delete(a.m, key)
	a.mu.Unlock()
	f.rec, f.err = rec, err
	close(f.done)
}

// resolveAnswer is resolve of a person's answer r to rec (not a vote), after any answer to rec
// this process is recording already (see answering).
func (s *Service) resolveAnswer(ctx context.Context, rec *Record, r Resolution) (*Record, error) {
	for {
		f, lead := s.answering.begin(rec.Key)
		if lead {
			// Ended however resolve ends: a panic in it (recovered by the HTTP server) must not
			// leave the key in flight, or every later answer to it here would wait on it in vain.
			var out *Record
			err := errNoOutcome
			defer func() { s.answering.end(rec.Key, f, out, err) }()
			out, err = s.resolve(ctx, rec, r)
			return out, err
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return s.resolve(ctx, rec, r) // the store says what a caller that is gone gets
		}
		if f.rec != nil && (f.err == nil || ErrorCode(f.err) == CodeAlreadyResolved) {
			return f.rec, AlreadyResolved(f.rec) // the first answer was recorded, or lost too
		}
		// The answer in flight failed: this one tries for itself (it may lead now).
	}
}

// Recorded waits for the answer to key this process is recording, when there is one, and
// returns the record it left if it resolved the inquiry (ok false: none in flight, it did not
// resolve it, or ctx ended first). An edge about to read an inquiry only to tell a person how it
// stands (a second click while the first is being recorded) learns it without the read. It
// never records anything itself: a caller that gets ok false reads and answers as before.
func (s *Service) Recorded(ctx context.Context, key string) (rec *Record, ok bool) {
	s.answering.mu.Lock()
	f := s.answering.m[key]
	if f != nil {
		f.waiting++
	}
	s.answering.mu.Unlock()
	if f == nil {
		return nil, false
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, false
	}
	if f.rec == nil || f.rec.Status == StatusPending || (f.err != nil && ErrorCode(f.err) != CodeAlreadyResolved) {
		return nil, false
	}
	return f.rec, true
}
