package slackapp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/dispatch"
	"github.com/inquiry-bot/bot/internal/inflight"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
	"github.com/inquiry-bot/bot/storage"
)

// bundle is one test's world: a real service over a real store (SQLite, or PostgreSQL with
// setupOn) with its dispatcher running, the app's handlers on an httptest server, and the fake
// Slack in front of both.
type bundle struct {
	t     testing.TB
	ctx   context.Context
	store *storage.Store
	svc   *inquiry.Service
	app   *App
	fake  *slackfake.Server
	srv   *httptest.Server
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func setup(t testing.TB, tweak ...func(*Config)) *bundle {
	t.Helper()
	return setupOn(t, "sqlite:"+filepath.Join(t.TempDir(), "bot.db"), tweak...)
}

// setupOn is setup over the store at databaseURL (storagetest gives a PostgreSQL one).
func setupOn(t testing.TB, databaseURL string, tweak ...func(*Config)) *bundle {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := storage.Open(ctx, databaseURL)
	require.NoError(t, err)

	reg := inquiry.NewRegistry()
	svc := inquiry.NewService(st, reg)
	svc.DefaultPolicy, svc.DefaultTransport = inquiry.PolicyAsk, inquiry.TransportSlack
	svc.DefaultChannel = slackfake.DefaultChannel
	svc.Log = quiet
	svc.Answering = inflight.New[*inquiry.Record]() // as bot serve gives it

	fake := slackfaketest.New(t)
	var finder Finder = st // the store finds an inquiry by its Slack message, through an index
	cfg := Config{
		BotToken: slackfake.BotToken, SigningSecret: slackfake.SigningSecret, APIURL: fake.URL(),
		DefaultChannel: slackfake.DefaultChannel, Service: svc, Finder: finder, Logger: quiet,
		// Tests post far more than one message a second; pacing has its own test.
		PostInterval: time.Millisecond, PostBurst: 100,
	}
	for _, f := range tweak {
		f(&cfg)
	}
	app, err := New(cfg)
	require.NoError(t, err)
	reg.Register(inquiry.TransportSlack, app)

	d := &dispatch.Dispatcher{Store: st, Handlers: svc.TransportHandlers(), Poll: 20 * time.Millisecond, Log: quiet}
	svc.Kick = d.Kick
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()

	srv := httptest.NewServer(app.Handler())
	fake.SetAppURL(srv.URL)
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
		_ = app.Close()
		_ = st.Close()
	})
	return &bundle{t: t, ctx: ctx, store: st, svc: svc, app: app, fake: fake, srv: srv}
}

func mergeQuestion(id string) inquiry.Inquiry {
	return inquiry.Inquiry{
		ID: id, Kind: inquiry.KindChoice, Question: "Merge now?",
		Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}},
		Default: inquiry.One("hold"),
	}
}

// ask asks through Slack and waits until the question is posted.
func (b *bundle) ask(in inquiry.Inquiry, where inquiry.SlackRef) *inquiry.Record {
	b.t.Helper()
	rec := b.askNoWait(in, where)
	return b.posted(rec.Key)
}

func (b *bundle) askNoWait(in inquiry.Inquiry, where inquiry.SlackRef) *inquiry.Record {
	b.t.Helper()
	rec, created, err := b.svc.Ask(b.ctx, inquiry.AskRequest{
		Namespace: "ns", Inquiry: in, Slack: &inquiry.SlackTarget{Channel: where.Channel, ThreadTS: where.ThreadTS, Answerers: where.Answerers},
		Config: &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportSlack},
	})
	require.NoError(b.t, err)
	require.True(b.t, created)
	return rec
}

// posted waits until the inquiry has a Slack message.
func (b *bundle) posted(key string) *inquiry.Record {
	b.t.Helper()
	rec := b.until(key, "was never posted", func(r *inquiry.Record) bool {
		return r.Slack.TS != "" || r.Status != inquiry.StatusPending
	})
	require.NotEmpty(b.t, rec.Slack.TS, "inquiry %s: %s %+v", key, rec.Status, rec.Failure)
	return rec
}

// get reads an inquiry as it stands.
func (b *bundle) get(key string) *inquiry.Record {
	b.t.Helper()
	rec, err := b.svc.Get(b.ctx, key)
	require.NoError(b.t, err)
	return rec
}

// resolved waits until the inquiry left pending.
func (b *bundle) resolved(key string) *inquiry.Record {
	b.t.Helper()
	return b.until(key, "never left pending", func(r *inquiry.Record) bool { return r.Status != inquiry.StatusPending })
}

// until reads the inquiry until cond holds and returns it as cond saw it; past 15 s the test
// fails with "inquiry KEY " and never.
// atLeast waits within limit until list has at least n items and returns them; never (a format
// and its arguments) says what did not come.
func atLeast[T any](b *bundle, n int, limit time.Duration, list func() []T, never ...any) []T {
	b.t.Helper()
	var got []T
	require.Eventually(b.t, func() bool {
		got = list()
		return len(got) >= n
	}, limit, 10*time.Millisecond, never...)
	return got
}

func (b *bundle) until(key, never string, cond func(*inquiry.Record) bool) *inquiry.Record {
	b.t.Helper()
	var rec *inquiry.Record
	require.Eventually(b.t, func() bool {
		rec = b.get(key)
		return cond(rec)
	}, 15*time.Second, 10*time.Millisecond, "inquiry %s %s", key, never)
	return rec
}

// updated waits until the question message was edited, and returns it.
func (b *bundle) updated(rec *inquiry.Record) slackfake.Message {
	b.t.Helper()
	var m slackfake.Message
	require.Eventually(b.t, func() bool {
		var ok bool
		m, ok = b.fake.Message(rec.Slack.Channel, rec.Slack.TS)
		return ok && m.Edits > 0
	}, 15*time.Second, 10*time.Millisecond, "the message of %s was never updated", rec.Key)
	return m
}

// ephemeral waits for the n-th (1-based) ephemeral sent to user and returns it.
func (b *bundle) ephemeral(user string, n int) slackfake.Ephemeral {
	b.t.Helper()
	return atLeast(b, n, 10*time.Second, func() []slackfake.Ephemeral { return b.fake.Ephemerals(user) },
		"no ephemeral #%d for %s", n, user)[n-1]
}

// settle waits for background ephemerals, so a test can assert none was sent.
func (b *bundle) settle() {
	b.app.bg.Wait()
}

// ok asserts a 200 from the app.
func (b *bundle) ok(r *slackfake.Response, err error) *slackfake.Response {
	b.t.Helper()
	require.NoError(b.t, err)
	require.Equal(b.t, 200, r.Status, "app answered %s", r)
	return r
}

// keyOf reads the inquiry key from a message's metadata.
func keyOf(t *testing.T, m slackfake.Message) string {
	t.Helper()
	var md struct {
		EventType    string         `json:"event_type"`
		EventPayload map[string]any `json:"event_payload"`
	}
	require.NoError(t, json.Unmarshal(m.Metadata, &md))
	require.Equal(t, metadataEvent, md.EventType)
	return md.EventPayload["key"].(string)
}

// click clicks button of rec's message as user, and asserts the app's 200.
func (b *bundle) click(user string, rec *inquiry.Record, button string) *slackfake.Response {
	b.t.Helper()
	return b.ok(b.fake.Click(user, rec.Slack.Channel, rec.Slack.TS, button))
}

// clickPayload is the payload of a click by user on button of rec's message, built now: kept to
// be sent later, it is a click on the message as it was (before an answer removed the buttons).
func (b *bundle) clickPayload(user string, rec *inquiry.Record, button string) []byte {
	b.t.Helper()
	raw, err := b.fake.ClickPayload(user, rec.Slack.Channel, rec.Slack.TS, button)
	require.NoError(b.t, err)
	return raw
}

// refusedEverywhere sends form with opt to each of the three endpoints and requires a 401 from
// every one; name says which request it is.
func (b *bundle) refusedEverywhere(name string, form []byte, opt slackfake.SendOption) {
	b.t.Helper()
	for _, path := range []string{PathInteractions, PathEvents, PathCommands} {
		r, err := b.fake.Send(path, "application/x-www-form-urlencoded", form, opt)
		require.NoError(b.t, err)
		require.Equal(b.t, http.StatusUnauthorized, r.Status, "%s to %s", name, path)
	}
}

// noAnswer asserts the inquiry is still pending with nothing recorded.
func (b *bundle) noAnswer(key string) {
	b.t.Helper()
	rec := b.get(key)
	require.Equal(b.t, inquiry.StatusPending, rec.Status)
	require.Nil(b.t, rec.Answer)
}
