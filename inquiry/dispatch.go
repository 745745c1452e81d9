package inquiry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
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

// Dispatcher carries out durable deliveries: it claims due ones with a lease, runs each lane's
// deliveries one after another in the order they were stored (different lanes run side by side),
// and records the outcome. A dispatcher that dies mid-way loses nothing: its lease runs out and
// the deliveries are claimed again.
type Dispatcher struct {
	Store    Store
	Handlers map[DeliveryKind]DeliveryHandler
	Now      func() time.Time
	// Lease is how long a claim holds before another dispatcher may take the delivery again.
	Lease time.Duration
	// Batch is how many deliveries one claim takes.
	Batch int
	// MaxAttempts is when a delivery that keeps failing is given up (its error stays visible).
	MaxAttempts int
	// Poll is how often an idle dispatcher looks for due work nobody kicked it for.
	Poll time.Duration
	// Observe, when set, hears each outcome: "done", "retry", "rate_limited", "failed".
	Observe func(d Delivery, outcome string, err error)
	Log     *slog.Logger

	once sync.Once
	wake chan struct{}
}

func (p *Dispatcher) init() {
	p.once.Do(func() {
		p.wake = make(chan struct{}, 1)
		if p.Lease <= 0 {
			p.Lease = time.Minute
		}
		if p.Batch <= 0 {
			p.Batch = 100
		}
		if p.MaxAttempts <= 0 {
			p.MaxAttempts = 20
		}
		if p.Poll <= 0 {
			p.Poll = 2 * time.Second
		}
		if p.Log == nil {
			p.Log = slog.Default()
		}
	})
}

func (p *Dispatcher) now() time.Time {
	if p.Now != nil {
		return p.Now().UTC().Truncate(time.Microsecond)
	}
	return time.Now().UTC().Truncate(time.Microsecond)
}

// Kick tells the dispatcher there is work now. It never blocks.
func (p *Dispatcher) Kick() {
	p.init()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Run dispatches until ctx ends.
func (p *Dispatcher) Run(ctx context.Context) {
	p.init()
	ticker := time.NewTicker(p.Poll)
	defer ticker.Stop()
	for {
		n, err := p.Drain(ctx)
		if err != nil && ctx.Err() == nil {
			p.Log.Warn("claim deliveries", "err", err)
		}
		if n >= p.Batch {
			continue // there may be more
		}
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-ticker.C:
		}
	}
}

// Drain claims one batch of due deliveries and carries it out; it returns how many it claimed.
func (p *Dispatcher) Drain(ctx context.Context) (int, error) {
	p.init()
	claimed := p.now()
	ds, err := p.Store.ClaimDeliveries(ctx, claimed, p.Lease, p.Batch)
	if err != nil || len(ds) == 0 {
		return 0, err
	}
	lanes := map[string][]Delivery{}
	var order []string
	for _, d := range ds {
		if d.Lane == "" {
			// Unordered work runs on its own: one slow callback must not hold another.
			key := fmt.Sprintf("\x00%d", d.ID)
			lanes[key] = []Delivery{d}
			order = append(order, key)
			continue
		}
		if _, ok := lanes[d.Lane]; !ok {
			order = append(order, d.Lane)
		}
		lanes[d.Lane] = append(lanes[d.Lane], d)
	}
	var wg sync.WaitGroup
	for _, lane := range order {
		wg.Add(1)
		go func(ds []Delivery) {
			defer wg.Done()
			p.runLane(ctx, ds, claimed.Add(p.Lease))
		}(lanes[lane])
	}
	wg.Wait()
	return len(ds), nil
}

// runLane carries out one lane's deliveries in order. When one must wait (rate limit, retry),
// the ones after it are put back behind it, so order holds.
//
// A lane can take longer than the lease it was claimed under (a burst of questions for one
// channel goes out at about one a second; a slow Slack takes seconds a message). So that no other
// claim — the sweeper's, another replica's — takes what is left of it while this one works
// through it, the rest of the lane is claimed again for a whole lease before the next delivery
// starts once half of the lease is gone. Past three quarters of the lease it is too late to renew
// safely: the rest is left to the next claim, a delay but never a second attempt. So an attempt
// that ends within a quarter of the lease keeps its lane going, and one that ends within half of
// it is never repeated by another claim while it runs.
func (p *Dispatcher) runLane(ctx context.Context, ds []Delivery, until time.Time) {
	for i, d := range ds {
		now := p.now()
		if !now.Before(until.Add(-p.Lease / 4)) {
			p.Log.Warn("the lease of a lane runs out before it is done; the next claim takes the rest",
				"lane", d.Lane, "left", len(ds)-i, "lease", p.Lease)
			return
		}
		if now.After(until.Add(-p.Lease / 2)) {
			until = now.Add(p.Lease)
			for j, rest := range ds[i:] {
				at := until.Add(time.Duration(j) * time.Microsecond)
				if err := p.Store.RetryDelivery(context.WithoutCancel(ctx), rest.ID, at, rest.LastError, now); err != nil {
					p.Log.Warn("renew the lease of a lane; the next claim takes the rest", "id", rest.ID, "err", err)
					return
				}
			}
		}
		next, held := p.deliver(ctx, d)
		if !held {
			continue
		}
		// Hold the rest of the lane until just after the one that must wait.
		for j, rest := range ds[i+1:] {
			at := next.Add(time.Duration(j+1) * time.Microsecond)
			if err := p.Store.RetryDelivery(context.WithoutCancel(ctx), rest.ID, at, "", p.now()); err != nil {
				p.Log.Warn("hold delivery", "id", rest.ID, "err", err)
			}
		}
		return
	}
}

// deliver carries out one delivery and records the outcome; held reports whether the lane must
// wait until next.
func (p *Dispatcher) deliver(ctx context.Context, d Delivery) (next time.Time, held bool) {
	h := p.Handlers[d.Kind]
	var err error
	if h == nil {
		err = Unavailable("no handler for %s deliveries on this server", d.Kind)
	} else if ctx.Err() != nil {
		err = ctx.Err()
	} else {
		err = h(ctx, d)
	}
	// Record outcomes even while shutting down: the work was done (or not) either way.
	rctx := context.WithoutCancel(ctx)
	now := p.now()
	var ra *RetryAfterError
	switch {
	case err == nil:
		p.observe(d, "done", nil)
		p.Log.Info("delivery done", "id", d.ID, "kind", d.Kind, "key", d.InquiryKey, "attempts", d.Attempts)
		if e := p.Store.CompleteDelivery(rctx, d.ID, now); e != nil {
			p.Log.Warn("complete delivery", "id", d.ID, "err", e)
		}
		return time.Time{}, false
	case Fatal(err) || d.Attempts >= p.MaxAttempts:
		p.observe(d, "failed", err)
		p.Log.Warn("delivery given up", "id", d.ID, "kind", d.Kind, "key", d.InquiryKey, "attempts", d.Attempts, "err", err)
		if e := p.Store.FailDelivery(rctx, d.ID, err.Error(), now); e != nil {
			p.Log.Warn("fail delivery", "id", d.ID, "err", e)
		}
		if d.Kind == DeliverCallback || d.Kind == DeliverResume {
			// The asker reads the inquiry, not the deliveries: say there why nobody was told.
			f := Failure{Code: CodeCallbackFailed, Message: fmt.Sprintf("the %s was given up after %d attempt(s): %s", d.Kind, d.Attempts, err.Error())}
			if e := p.Store.NoteFailure(rctx, d.InquiryKey, f); e != nil {
				p.Log.Warn("note the failure of a delivery", "id", d.ID, "err", e)
			}
		}
		return time.Time{}, false
	case errors.As(err, &ra):
		p.observe(d, "rate_limited", err)
		next = now.Add(ra.After)
	default:
		p.observe(d, "retry", err)
		next = now.Add(Backoff(d.Attempts))
	}
	p.Log.Info("delivery retry", "id", d.ID, "kind", d.Kind, "key", d.InquiryKey, "attempts", d.Attempts, "next", next, "err", err)
	if e := p.Store.RetryDelivery(rctx, d.ID, next, err.Error(), now); e != nil {
		p.Log.Warn("retry delivery", "id", d.ID, "err", e)
	}
	return next, true
}

func (p *Dispatcher) observe(d Delivery, outcome string, err error) {
	if p.Observe != nil {
		p.Observe(d, outcome, err)
	}
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
		DeliverPost:   s.deliverPost,
		DeliverUpdate: s.deliverUpdate,
		DeliverNotice: s.deliverNotice,
	}
}

func (s *Service) deliverPost(ctx context.Context, d Delivery) error {
	rec, err := s.Store.Inquiry(ctx, d.InquiryKey)
	if err != nil {
		return skipGone(err)
	}
	if rec.Status != StatusPending || rec.Slack.TS != "" {
		return nil // resolved before it was shown, or shown already
	}
	t, err := s.Transports.Lookup(d.Target)
	if err == nil && d.Attempts > 1 {
		// An earlier attempt may have been shown though its outcome never came back: the
		// process died, or the connection broke, after the transport took the post.
		if f, ok := t.(PostFinder); ok {
			where, found, ferr := f.FindPost(ctx, rec)
			switch {
			case found:
				s.logger().InfoContext(ctx, "question found posted by an earlier attempt", "key", rec.Key, "id", where.ID, "attempts", d.Attempts)
				return s.Store.SetPosted(ctx, rec.Key, where.ref())
			case ferr != nil && !Fatal(ferr):
				return ferr // cannot tell now: look again later rather than risk showing it twice
			case ferr != nil:
				s.logger().WarnContext(ctx, "cannot look for an earlier post of a question; posting it", "key", rec.Key, "err", ferr)
			}
		}
	}
	if err == nil {
		var where Posted
		where, err = t.Post(ctx, rec)
		if err == nil {
			return s.Store.SetPosted(ctx, rec.Key, where.ref())
		}
	}
	if Fatal(err) {
		if _, ferr := s.Fail(ctx, rec.Key, err); ferr != nil && ErrorCode(ferr) != CodeAlreadyResolved {
			return ferr
		}
	}
	return err
}

func (s *Service) deliverUpdate(ctx context.Context, d Delivery) error {
	rec, err := s.Store.Inquiry(ctx, d.InquiryKey)
	if err != nil {
		return skipGone(err)
	}
	if rec.Slack.TS == "" {
		return nil // never shown: nothing to update
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
