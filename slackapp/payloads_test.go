package slackapp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// The real payloads of testdata/payloads (sources in its
// README) go through the very path Slack's requests take: signed, posted, verified, parsed,
// served. None of them is ours, so each is acked and nothing is recorded.
func TestRealPayloadsParse(t *testing.T) {
	b := setup(t)
	for _, pl := range realPayloads(t) {
		probe, raw := pl.probe, pl.raw
		t.Run(pl.name, func(t *testing.T) {
			switch {
			case probe.EnvelopeID != "":
				evt, err := parseEnvelope(raw)
				require.NoError(t, err)
				_, _ = b.app.dispatchSocket(context.Background(), evt)
			case probe.Type == "event_callback" || probe.Type == "url_verification":
				_, err := parseEvent(raw)
				require.NoError(t, err)
				b.ok(b.fake.Send(PathEvents, "application/json", raw))
			case probe.Type == "message":
				// A bare message (slack-go's fixture): Slack sends it inside an event_callback.
				body := fmt.Sprintf(`{"type":"event_callback","event_id":"Ev0BARE","event_time":1,"team_id":"T1","api_app_id":"A1","event":%s}`, raw)
				_, err := parseEvent([]byte(body))
				require.NoError(t, err)
				b.ok(b.fake.Send(PathEvents, "application/json", []byte(body)))
			default:
				form := []byte(url.Values{"payload": {string(raw)}}.Encode())
				_, err := parseInteraction(form)
				require.NoError(t, err)
				r := b.ok(b.fake.Send(PathInteractions, "application/x-www-form-urlencoded", form))
				require.Empty(t, r.Body, "not ours: acked with nothing to say")
			}
		})
	}
	b.settle()
	require.Empty(t, b.fake.Ephemerals(""))
	require.Empty(t, b.fake.Calls("views.open", "chat.postEphemeral"))
}

// parseEnvelope reads a Socket Mode envelope the way slack-go's socketmode client does before it
// hands the event to the app.
func parseEnvelope(raw []byte) (socketmode.Event, error) {
	var req socketmode.Request
	if err := json.Unmarshal(raw, &req); err != nil {
		return socketmode.Event{}, err
	}
	evt := socketmode.Event{Request: &req}
	switch req.Type {
	case socketmode.RequestTypeEventsAPI:
		ev, err := slackevents.ParseEvent(req.Payload, slackevents.OptionNoVerifyToken())
		evt.Type, evt.Data = socketmode.EventTypeEventsAPI, ev
		return evt, err
	case socketmode.RequestTypeInteractive:
		var ic slack.InteractionCallback
		err := json.Unmarshal(req.Payload, &ic)
		evt.Type, evt.Data = socketmode.EventTypeInteractive, ic
		return evt, err
	case socketmode.RequestTypeSlashCommands:
		var cmd slack.SlashCommand
		err := json.Unmarshal(req.Payload, &cmd)
		evt.Type, evt.Data = socketmode.EventTypeSlashCommand, cmd
		return evt, err
	}
	return evt, fmt.Errorf("envelope type %q", req.Type)
}

// Socket Mode: the app dials the fake's WebSocket with the app-level token, and everything the
// person does arrives as envelopes served by the same handlers as over HTTP.
func TestSocketMode(t *testing.T) {
	b := setup(t, func(c *Config) { c.AppToken = slackfake.AppToken })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.app.RunSocketMode(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	require.NoError(t, b.fake.WaitSocket(10*time.Second))
	// Nothing may come over HTTP now: the person reaches the app only through the socket.
	b.fake.SetAppURL("http://127.0.0.1:1")

	// The saved envelopes are acked, and a slash command's ack carries its answer.
	for _, name := range []string{"socket_mode_envelope_events_api_message.json",
		"socket_mode_envelope_block_actions_static_select.json", "socket_mode_envelope_slash_command.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata/payloads", name))
		require.NoError(t, err)
		r, err := b.fake.SendEnvelope(raw)
		require.NoError(t, err, name)
		if strings.Contains(name, "slash_command") {
			require.Contains(t, string(r.Body), `"response_type":"ephemeral"`)
		}
	}

	// A click answers; a late one is told so; a Text modal opens and its submission answers.
	rec := b.ask(mergeQuestion("socket"), inquiry.SlackRef{})
	// The late click is built from the message before the answer: the update removes the buttons.
	late := b.clickPayload("U0BOB0001", rec, "Hold")
	r := b.click("U0ALICE01", rec, "Merge")
	require.Less(t, r.Elapsed, 3*time.Second)
	require.Equal(t, "merge", b.resolved(rec.Key).Answer.Value.First())
	b.ok(b.fake.SendInteraction(late))
	require.Contains(t, b.ephemeral("U0BOB0001", 1).Text, "already answered by <@U0ALICE01>")

	text := b.ask(inquiry.Inquiry{ID: "socket-text", Kind: inquiry.KindText, Question: "Why?"}, inquiry.SlackRef{})
	b.click("U0ALICE01", text, "Write an answer")
	r = b.ok(b.fake.SubmitView("U0ALICE01", "", "  "))
	require.Contains(t, r.ViewErrors(), "inq:answer", "errors travel in the ack")
	b.ok(b.fake.SubmitView("U0ALICE01", "", "because"))
	require.Equal(t, "because", b.resolved(text.Key).Answer.Text)

	// A thread reply arrives as an events_api envelope.
	thread := b.ask(mergeQuestion("socket-thread"), inquiry.SlackRef{})
	b.ok(b.fake.ReplyInThread("U0ALICE01", thread.Slack.Channel, thread.Slack.TS, "Hold"))
	require.Equal(t, "hold", b.resolved(thread.Key).Answer.Value.First())
}

func TestSocketModeRefusedToken(t *testing.T) {
	b := setup(t, func(c *Config) { c.AppToken = "xapp-1-not-the-fakes-token" })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := b.app.RunSocketMode(ctx)
	require.Error(t, err)
	require.NotErrorIs(t, err, context.DeadlineExceeded)
	require.Contains(t, err.Error(), "SLACK_APP_TOKEN")
}

// TestParseInteractionAsSlackGo: parseInteraction reads every real interaction payload of
// testdata/payloads, and a click on one of our own messages, exactly as slack-go's own decoding
// of slack.InteractionCallback does.
func TestParseInteractionAsSlackGo(t *testing.T) {
	b := setup(t)
	rec := b.ask(mergeQuestion("parse-1"), inquiry.SlackRef{})
	payloads := map[string][]byte{"our click": b.clickPayload("U0ALICE01", rec, "Merge")}
	for _, pl := range realPayloads(t) {
		if p := pl.probe; p.EnvelopeID == "" && p.Type != "event_callback" && p.Type != "url_verification" && p.Type != "message" {
			payloads[pl.name] = pl.raw
		}
	}
	require.Greater(t, len(payloads), 10)
	// How actions are told apart (a string block_id makes a block action), on shapes Slack
	// sends rarely: a legacy attachment's action, a block_id that is no string, none at all.
	for name, actions := range map[string]string{
		"attachment action":   `[{"name": "merge", "type": "button", "value": "merge"}]`,
		"block_id not string": `[{"block_id": 7, "action_id": "a", "type": "button"}]`,
		"block and attachment": `[{"block_id": "b", "action_id": "a", "type": "button", "value": "v"},
			{"name": "n", "type": "select", "selected_options": [{"value": "x"}]}]`,
		"no actions":   `[]`,
		"null actions": `null`,
	} {
		payloads[name] = []byte(`{"type": "interactive_message", "callback_id": "c", "user": {"id": "U0ALICE01"}, "actions": ` + actions + `}`)
	}
	for name, raw := range payloads {
		var want slack.InteractionCallback
		require.NoError(t, json.Unmarshal(raw, &want), name)
		got, err := parseInteraction([]byte(url.Values{"payload": {string(raw)}}.Encode()))
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
	}
}

// realPayload is one of the real payloads in testdata/payloads, with what says how Slack sends it.
type realPayload struct {
	name  string
	raw   []byte
	probe struct {
		Type       string `json:"type"`
		EnvelopeID string `json:"envelope_id"`
	}
}

// realPayloads reads every real payload in testdata/payloads (there are some).
func realPayloads(t *testing.T) []realPayload {
	t.Helper()
	files, err := filepath.Glob("testdata/payloads/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	out := make([]realPayload, 0, len(files))
	for _, f := range files {
		pl := realPayload{name: filepath.Base(f)}
		pl.raw, err = os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(pl.raw, &pl.probe), f)
		out = append(out, pl)
	}
	return out
}
