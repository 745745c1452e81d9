package slackapp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// Bad input from Slack, after the signature (TestBadlySignedRequestsRefused covers the
// signature): payloads whose key names no inquiry, another namespace's inquiry, or an option
// that is not offered. Each is acked (Slack must not retry it), the person is told why in an
// ephemeral, and nothing is recorded. docs/RELIABILITY.md ("Bad input") lists these.

// forge returns the click payload of a real button of rec's message, changed by edit.
func (b *bundle) forge(user string, rec *inquiry.Record, button string, edit func(payload, action map[string]any)) []byte {
	b.t.Helper()
	raw := b.clickPayload(user, rec, button)
	var p map[string]any
	require.NoError(b.t, json.Unmarshal(raw, &p))
	edit(p, p["actions"].([]any)[0].(map[string]any))
	out, err := json.Marshal(p)
	require.NoError(b.t, err)
	return out
}

// submission is a view_submission of one of our modals as Slack would send it: the key in
// private_metadata and the answer in the view's state.
func submission(user, callbackID, key string, values map[string]any) []byte {
	p := map[string]any{
		"type": "view_submission", "team": map[string]any{"id": slackfake.TeamID},
		"user": map[string]any{"id": user, "team_id": slackfake.TeamID}, "api_app_id": slackfake.AppID,
		"trigger_id": "1.2.3",
		"view": map[string]any{
			"id": "V0FORGED1", "type": "modal", "callback_id": callbackID, "private_metadata": key,
			"state": map[string]any{"values": values},
		},
	}
	out, _ := json.Marshal(p)
	return out
}

func textValue(s string) map[string]any {
	return map[string]any{blockkit.BlockAnswer: map[string]any{blockkit.ActionAnswerText: map[string]any{"type": "plain_text_input", "value": s}}}
}

func TestKeyThatNamesNoInquiry(t *testing.T) {
	b := setup(t)
	rec := b.ask(mergeQuestion("real"), inquiry.SlackRef{})
	n := 0
	for _, key := range []string{"inq_nosuchkey00000000", "", "inq_" + strings.Repeat("x", 300), "'; DROP TABLE inquiries; --", "inq_\u0000", "inq|inq_x"} {
		payload := b.forge("U0ALICE01", rec, "Merge", func(_, a map[string]any) {
			a["block_id"] = "inq|" + key + "|q-act"
		})
		r := b.ok(b.fake.SendInteraction(payload))
		require.Empty(t, r.Body, "acked with an empty 200")
		if key == "" {
			continue // "inq||q-act" is no block of ours: nobody is told anything
		}
		n++
		require.Contains(t, b.ephemeral("U0ALICE01", n).Text, "this question no longer exists", key)
	}
	// A modal submitted for no inquiry closes with the same sentence where the person is.
	r := b.ok(b.fake.SendInteraction(submission("U0ALICE01", blockkit.CallbackText, "inq_nosuchkey00000000", textValue("hello"))))
	require.Empty(t, r.ViewErrors())
	b.settle()
	b.noAnswer(rec.Key)
	require.Empty(t, b.fake.Calls("chat.update"), "nothing changed, nothing to update")
}

// TestKeyOfAnotherNamespace: a Slack payload routes by the key alone. Namespaces partition the
// API's tokens, not the people of the workspace: whoever Slack says clicked answers any inquiry
// whose message they can act in, within its answerers. The test shows a key of another
// namespace's inquiry breaks nothing: its answerers hold, a refusal records nothing, and a
// permitted person's answer lands on that inquiry and no other.
func TestKeyOfAnotherNamespace(t *testing.T) {
	b := setup(t)
	mine := b.ask(mergeQuestion("mine"), inquiry.SlackRef{})
	other, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{
		Namespace: "other-team", Inquiry: mergeQuestion("theirs"),
		Slack:  &inquiry.SlackTarget{Answerers: []string{"U0BOB0001"}},
		Config: &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportSlack},
	})
	require.NoError(t, err)
	other = b.posted(other.Key)

	// A click in my message carrying their key, by someone outside their answerers: refused.
	payload := b.forge("U0ALICE01", mine, "Merge", func(_, a map[string]any) {
		a["block_id"] = "inq|" + other.Key + "|q-act"
	})
	b.ok(b.fake.SendInteraction(payload))
	require.Contains(t, b.ephemeral("U0ALICE01", 1).Text, "only <@U0BOB0001> may answer")
	b.settle()
	b.noAnswer(other.Key)
	b.noAnswer(mine.Key)

	// The same by a modal submission: refused.
	b.ok(b.fake.SendInteraction(submission("U0ALICE01", blockkit.CallbackOwnWords, other.Key, textValue("hold"))))
	require.Contains(t, b.ephemeral("U0ALICE01", 2).Text, "only <@U0BOB0001> may answer")
	b.noAnswer(other.Key)

	// By their answerer: it answers their inquiry, by key, and leaves mine alone.
	payload = b.forge("U0BOB0001", mine, "Hold", func(_, a map[string]any) {
		a["block_id"] = "inq|" + other.Key + "|q-act"
	})
	b.ok(b.fake.SendInteraction(payload))
	got := b.resolved(other.Key)
	require.Equal(t, "hold", got.Answer.Value.First())
	require.Equal(t, "U0BOB0001", got.Answer.AnsweredBy)
	require.Equal(t, "other-team", got.Namespace)
	b.noAnswer(mine.Key)
}

func TestForgedOptionValue(t *testing.T) {
	b := setup(t)
	rec := b.ask(mergeQuestion("forged"), inquiry.SlackRef{})
	n := 0
	for _, value := range []string{"ship", "MERGE NOW", "merge\u200b", "<!channel>", strings.Repeat("v", 3000), "merge; hold"} {
		payload := b.forge("U0ALICE01", rec, "Merge", func(_, a map[string]any) { a["value"] = value })
		b.ok(b.fake.SendInteraction(payload))
		n++
		e := b.ephemeral("U0ALICE01", n)
		require.Contains(t, e.Text, "none of the offered answers", value)
		require.NotContains(t, e.Text, "<!channel>", "what was sent is escaped in the ephemeral")
	}
	// An empty value is no answer at all: nothing is said, nothing recorded.
	b.ok(b.fake.SendInteraction(b.forge("U0ALICE01", rec, "Merge", func(_, a map[string]any) { a["value"] = "" })))
	// A select whose chosen option is not offered.
	b.ok(b.fake.SendInteraction(b.forge("U0ALICE01", rec, "Merge", func(_, a map[string]any) {
		a["action_id"], a["type"] = blockkit.ActionSelect, "static_select"
		delete(a, "value")
		a["selected_option"] = map[string]any{"text": map[string]any{"type": "plain_text", "text": "Ship"}, "value": "ship"}
	})))
	n++
	require.Contains(t, b.ephemeral("U0ALICE01", n).Text, "none of the offered answers")
	// A Submit of a multiple choice whose ticks are not offered, sent to a single choice.
	b.ok(b.fake.SendInteraction(b.forge("U0ALICE01", rec, "Merge", func(p, a map[string]any) {
		a["action_id"] = blockkit.ActionSubmit
		p["state"] = map[string]any{"values": map[string]any{"inq|" + rec.Key + "|q-pick": map[string]any{
			blockkit.ActionPick: map[string]any{"type": "checkboxes", "selected_options": []any{map[string]any{"value": "merge"}, map[string]any{"value": "hold"}}}}}}
	})))
	n++
	require.Contains(t, b.ephemeral("U0ALICE01", n).Text, "none of the offered answers")
	// A confirm modal's "yes" submitted for a choice.
	r := b.ok(b.fake.SendInteraction(submission("U0ALICE01", blockkit.CallbackConfirm, rec.Key, map[string]any{
		blockkit.BlockAnswer: map[string]any{blockkit.ActionYesNo: map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "yes"}}}})))
	require.Contains(t, r.ViewErrors()[blockkit.BlockAnswer], "none of the offered answers")
	// Words typed in a modal for a choice without allow_text.
	r = b.ok(b.fake.SendInteraction(submission("U0ALICE01", blockkit.CallbackOwnWords, rec.Key, textValue("merge it tomorrow"))))
	require.NotEmpty(t, r.ViewErrors()[blockkit.BlockAnswer])
	// A thread reply that is none of the options.
	b.ok(b.fake.ReplyInThread("U0ALICE01", rec.Slack.Channel, rec.Slack.TS, "ship it"))
	n++
	require.Contains(t, b.ephemeral("U0ALICE01", n).Text, "none of the offered answers")

	b.settle()
	b.noAnswer(rec.Key)
	require.Empty(t, b.fake.Calls("chat.update"))

	// The real button still answers.
	b.click("U0ALICE01", rec, "Merge")
	require.Equal(t, "merge", b.resolved(rec.Key).Answer.Value.First())
}

// TestPayloadWithoutUser: a click or a modal submission that names no user answers nothing,
// even an inquiry anybody may answer (FuzzSignedPayload found that it did, by "").
func TestPayloadWithoutUser(t *testing.T) {
	b := setup(t)
	rec := b.ask(mergeQuestion("nobody"), inquiry.SlackRef{})
	for _, user := range []any{map[string]any{"id": ""}, map[string]any{}, nil} {
		b.ok(b.fake.SendInteraction(b.forge("U0ALICE01", rec, "Merge", func(p, _ map[string]any) { p["user"] = user })))
	}
	b.ok(b.fake.SendInteraction(submission("", blockkit.CallbackOwnWords, rec.Key, textValue("merge"))))
	b.settle()
	b.noAnswer(rec.Key)
	require.Empty(t, b.fake.Ephemerals(""))
}
