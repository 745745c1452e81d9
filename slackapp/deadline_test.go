package slackapp

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// deadlineBundle is a bundle whose service clock the test moves forward. It starts an hour behind
// the wall clock and never passes it, so that every delivery the service enqueues is due at once
// for the dispatcher, which keeps the wall clock.
type deadlineBundle struct {
	*bundle
	behind atomic.Int64
}

func setupDeadlines(t *testing.T, databaseURL string) *deadlineBundle {
	b := &deadlineBundle{}
	b.behind.Store(int64(2 * time.Hour))
	clock := func() time.Time { return time.Now().Add(-time.Duration(b.behind.Load())) }
	b.bundle = setupOn(t, databaseURL, func(c *Config) { c.Now = clock })
	b.svc.Now = clock
	b.fake.SetClock(clock) // it signs what it sends at the app's time
	return b
}

// hourQuestion is mergeQuestion(id) expiring an hour from the service clock.
func (b *deadlineBundle) hourQuestion(id string) inquiry.Inquiry {
	in := mergeQuestion(id)
	exp := b.svc.Clock().Add(time.Hour)
	in.ExpiresAt = &exp
	return in
}

// advance moves the service clock forward by d and runs the deadline sweep.
func (b *deadlineBundle) advance(d time.Duration) {
	b.t.Helper()
	b.behind.Add(-int64(d))
	_, err := b.svc.SweepDeadlines(b.ctx, 100)
	require.NoError(b.t, err)
}

// untilMessages waits until channel holds n bot messages and returns them.
func (b *deadlineBundle) untilMessages(channel string, n int) []slackfake.Message {
	b.t.Helper()
	return atLeast(b.bundle, n, 15*time.Second, func() []slackfake.Message { return b.fake.BotMessages(channel) },
		"channel %s never held %d bot messages", channel, n)
}

func TestReminderInTheThreadAndEscalationUpdatesBothMessages(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setupDeadlines(t, databaseURL)
		b.fake.AddChannel("C0ONCALL1", "oncall")
		in := b.hourQuestion("escalating")
		in.Remind = []inquiry.Duration{inquiry.Duration(30 * time.Minute)}
		in.RemindDM = true
		in.Escalate = []inquiry.Step{
			{After: inquiry.Duration(10 * time.Minute), Channel: "C0ONCALL1", Answerers: []string{"U0ONCALL1"}, Mention: true},
			{After: inquiry.Duration(20 * time.Minute), Answerers: []string{"S0LEADS01"}},
		}
		rec := b.ask(in, inquiry.SlackRef{Answerers: []string{"U0ANA0001"}})

		b.advance(10 * time.Minute)
		esc := b.untilMessages("C0ONCALL1", 1)[0]
		var md struct {
			EventType    string         `json:"event_type"`
			EventPayload map[string]any `json:"event_payload"`
		}
		require.NoError(t, json.Unmarshal(esc.Metadata, &md))
		require.Equal(t, escalationEvent, md.EventType)
		require.Equal(t, rec.Key, md.EventPayload["key"], "the escalated message carries the key")
		require.Contains(t, esc.Text, "<@U0ONCALL1>", "the step mentions its answerers")
		require.Contains(t, string(esc.Blocks), "Escalated (step 1 of 2)")
		require.Equal(t, 1, b.until(rec.Key, "was never escalated", func(r *inquiry.Record) bool { return len(r.Placements) == 1 }).Escalation)

		b.advance(10 * time.Minute) // step 2: no channel, one more group may answer
		require.Equal(t, 2, b.get(rec.Key).Escalation)
		require.Len(t, b.fake.BotMessages("C0ONCALL1"), 1, "a step without a channel posts nothing")

		b.advance(10 * time.Minute) // 30 minutes before the expiry
		var reminder slackfake.Message
		require.Eventually(t, func() bool {
			for _, m := range b.fake.Messages(slackfake.DefaultChannel) {
				if m.BotID != "" && m.ThreadTS == rec.Slack.TS && m.TS != rec.Slack.TS {
					reminder = m
					return true
				}
			}
			return false
		}, 15*time.Second, 10*time.Millisecond, "no reminder in the question's thread")
		for _, want := range []string{"<@U0ANA0001>", "<@U0ONCALL1>", "<!subteam^S0LEADS01>", "30m left; if nobody answers: Hold."} {
			require.Contains(t, reminder.Text, want)
		}
		require.NotContains(t, reminder.Text, "<!here>")
		dms := b.untilMessages("D0ANA0001", 1)
		require.Contains(t, dms[0].Text, "30m left", "a direct message to each listed user")
		require.Equal(t, 1, b.get(rec.Key).Reminders)

		// An answer in the escalated channel, by the person the first step added.
		b.ok(b.fake.Click("U0ONCALL1", "C0ONCALL1", esc.TS, "Merge"))
		got := b.resolved(rec.Key)
		require.Equal(t, "U0ONCALL1", got.Answer.AnsweredBy)
		first := b.updated(rec)
		require.Contains(t, first.Text, "Merge")
		require.Eventually(t, func() bool {
			m, ok := b.fake.Message("C0ONCALL1", esc.TS)
			return ok && m.Edits > 0 && !strings.Contains(string(m.Blocks), `"actions"`)
		}, 15*time.Second, 10*time.Millisecond, "the escalated message was never updated")
		require.NotContains(t, string(first.Blocks), `"actions"`, "controls gone from the first message too")

		// Nothing more is sent of an answered inquiry.
		b.advance(time.Hour)
		b.settle()
		require.Len(t, b.fake.BotMessages("C0ONCALL1"), 1)
	})
}

func TestExtendButtonShowsTheNewDeadline(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setupDeadlines(t, databaseURL)
		in := b.hourQuestion("more-time")
		exp := *in.ExpiresAt
		in.Extend = &inquiry.Extension{By: inquiry.Duration(30 * time.Minute), Max: inquiry.Duration(30 * time.Minute)}
		rec := b.ask(in, inquiry.SlackRef{Answerers: []string{"U0ANA0001"}})

		b.ok(b.fake.Click("U0BOB0001", rec.Slack.Channel, rec.Slack.TS, "Extend by 30m"))
		require.Contains(t, b.ephemeral("U0BOB0001", 1).Text, "not", "a person who may not answer may not extend")
		require.Equal(t, exp, *b.get(rec.Key).ExpiresAt)

		b.ok(b.fake.Click("U0ANA0001", rec.Slack.Channel, rec.Slack.TS, "Extend by 30m"))
		got := b.until(rec.Key, "was never extended", func(r *inquiry.Record) bool { return r.ExtendedBy > 0 })
		require.Equal(t, exp.Add(30*time.Minute), *got.ExpiresAt)
		require.Contains(t, b.ephemeral("U0ANA0001", 1).Text, "Deadline extended by 30m")
		m := b.updated(rec)
		require.Contains(t, string(m.Blocks), "extended by 30m", "the new deadline shows on the message")
		require.NotContains(t, m.ActionIDs(), "inq:extend", "no more time left to give: the button is gone")

		var evs []inquiry.Event
		evs, err := b.store.InquiryEvents(b.ctx, rec.Key)
		require.NoError(t, err)
		last := evs[len(evs)-1]
		require.Equal(t, inquiry.EventExtended, last.Type)
		require.Equal(t, "U0ANA0001", last.By)
		var data map[string]any
		require.NoError(t, json.Unmarshal(last.Data, &data))
		require.Equal(t, "30m", data["by"])
	})
}

// TestEscalationToAChannelTheBotIsNotIn: the step fails at posting time and says how to fix it;
// the question stays asked where it was.
func TestEscalationToAChannelTheBotIsNotIn(t *testing.T) {
	b := setupDeadlines(t, storagetest.SQLiteURL(t))
	b.fake.AddChannel("C0PRIVATE", "private")
	b.fake.RemoveBot("C0PRIVATE")
	in := b.hourQuestion("locked-out")
	in.Escalate = []inquiry.Step{{After: inquiry.Duration(10 * time.Minute), Channel: "C0PRIVATE"}}
	rec := b.ask(in, inquiry.SlackRef{})
	b.advance(10 * time.Minute)
	got := b.until(rec.Key, "never noted the failed step", func(r *inquiry.Record) bool { return r.Failure != nil })
	require.Equal(t, inquiry.StatusPending, got.Status, "still asked in its first channel")
	require.Contains(t, got.Failure.Message, "escalation step 1 could not be posted: not_in_channel: the bot is not a member of channel C0PRIVATE: invite it there")
	require.Empty(t, got.Placements)
}

// TestReminderAndEscalationFoundAfterALostAnswer: Slack posted the reminder (and the escalated
// question) but its answer never reached the bot. The retry looks for it by its metadata and
// posts nothing more: one reminder in the thread, one message in the step's channel.
func TestReminderAndEscalationFoundAfterALostAnswer(t *testing.T) {
	b := setupDeadlines(t, storagetest.SQLiteURL(t))
	b.fake.AddChannel("C0ONCALL1", "oncall")
	in := b.hourQuestion("lost-answers")
	in.Remind = []inquiry.Duration{inquiry.Duration(50 * time.Minute)}
	in.Escalate = []inquiry.Step{{After: inquiry.Duration(20 * time.Minute), Channel: "C0ONCALL1"}}
	rec := b.ask(in, inquiry.SlackRef{})

	done := func(kind inquiry.DeliveryKind) func() bool {
		return func() bool {
			ds, err := b.store.ListDeliveries(b.ctx, rec.Key)
			require.NoError(t, err)
			for _, d := range ds {
				if d.Kind == kind && d.Status == inquiry.DeliveryDone {
					require.Equal(t, 2, d.Attempts, "the second attempt found it")
					return true
				}
			}
			return false
		}
	}
	b.fake.DropNextResponse("chat.postMessage")
	b.advance(10 * time.Minute)
	require.Eventually(t, done(inquiry.DeliverRemind), 15*time.Second, 20*time.Millisecond, "the reminder was never done")
	n := 0
	for _, m := range b.fake.Messages(slackfake.DefaultChannel) {
		if m.BotID != "" && m.ThreadTS == rec.Slack.TS && m.TS != rec.Slack.TS {
			n++
		}
	}
	require.Equal(t, 1, n, "one reminder in the thread")
	require.NotEmpty(t, b.fake.Calls("conversations.replies"), "the retry looked in the thread")

	b.fake.DropNextResponse("chat.postMessage")
	b.advance(10 * time.Minute)
	require.Eventually(t, done(inquiry.DeliverEscalate), 15*time.Second, 20*time.Millisecond, "the escalation was never done")
	require.Len(t, b.fake.BotMessages("C0ONCALL1"), 1, "one escalated message")
	got := b.get(rec.Key)
	require.Len(t, got.Placements, 1)
	require.Equal(t, b.fake.BotMessages("C0ONCALL1")[0].TS, got.Placements[0].TS, "the placement found is the message Slack posted")
}

// TestThreadReplyInTheEscalatedChannelAnswers: "answering in either place resolves the one
// inquiry" holds for a reply in the escalated message's thread as for its buttons; who may answer
// there is widened by the step as anywhere. Before: the reply was looked up by the first
// message's thread only and dropped without a word.
func TestThreadReplyInTheEscalatedChannelAnswers(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setupDeadlines(t, databaseURL)
		b.fake.AddChannel("C0ONCALL1", "oncall")
		in := b.hourQuestion("escalated-reply")
		in.Escalate = []inquiry.Step{{After: inquiry.Duration(10 * time.Minute), Channel: "C0ONCALL1", Answerers: []string{"U0ONCALL1"}}}
		rec := b.ask(in, inquiry.SlackRef{Answerers: []string{"U0ANA0001"}})

		b.advance(10 * time.Minute)
		esc := b.untilMessages("C0ONCALL1", 1)[0]
		b.until(rec.Key, "was never escalated", func(r *inquiry.Record) bool { return len(r.Placements) == 1 })

		// Somebody neither listed nor added is told why, in the escalated thread.
		b.ok(b.fake.ReplyInThread("U0BYSTAND", "C0ONCALL1", esc.TS, "Hold"))
		require.Eventually(t, func() bool { return len(b.fake.Ephemerals("U0BYSTAND")) > 0 },
			15*time.Second, 10*time.Millisecond, "the bystander was told nothing")
		require.Equal(t, inquiry.StatusPending, b.get(rec.Key).Status)

		b.ok(b.fake.ReplyInThread("U0ONCALL1", "C0ONCALL1", esc.TS, "Hold"))
		got := b.resolved(rec.Key)
		require.Equal(t, "hold", got.Answer.Value.First())
		require.Equal(t, "U0ONCALL1", got.Answer.AnsweredBy)
		require.False(t, b.updated(rec).HasControls(), "the first message shows the answer")
		require.Eventually(t, func() bool {
			m, ok := b.fake.Message("C0ONCALL1", esc.TS)
			return ok && m.Edits > 0 && !strings.Contains(string(m.Blocks), `"actions"`)
		}, 15*time.Second, 10*time.Millisecond, "the escalated message was never updated")
	})
}

// TestEscalationStepWithoutAChannelCallsOnItsAnswerers: a step that adds answerers and mentions
// them, but names no channel, calls on them in the question's thread, once; the message of its
// own is none, so no placement. Before: it posted nothing, and they were never told.
func TestEscalationStepWithoutAChannelCallsOnItsAnswerers(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setupDeadlines(t, databaseURL)
		in := b.hourQuestion("call-the-leads")
		in.Escalate = []inquiry.Step{
			{After: inquiry.Duration(10 * time.Minute), Answerers: []string{"S0LEADS01"}, Mention: true},
			{After: inquiry.Duration(20 * time.Minute), Answerers: []string{"U0QUIET01"}}, // no mention: nothing posted
		}
		rec := b.ask(in, inquiry.SlackRef{})
		inThread := func() []slackfake.Message {
			var out []slackfake.Message
			for _, m := range b.fake.Messages(slackfake.DefaultChannel) {
				if m.BotID != "" && m.ThreadTS == rec.Slack.TS && m.TS != rec.Slack.TS {
					out = append(out, m)
				}
			}
			return out
		}
		b.advance(10 * time.Minute)
		require.Eventually(t, func() bool { return len(inThread()) == 1 }, 15*time.Second, 10*time.Millisecond, "no call in the question's thread")
		call := inThread()[0]
		require.Contains(t, call.Text, "<!subteam^S0LEADS01>")
		require.Contains(t, call.Text, "Escalated (step 1 of 2)")
		require.Contains(t, call.Text, "50m left")

		b.advance(10 * time.Minute)
		require.Equal(t, 2, b.get(rec.Key).Escalation)
		b.settle()
		require.Len(t, inThread(), 1, "a step that mentions nobody posts nothing")
		require.Empty(t, b.get(rec.Key).Placements, "a call in the thread is no message to keep up to date")
	})
}
