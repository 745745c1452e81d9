package slackapp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// Team approvals in Slack (issue 15): the fake plays several people, each click signed.

func approvalOf(n int, in inquiry.Inquiry) inquiry.Inquiry {
	in.Approvals = &n
	return in
}

func deployConfirm(id string) inquiry.Inquiry {
	return inquiry.Inquiry{ID: id, Kind: inquiry.KindConfirm, Question: "Deploy 4.2 to production?"}
}

// shows waits until rec's message holds every one of want, and returns it.
func (b *bundle) shows(rec *inquiry.Record, want ...string) slackfake.Message {
	b.t.Helper()
	var m slackfake.Message
	require.Eventually(b.t, func() bool {
		m, _ = b.fake.Message(rec.Slack.Channel, rec.Slack.TS)
		for _, w := range want {
			if !strings.Contains(m.AllText(), w) {
				return false
			}
		}
		return true
	}, 15*time.Second, 10*time.Millisecond, "the message of %s never showed %q", rec.Key, want)
	return m
}

// updatesSaying counts the chat.update calls on rec's message whose text holds s.
func (b *bundle) updatesSaying(rec *inquiry.Record, s string) int {
	n := 0
	for _, c := range b.fake.Calls("chat.update") {
		if c.Params.Get("ts") == rec.Slack.TS && strings.Contains(c.Params.Get("text")+string(c.Blocks), s) {
			n++
		}
	}
	return n
}

// Two approvals of a Confirm: the first click is a vote — the message shows the tally and keeps
// its buttons, the voter is told where it stands — and the second resolves it, the message
// updated for the resolution once, saying who approved.
func TestApprovalOfTwoByClicks(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		rec := b.ask(approvalOf(2, deployConfirm("deploy-42")), inquiry.SlackRef{})
		m, _ := b.fake.Message(rec.Slack.Channel, rec.Slack.TS)
		require.Contains(t, m.AllText(), "Needs 2 approvals; one no stops it · no votes yet")

		b.click("U0ALICE01", rec, "Yes")
		require.Equal(t, "Your vote is in: 1 of 2 approvals so far.", b.ephemeral("U0ALICE01", 1).Text)
		m = b.shows(rec, "1 of 2 approvals: <@U0ALICE01>")
		require.True(t, m.HasControls(), "a pending approval keeps its buttons: %v", m.ActionIDs())
		got := b.get(rec.Key)
		require.Equal(t, inquiry.StatusPending, got.Status)
		require.Len(t, got.Votes, 1)
		require.Equal(t, inquiry.ViaSlack, got.Votes[0].Via)

		b.click("U0BOB0001", rec, "Yes")
		got = b.resolved(rec.Key)
		require.Equal(t, inquiry.StatusAnswered, got.Status)
		require.Equal(t, "yes", got.Answer.Value.First())
		require.Equal(t, []string{"U0ALICE01", "U0BOB0001"}, inquiry.Voters(got.Answer.Votes, "yes"))
		m = b.shows(rec, "Approved by <@U0ALICE01> and <@U0BOB0001>")
		require.False(t, m.HasControls())
		require.Equal(t, "Your vote is in, and it decided the question: Yes.", b.ephemeral("U0BOB0001", 1).Text)
		require.Never(t, func() bool { return b.updatesSaying(rec, "Approved by") > 1 }, 300*time.Millisecond, 20*time.Millisecond,
			"the message is updated for the resolution once")
		require.Len(t, b.fake.Calls("chat.update"), 2, "one update for the tally, one for the resolution")
	})
}

// A no from anybody vetoes a Confirm that asks for approvals; with reason on_no the No opens the
// reason modal instead of a confirmation, Slack's required field and the service's sentence
// keep an empty reason out, and the submission records the no with its reason.
func TestVetoWithReasonThroughModal(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		in := approvalOf(2, deployConfirm("deploy-43"))
		in.Reason = inquiry.ReasonOnNo
		rec := b.ask(in, inquiry.SlackRef{})
		b.click("U0ALICE01", rec, "Yes")
		b.shows(rec, "1 of 2 approvals: <@U0ALICE01>")

		var click struct {
			Actions []map[string]any `json:"actions"`
		}
		require.NoError(t, json.Unmarshal(b.clickPayload("U0CAROL01", rec, "No"), &click))
		require.NotContains(t, click.Actions[0], "confirm", "a No that must say why has no confirmation dialog")
		b.click("U0CAROL01", rec, "No")
		opened := b.fake.Calls("views.open")
		require.Len(t, opened, 1)
		require.Empty(t, opened[0].Error)
		view, ok := b.fake.OpenView("U0CAROL01")
		require.True(t, ok)
		require.Equal(t, blockkit.CallbackReason, view.CallbackID)
		require.Equal(t, rec.Key, view.PrivateMetadata)
		require.Len(t, b.get(rec.Key).Votes, 1, "the click recorded nothing")

		_, err := b.fake.SubmitView("U0CAROL01", view.ID, "", "")
		require.ErrorContains(t, err, "required input inq:reason is empty", "Slack's client does not submit an empty required field")
		r := b.ok(b.fake.SubmitView("U0CAROL01", view.ID, "", "   "))
		require.Equal(t, "this question asks for a reason with a no: say why in text (in Slack, in the box that opens)",
			r.ViewErrors()[blockkit.BlockReason])
		require.Len(t, b.get(rec.Key).Votes, 1)

		r = b.ok(b.fake.SubmitView("U0CAROL01", view.ID, "", "the migration is not reversible"))
		require.Nil(t, r.ViewErrors())
		got := b.resolved(rec.Key)
		require.Equal(t, "no", got.Answer.Value.First())
		require.Equal(t, "the migration is not reversible", got.Answer.Text)
		require.Equal(t, "U0CAROL01", got.Answer.AnsweredBy)
		require.Len(t, got.Answer.Votes, 2)
		m := b.shows(rec, "Vetoed by <@U0CAROL01>: “the migration is not reversible”")
		require.False(t, m.HasControls())
	})
}

// A Choice that three people must agree on, answered in its thread: each reply goes through
// Chosen, a person's second reply replaces their vote, and the third matching reply decides.
func TestChoiceQuorumThroughThreadReplies(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		rec := b.ask(approvalOf(3, mergeQuestion("merge-quorum")), inquiry.SlackRef{})
		ch, ts := rec.Slack.Channel, rec.Slack.TS

		b.ok(b.fake.ReplyInThread("U0ALICE01", ch, ts, "merge"))
		require.Equal(t, "Your vote for “Merge” is in: 1 of 3 so far.", b.ephemeral("U0ALICE01", 1).Text)
		b.ok(b.fake.ReplyInThread("U0BOB0001", ch, ts, "  HOLD "))
		require.Equal(t, "Your vote for “Hold” is in: 1 of 3 so far.", b.ephemeral("U0BOB0001", 1).Text)
		b.ok(b.fake.ReplyInThread("U0ALICE01", ch, ts, "hold"))
		require.Equal(t, "You changed your vote to “Hold”: 2 of 3 so far.", b.ephemeral("U0ALICE01", 2).Text)
		b.ok(b.fake.ReplyInThread("U0DAVE001", ch, ts, "hold it please"))
		require.True(t, strings.HasPrefix(b.ephemeral("U0DAVE001", 1).Text, "that is none of the offered answers: “Merge”, “Hold”"))
		m := b.shows(rec, "2 of 3 for\n“Hold”\n: <@U0BOB0001>, <@U0ALICE01>")
		require.True(t, m.HasControls())
		require.NotContains(t, m.AllText(), "for Merge:", "Alice's vote moved")
		b.noAnswer(rec.Key)

		b.ok(b.fake.ReplyInThread("U0CAROL01", ch, ts, "Hold"))
		got := b.resolved(rec.Key)
		require.Equal(t, "hold", got.Answer.Value.First())
		require.Equal(t, []string{"U0BOB0001", "U0ALICE01", "U0CAROL01"}, inquiry.Voters(got.Answer.Votes, "hold"))
		m = b.shows(rec, "Chosen by <@U0BOB0001>, <@U0ALICE01> and <@U0CAROL01>:\nHold\n")
		require.False(t, m.HasControls())
	})
}

// Whoever requested_by names may not give the approval: a click, a modal (its button, and a
// submission) and a thread reply each get the four-eyes ephemeral, and nothing is recorded.
func TestRequesterRefusedEverywhere(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		in := approvalOf(2, deployConfirm("deploy-44"))
		in.AllowText = true
		in.RequestedBy = []string{"U0AUTHOR1"}
		rec := b.ask(in, inquiry.SlackRef{})
		ch, ts := rec.Slack.Channel, rec.Slack.TS
		const refused = "You asked for this approval: someone else must give it."

		b.click("U0AUTHOR1", rec, "Yes")
		require.Equal(t, refused, b.ephemeral("U0AUTHOR1", 1).Text)
		b.click("U0AUTHOR1", rec, "Answer with a note")
		require.Equal(t, refused, b.ephemeral("U0AUTHOR1", 2).Text)
		require.Empty(t, b.fake.Calls("views.open"), "no modal for the requester")

		// A submission of the modal as the requester (one opened before, or forged): refused.
		sub, err := json.Marshal(map[string]any{
			"type": "view_submission", "user": map[string]any{"id": "U0AUTHOR1", "team_id": slackfake.TeamID},
			"team": map[string]any{"id": slackfake.TeamID}, "api_app_id": slackfake.AppID, "token": slackfake.VerificationToken,
			"view": map[string]any{"id": "V0FORGED1", "type": "modal", "callback_id": blockkit.CallbackConfirm, "private_metadata": rec.Key,
				"state": map[string]any{"values": map[string]any{
					blockkit.BlockAnswer: map[string]any{blockkit.ActionYesNo: map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "yes"}}},
				}}},
		})
		require.NoError(t, err)
		r := b.ok(b.fake.SendInteraction(sub))
		require.Nil(t, r.ViewErrors())
		require.Equal(t, refused, b.ephemeral("U0AUTHOR1", 3).Text)

		b.ok(b.fake.ReplyInThread("U0AUTHOR1", ch, ts, "yes"))
		e := b.ephemeral("U0AUTHOR1", 4)
		require.Equal(t, refused, e.Text)
		require.Equal(t, ts, e.ThreadTS)

		got := b.get(rec.Key)
		require.Equal(t, inquiry.StatusPending, got.Status)
		require.Empty(t, got.Votes, "nothing recorded")
		m := b.shows(rec, "asked for by <@U0AUTHOR1>, who may not answer")
		require.True(t, m.HasControls())
	})
}

// A choice that always asks why: the button opens the reason modal instead of its
// confirmation, and the submission records the answer with the reason. A thread reply without
// one gets the service's sentence; one that gives it after the answer is taken.
func TestReasonAlwaysThroughButtonAndThread(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		in := mergeQuestion("merge-why")
		in.Reason = inquiry.ReasonAlways
		rec := b.ask(in, inquiry.SlackRef{})
		b.click("U0ALICE01", rec, "Hold")
		view, ok := b.fake.OpenView("U0ALICE01")
		require.True(t, ok, "the button opened the reason modal")
		require.Equal(t, blockkit.CallbackReason, view.CallbackID)
		b.noAnswer(rec.Key)
		b.ok(b.fake.SubmitView("U0ALICE01", view.ID, "", "the freeze starts at 15:00 & <nobody> is on call"))
		got := b.resolved(rec.Key)
		require.Equal(t, "hold", got.Answer.Value.First(), "the answer clicked, preselected")
		require.Equal(t, "the freeze starts at 15:00 & <nobody> is on call", got.Answer.Text)
		b.shows(rec, "“the freeze starts at 15:00 &amp; &lt;nobody&gt; is on call”")

		in2 := approvalOf(2, deployConfirm("deploy-45"))
		in2.Reason = inquiry.ReasonOnNo
		conf := b.ask(in2, inquiry.SlackRef{})
		ch, ts := conf.Slack.Channel, conf.Slack.TS
		b.ok(b.fake.ReplyInThread("U0BOB0001", ch, ts, "no"))
		require.Equal(t, "this question asks for a reason with a no: say why in text (in Slack, in the box that opens). "+
			"In this thread, reply with the answer and your reason, like “no: the tests fail”.", b.ephemeral("U0BOB0001", 1).Text)
		require.Empty(t, b.get(conf.Key).Votes)
		b.ok(b.fake.ReplyInThread("U0BOB0001", ch, ts, "No: the tests fail on ARM"))
		got = b.resolved(conf.Key)
		require.Equal(t, "no", got.Answer.Value.First())
		require.Equal(t, "the tests fail on ARM", got.Answer.Text)
		b.shows(conf, "Vetoed by <@U0BOB0001>: “the tests fail on ARM”")
	})
}

// An approval asked of a user group is counted when posted: a group too small for the quorum
// fails the inquiry with a sentence saying how many members it has; one large enough is posted.
func TestApprovalsOfUserGroupCountedWhenPosting(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		b.fake.AddUserGroup("S0ONCALL1", "U0CAROL01", "U0DAVE001")
		rec := b.askNoWait(approvalOf(3, deployConfirm("too-many")), inquiry.SlackRef{Answerers: []string{"S0ONCALL1"}})
		got := b.resolved(rec.Key)
		require.Equal(t, inquiry.StatusFailed, got.Status)
		require.NotNil(t, got.Failure)
		require.True(t, got.Failure.Fatal)
		require.Equal(t, "approvals 3 needs 3 people, but only 2 may answer: user group S0ONCALL1 has 2 members; "+
			"ask for at most 2 approvals, or add people to slack.answerers or to the group", got.Failure.Message)
		require.Empty(t, b.fake.BotMessages(slackfake.DefaultChannel), "nothing posted")

		fits := b.ask(approvalOf(3, deployConfirm("fits")), inquiry.SlackRef{Answerers: []string{"S0ONCALL1", "U0ALICE01"}})
		require.Equal(t, inquiry.StatusPending, fits.Status)
	})
}

// An approval that expires with votes shows them beside what was assumed.
func TestApprovalExpiredWithVotes(t *testing.T) {
	b := setup(t)
	in := approvalOf(2, deployConfirm("expires"))
	in.Default = inquiry.One("no")
	rec := b.ask(in, inquiry.SlackRef{})
	b.click("U0ALICE01", rec, "Yes")
	b.shows(rec, "1 of 2 approvals: <@U0ALICE01>")
	_, err := b.svc.Expire(b.ctx, b.get(rec.Key))
	require.NoError(t, err)
	m := b.shows(rec, "— assumed:\nNo\n", "Votes given in time: 1 of 2 approvals: <@U0ALICE01>")
	require.False(t, m.HasControls())
}
