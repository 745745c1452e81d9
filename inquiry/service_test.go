package inquiry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/dispatch"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/internal/wake"
	"github.com/inquiry-bot/bot/storage"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

type bundle struct {
	svc   *inquiry.Service
	hub   *wake.Hub
	store inquiry.Store
	clock *testkit.Clock
	ctx   context.Context
}

// setup gives a service over a real SQLite store in a temp dir.
func setup(t *testing.T) *bundle {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "bot.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	c := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	svc := inquiry.NewService(st, inquiry.NewRegistry())
	svc.Now = c.Now
	hub := wake.NewHub()
	svc.Hub = hub
	return &bundle{svc: svc, hub: hub, store: st, clock: c, ctx: ctx}
}

func merge() inquiry.Inquiry {
	return inquiry.Inquiry{
		ID: "deploy-42:merge", Kind: inquiry.KindChoice, Question: "Merge now?",
		Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}},
		Default: inquiry.One("hold"),
	}
}

func ask(policy inquiry.Policy, in inquiry.Inquiry) inquiry.AskRequest {
	return inquiry.AskRequest{Namespace: "ns", Inquiry: in, Config: &inquiry.Config{Policy: policy}}
}

func TestNoConfigurationMeansDefault(t *testing.T) {
	b := setup(t)
	rec, created, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: merge()})
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, inquiry.StatusAnswered, rec.Status)
	require.Equal(t, inquiry.PolicyDefault, rec.Config.Policy)
	require.Equal(t, inquiry.SourceDefault, rec.Answer.Source)
	require.Equal(t, "hold", rec.Answer.Value.First())
	require.False(t, rec.Answer.Declined)

	in := merge()
	in.ID, in.Default = "no-default", inquiry.Value{}
	rec, _, err = b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: in})
	require.NoError(t, err)
	require.True(t, rec.Answer.Declined, "no default: the assumption is a decline")
	require.Equal(t, inquiry.SourceDefault, rec.Answer.Source)
}

func TestServerDefaultPolicyAsk(t *testing.T) {
	b := setup(t)
	b.svc.DefaultPolicy = inquiry.PolicyAsk
	rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: merge()})
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, rec.Status)
	require.Equal(t, inquiry.TransportInbox, rec.Config.Transport)
}

func TestRefuseStoresNothing(t *testing.T) {
	b := setup(t)
	_, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyRefuse, merge()))
	require.ErrorIs(t, err, inquiry.ErrDeclined)
	require.False(t, inquiry.Fatal(err), "a refusal by policy is not fatal")
	_, err = b.store.InquiryByID(b.ctx, "ns", "", "deploy-42:merge")
	require.ErrorIs(t, err, inquiry.ErrNotFound)
}

func TestUnseatedTransportIsFatalAndStoresNothing(t *testing.T) {
	b := setup(t)
	req := ask(inquiry.PolicyAsk, merge())
	req.Config.Transport = inquiry.TransportSlack
	_, _, err := b.svc.Ask(b.ctx, req)
	require.ErrorIs(t, err, inquiry.ErrUnavailable)
	require.True(t, inquiry.Fatal(err))
	require.Contains(t, inquiry.ErrorMessage(err), "SLACK_BOT_TOKEN")
	_, err = b.store.InquiryByID(b.ctx, "ns", "", "deploy-42:merge")
	require.ErrorIs(t, err, inquiry.ErrNotFound)
}

func TestInvalidInquiryStoresNothing(t *testing.T) {
	b := setup(t)
	in := merge()
	in.Default = inquiry.One("ship")
	_, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, in))
	require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err))
	require.Equal(t, "default", inquiry.ErrorField(err))
	_, err = b.store.InquiryByID(b.ctx, "ns", "", in.ID)
	require.ErrorIs(t, err, inquiry.ErrNotFound)
}

func TestAskedOnceAndFirstAnswerWins(t *testing.T) {
	b := setup(t)
	first, created, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, merge()))
	require.NoError(t, err)
	require.True(t, created)
	again, created, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, merge()))
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, first.Key, again.Key)

	other := merge()
	other.Question = "Merge later?"
	_, _, err = b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, other))
	require.Equal(t, inquiry.CodeIDConflict, inquiry.ErrorCode(err))

	rec, err := b.svc.Answer(b.ctx, first.Key, inquiry.Reply{Text: "  MERGE "}, inquiry.SlackUser("U123", nil))
	require.NoError(t, err)
	require.Equal(t, "merge", rec.Answer.Value.First())
	require.Equal(t, inquiry.SourcePerson, rec.Answer.Source)
	require.Equal(t, "U123", rec.Answer.AnsweredBy)

	rec, err = b.svc.Answer(b.ctx, first.Key, inquiry.Reply{Value: inquiry.One("hold")}, inquiry.SlackUser("U999", nil))
	require.ErrorIs(t, err, inquiry.ErrAlreadyResolved)
	require.Contains(t, inquiry.ErrorMessage(err), "U123")
	require.Equal(t, "merge", rec.Answer.Value.First(), "the first answer stands")
}

func TestAnswerRefusesNoneOfTheOffered(t *testing.T) {
	b := setup(t)
	rec, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, merge()))
	require.NoError(t, err)
	_, err = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Text: "yes, merge it"}, inquiry.SlackUser("U1", nil))
	require.Equal(t, inquiry.CodeInvalidAnswer, inquiry.ErrorCode(err))
	got, err := b.svc.Get(b.ctx, rec.Key)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, got.Status, "a refused answer changes nothing")
}

// waitAside waits on key for 30 s on a goroutine of its own: done gives what the wait returned.
func waitAside(t *testing.T, b *bundle, key string) (done <-chan *inquiry.Record) {
	c := make(chan *inquiry.Record, 1)
	go func() {
		got, err := b.svc.Wait(b.ctx, key, 30*time.Second)
		if err != nil {
			t.Error(err)
		}
		c <- got
	}()
	return c
}

func TestWaitWakesOnAnswer(t *testing.T) {
	b := setup(t)
	rec, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, merge()))
	require.NoError(t, err)
	done := waitAside(t, b, rec.Key)
	waiting(t, b, 1) // the answer comes once the wait is subscribed: it is the wake that ends it
	_, err = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	select {
	case got := <-done:
		require.Equal(t, inquiry.StatusAnswered, got.Status)
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not woken by the answer")
	}
	require.Equal(t, 0, b.hub.Waiters(), "a finished wait leaves nothing behind")
}

func TestExpireUsesDefaultOrDeclines(t *testing.T) {
	b := setup(t)
	exp := b.clock.Now().Add(time.Hour)
	in := merge()
	in.ExpiresAt = &exp
	with, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, in))
	require.NoError(t, err)
	in.ID, in.Default = "no-default", inquiry.Value{}
	without, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, in))
	require.NoError(t, err)

	got, err := b.svc.Expire(b.ctx, with)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusExpired, got.Status)
	require.Equal(t, inquiry.SourceExpired, got.Answer.Source)
	require.Equal(t, "hold", got.Answer.Value.First())
	require.False(t, got.Answer.Declined)

	got, err = b.svc.Expire(b.ctx, without)
	require.NoError(t, err)
	require.True(t, got.Answer.Declined)
	require.Equal(t, inquiry.SourceExpired, got.Answer.Source)

	_, err = b.svc.Expire(b.ctx, with)
	require.ErrorIs(t, err, inquiry.ErrAlreadyResolved, "an inquiry expires once")
}

func TestRunThreeOutcomes(t *testing.T) {
	b := setup(t)
	_, err := b.svc.RegisterRun(asNS(b.ctx), "deploy-42", &inquiry.Config{Policy: inquiry.PolicyAsk}, "")
	require.NoError(t, err)

	// 3. Nobody answers in time: the run parks.
	res, err := b.svc.AskInRun(asNS(b.ctx), "deploy-42", inquiry.AskRequest{Inquiry: merge()})
	require.NoError(t, err)
	require.Equal(t, inquiry.RunAskWaiting, res.Status)
	require.Equal(t, inquiry.RunWaiting, res.Run.Status)
	require.Equal(t, inquiry.PolicyAsk, res.Inquiry.Config.Policy, "the run's config decides how to ask")

	// A week passes; the sweeper must not touch a waiting run.
	b.clock.Add(7 * 24 * time.Hour)
	n, err := b.svc.SweepStale(b.ctx, 10*time.Minute)
	require.NoError(t, err)
	require.Equal(t, 0, n)

	// A person answers with long prose: the state keeps 200 characters, the run stays waiting.
	long := strings.Repeat("é", 3000)
	in := merge()
	in.ID, in.Kind, in.Options, in.Default = "deploy-42:notes", inquiry.KindText, nil, inquiry.Value{}
	res2, err := b.svc.AskInRun(asNS(b.ctx), "deploy-42", inquiry.AskRequest{Inquiry: in})
	require.NoError(t, err)
	_, err = b.svc.Answer(b.ctx, res.Inquiry.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	_, err = b.svc.Answer(b.ctx, res2.Inquiry.Key, inquiry.Reply{Text: long}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	run, err := b.svc.GetRun(asNS(b.ctx), "deploy-42")
	require.NoError(t, err)
	require.Equal(t, inquiry.RunWaiting, run.Status)
	require.Equal(t, "merge", run.Answers["deploy-42:merge"].Value.First())
	require.Equal(t, inquiry.StateTextChars, len([]rune(run.Answers["deploy-42:notes"].Text)))
	require.True(t, run.Answers["deploy-42:notes"].Truncated)

	// 1. A re-entry finds the answer in the state and asks nobody again.
	res, err = b.svc.AskInRun(asNS(b.ctx), "deploy-42", inquiry.AskRequest{Inquiry: merge()})
	require.NoError(t, err)
	require.Equal(t, inquiry.RunAskAnswered, res.Status)
	require.Equal(t, "merge", res.Answer.Value.First())
	require.Equal(t, inquiry.RunRunning, res.Run.Status)

	// 2. Answered at once (policy default): recorded in the state, the full answer returned.
	in = merge()
	in.ID = "deploy-42:tone"
	res, err = b.svc.AskInRun(asNS(b.ctx), "deploy-42", inquiry.AskRequest{Inquiry: in, Config: &inquiry.Config{Policy: inquiry.PolicyDefault}})
	require.NoError(t, err)
	require.Equal(t, inquiry.RunAskAnswered, res.Status)
	require.Equal(t, inquiry.SourceDefault, res.Answer.Source)
	require.Contains(t, res.Run.Answers, "deploy-42:tone")
	require.Contains(t, res.Run.Answers, "deploy-42:merge", "answers accumulate")
}

func TestResumeMergesWithTheStateCut(t *testing.T) {
	b := setup(t)
	_, err := b.svc.RegisterRun(asNS(b.ctx), "r1", nil, "")
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprintf("step-%d", i)
			_, err := b.svc.Resume(inquiry.WithCaller(b.ctx, &inquiry.Token{Name: "ns", Namespace: "ns", Scopes: []inquiry.Scope{inquiry.ScopeAsk}}), "r1", map[string]inquiry.Answer{id: {Text: strings.Repeat("x", 5000)}})
			if err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	run, err := b.svc.GetRun(asNS(b.ctx), "r1")
	require.NoError(t, err)
	require.Len(t, run.Answers, 20, "concurrent resumes never lose a sibling's answer")
	for id, a := range run.Answers {
		require.Equal(t, inquiry.StateTextChars, len(a.Text), id)
		require.True(t, a.Truncated)
		require.Equal(t, id, a.InquiryID)
	}
	require.Equal(t, inquiry.RunRunning, run.Status)
}

// fakeTransport records posts and can fail on demand.
type fakeTransport struct {
	mu      sync.Mutex
	posted  []string
	updated []string
	fail    func(n int) error // called with the post's number (1-based)
	calls   atomic.Int32
}

func (f *fakeTransport) Post(_ context.Context, rec *inquiry.Record) (inquiry.Posted, error) {
	n := int(f.calls.Add(1))
	if f.fail != nil {
		if err := f.fail(n); err != nil {
			return inquiry.Posted{}, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posted = append(f.posted, rec.ID)
	return inquiry.Posted{Place: rec.Slack.Channel, ID: fmt.Sprintf("1700000000.%06d", len(f.posted))}, nil
}

func (f *fakeTransport) Update(_ context.Context, rec *inquiry.Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.updated = append(f.updated, rec.ID)
	return nil
}

func (f *fakeTransport) Notice(context.Context, *inquiry.Record) error { return nil }

func TestDispatcherPostsInOrderThroughRateLimits(t *testing.T) {
	b := setup(t)
	ft := &fakeTransport{fail: func(n int) error {
		if n%4 == 0 {
			return &inquiry.RetryAfterError{After: time.Second, Err: errors.New("ratelimited")}
		}
		return nil
	}}
	b.svc.Transports.Register(inquiry.TransportSlack, ft)
	d := &dispatch.Dispatcher{Store: b.store, Handlers: b.svc.TransportHandlers(), Now: b.clock.Now, Batch: 7}
	var want []string
	for i := 0; i < 40; i++ {
		in := merge()
		in.ID = fmt.Sprintf("q%02d", i)
		req := ask(inquiry.PolicyAsk, in)
		req.Config.Transport = inquiry.TransportSlack
		req.Slack = &inquiry.SlackTarget{Channel: "C1"}
		_, _, err := b.svc.Ask(b.ctx, req)
		require.NoError(t, err)
		want = append(want, in.ID)
	}
	for i := 0; i < 200 && len(ft.posted) < 40; i++ {
		_, err := d.Drain(b.ctx)
		require.NoError(t, err)
		b.clock.Add(time.Second)
	}
	require.Equal(t, want, ft.posted, "all 40 posted exactly once, in order")
}

func TestFatalPostFailsTheInquiry(t *testing.T) {
	b := setup(t)
	ft := &fakeTransport{fail: func(int) error {
		return inquiry.Unavailable("channel_not_found: invite the bot to the channel or fix the channel id")
	}}
	b.svc.Transports.Register(inquiry.TransportSlack, ft)
	d := &dispatch.Dispatcher{Store: b.store, Handlers: b.svc.TransportHandlers(), Now: b.clock.Now}
	req := ask(inquiry.PolicyAsk, merge())
	req.Config.Transport = inquiry.TransportSlack
	req.Slack = &inquiry.SlackTarget{Channel: "C404"}
	rec, _, err := b.svc.Ask(b.ctx, req)
	require.NoError(t, err)
	_, err = d.Drain(b.ctx)
	require.NoError(t, err)
	got, err := b.svc.Get(b.ctx, rec.Key)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusFailed, got.Status)
	require.True(t, got.Failure.Fatal)
	require.Equal(t, inquiry.CodeUnavailable, got.Failure.Code)
	require.Contains(t, got.Failure.Message, "channel_not_found")
	ds, err := b.store.ListDeliveries(b.ctx, rec.Key)
	require.NoError(t, err)
	require.Equal(t, inquiry.DeliveryFailed, ds[0].Status, "a fatal error is given up at once")
	require.Equal(t, 1, int(ft.calls.Load()))
}

// asNS is ctx with an ask token of namespace "ns" as the caller: the namespace runs live in.
func asNS(ctx context.Context) context.Context {
	return inquiry.WithCaller(ctx, &inquiry.Token{Name: "ns", Namespace: "ns", Scopes: []inquiry.Scope{inquiry.ScopeAsk}})
}

// Runs live in the caller's namespace; without a caller nobody's runs are reached.
func TestRunsNeedACaller(t *testing.T) {
	b := setup(t)
	_, err := b.svc.RegisterRun(b.ctx, "r1", nil, "")
	require.Equal(t, inquiry.CodeUnauthenticated, inquiry.ErrorCode(err))
	_, err = b.svc.AskInRun(b.ctx, "r1", inquiry.AskRequest{Inquiry: merge()})
	require.Equal(t, inquiry.CodeUnauthenticated, inquiry.ErrorCode(err))

	other := inquiry.WithCaller(b.ctx, &inquiry.Token{Name: "other", Namespace: "other", Scopes: []inquiry.Scope{inquiry.ScopeAsk}})
	_, err = b.svc.RegisterRun(asNS(b.ctx), "r1", nil, "")
	require.NoError(t, err)
	_, err = b.svc.GetRun(other, "r1")
	require.Equal(t, inquiry.CodeNotFound, inquiry.ErrorCode(err), "a run of another namespace is not there")
	runs, err := b.svc.ListRuns(other, "ns", "", 10)
	require.NoError(t, err)
	require.Empty(t, runs, "only an admin names another namespace")
}

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// setupOn gives a service over a fresh database of the URL's kind, on the test clock.
func setupOn(t *testing.T, databaseURL string) *bundle {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, databaseURL)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	c := testkit.NewClock(time.Now().UTC().Truncate(time.Second))
	reg := inquiry.NewRegistry()
	reg.Register("chat", &fakeTransport{})
	svc := inquiry.NewService(st, reg)
	svc.Now = c.Now
	svc.Log = quietLog
	hub := wake.NewHub()
	svc.Hub = hub
	return &bundle{svc: svc, hub: hub, store: st, clock: c, ctx: ctx}
}

// Expiry is exact wherever it is looked at (issue 12): a read, an answer, a run's ask after
// expires_at see the inquiry expired, and the follow-up work of the expiry is enqueued once,
// however many readers and sweepers race for it.
func TestExpiryIsExactWhereverItIsLookedAt(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setupOn(t, databaseURL)
		at := b.clock.Now().Add(time.Hour)
		in := merge()
		in.ExpiresAt = &at
		req := inquiry.AskRequest{Namespace: "ns", Inquiry: in, CallbackURL: "https://example.com/cb",
			Config: &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: "chat"}}
		rec, _, err := b.svc.Ask(b.ctx, req)
		require.NoError(t, err)

		b.clock.Add(time.Hour) // exactly at the expiry: no longer a person's to answer
		out, err := b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
		require.Equal(t, inquiry.CodeAlreadyResolved, inquiry.ErrorCode(err))
		require.Contains(t, inquiry.ErrorMessage(err), "expired")
		require.Contains(t, inquiry.ErrorMessage(err), "Hold (assumed: nobody answered in time)")
		require.Equal(t, inquiry.StatusExpired, out.Status)
		require.Equal(t, inquiry.SourceExpired, out.Answer.Source)

		// Readers and two sweepers race over a second one; it resolves once.
		in.ID = "deploy-42:other"
		at2 := b.clock.Now().Add(time.Minute)
		in.ExpiresAt = &at2
		req.Inquiry = in
		rec2, _, err := b.svc.Ask(b.ctx, req)
		require.NoError(t, err)
		b.clock.Add(2 * time.Minute)
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				switch i % 4 {
				case 0:
					got, err := b.svc.Get(b.ctx, rec2.Key)
					if err == nil && got.Status != inquiry.StatusExpired {
						t.Errorf("a read after the expiry saw %s", got.Status)
					}
				case 1:
					_, _, err := b.svc.List(b.ctx, inquiry.ListFilter{Namespace: "ns", Status: inquiry.StatusPending})
					if err != nil {
						t.Error(err)
					}
				case 2:
					due, err := b.store.DueInquiries(b.ctx, b.clock.Now(), nil, 10)
					if err == nil {
						_, err = b.svc.ExpireMany(b.ctx, due)
					}
					if err != nil {
						t.Error(err)
					}
				case 3:
					_, err := b.svc.Answer(b.ctx, rec2.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U2", nil))
					if inquiry.ErrorCode(err) != inquiry.CodeAlreadyResolved {
						t.Errorf("an answer after the expiry: %v", err)
					}
				}
			}(i)
		}
		wg.Wait()
		ds, err := b.store.ListDeliveries(b.ctx, rec2.Key)
		require.NoError(t, err)
		kinds := map[inquiry.DeliveryKind]int{}
		for _, d := range ds {
			kinds[d.Kind]++
		}
		require.Equal(t, map[inquiry.DeliveryKind]int{inquiry.DeliverPost: 1, inquiry.DeliverUpdate: 1, inquiry.DeliverCallback: 1}, kinds,
			"the message update and the callback of one expiry are enqueued once")
		got, err := b.svc.Get(b.ctx, rec2.Key)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusExpired, got.Status)
		require.Empty(t, got.Answer.AnsweredBy)
	})
}

func TestAWaitEndsAtTheExpiry(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setupOn(t, databaseURL)
		b.svc.Now = nil // the wall clock: the wait is timed by it
		at := time.Now().Add(300 * time.Millisecond)
		in := merge()
		in.ExpiresAt = &at
		rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: in, Config: &inquiry.Config{Policy: inquiry.PolicyAsk}})
		require.NoError(t, err)
		start := time.Now()
		got, err := b.svc.Wait(b.ctx, rec.Key, inquiry.MaxWait)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusExpired, got.Status, "the wait ends at the expiry, with the inquiry expired")
		require.Less(t, time.Since(start), inquiry.MaxWait/2, "not at the end of the wait")
	})
}

func TestAnIDOfBlanksIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, id := range []string{" ", "   ", "\t"} {
		in := merge()
		in.ID = id
		_, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, in))
		require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err), "%q", id)
		require.Equal(t, "id", inquiry.ErrorField(err))
	}
}

// requireRunFull checks err is the refusal of a run past its bound: 422 invalid_answer on
// answers, one sentence naming the limit and the fix.
func requireRunFull(t *testing.T, err error, limit string) {
	t.Helper()
	require.Equal(t, inquiry.CodeInvalidAnswer, inquiry.ErrorCode(err), "err: %v", err)
	require.Equal(t, "answers", inquiry.ErrorField(err))
	msg := inquiry.ErrorMessage(err)
	require.Contains(t, msg, limit, "the sentence names the limit")
	require.Contains(t, msg, "finish this run and start another", "the sentence names the fix")
	require.NotContains(t, msg, "\n")
}

// smallAnswers are n answers handed back for ids no inquiry has, from step-<from>.
func smallAnswers(from, n int) map[string]inquiry.Answer {
	m := make(map[string]inquiry.Answer, n)
	for i := from; i < from+n; i++ {
		m[fmt.Sprintf("step-%04d", i)] = inquiry.Answer{Value: inquiry.One("ok")}
	}
	return m
}

// bigAnswers are n answers as large as a resume lets an answer be: 12 decisions of 150
// characters that JSON escapes six bytes each (about 11 kB of state apiece, from 2 kB sent).
func bigAnswers(from, n int) map[string]inquiry.Answer {
	items := make([]string, inquiry.MaxOptions)
	for i := range items {
		items[i] = fmt.Sprintf("%02d", i) + strings.Repeat("<", inquiry.MaxOptionValueChars-2)
	}
	m := make(map[string]inquiry.Answer, n)
	for i := from; i < from+n; i++ {
		m[fmt.Sprintf("big-%04d", i)] = inquiry.Answer{Value: inquiry.Many(items...)}
	}
	return m
}

// A run holds at most MaxRunAnswers answers: a resume past it is refused whole, handing back
// what the run holds already is taken, and a new question is refused before anybody is asked.
func TestRunHoldsAtMostMaxRunAnswers(t *testing.T) {
	b := setup(t)
	ctx := asNS(b.ctx)
	_, err := b.svc.RegisterRun(ctx, "r1", nil, "")
	require.NoError(t, err)

	run, err := b.svc.Resume(ctx, "r1", smallAnswers(0, inquiry.MaxRunAnswers))
	require.NoError(t, err)
	require.Equal(t, inquiry.MaxRunAnswers, len(run.Answers))

	_, err = b.svc.Resume(ctx, "r1", smallAnswers(inquiry.MaxRunAnswers, 1))
	requireRunFull(t, err, "1000 answers")
	run, err = b.svc.GetRun(ctx, "r1")
	require.NoError(t, err)
	require.Equal(t, inquiry.MaxRunAnswers, len(run.Answers), "the refused resume wrote nothing")

	_, err = b.svc.Resume(ctx, "r1", smallAnswers(0, 10))
	require.NoError(t, err, "answers the run holds already add nothing")

	in := merge()
	_, err = b.svc.AskInRun(ctx, "r1", inquiry.AskRequest{Inquiry: in, Config: &inquiry.Config{Policy: inquiry.PolicyDefault}})
	requireRunFull(t, err, "1000 answers")
	_, err = b.store.InquiryByID(b.ctx, "ns", "r1", in.ID)
	require.Equal(t, inquiry.CodeNotFound, inquiry.ErrorCode(err), "a full run asks nobody")

	res, err := b.svc.AskInRun(ctx, "r1", inquiry.AskRequest{Inquiry: inquiry.Inquiry{ID: "step-0001", Kind: inquiry.KindText, Question: "Again?"}})
	require.NoError(t, err, "a re-entry still finds its answer in a full run")
	require.Equal(t, inquiry.RunAskAnswered, res.Status)
}

// A run holds at most MaxRunStateBytes of state, its config and answers as JSON: resumes that
// would pass it are refused whole, whoever writes (the store refuses too).
func TestRunStateAtMostOneMiB(t *testing.T) {
	b := setup(t)
	ctx := asNS(b.ctx)
	_, err := b.svc.RegisterRun(ctx, "r1", &inquiry.Config{Policy: inquiry.PolicyAsk}, "")
	require.NoError(t, err)

	_, err = b.svc.Resume(ctx, "r1", bigAnswers(0, 120))
	requireRunFull(t, err, "1 MiB")
	run, err := b.svc.GetRun(ctx, "r1")
	require.NoError(t, err)
	require.Equal(t, 0, len(run.Answers), "the refused resume wrote nothing")

	run, err = b.svc.Resume(ctx, "r1", bigAnswers(0, 60))
	require.NoError(t, err)
	require.Equal(t, 60, len(run.Answers))
	_, err = b.svc.Resume(ctx, "r1", bigAnswers(60, 60))
	requireRunFull(t, err, "1 MiB")

	_, err = b.store.RecordAnswers(b.ctx, "ns", "r1", bigAnswers(60, 60), inquiry.RunRunning, b.clock.Now())
	requireRunFull(t, err, "1 MiB")
	run, err = b.svc.GetRun(ctx, "r1")
	require.NoError(t, err)
	require.Equal(t, 60, len(run.Answers))
	require.LessOrEqual(t, inquiry.RunStateBytes(run), inquiry.MaxRunStateBytes)
}

// A run whose state has no room left for one more answer asks nobody.
func TestFullStateAsksNobody(t *testing.T) {
	b := setup(t)
	ctx := asNS(b.ctx)
	_, err := b.svc.RegisterRun(ctx, "r1", nil, "")
	require.NoError(t, err)
	// Fill the state ten answers at a time, then one at a time, until it takes no more.
	next := 0
	for _, step := range []int{10, 1} {
		for {
			require.Less(t, next, 200, "200 answers of 11 kB are past 1 MiB, yet the run took them all")
			_, err := b.svc.Resume(ctx, "r1", bigAnswers(next, step))
			if err != nil {
				requireRunFull(t, err, "1 MiB")
				break
			}
			next += step
		}
	}
	run, err := b.svc.GetRun(ctx, "r1")
	require.NoError(t, err)
	require.Greater(t, inquiry.RunStateBytes(run), inquiry.MaxRunStateBytes-20<<10, "full to within two answers")
	in := merge()
	_, err = b.svc.AskInRun(ctx, "r1", inquiry.AskRequest{Inquiry: in, Config: &inquiry.Config{Policy: inquiry.PolicyDefault}})
	requireRunFull(t, err, "1 MiB")
	_, err = b.store.InquiryByID(b.ctx, "ns", "r1", in.ID)
	require.Equal(t, inquiry.CodeNotFound, inquiry.ErrorCode(err), "a full run asks nobody")
}

// An answer to a question the run parked on is never refused for the run's sake: the inquiry
// is answered, and a run already full does not take it into its state.
func TestParkedAnswerNeverOverfillsARun(t *testing.T) {
	b := setup(t)
	ctx := asNS(b.ctx)
	_, err := b.svc.RegisterRun(ctx, "r1", &inquiry.Config{Policy: inquiry.PolicyAsk}, "")
	require.NoError(t, err)
	res, err := b.svc.AskInRun(ctx, "r1", inquiry.AskRequest{Inquiry: merge()})
	require.NoError(t, err)
	require.Equal(t, inquiry.RunAskWaiting, res.Status)

	_, err = b.svc.Resume(ctx, "r1", smallAnswers(0, inquiry.MaxRunAnswers))
	require.NoError(t, err)
	rec, err := b.svc.Answer(b.ctx, res.Inquiry.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err, "the person's answer is taken")
	require.Equal(t, inquiry.StatusAnswered, rec.Status)

	run, err := b.svc.GetRun(ctx, "r1")
	require.NoError(t, err)
	require.Equal(t, inquiry.MaxRunAnswers, len(run.Answers))
	_, ok := run.Answers[merge().ID]
	require.False(t, ok, "the full run did not take the answer")

	_, err = b.svc.AskInRun(ctx, "r1", inquiry.AskRequest{Inquiry: merge()})
	requireRunFull(t, err, "1000 answers")
}

// The service's kick names what it enqueued: a create that posts asks for the transports' work
// only, one with a callback for both classes, and an answer, after which the store may enqueue the
// resume of a run waiting on it, for every class.
func TestTheServiceKicksForWhatItEnqueued(t *testing.T) {
	b := setup(t)
	b.svc.Transports.Register(inquiry.TransportSlack, &fakeTransport{})
	var kicks [][]inquiry.DeliveryKind
	b.svc.Kick = func(kinds ...inquiry.DeliveryKind) { kicks = append(kicks, kinds) }

	req := ask(inquiry.PolicyAsk, merge())
	req.Config.Transport = inquiry.TransportSlack
	req.Slack = &inquiry.SlackTarget{Channel: "C1"}
	rec, _, err := b.svc.Ask(b.ctx, req)
	require.NoError(t, err)
	require.Equal(t, [][]inquiry.DeliveryKind{{inquiry.DeliverPost}}, kicks)

	in := merge()
	in.ID = "deploy-42:now"
	cb := ask(inquiry.PolicyDefault, in)
	cb.CallbackURL = "http://receiver.example/cb"
	_, _, err = b.svc.Ask(b.ctx, cb)
	require.NoError(t, err)
	require.Equal(t, []inquiry.DeliveryKind{inquiry.DeliverCallback}, kicks[1], "resolved at once by its policy: only the callback")

	_, err = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	require.Len(t, kicks, 3)
	require.Empty(t, kicks[2], "a resolution kicks every class")
}

// TestTallyUpdateAfterResolutionIsSkipped: each vote that decides nothing asks for the message to
// show the tally; when such an update goes out only after the inquiry has resolved, it does
// nothing, so that the message is updated for the resolution once (by the resolution's own
// update), not twice.
func TestTallyUpdateAfterResolutionIsSkipped(t *testing.T) {
	b := setup(t)
	ft := &fakeTransport{}
	b.svc.Transports.Register(inquiry.TransportSlack, ft)
	d := &dispatch.Dispatcher{Store: b.store, Handlers: b.svc.TransportHandlers(), Now: b.clock.Now}
	in := inquiry.Inquiry{ID: "deploy", Kind: inquiry.KindConfirm, Question: "Deploy?"}
	two := 2
	in.Approvals = &two
	req := ask(inquiry.PolicyAsk, in)
	req.Config.Transport = inquiry.TransportSlack
	req.Slack = &inquiry.SlackTarget{Channel: "C1"}
	rec, _, err := b.svc.Ask(b.ctx, req)
	require.NoError(t, err)
	_, err = d.Drain(b.ctx) // posted
	require.NoError(t, err)
	require.Equal(t, []string{"deploy"}, ft.posted)

	// Both votes before the dispatcher runs again: the first one's tally update is still due
	// when the second resolves the inquiry.
	for _, who := range []string{"U1", "U2"} {
		_, err := b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("yes")}, inquiry.SlackUser(who, nil))
		require.NoError(t, err)
	}
	for range 3 {
		_, err = d.Drain(b.ctx)
		require.NoError(t, err)
	}
	require.Equal(t, []string{"deploy"}, ft.updated, "one update: the resolution's")
}

// TestAWaitFollowsAnExtendedExpiry: a long-poll timed to end at the expiry waits for the new one
// when the inquiry is extended meanwhile, so an answer after the old expiry still reaches it.
// Before: it ended at the old expiry with the inquiry still pending.
func TestAWaitFollowsAnExtendedExpiry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.svc.Now = nil // the wall clock: the wait is timed by it
	at := time.Now().Add(time.Second)
	in := merge()
	in.ExpiresAt = &at
	in.Extend = &inquiry.Extension{By: inquiry.Duration(time.Hour), Max: inquiry.Duration(time.Hour)}
	rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: in, Config: &inquiry.Config{Policy: inquiry.PolicyAsk}})
	require.NoError(t, err)
	done := waitAside(t, b, rec.Key)
	waiting(t, b, 1)
	_, err = b.svc.Extend(b.ctx, rec.Key, 0, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	// The scenario is the wall clock passing the old expiry: a slower machine only passes it by more.
	time.Sleep(time.Until(at.Add(300 * time.Millisecond)))
	_, err = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	select {
	case got := <-done:
		require.Equal(t, inquiry.StatusAnswered, got.Status, "the wait outlived the old expiry and saw the answer")
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter was not woken by the answer")
	}
}

// TestAnExpiryReadBeforeAnExtendLosesToIt: a sweeper whose clock runs ahead (another replica)
// reads an inquiry due, a person extends it on a replica whose clock says it is not due yet, and
// then the sweeper's expiry arrives: the extension stands — nothing is expired, the inquiry is
// pending with its new expiry — and the inquiry can still be answered.
func TestAnExpiryReadBeforeAnExtendLosesToIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	at := b.clock.Now().Add(time.Minute)
	in := merge()
	in.ExpiresAt = &at
	in.Extend = &inquiry.Extension{By: inquiry.Duration(time.Hour), Max: inquiry.Duration(time.Hour)}
	rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: in, Config: &inquiry.Config{Policy: inquiry.PolicyAsk}})
	require.NoError(t, err)
	due, err := b.store.DueInquiries(b.ctx, b.clock.Now().Add(2*time.Minute), nil, 10) // the sweeper's clock
	require.NoError(t, err)
	require.Len(t, due, 1)
	ext, err := b.svc.Extend(b.ctx, rec.Key, 0, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	n, err := b.svc.ExpireMany(b.ctx, due)
	require.NoError(t, err)
	require.Zero(t, n, "the expiry of an inquiry extended since its read")
	got, err := b.svc.Get(b.ctx, rec.Key)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, got.Status)
	require.Equal(t, *ext.ExpiresAt, *got.ExpiresAt)
	_, err = b.svc.Expire(b.ctx, due[0]) // one alone, as a read past the old expiry would
	require.Equal(t, inquiry.CodeAlreadyResolved, inquiry.ErrorCode(err))
	out, err := b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusAnswered, out.Status)
}
