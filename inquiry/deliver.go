package inquiry

// The contract between the service's deliveries and the dispatcher that carries them out
// (internal/dispatch): what a handler returns, how long to back off, which attempt it is.

import (
	"context"
	"fmt"
	"time"
)

// DeliveryHandler carries out one delivery. It returns nil when done; an error for which Fatal
// is true to give up at once; a *RetryAfterError to come back after a given time (a 429); any
// other error to retry with backoff.
type DeliveryHandler func(ctx context.Context, d Delivery) error

// RetryAfterError asks the dispatcher to retry no sooner than After (Slack's Retry-After). The
// delivery's lane is held until then, so a channel's messages keep their order.
type RetryAfterError struct {
	After time.Duration
	Err   error
}

func (e *RetryAfterError) Error() string {
	return fmt.Sprintf("retry after %s: %v", e.After, e.Err)
}

func (e *RetryAfterError) Unwrap() error { return e.Err }

type attemptKey struct{}

// WithAttempt returns ctx carrying which attempt of its delivery the work in it is (1 for the
// first): a transport that judges a refusal by how often it was met reads it (AttemptOf).
func WithAttempt(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, attemptKey{}, n)
}

// AttemptOf is the attempt WithAttempt put in ctx, 1 when none did.
func AttemptOf(ctx context.Context) int {
	if n, ok := ctx.Value(attemptKey{}).(int); ok && n > 0 {
		return n
	}
	return 1
}

// Backoff is the wait before attempt n+1: exponential from one second, capped at five minutes.
func Backoff(attempts int) time.Duration {
	if attempts < 1 {
		attempts = 1
	}
	if attempts > 9 {
		return 5 * time.Minute
	}
	d := time.Second << (attempts - 1)
	if d > 5*time.Minute {
		d = 5 * time.Minute
	}
	return d
}

// PostFinder is a transport that can find a question it has shown. A post whose outcome never
// came back — the process died, or the connection broke or timed out, after the transport took
// it — may have been shown all the same, and a transport like Slack offers no idempotency key: a
// retried post looks for the question first, so that nobody sees it twice.
type PostFinder interface {
	// FindPost returns where rec was shown, or found false when it was not. An error means it
	// cannot tell right now (the post is retried later); an error for which Fatal is true means
	// it can never tell (the lookup is not allowed), and the question is posted.
	FindPost(ctx context.Context, rec *Record) (where Posted, found bool, err error)
}

// TransportHandlers returns the handlers of the deliveries that go through transports: post,
// update and notice. A transport that cannot serve a post fails the inquiry (fatal), so whoever
// waits hears at once that nobody can be asked.
func (s *Service) TransportHandlers() map[DeliveryKind]DeliveryHandler {
	return map[DeliveryKind]DeliveryHandler{
		DeliverPost:     s.deliverPost,
		DeliverUpdate:   s.deliverUpdate,
		DeliverTally:    s.deliverUpdate,
		DeliverNotice:   s.deliverNotice,
		DeliverRemind:   s.deliverRemind,
		DeliverEscalate: s.deliverEscalate,
		DeliverRefresh:  s.deliverUpdate,
	}
}

func (s *Service) deliverPost(ctx context.Context, d Delivery) error {
	rec, err := s.Store.Inquiry(ctx, d.InquiryKey)
	if err != nil {
		return skipGone(err)
	}
	if _, shown := rec.PostedOn(d.Target); rec.Status != StatusPending || shown {
		return nil // resolved before it was shown, or shown there already
	}
	t, err := s.Transports.Lookup(d.Target)
	if err == nil && d.Attempts > 1 {
		// An earlier attempt may have been shown though its outcome never came back: the
		// process died, or the connection broke, after the transport took the post.
		if f, ok := t.(PostFinder); ok {
			where, found, ferr := f.FindPost(ctx, rec)
			if found {
				s.logger().InfoContext(ctx, "question found posted by an earlier attempt", "key", rec.Key, "id", where.ID, "attempts", d.Attempts)
				return s.posted(ctx, rec.Key, d.Target, where)
			}
			if ferr := s.notFound(ctx, "a question", rec.Key, ferr); ferr != nil {
				return ferr
			}
		}
	}
	if err == nil {
		var where Posted
		where, err = t.Post(ctx, rec)
		if err == nil {
			return s.posted(ctx, rec.Key, d.Target, where)
		}
	}
	if Fatal(err) {
		// Fail closed: part of its audience cannot be reached, and the asker hears it at once,
		// with the channel named when it is one of several.
		cause := err
		if len(rec.PostsTo()) > 1 {
			cause = Errorf(CodeUnavailable, "%s: %s", d.Target, ErrorMessage(err))
		}
		if _, ferr := s.Fail(ctx, rec.Key, cause); ferr != nil && ErrorCode(ferr) != CodeAlreadyResolved {
			return ferr
		}
	}
	return err
}

// posted records where channel ch showed the inquiry with key: Slack's post in the record's
// slack fields, every other channel's as a step-0 placement that names it.
func (s *Service) posted(ctx context.Context, key, ch string, where Posted) error {
	if ch == TransportSlack {
		return s.Store.SetPosted(ctx, key, where.ref())
	}
	return s.Store.AddPlacement(ctx, key, Placement{Step: 0, Via: ch, Channel: where.Place, TS: where.ID, Permalink: where.Link})
}

// notFound is what a finder's miss of an earlier attempt's post of what (a question, a reminder,
// an escalation) means for the retry: nil, post it, also when the finder cannot look at all
// (fatal: warned of); or an error that may pass, to look again later rather than show it twice.
func (s *Service) notFound(ctx context.Context, what, key string, err error) error {
	if Fatal(err) {
		s.logger().WarnContext(ctx, "cannot look for an earlier post of "+what+"; posting it", "key", key, "err", err)
		return nil
	}
	return err
}

func (s *Service) deliverUpdate(ctx context.Context, d Delivery) error {
	rec, err := s.Store.Inquiry(ctx, d.InquiryKey)
	if err != nil {
		return skipGone(err)
	}
	if _, shown := rec.PostedOn(d.Target); !shown {
		return nil // never shown there: nothing to update
	}
	if (d.Kind == DeliverTally || d.Kind == DeliverRefresh) && rec.Status != StatusPending {
		return nil // resolved since the vote: the resolution's update shows it, once
	}
	t, err := s.Transports.Lookup(d.Target)
	if err != nil {
		return err
	}
	return t.Update(ctx, rec)
}

func (s *Service) deliverNotice(ctx context.Context, d Delivery) error {
	rec, err := s.Store.Inquiry(ctx, d.InquiryKey)
	if err != nil {
		return skipGone(err)
	}
	t, err := s.Transports.Lookup(d.Target)
	if err != nil {
		return err
	}
	return t.Notice(ctx, rec)
}

// skipGone treats a deleted inquiry as nothing left to do.
func skipGone(err error) error {
	if ErrorCode(err) == CodeNotFound {
		return nil
	}
	return err
}
