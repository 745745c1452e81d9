package slackfaketest_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
)

// recorder is a test as the helper sees it, recording what the helper makes of it. The embedded
// TB is nil: only the methods defined here may be called.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	errors   []string
	logs     []string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

// end runs the cleanups, last first, as the end of a test does.
func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	r.cleanups = nil
}

// slowApp never acks: it answers a request only once the fake has hung up or the test ends.
func slowApp(t *testing.T, f *slackfake.Server) {
	ended := make(chan struct{})
	app := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-ended:
		}
	}))
	t.Cleanup(app.Close)
	t.Cleanup(func() { close(ended) }) // before app.Close, which waits for the requests
	f.SetAppURL(app.URL)
}

func payload() []byte { return []byte(`{"type":"block_actions"}`) }

// unacked makes a fake with opts for a fresh recorder, gives it a slow app and sends it an
// interaction, which the app does not ack in time.
func unacked(t *testing.T, opts slackfake.Options) (*recorder, *slackfake.Server) {
	t.Helper()
	rec := &recorder{}
	f := slackfaketest.NewWith(rec, opts)
	slowApp(t, f)
	_, err := f.SendInteraction(payload())
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	return rec, f
}

// A timeout the test did not take fails the test when it ends, saying what Slack did.
func TestUntakenTimeoutFailsTheTest(t *testing.T) {
	rec, _ := unacked(t, slackfake.Options{AckTimeout: 50 * time.Millisecond})
	require.Empty(t, rec.errors, "not before the test ends")
	require.Len(t, rec.logs, 1, "logged as it happens")
	rec.end()
	require.Len(t, rec.errors, 1)
	require.Contains(t, rec.errors[0], "did not ack the interaction block_actions over HTTP within 50ms: Slack showed the person an error")
}

// A test that expects a timeout takes it, and passes.
func TestTakenTimeoutDoesNotFail(t *testing.T) {
	rec, f := unacked(t, slackfake.Options{AckTimeout: 50 * time.Millisecond})
	require.Len(t, f.TakeTimeouts(), 1)
	rec.end()
	require.Empty(t, rec.errors)
}

// What the fake logs at Error — here an ack of a Socket Mode envelope Slack never sent, which no
// call could return — fails the test; a Logger given in the options is used instead.
func TestErrorsFailTheTest(t *testing.T) {
	rec := &recorder{}
	f := slackfaketest.New(rec)
	_, wsURL, err := slack.New(slackfake.BotToken, slack.OptionAPIURL(f.URL()), slack.OptionAppLevelToken(slackfake.AppToken)).
		StartSocketModeContext(context.Background())
	require.NoError(t, err)
	conn, _, err := websocket.DefaultDialer.Dial(wsURL, nil)
	require.NoError(t, err)
	defer conn.Close()
	var hello map[string]any
	require.NoError(t, conn.ReadJSON(&hello))
	require.NoError(t, conn.WriteJSON(map[string]any{"envelope_id": "never-sent"}))
	require.Eventually(t, func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.errors) == 1
	}, 5*time.Second, 10*time.Millisecond)
	require.Contains(t, rec.errors[0], "acked a Socket Mode envelope that was never sent envelope_id=never-sent")
	rec.end()
	require.Len(t, rec.errors, 1)

	var buf strings.Builder
	rec, _ = unacked(t, slackfake.Options{Logger: slog.New(slog.NewTextHandler(&buf, nil)), AckTimeout: 20 * time.Millisecond})
	require.Contains(t, buf.String(), "did not ack")
	require.Empty(t, rec.logs, "a Logger given is used, not the test's log")
	rec.end()
	require.Len(t, rec.errors, 1, "and a timeout not taken still fails the test")
}
