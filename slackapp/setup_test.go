package slackapp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
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

	d := &inquiry.Dispatcher{Store: st, Handlers: svc.TransportHandlers(), Poll: 20 * time.Millisecond, Log: quiet}
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
	var rec *inquiry.Record
	require.Eventually(b.t, func() bool {
		r, err := b.svc.Get(b.ctx, key)
		require.NoError(b.t, err)
		rec = r
		return r.Slack.TS != "" || r.Status != inquiry.StatusPending
	}, 15*time.Second, 10*time.Millisecond, "inquiry %s was never posted", key)
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
	var rec *inquiry.Record
	require.Eventually(b.t, func() bool {
		rec = b.get(key)
		return rec.Status != inquiry.StatusPending
	}, 15*time.Second, 10*time.Millisecond, "inquiry %s never left pending", key)
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
	var es []slackfake.Ephemeral
	require.Eventually(b.t, func() bool {
		es = b.fake.Ephemerals(user)
		return len(es) >= n
	}, 10*time.Second, 10*time.Millisecond, "no ephemeral #%d for %s", n, user)
	return es[n-1]
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

// noAnswer asserts the inquiry is still pending with nothing recorded.
func (b *bundle) noAnswer(key string) {
	b.t.Helper()
	rec := b.get(key)
	require.Equal(b.t, inquiry.StatusPending, rec.Status)
	require.Nil(b.t, rec.Answer)
}

// syncBuffer is a goroutine-safe log sink for tests that read the log.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
