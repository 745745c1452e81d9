package slackfake_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
)

// ackTimeout is Slack's three seconds, shortened so that a slow app shows without the wait.
const ackTimeout = 150 * time.Millisecond

// slowApp answers everything Slack sends it, too late for the next `late` requests: each waits
// until Slack hung up on it (the fake's deadline), as an app that does its work before it acks,
// and then answers 200. On the last of them it gives Slack back its three seconds, so that what
// follows — Slack's retry, the next click — is judged by Slack's own clock, not the test's short
// one, however loaded the machine.
type slowApp struct {
	*httptest.Server
	late atomic.Int64
	mu   sync.Mutex
	got  []seen
}

// seen is a request the app got.
type seen struct {
	path   string
	header http.Header
}

func newSlowApp(t *testing.T, f *slackfake.Server) *slowApp {
	a := &slowApp{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // read, so that the server notices the hang-up
		a.mu.Lock()
		a.got = append(a.got, seen{path: r.URL.Path, header: r.Header.Clone()})
		a.mu.Unlock()
		if n := a.late.Add(-1); n >= 0 {
			if n == 0 {
				f.SetAckTimeout(0)
			}
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
				t.Errorf("Slack did not hang up on a late answer")
			}
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(a.Close)
	f.SetAppURL(a.URL)
	return a
}

func (a *slowApp) requests() []seen {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]seen(nil), a.got...)
}

func postButton(t *testing.T, f *slackfake.Server) string {
	t.Helper()
	_, ts, err := client(f, slackfake.BotToken).PostMessageContext(context.Background(), slackfake.DefaultChannel,
		slack.MsgOptionText("x", false), slack.MsgOptionBlocks(button("go", "v", "Go")))
	require.NoError(t, err)
	return ts
}

// A click the app acks after Slack's time failed: the person saw an error, and the click is
// kept in FailedInteractions; a click acked in time is not. A slash command likewise.
func TestSlowInteractionFails(t *testing.T) {
	f := slackfaketest.NewWith(t, slackfake.Options{AckTimeout: ackTimeout})
	require.Equal(t, ackTimeout, f.AckTimeout())
	app := newSlowApp(t, f)
	ts := postButton(t, f)

	app.late.Store(1)
	r, err := f.Click("U1", slackfake.DefaultChannel, ts, "Go")
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	require.Nil(t, r)
	failed := f.FailedInteractions()
	require.Len(t, failed, 1)
	require.Equal(t, slackfake.KindInteraction, failed[0].Kind)
	require.Equal(t, "block_actions", failed[0].Type)
	require.False(t, failed[0].Socket)
	require.Equal(t, ackTimeout, failed[0].After)
	require.Contains(t, failed[0].String(), "the person an error")

	// In time: nothing more failed.
	r, err = f.Click("U1", slackfake.DefaultChannel, ts, "Go")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.Status)
	require.Len(t, f.FailedInteractions(), 1)

	f.SetAckTimeout(ackTimeout)
	app.late.Store(1)
	_, err = f.Command("U1", slackfake.DefaultChannel, "/ask", "hello")
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	failed = f.TakeTimeouts()
	require.Len(t, failed, 2)
	require.Equal(t, slackfake.KindCommand, failed[1].Kind)
	require.Equal(t, "/ask", failed[1].Type)
	require.Empty(t, f.Timeouts(), "taken")
}

// A modal submission the app acks too late failed: Slack keeps the modal open, as it does when
// the app answers an error, and ignores the late answer.
func TestSlowViewSubmissionKeepsTheModalOpen(t *testing.T) {
	f := slackfaketest.New(t)
	api := client(f, slackfake.BotToken)
	var slow atomic.Bool
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ic slack.InteractionCallback
		require.NoError(t, json.Unmarshal([]byte(r.FormValue("payload")), &ic))
		if ic.Type == slack.InteractionTypeBlockActions {
			_, err := api.OpenViewContext(r.Context(), ic.TriggerID, slack.ModalViewRequest{Type: slack.VTModal,
				Title: slack.NewTextBlockObject(slack.PlainTextType, "Answer", false, false), CallbackID: "cb",
				Submit: slack.NewTextBlockObject(slack.PlainTextType, "Send", false, false),
				Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewInputBlock("in",
					slack.NewTextBlockObject(slack.PlainTextType, "Text", false, false), nil,
					slack.NewPlainTextInputBlockElement(nil, "text"))}}})
			require.NoError(t, err)
			return
		}
		if slow.Load() {
			time.Sleep(3 * ackTimeout)
		}
	}))
	defer app.Close()
	f.SetAppURL(app.URL)
	ts := postButton(t, f)
	_, err := f.Click("U1", slackfake.DefaultChannel, ts, "Go")
	require.NoError(t, err)

	f.SetAckTimeout(ackTimeout)
	slow.Store(true)
	_, err = f.SubmitView("U1", "", "hello")
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	_, open := f.OpenView("U1")
	require.True(t, open, "the modal stays open")
	failed := f.TakeTimeouts()
	require.Len(t, failed, 1)
	require.Equal(t, "view_submission", failed[0].Type)
	require.Contains(t, failed[0].Outcome, "kept the modal open")

	f.SetAckTimeout(0)
	slow.Store(false)
	r, err := f.SubmitView("U1", "", "hello")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.Status)
	_, open = f.OpenView("U1")
	require.False(t, open, "acked in time, the submission closes the modal")
}

// An event the app acks too late is delivered again, with X-Slack-Retry-Num: 1 and
// X-Slack-Retry-Reason: http_timeout, and the same event_id; the answer is the retry's.
func TestSlowEventIsDeliveredAgain(t *testing.T) {
	f := slackfaketest.NewWith(t, slackfake.Options{AckTimeout: ackTimeout})
	app := newSlowApp(t, f)
	app.late.Store(1)
	r, err := f.Say("U1", slackfake.DefaultChannel, "hello")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, 1, r.RetryNum, "the retry was acked")

	got := app.requests()
	require.Len(t, got, 2)
	require.Empty(t, got[0].header.Get("X-Slack-Retry-Num"))
	require.Equal(t, "1", got[1].header.Get("X-Slack-Retry-Num"))
	require.Equal(t, "http_timeout", got[1].header.Get("X-Slack-Retry-Reason"))
	for _, r := range got {
		require.Equal(t, "/slack/events", r.path)
	}

	timeouts := f.TakeTimeouts()
	require.Len(t, timeouts, 1)
	to := timeouts[0]
	require.Equal(t, slackfake.KindEvent, to.Kind)
	require.Equal(t, "message", to.Type)
	require.NotEmpty(t, to.EventID)
	require.Zero(t, to.RetryNum)
	require.Equal(t, "Slack delivered it again with X-Slack-Retry-Num: 1", to.Outcome)
	require.Empty(t, f.FailedInteractions(), "an event is no interaction: nobody saw an error")
}

// An app that never acks in time gets the event four times — the delivery and Slack's three
// retries — and then Slack gives up.
func TestEventNeverAckedInTime(t *testing.T) {
	f := slackfaketest.NewWith(t, slackfake.Options{AckTimeout: ackTimeout})
	app := newSlowApp(t, f)
	app.late.Store(100)
	_, err := f.Say("U1", slackfake.DefaultChannel, "hello")
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	got := app.requests()
	require.Len(t, got, 4)
	for i, r := range got {
		require.Equal(t, []string{"", "1", "2", "3"}[i], r.header.Get("X-Slack-Retry-Num"))
	}
	timeouts := f.TakeTimeouts()
	require.Len(t, timeouts, 4)
	for i, to := range timeouts {
		require.Equal(t, i, to.RetryNum)
		require.Equal(t, timeouts[0].EventID, to.EventID)
	}
	require.Equal(t, "Slack gave up on it after 3 retries", timeouts[3].Outcome)

	// A redelivery made by the test goes on from its own number, and stops after the third.
	app.late.Store(100)
	_, err = f.RedeliverLastEvent(2)
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	require.Len(t, app.requests(), 6)
	require.Len(t, f.TakeTimeouts(), 2)
}

// SetAckTimeout lengthens or shortens Slack's patience later; 0 restores three seconds.
func TestSetAckTimeout(t *testing.T) {
	f := slackfaketest.New(t)
	require.Equal(t, slackfake.DefaultAckTimeout, f.AckTimeout())
	require.Equal(t, 3*time.Second, slackfake.DefaultAckTimeout)
	app := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		time.Sleep(2 * ackTimeout)
	}))
	defer app.Close()
	f.SetAppURL(app.URL)
	r, err := f.Say("U1", slackfake.DefaultChannel, "hello")
	require.NoError(t, err, "300 ms is within three seconds")
	require.Zero(t, r.RetryNum)

	f.SetAckTimeout(ackTimeout)
	require.Equal(t, ackTimeout, f.AckTimeout())
	_, err = f.Send("/slack/interactions", "application/x-www-form-urlencoded",
		[]byte(url.Values{"payload": {`{"type":"block_actions"}`}}.Encode()))
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	require.Equal(t, "block_actions", f.TakeTimeouts()[0].Type, "a raw Send is judged by the same clock")
	f.SetAckTimeout(0)
	require.Equal(t, slackfake.DefaultAckTimeout, f.AckTimeout())
}

// socketApp is an app connected over Socket Mode that acks each envelope after delay(envelope).
type socketApp struct {
	mu   sync.Mutex
	envs []map[string]any
}

func connectSocketApp(t *testing.T, f *slackfake.Server, delay func(n int) time.Duration) *socketApp {
	t.Helper()
	_, wsURL, err := slack.New(slackfake.BotToken, slack.OptionAPIURL(f.URL()), slack.OptionAppLevelToken(slackfake.AppToken)).
		StartSocketModeContext(context.Background())
	require.NoError(t, err)
	conn, _, err := websocket.DefaultDialer.Dial(wsURL, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	var hello map[string]any
	require.NoError(t, conn.ReadJSON(&hello))
	require.Equal(t, "hello", hello["type"])
	a := &socketApp{}
	var wmu sync.Mutex
	go func() {
		for n := 0; ; n++ {
			var env map[string]any
			if err := conn.ReadJSON(&env); err != nil {
				return
			}
			a.mu.Lock()
			a.envs = append(a.envs, env)
			a.mu.Unlock()
			go func() {
				time.Sleep(delay(n))
				wmu.Lock()
				defer wmu.Unlock()
				_ = conn.WriteJSON(map[string]any{"envelope_id": env["envelope_id"]})
			}()
		}
	}()
	require.NoError(t, f.WaitSocket(5*time.Second))
	return a
}

func (a *socketApp) envelopes() []map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]map[string]any(nil), a.envs...)
}

// Over Socket Mode the clock is the same: an interaction acked late failed, an event acked late
// comes again in an envelope with retry_attempt 1 and retry_reason "timeout".
func TestSlowSocketModeAck(t *testing.T) {
	f := slackfaketest.NewWith(t, slackfake.Options{AckTimeout: ackTimeout})
	ts := postButton(t, f)
	// Envelopes 0 (the click) and 1 (the event's first delivery) are acked late, the rest at
	// once, and by Slack's own clock (as slowApp does).
	app := connectSocketApp(t, f, func(n int) time.Duration {
		switch n {
		case 0:
			return 3 * ackTimeout
		case 1:
			f.SetAckTimeout(0)
			return 3 * ackTimeout
		}
		return 0
	})

	_, err := f.Click("U1", slackfake.DefaultChannel, ts, "Go")
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	failed := f.FailedInteractions()
	require.Len(t, failed, 1)
	require.True(t, failed[0].Socket)
	require.Equal(t, "block_actions", failed[0].Type)

	r, err := f.Say("U1", slackfake.DefaultChannel, "hello")
	require.NoError(t, err)
	require.Equal(t, 1, r.RetryNum)
	envs := app.envelopes()
	require.Len(t, envs, 3)
	require.Equal(t, "events_api", envs[1]["type"])
	require.Equal(t, float64(0), envs[1]["retry_attempt"])
	require.Equal(t, float64(1), envs[2]["retry_attempt"])
	require.Equal(t, "timeout", envs[2]["retry_reason"])
	require.Equal(t, envs[1]["payload"], envs[2]["payload"], "the same event, event_id and all")
	require.NotEqual(t, envs[1]["envelope_id"], envs[2]["envelope_id"])

	timeouts := f.TakeTimeouts()
	require.Len(t, timeouts, 2)
	require.Equal(t, slackfake.KindEvent, timeouts[1].Kind)
	require.True(t, strings.HasPrefix(timeouts[1].Outcome, "Slack delivered it again with retry_attempt 1"))
}
