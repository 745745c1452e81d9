package inquiry

import "context"

// Flights shares a person's answer being recorded in this process with the answers to the same
// inquiry that come while it is (internal/inflight): a double click, or several people pressing
// one message at once. Without it each would race the first to the database, where it could
// only lose — its conditional update waits for the first's row lock and then finds the row
// resolved — holding a transaction open to learn so.
type Flights interface {
	// Do runs record for key, or waits for the record running for key already and returns its
	// outcome with shared true (ctx's error when ctx ended first).
	Do(ctx context.Context, key string, record func() (*Record, error)) (rec *Record, err error, shared bool)
}

// resolveAnswer is resolve of a person's answer r to rec (not a vote: every person's vote
// counts), after any answer to rec this process is recording already (Service.Answering). A
// later answer gets CodeAlreadyResolved with the record the first left — what the store would
// have told it. When the answer in flight ended otherwise (the database away, its caller gone,
// a panic), or the waiting caller's context ends, the waiting one goes to the store itself.
func (s *Service) resolveAnswer(ctx context.Context, rec *Record, r Resolution) (*Record, error) {
	if s.Answering == nil {
		return s.resolve(ctx, rec, r)
	}
	for {
		out, err, shared := s.Answering.Do(ctx, rec.Key, func() (*Record, error) { return s.resolve(ctx, rec, r) })
		switch {
		case !shared:
			return out, err
		case out != nil && (err == nil || ErrorCode(err) == CodeAlreadyResolved):
			return out, AlreadyResolved(out) // the first answer was recorded, or lost too
		case ctx.Err() != nil:
			return s.resolve(ctx, rec, r) // the store says what a caller that is gone gets
		}
		// The answer in flight failed: this one tries for itself (it may lead now).
	}
}
