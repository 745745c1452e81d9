package inquiry_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
)

// clock is a test clock that moves only when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type bundle struct {
	svc   *inquiry.Service
	store inquiry.Store
	clock *clock
	ctx   context.Context
}

// setup gives a service over a real SQLite store in a temp dir.
func setup(t *testing.T) *bundle {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "bot.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	c := &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	svc := inquiry.NewService(st, inquiry.NewRegistry())
	svc.Now = c.Now
	return &bundle{svc: svc, store: st, clock: c, ctx: ctx}
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

	rec, err := b.svc.Answer(b.ctx, first.Key, inquiry.Reply{Text: "  MERGE "}, "U123")
	require.NoError(t, err)
	require.Equal(t, "merge", rec.Answer.Value.First())
	require.Equal(t, inquiry.SourcePerson, rec.Answer.Source)
	require.Equal(t, "U123", rec.Answer.AnsweredBy)

	rec, err = b.svc.Answer(b.ctx, first.Key, inquiry.Reply{Value: inquiry.One("hold")}, "U999")
	require.ErrorIs(t, err, inquiry.ErrAlreadyResolved)
	require.Contains(t, inquiry.ErrorMessage(err), "U123")
	require.Equal(t, "merge", rec.Answer.Value.First(), "the first answer stands")
}

func TestAnswerRefusesNoneOfTheOffered(t *testing.T) {
	b := setup(t)
	rec, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, merge()))
	require.NoError(t, err)
	_, err = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Text: "yes, merge it"}, "U1")
	require.Equal(t, inquiry.CodeInvalidAnswer, inquiry.ErrorCode(err))
	got, err := b.svc.Get(b.ctx, rec.Key)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, got.Status, "a refused answer changes nothing")
}

func TestWaitWakesOnAnswer(t *testing.T) {
	b := setup(t)
	rec, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, merge()))
	require.NoError(t, err)
	done := make(chan *inquiry.Record)
	go func() {
		got, err := b.svc.Wait(b.ctx, rec.Key, 30*time.Second)
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	time.Sleep(50 * time.Millisecond)
	_, err = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, "U1")
	require.NoError(t, err)
	select {
	case got := <-done:
		require.Equal(t, inquiry.StatusAnswered, got.Status)
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not woken by the answer")
	}
	require.Equal(t, 0, b.svc.Hub.Waiters(), "a finished wait leaves nothing behind")
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
	_, err = b.svc.Answer(b.ctx, res.Inquiry.Key, inquiry.Reply{Value: inquiry.One("merge")}, "U1")
	require.NoError(t, err)
	_, err = b.svc.Answer(b.ctx, res2.Inquiry.Key, inquiry.Reply{Text: long}, "U1")
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
	b.svc.Transports.Register("fake", ft)
	d := &inquiry.Dispatcher{Store: b.store, Handlers: b.svc.TransportHandlers(), Now: b.clock.Now, Batch: 7}
	var want []string
	for i := 0; i < 40; i++ {
		in := merge()
		in.ID = fmt.Sprintf("q%02d", i)
		req := ask(inquiry.PolicyAsk, in)
		req.Config.Transport = "fake"
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
	b.svc.Transports.Register("fake", ft)
	d := &inquiry.Dispatcher{Store: b.store, Handlers: b.svc.TransportHandlers(), Now: b.clock.Now}
	req := ask(inquiry.PolicyAsk, merge())
	req.Config.Transport = "fake"
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
