package slackapp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// FuzzSignedPayload sends arbitrary payloads, correctly signed, to the Slack endpoints of a real
// app over a real service on SQLite: interactions (as the payload form field), events and slash
// commands. In a payload, $KEY, $TS and $CH stand for the key, message ts and channel of one of
// three pending inquiries (a choice anyone may answer, a text only U0ALICE01 may answer, a
// confirm with allow_text), so the fuzzer reaches past the routing. It must never panic, never
// answer 5xx, and never record an answer that is not one: every answer recorded is a person's,
// chooses only offered values, keeps words only where words are taken, and comes from someone
// permitted. docs/RELIABILITY.md says how long it ran and what it found.
func FuzzSignedPayload(f *testing.F) {
	b := setup(f)
	var seq atomic.Int64
	questions := []func() inquiry.Inquiry{
		func() inquiry.Inquiry { in := mergeQuestion(""); in.ID = "choice"; return in },
		func() inquiry.Inquiry {
			return inquiry.Inquiry{ID: "text", Kind: inquiry.KindText, Question: "Why?"}
		},
		func() inquiry.Inquiry {
			return inquiry.Inquiry{ID: "confirm", Kind: inquiry.KindConfirm, Question: "Deploy?", AllowText: true}
		},
	}
	answerers := [][]string{nil, {"U0ALICE01"}, nil}
	recs := make([]*inquiry.Record, len(questions))
	// fresh asks inquiry i anew and waits until it is posted. It takes the T of the input (inside
	// the fuzz function the F's methods may not be called).
	fresh := func(t testing.TB, i int) {
		in := questions[i]()
		in.ID = fmt.Sprintf("%s-%d", in.ID, seq.Add(1))
		rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: in,
			Slack:  &inquiry.SlackTarget{Answerers: answerers[i]},
			Config: &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportSlack}})
		if err != nil {
			t.Fatalf("ask: %v", err)
		}
		testkit.Eventually(t, 15*time.Second, "inquiry "+rec.Key+" posted", func() bool {
			if rec, err = b.svc.Get(b.ctx, rec.Key); err != nil {
				t.Fatalf("get: %v", err)
			}
			return rec.Slack.TS != ""
		})
		recs[i] = rec
	}
	for i := range questions {
		fresh(f, i)
	}
	// Seeds: real shapes of every payload, with the placeholders.
	template := func(raw []byte, rec *inquiry.Record) []byte {
		s := strings.ReplaceAll(string(raw), rec.Key, "$KEY")
		s = strings.ReplaceAll(s, rec.Slack.TS, "$TS")
		return []byte(strings.ReplaceAll(s, rec.Slack.Channel, "$CH"))
	}
	for _, which := range []string{"Merge", "Hold"} {
		raw, err := b.fake.ClickPayload("U0ALICE01", recs[0].Slack.Channel, recs[0].Slack.TS, which)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(0), uint8(0), template(raw, recs[0]))
	}
	for i, action := range []string{"", blockkit.ActionOpenText, blockkit.ActionOpenConfirm} {
		if action == "" {
			continue
		}
		raw, err := b.fake.ClickPayload("U0BOB0001", recs[i].Slack.Channel, recs[i].Slack.TS, action)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(0), uint8(i), template(raw, recs[i]))
	}
	f.Add(uint8(0), uint8(1), submission("U0ALICE01", blockkit.CallbackText, "$KEY", textValue("because")))
	f.Add(uint8(0), uint8(1), submission("U0EVE0001", blockkit.CallbackText, "$KEY", textValue("because")))
	f.Add(uint8(0), uint8(2), submission("U0BOB0001", blockkit.CallbackConfirm, "$KEY", map[string]any{
		blockkit.BlockAnswer: map[string]any{blockkit.ActionYesNo: map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "no"}}},
		blockkit.BlockNote:   map[string]any{blockkit.ActionNote: map[string]any{"type": "plain_text_input", "value": "not today"}}}))
	f.Add(uint8(0), uint8(0), []byte(`{"type":"block_actions","user":{"id":"U0ALICE01"},"actions":[{"action_id":"inq:choose:0","block_id":"inq|$KEY|q-act","value":"ship"}]}`))
	f.Add(uint8(0), uint8(0), []byte(`{"type":"block_actions","user":{"id":""},"actions":[null]}`))
	f.Add(uint8(0), uint8(0), []byte(`{"type":"block_actions","actions":[{"action_id":"inq:choose:0","block_id":"inq|$KEY|q-act","value":"merge"}]}`))
	f.Add(uint8(0), uint8(1), []byte(`{"type":"view_submission","view":{"callback_id":"inq:text","private_metadata":"$KEY","state":{"values":{"inq:answer":{"inq:answer_text":{"type":"plain_text_input","value":"x"}}}}}}`))
	f.Add(uint8(0), uint8(0), []byte(`{"type":"view_submission","view":{"callback_id":"inq:text","private_metadata":"$KEY","state":null}}`))
	f.Add(uint8(0), uint8(0), []byte(`{"type":"shortcut"}`))
	f.Add(uint8(0), uint8(0), []byte(`not json`))
	event := func(user, text string) []byte {
		ev, _ := json.Marshal(map[string]any{"type": "event_callback", "event_id": "Ev$KEY", "team_id": slackfake.TeamID,
			"event": map[string]any{"type": "message", "user": user, "text": text, "ts": "1800000000.000001", "thread_ts": "$TS", "channel": "$CH"}})
		return ev
	}
	f.Add(uint8(1), uint8(0), event("U0ALICE01", "hold"))
	f.Add(uint8(1), uint8(0), event("U0ALICE01", "hold it for now"))
	f.Add(uint8(1), uint8(1), event("U0EVE0001", "because"))
	f.Add(uint8(1), uint8(1), event("U0ALICE01", "because &lt;!channel&gt;"))
	f.Add(uint8(1), uint8(2), event("U0BOB0001", "No"))
	f.Add(uint8(1), uint8(0), []byte(`{"type":"url_verification","challenge":"$KEY"}`))
	f.Add(uint8(1), uint8(0), []byte(`{"type":"event_callback","event":{"type":"message","subtype":"bot_message","bot_id":"B1","text":"merge","thread_ts":"$TS","channel":"$CH"}}`))
	f.Add(uint8(1), uint8(0), []byte(`{"type":"event_callback","event":null}`))
	f.Add(uint8(2), uint8(0), []byte("command=%2Fquestions&channel_id=$CH&user_id=U0ALICE01&text="))

	f.Fuzz(func(t *testing.T, endpoint, which uint8, payload []byte) {
		// Start from three pending inquiries whatever the input before left (a failed one
		// leaves its answer, and the fuzzer then minimizes in the same process).
		for j, rec := range recs {
			if got, err := b.svc.Get(b.ctx, rec.Key); err != nil || got.Status != inquiry.StatusPending {
				fresh(t, j)
			}
		}
		i := int(which) % len(recs)
		rec := recs[i]
		body := bytes.ReplaceAll(payload, []byte("$KEY"), []byte(rec.Key))
		body = bytes.ReplaceAll(body, []byte("$TS"), []byte(rec.Slack.TS))
		body = bytes.ReplaceAll(body, []byte("$CH"), []byte(rec.Slack.Channel))
		var r *slackfake.Response
		var err error
		switch endpoint % 3 {
		case 0:
			r, err = b.fake.Send(PathInteractions, "application/x-www-form-urlencoded", []byte(url.Values{"payload": {string(body)}}.Encode()))
		case 1:
			r, err = b.fake.Send(PathEvents, "application/json", body)
		default:
			r, err = b.fake.Send(PathCommands, "application/x-www-form-urlencoded", body)
		}
		if err != nil {
			t.Fatalf("the app broke the connection (a panic?): %v\npayload: %q", err, body)
		}
		if r.Status != http.StatusOK && r.Status != http.StatusBadRequest {
			t.Fatalf("the app answered %s\npayload: %q", r, body)
		}
		b.app.bg.Wait() // the ephemerals sent after the ack
		for j, rec := range recs {
			got, err := b.svc.Get(b.ctx, rec.Key)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status == inquiry.StatusPending {
				continue
			}
			checkRecorded(t, got, answerers[j], body)
			fresh(t, j)
		}
	})
}

// checkRecorded fails when an inquiry left pending other than by a permitted person's valid
// answer.
func checkRecorded(t *testing.T, rec *inquiry.Record, answerers []string, payload []byte) {
	t.Helper()
	a := rec.Answer
	if rec.Status != inquiry.StatusAnswered || a == nil {
		t.Fatalf("inquiry %s went %s without an answer\npayload: %q", rec.Key, rec.Status, payload)
	}
	if a.Source != inquiry.SourcePerson || !blockkit.IsUserID(a.AnsweredBy) {
		t.Fatalf("recorded an answer of source %q by %q\npayload: %q", a.Source, a.AnsweredBy, payload)
	}
	if len(answerers) > 0 && !slices.Contains(answerers, a.AnsweredBy) {
		t.Fatalf("%s answered, outside the answerers %v\npayload: %q", a.AnsweredBy, answerers, payload)
	}
	if !bytes.Contains(payload, []byte(a.AnsweredBy)) {
		t.Fatalf("answered by %s, whom the payload does not name\npayload: %q", a.AnsweredBy, payload)
	}
	if _, err := inquiry.CheckAnswer(&rec.Inquiry, inquiry.Reply{Value: a.Value, Text: a.Text, Declined: a.Declined}); err != nil && !a.Truncated {
		t.Fatalf("recorded an answer CheckAnswer refuses (%v): %+v\npayload: %q", err, a, payload)
	}
	offered := inquiry.Offered(&rec.Inquiry)
	for _, v := range a.Value.Strings() {
		if !slices.ContainsFunc(offered, func(o inquiry.Option) bool { return o.Value == v }) {
			t.Fatalf("recorded the value %q, none of %v\npayload: %q", v, offered, payload)
		}
	}
	if a.Text != "" && rec.Kind != inquiry.KindText && !rec.AllowText && !a.Declined {
		t.Fatalf("recorded words %q on a %s without allow_text\npayload: %q", a.Text, rec.Kind, payload)
	}
	if !a.AnsweredAt.After(time.Time{}) {
		t.Fatal("an answer without a time")
	}
}
