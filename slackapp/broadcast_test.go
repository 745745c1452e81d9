package slackapp

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// reminderOf waits for the reminder in rec's thread and returns it.
func (b *deadlineBundle) reminderOf(rec *inquiry.Record) slackfake.Message {
	b.t.Helper()
	var reminder slackfake.Message
	require.Eventually(b.t, func() bool {
		for _, m := range b.fake.Messages(rec.Slack.Channel) {
			if m.BotID != "" && m.ThreadTS == rec.Slack.TS && m.TS != rec.Slack.TS {
				reminder = m
				return true
			}
		}
		return false
	}, 15*time.Second, 10*time.Millisecond, "no reminder in the question's thread")
	return reminder
}

// @here wakes a whole channel: a reminder mentions it only while the operator allows it
// (BOT_ALLOW_BROADCAST). An inquiry stored with remind_here on a server that allowed it, and
// reminded after the operator turned it off, pings nobody but whom it names.
func TestReminderHereOnlyWhileTheServerAllowsIt(t *testing.T) {
	for _, allowed := range []bool{true, false} {
		// A database and a fake Slack each: a dispatcher of one never posts for the other.
		t.Run(fmt.Sprintf("allowed=%v", allowed), func(t *testing.T) {
			storagetest.Each(t, func(t *testing.T, databaseURL string) {
				b := setupDeadlines(t, databaseURL)
				b.svc.AllowBroadcast = true
				in := b.hourQuestion("here")
				in.Remind, in.RemindHere = []inquiry.Duration{inquiry.Duration(30 * time.Minute)}, true
				rec := b.ask(in, inquiry.SlackRef{})
				b.svc.AllowBroadcast = allowed

				b.advance(30 * time.Minute)
				reminder := b.reminderOf(rec)
				if allowed {
					require.Contains(t, reminder.Text, "<!here>")
					return
				}
				require.NotContains(t, reminder.AllText(), "<!here>", "the operator turned broadcasts off")
				require.Contains(t, reminder.Text, "Still waiting for an answer")
			})
		})
	}
}
