package inquiry

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/inquiry-bot/bot/internal/wake"
)

// Service is the ask service: it applies policies, stores inquiries with their deliveries, takes
// answers (first one wins), and wakes whoever waits. Adapters (the gateway, the Slack app, the
// scheduler) call it; it calls the Store and, through durable deliveries, the transports.
type Service struct {
	Store      Store
	Transports *Registry
	// Hub wakes whoever waits on an inquiry (Wait) when it leaves pending (internal/wake).
	Hub Waker
	// Revoked tells whoever holds requests open that a token was revoked here (internal/wake).
	Revoked   Notifier
	Answering Flights // shares an answer being recorded with those that come meanwhile (answering.go); nil: none
	// Now is the clock; nil means time.Now. Times are kept in UTC at microsecond precision, the
	// precision PostgreSQL stores.
	Now func() time.Time
	// DefaultPolicy applies when neither the inquiry nor its run has a config; "" means
	// PolicyDefault: no configuration never blocks anybody.
	DefaultPolicy Policy
	// DefaultTransport applies when no config names one; "" means TransportInbox.
	DefaultTransport string
	// DefaultChannel is the Slack channel of an inquiry that names none.
	DefaultChannel string
	// Kick wakes the delivery dispatcher after work was enqueued; nil means nobody to wake (the
	// sweeper will pick the work up).
	Kick func(kinds ...DeliveryKind)
	// Observe, when set, hears every inquiry this process creates ("created") and resolves
	// ("resolved"), for metrics.
	Observe func(event string, rec *Record)
	Log     *slog.Logger
	// LinkSecret signs answer links (link.go); empty means links are off.
	LinkSecret []byte
	// PublicURL is the base of answer links (BOT_PUBLIC_URL); "" makes them relative.
	PublicURL string
	// AllowBroadcast lets an inquiry's reminders wake a whole channel with @here (remind_here,
	// BOT_ALLOW_BROADCAST): off, such an inquiry is refused at create (broadcast.go).
	AllowBroadcast bool
}

// Waker is what the service is given to wait for an inquiry to leave pending: a subscription
// that a Wake of the key sends on, and a channel closed on shutdown, when every wait returns the
// inquiry as it stands.
type Waker interface {
	Subscribe(key string) (woken <-chan struct{}, unsubscribe func())
	Wake(key string)
	Closing() <-chan struct{}
}

// NewService returns a service with a fresh hub and the given store and registry.
func NewService(store Store, transports *Registry) *Service {
	return &Service{Store: store, Transports: transports, Hub: wake.NewHub(),
		Revoked: &wake.Signal{}, Log: slog.Default()}
}

// Clock returns the service's current time, in UTC at microsecond precision.
func (s *Service) Clock() time.Time {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	return now().UTC().Truncate(time.Microsecond)
}

// kick wakes the dispatcher for work of the given kinds (none: of any kind).
func (s *Service) kick(kinds ...DeliveryKind) {
	if s.Kick != nil {
		s.Kick(kinds...)
	}
}

// kickCreated wakes the dispatcher for the deliveries a create enqueued (a resolution may enqueue
// more than its own: the resume of a run waiting on it, which only the store knows; those kick
// every class).
func (s *Service) kickCreated(ds []Delivery) {
	if len(ds) == 0 {
		return
	}
	kinds := make([]DeliveryKind, len(ds))
	for i, d := range ds {
		kinds[i] = d.Kind
	}
	s.kick(kinds...)
}

func (s *Service) logger() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// EffectiveConfig fills what the request leaves open: the inquiry's own config, else the run's,
// else the server's defaults.
func (s *Service) EffectiveConfig(own, run *Config) Config {
	var c Config
	for _, src := range []*Config{own, run} {
		if src == nil {
			continue
		}
		if c.Policy == "" {
			c.Policy = src.Policy
		}
		if c.Transport == "" {
			c.Transport = src.Transport
		}
	}
	if c.Policy == "" {
		c.Policy = s.DefaultPolicy
	}
	if c.Policy == "" {
		c.Policy = PolicyDefault
	}
	if c.Transport == "" {
		c.Transport = s.DefaultTransport
	}
	if c.Transport == "" {
		c.Transport = TransportInbox
	}
	return c
}

// CheckConfig refuses a config with an unknown policy.
func CheckConfig(c *Config) error {
	if c == nil {
		return nil
	}
	if c.Policy != "" && !c.Policy.Valid() {
		return FieldErrorf(CodeInvalidInquiry, "config.policy", "config.policy %q is not one of ask, default or refuse: use one of them, or leave it out to use the server's default", string(c.Policy))
	}
	return nil
}

// Ask puts an inquiry according to its policy and returns the stored record, and whether it was
// created by this call (false: the same inquiry asked again, returned as it stands). Under
// policy default the record comes back answered at once; under refuse the ask fails with
// ErrDeclined; under ask it is stored pending with a delivery to its transport, and Ask waits up
// to req.Wait for an answer. A transport nobody seated fails at once with ErrUnavailable.
//
// With a caller in ctx (WithCaller), the inquiry lives in the caller's namespace and is marked
// as asked by it (it may not answer it).
func (s *Service) Ask(ctx context.Context, req AskRequest) (*Record, bool, error) {
	if tok := CallerFrom(ctx); tok != nil {
		req.Namespace, req.AskedBy = tok.Namespace, tok.Name
	}
	now := s.Clock()
	in := req.Inquiry
	DeriveID(&in)
	at, err := ExpiryFrom(in.ExpiresAt, req.ExpiresIn, now)
	if err != nil {
		return nil, false, err
	}
	in.ExpiresAt = at
	wait, err := WaitFrom("wait", req.Wait)
	if err != nil {
		return nil, false, err
	}
	if err := Validate(&in, now); err != nil {
		return nil, false, err
	}
	slack := req.Slack.Ref()
	if err := ValidateSlack(slack); err != nil {
		return nil, false, err
	}
	if err := s.checkReach(&in, slack); err != nil {
		return nil, false, err
	}
	if err := CheckConfig(req.Config); err != nil {
		return nil, false, err
	}
	var runCfg *Config
	if in.RunID != "" && (req.Config == nil || req.Config.Policy == "" || req.Config.Transport == "") {
		run, err := s.Store.Run(ctx, req.Namespace, in.RunID)
		switch {
		case err == nil:
			runCfg = run.Config
		case ErrorCode(err) != CodeNotFound:
			return nil, false, err
		}
	}
	own, named := req.Config, NamedChannels(&req)
	if len(named) > 0 && (own == nil || own.Transport == "") && (runCfg == nil || runCfg.Transport == "") {
		// The first channel named is the transport when neither the request nor its run names one.
		c := Config{Transport: named[0]}
		if own != nil {
			c.Policy = own.Policy
		}
		own = &c
	}
	cfg := s.EffectiveConfig(own, runCfg)
	if err := ValidateEmail(req.Email, cfg.Transport); err != nil {
		return nil, false, err
	}
	if err := ValidateTeams(req.Teams, cfg.Transport); err != nil {
		return nil, false, err
	}
	if err := CheckTeamsEscalation(&in, cfg.Transport); err != nil {
		return nil, false, err
	}

	rec := &Record{
		Key:         NewKey(now),
		Inquiry:     in,
		Namespace:   req.Namespace,
		Config:      cfg,
		Status:      StatusPending,
		Slack:       slack,
		Email:       req.Email,
		Teams:       req.Teams,
		CallbackURL: req.CallbackURL,
		CreatedAt:   now,
		AskedBy:     req.AskedBy,
		Channels:    ChannelsFor(cfg.Transport, named),
	}
	if rec.Slack.Answerers == nil {
		rec.Slack.Answerers = []string{}
	}
	if rec.Slack.Channel == "" && (cfg.Transport == TransportSlack || rec.Slack.ThreadTS != "") {
		rec.Slack.Channel = s.DefaultChannel
	}
	if err := QuorumFits(rec); err != nil {
		return nil, false, err
	}

	var deliveries []Delivery
	switch cfg.Policy {
	case PolicyRefuse:
		return nil, false, Errorf(CodeDeclined, "policy refuse: nobody may be asked %q; decide yourself and say so", in.ID)
	case PolicyDefault:
		a := DefaultAnswerFor(&in)
		a.Source, a.AnsweredAt = SourceDefault, now
		rec.Status, rec.Answer, rec.ResolvedAt = StatusAnswered, &a, &now
		// The assumption is recorded where people read: the store always, and the Slack thread
		// when the inquiry names one and Slack is there to post it.
		if rec.Slack.ThreadTS != "" && rec.Slack.Channel != "" && s.Transports.Has(TransportSlack) {
			deliveries = append(deliveries, s.delivery(rec, DeliverNotice, TransportSlack, now))
		}
		if rec.CallbackURL != "" {
			deliveries = append(deliveries, s.delivery(rec, DeliverCallback, rec.CallbackURL, now))
		}
	case PolicyAsk:
		if err := checkInbox(cfg.Transport, named); err != nil {
			return nil, false, err
		}
		if _, err := s.Transports.Lookup(cfg.Transport); err != nil {
			return nil, false, err
		}
		if cfg.Transport == TransportSlack && rec.Slack.Channel == "" {
			return nil, false, FieldErrorf(CodeUnavailable, "slack.channel", "no Slack channel to ask in: name one in slack.channel, or set SLACK_DEFAULT_CHANNEL on the server; do not retry unchanged")
		}
		// Posted to each of its channels; each must be seated, or nobody there could be asked.
		for _, ch := range rec.PostsTo() {
			if _, err := s.Transports.Lookup(ch); err != nil {
				return nil, false, err
			}
			deliveries = append(deliveries, s.delivery(rec, DeliverPost, ch, now))
		}
	}

	rec.Progress = StartProgress(rec, now) // nothing is due of one resolved at once
	stored, created, err := s.Store.CreateInquiry(ctx, rec, deliveries)
	if err != nil {
		return nil, false, err
	}
	if created {
		s.logger().LogAttrs(ctx, slog.LevelInfo, "inquiry created", slog.String("key", stored.Key), slog.String("namespace", stored.Namespace),
			slog.String("policy", string(stored.Config.Policy)), slog.String("transport", stored.Config.Transport), slog.String("inquiry", Render(&stored.Inquiry)))
		s.observe("created", stored)
		s.kickCreated(deliveries)
		if stored.Status.Resolved() {
			s.resolved(stored)
		}
	}
	if !created {
		// Asked before: the inquiry as it stands now, expired if its expiry passed.
		if stored, err = s.current(ctx, stored); err != nil {
			return nil, false, err
		}
	}
	if stored.Status == StatusPending && wait > 0 {
		waited, err := s.Wait(ctx, stored.Key, wait)
		if err != nil {
			return nil, false, err
		}
		stored = waited
	}
	return stored, created, nil
}

// delivery builds a delivery of rec, due now.
func (s *Service) delivery(rec *Record, kind DeliveryKind, target string, now time.Time) Delivery {
	d := Delivery{
		Kind: kind, InquiryKey: rec.Key, Namespace: rec.Namespace, RunID: rec.RunID, Target: target,
		Status: DeliveryPending, NextAttemptAt: now, CreatedAt: now, UpdatedAt: now,
	}
	if kind == DeliverPost || kind == DeliverUpdate || kind == DeliverTally || kind == DeliverNotice || kind == DeliverRemind || kind == DeliverRefresh {
		d.Lane = rec.Slack.Channel // one channel's messages go out in order
		switch {
		case target != TransportSlack && len(rec.PostsTo()) > 1:
			// Another channel of one posted to several: its own lane, so that one channel's
			// pacing (a 429) never holds another's messages, still behind its own post.
			d.Lane = rec.Key + "/" + target
		case d.Lane == "":
			// No channel (email): the inquiry's own messages still go out in order, so that
			// its outcome never runs before the question it updates has been recorded as sent.
			d.Lane = rec.Key
		}
	}
	return d
}

// Wait returns the inquiry as soon as it leaves pending, or as it stands after d (at most
// MaxWait), at its expiry (expired then), on shutdown (the hub closing), or when ctx ends (read
// then without ctx). It is woken, not polled: it subscribes before each read, so that a wake
// between the read and the wait is not lost, and a wake that finds it still pending (a vote, more
// time given by Extend) reads it again, with the expiry that read finds.
//
// The end of the wait is d by a timer, or the service's clock reaching d from the start, which
// a read after a wake looks at; the expiry is measured by the service's clock.
func (s *Service) Wait(ctx context.Context, key string, d time.Duration) (*Record, error) {
	d = min(d, MaxWait)
	woken, unsubscribe := s.Hub.Subscribe(key)
	defer unsubscribe()
	end := s.Clock().Add(d)
	waited := time.NewTimer(max(d, 0))
	defer waited.Stop()
	expiry := time.NewTimer(MaxWait)
	defer expiry.Stop()
	final := d <= 0 // a wait of nothing returns what the first read finds
	for {
		select {
		case <-s.Hub.Closing():
			final = true
		default:
		}
		rec, err := s.Get(ctx, key)
		if err != nil && ctx.Err() != nil {
			// ctx ended during the read: read it as it stands, without ctx.
			final, ctx = true, context.WithoutCancel(ctx)
			continue
		}
		if final || err != nil || rec.Status != StatusPending || !s.Clock().Before(end) {
			return rec, err
		}
		if rec.ExpiresAt != nil {
			expiry.Reset(max(rec.ExpiresAt.Sub(s.Clock()), time.Millisecond))
		}
		select {
		case <-woken:
		case <-waited.C:
			final = true
		case <-expiry.C:
			final = true
		case <-s.Hub.Closing():
			final = true
		case <-ctx.Done():
			final, ctx = true, context.WithoutCancel(ctx)
		}
	}
}

// Get returns an inquiry by key, as it stands now: a pending inquiry past its expiry is
// expired by this read if the sweeper has not got to it. A caller in ctx sees only what it may
// (Visible: its own namespace, or every one for Token.SeesAll); another namespace's inquiry is
// forbidden, not absent.
func (s *Service) Get(ctx context.Context, key string) (*Record, error) {
	rec, err := s.Store.Inquiry(ctx, key)
	if err != nil {
		return nil, err
	}
	if tok := CallerFrom(ctx); tok != nil {
		if err := Visible(rec, tok.Namespace, tok.SeesAll()); err != nil {
			return nil, err
		}
	}
	return s.current(ctx, rec)
}

// current returns rec as it stands at the service's clock. Expiry is exact wherever it is looked
// at: a pending inquiry past expires_at is resolved as expired here, with the sweeper's very
// resolution (its default or a decline, the message update, callbacks and the parked run's
// answer as deliveries of the same transaction) — the conditional update makes it happen once,
// whoever gets there first.
func (s *Service) current(ctx context.Context, rec *Record) (*Record, error) {
	if !rec.DueAt(s.Clock()) {
		return rec, nil
	}
	out, err := s.Expire(ctx, rec)
	if ErrorCode(err) == CodeAlreadyResolved && out != nil {
		return out, nil // a person, the sweeper or another replica was first
	}
	return out, err
}

// List lists inquiries newest first, each as it stands now: the pending ones past their expiry
// are expired first, so that a filter on pending or expired sees them where they belong.
//
// A caller in ctx lists its own namespace, or every one for Token.SeesAll.
func (s *Service) List(ctx context.Context, f ListFilter) ([]*Record, string, error) {
	if err := f.Status.CheckFilter(); err != nil {
		return nil, "", err
	}
	f.RunID = Canon(f.RunID)
	if tok := CallerFrom(ctx); tok != nil && !tok.SeesAll() {
		f.Namespace = tok.Namespace
	}
	if f.Status == "" || f.Status == StatusPending || f.Status == StatusExpired {
		if err := s.expireDue(ctx); err != nil {
			return nil, "", err
		}
	}
	recs, next, err := s.Store.ListInquiries(ctx, f)
	if err != nil {
		return nil, "", err
	}
	out := recs[:0]
	for _, rec := range recs {
		// Anything that fell due after expireDue looked is expired on its own.
		if rec, err = s.current(ctx, rec); err != nil {
			return nil, "", err
		}
		if f.Status == "" || rec.Status == f.Status {
			out = append(out, rec)
		}
	}
	return out, next, nil
}

// expireBatch bounds how many due inquiries a read expires before it lists; the sweeper
// expires the rest.
const expireBatch = 500

// expireDue expires one batch of the inquiries whose expiry passed, as the sweeper does.
func (s *Service) expireDue(ctx context.Context) error {
	due, err := s.Store.DueInquiries(ctx, s.Clock(), nil, expireBatch)
	if err != nil {
		return err
	}
	_, err = s.ExpireMany(ctx, due)
	return err
}

// Answer records the reply of who (as their channel saw them) to a pending inquiry: MayAnswer
// decides whether who may answer it, the one rule for every edge; then it is checked with
// CheckAnswer, capped, and stored by a conditional update so that the first answer wins. A later
// answer gets CodeAlreadyResolved together with the record as it stands, so the caller can say
// who answered first.
//
// No answer is a person's after the inquiry's expiry: from expires_at on, an answer finds the
// inquiry expired (resolving it then if the sweeper has not) and gets CodeAlreadyResolved with
// the sentence that says it expired and what was assumed.
func (s *Service) Answer(ctx context.Context, key string, reply Reply, who Identity) (*Record, error) {
	return s.answer(ctx, key, reply, who, SourcePerson)
}

// AnswerRead is Answer for an inquiry the caller has just read with Get — the Slack app reads it
// to tell a person what happened before they answer — and saves reading it a second time. The
// record read may be stale by then; the conditional update decides all the same (first answer
// wins), and an inquiry resolved since gets CodeAlreadyResolved with the record as it stands.
func (s *Service) AnswerRead(ctx context.Context, rec *Record, reply Reply, who Identity) (*Record, error) {
	return s.answerRecord(ctx, rec, reply, who, SourcePerson)
}

// answer checks, caps and records reply to the inquiry with key as source by who.
func (s *Service) answer(ctx context.Context, key string, reply Reply, who Identity, source Source) (*Record, error) {
	if p, refused := whoever(who); refused && source == SourcePerson {
		return nil, p.Err()
	}
	rec, err := s.Store.Inquiry(ctx, key)
	if err != nil {
		return nil, err
	}
	return s.answerRecord(ctx, rec, reply, who, source)
}

// answerRecord is answer of the inquiry rec, as read from the store. Who may give it is decided
// before anything else is said of the inquiry: a person's answer by MayAnswer, a run's caller's
// (SourceCaller, a token's) by MayHandBack.
func (s *Service) answerRecord(ctx context.Context, rec *Record, reply Reply, who Identity, source Source) (*Record, error) {
	var err error
	if source == SourcePerson {
		if p := MayAnswer(rec, who); !p.Allowed {
			return nil, p.Err()
		}
	} else if err := MayHandBack(rec, who.Token); err != nil {
		return nil, err
	}
	if rec, err = s.current(ctx, rec); err != nil {
		return nil, err
	}
	if rec.Status != StatusPending {
		return rec, AlreadyResolved(rec)
	}
	a, err := CheckAnswer(&rec.Inquiry, reply)
	if err != nil {
		return rec, err
	}
	now := s.Clock()
	if rec.DueAt(now) {
		// The expiry passed while the answer was checked: it is still no person's.
		if rec, err = s.current(ctx, rec); err != nil {
			return nil, err
		}
		return rec, AlreadyResolved(rec)
	}
	by := who.AnsweredBy()
	if rec.Quorum() > 1 {
		return s.vote(ctx, rec, Vote{By: by, Value: a.Value, Text: a.Text, Declined: a.Declined, At: now, Via: ViaFrom(ctx)})
	}
	a.Source, a.AnsweredBy, a.AnsweredAt = source, by, now
	if via := ViaFrom(ctx); via == ViaWeb || via == ViaEmail || via == ViaMCP || via == ViaTeams {
		a.Via = via // an answer through a link, an MCP client or Teams says so; the older ways in keep their shape
	}
	return s.resolveAnswer(ctx, rec, Resolution{Status: StatusAnswered, Answer: &a, At: now})
}

// vote records v on rec, an inquiry that needs several people: a vote that decides it resolves
// it (Tally) in the same transaction; one that does not leaves it pending with the votes so far,
// and the message that shows it is updated with the tally.
func (s *Service) vote(ctx context.Context, rec *Record, v Vote) (*Record, error) {
	out, err := s.Store.Vote(ctx, rec.Key, v, func(cur *Record) (*Resolution, []Delivery) {
		if a := Tally(&cur.Inquiry, cur.Votes); a != nil {
			a.AnsweredAt = v.At
			r := s.withDeliveries(cur, Resolution{Status: StatusAnswered, Answer: a, At: v.At})
			return &r, nil
		}
		return nil, s.toEach(cur, DeliverTally, v.At)
	})
	if err != nil {
		if ErrorCode(err) == CodeAlreadyResolved && out != nil {
			return out, AlreadyResolved(out)
		}
		return out, err
	}
	if out.Status != StatusPending {
		s.resolved(out)
	}
	s.kick()
	return out, nil
}

// Cancel withdraws a pending inquiry. Nobody's answer is recorded. A caller in ctx cancels only
// its own namespace's inquiries (any, for an admin token).
func (s *Service) Cancel(ctx context.Context, key string) (*Record, error) {
	rec, err := s.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if tok := CallerFrom(ctx); tok != nil {
		if err := Visible(rec, tok.Namespace, tok.IsAdmin()); err != nil {
			return nil, err
		}
	}
	if rec.Status != StatusPending {
		return rec, AlreadyResolved(rec)
	}
	return s.resolve(ctx, rec, Resolution{Status: StatusCancelled, At: s.Clock()})
}

// Expire resolves a pending inquiry whose expiry passed with DefaultAnswerFor — its default, or a
// decline — labelled SourceExpired, so a caller can always tell an expiry from a person.
func (s *Service) Expire(ctx context.Context, rec *Record) (*Record, error) {
	return s.resolve(ctx, rec, s.expiry(rec, s.Clock()))
}

// ExpireMany expires recs as Expire does, in one transaction (Store.ResolveMany), and returns how
// many it resolved; an inquiry no longer pending (another replica or a person was first) is
// skipped. Each one resolved wakes its waiters and is observed as Expire's would be. recs are
// records as read from the store (DueInquiries), unchanged: each goes with its expiry as
// ResolveItem.Read, so the store need not read back what an inquiry never changes.
func (s *Service) ExpireMany(ctx context.Context, recs []*Record) (int, error) {
	if len(recs) == 0 {
		return 0, nil
	}
	now := s.Clock()
	items := make([]ResolveItem, len(recs))
	for i, rec := range recs {
		items[i] = ResolveItem{Key: rec.Key, Resolution: s.withDeliveries(rec, s.expiry(rec, now)), Read: rec}
	}
	out, err := s.Store.ResolveMany(ctx, items)
	if err != nil {
		return 0, err
	}
	for _, rec := range out {
		s.resolved(rec)
	}
	if len(out) > 0 {
		s.kick()
	}
	return len(out), nil
}

// expiry is the resolution of rec expiring at now: its default, or a decline, labelled expired.
func (s *Service) expiry(rec *Record, now time.Time) Resolution {
	a := DefaultAnswerFor(&rec.Inquiry)
	a.Source, a.AnsweredAt = SourceExpired, now
	a.Votes = rec.Votes // the votes given in time, beside what was assumed
	// Expiry: rec was read without a lock; an Extend committed since moved the expiry, and wins.
	return Resolution{Status: StatusExpired, Answer: &a, At: now, Expiry: rec.ExpiresAt}
}

// Fail marks a pending inquiry failed because its transport cannot serve it; the failure is
// fatal (inquiry_unavailable) and carries the sentence that says how to fix it.
func (s *Service) Fail(ctx context.Context, key string, cause error) (*Record, error) {
	rec, err := s.Store.Inquiry(ctx, key)
	if err != nil {
		return nil, err
	}
	if rec.Status != StatusPending {
		return rec, AlreadyResolved(rec)
	}
	f := &Failure{Code: CodeUnavailable, Message: ErrorMessage(cause), Fatal: true}
	return s.resolve(ctx, rec, Resolution{Status: StatusFailed, Failure: f, At: s.Clock()})
}

// resolve applies r with its follow-up deliveries, then wakes waiters and the dispatcher.
func (s *Service) resolve(ctx context.Context, rec *Record, r Resolution) (*Record, error) {
	out, err := s.Store.Resolve(ctx, rec.Key, s.withDeliveries(rec, r))
	if err != nil {
		if ErrorCode(err) == CodeAlreadyResolved && out != nil {
			return out, AlreadyResolved(out)
		}
		return out, err
	}
	s.resolved(out)
	s.kick()
	return out, nil
}

// withDeliveries adds to r the follow-up deliveries of resolving rec: each channel shows the
// outcome where it asked; the asker's callback hears it.
func (s *Service) withDeliveries(rec *Record, r Resolution) Resolution {
	r.Deliveries = append(r.Deliveries, s.toEach(rec, DeliverUpdate, r.At)...)
	if rec.CallbackURL != "" {
		r.Deliveries = append(r.Deliveries, s.delivery(rec, DeliverCallback, rec.CallbackURL, r.At))
	}
	return r
}

// toEach is one delivery of kind to each channel rec is posted to (none unless it was asked:
// policy ask, on a channel that shows it), due at.
func (s *Service) toEach(rec *Record, kind DeliveryKind, at time.Time) []Delivery {
	if rec.Config.Policy != PolicyAsk {
		return nil
	}
	var out []Delivery
	for _, ch := range rec.PostsTo() {
		out = append(out, s.delivery(rec, kind, ch, at))
	}
	return out
}

// resolved wakes local waiters and tells whoever listens.
func (s *Service) resolved(rec *Record) {
	s.Hub.Wake(rec.Key)
	s.logger().Info("inquiry resolved", "key", rec.Key, "namespace", rec.Namespace, "status", rec.Status,
		"answer", RenderAnswer(&rec.Inquiry, rec.Answer))
	s.observe("resolved", rec)
}

func (s *Service) observe(event string, rec *Record) {
	if s.Observe != nil {
		s.Observe(event, rec)
	}
}

// AlreadyResolved is the sentence for an inquiry that is no longer pending.
func AlreadyResolved(rec *Record) *Error {
	var what string
	switch rec.Status {
	case StatusAnswered:
		what = "was already answered: " + RenderAnswer(&rec.Inquiry, rec.Answer)
	case StatusExpired:
		at := ""
		if rec.ExpiresAt != nil {
			at = " at " + rec.ExpiresAt.UTC().Format("2006-01-02 15:04 MST")
		}
		what = "expired" + at + "; " + RenderAnswer(&rec.Inquiry, rec.Answer)
	case StatusCancelled:
		what = "was cancelled by the asker"
	case StatusFailed:
		what = "failed"
		if rec.Failure != nil {
			what += ": " + rec.Failure.Message
		}
	default:
		what = "is " + string(rec.Status)
	}
	return Errorf(CodeAlreadyResolved, "inquiry %s %s; nothing was changed", rec.Key, what)
}

// Visible reports whether a caller of namespace ns (or every namespace, when all) may see rec;
// an inquiry of another namespace is forbidden, not merely absent.
func Visible(rec *Record, ns string, all bool) error {
	if all || rec.Namespace == ns {
		return nil
	}
	return Errorf(CodeForbidden, "inquiry %s belongs to another namespace: use a token of namespace %q, or an answer or admin token", rec.Key, rec.Namespace)
}

// String makes a Config readable in logs.
func (c Config) String() string { return fmt.Sprintf("policy=%s transport=%s", c.Policy, c.Transport) }
