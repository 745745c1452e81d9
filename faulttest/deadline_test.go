package faulttest

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// remindersOf counts the app's reminders in the thread of the question message ts in channel.
func remindersOf(fake *slackfake.Server, channel, ts string) int {
	n := 0
	for _, m := range fake.Messages(channel) {
		if m.BotID != "" && m.ThreadTS == ts && m.TS != ts {
			n++
		}
	}
	return n
}

// TestKilledBetweenReminderClaimAndPost: the sweeper claimed a reminder (the inquiry's counter
// advanced and the remind delivery enqueued in one transaction) and the dispatcher's post of it
// is on its way to Slack when the bot is SIGKILLed. Started again on the same database, the bot
// posts the reminder once: the claim is never made twice, and the delivery is taken again when
// its lease runs out.
func TestKilledBetweenReminderClaimAndPost(t *testing.T) {
	t.Parallel()
	leaseEnv, lease := crashLease()
	eachSlackBot(t, leaseEnv, func(t *testing.T, fake *slackfake.Server, proxy *slackProxy, b *bot) {
		body := choice("reminded", viaSlack)
		// Due 5 seconds after it is asked, with two minutes left before the expiry.
		body["expires_in"], body["remind"] = "2m", []string{"115s"}
		created := b.mustCall(http.MethodPost, "/v1/inquiries", body, http.StatusCreated)
		rec := b.waitPosted(created.Key, 30*time.Second)
		posts := proxy.Begun("chat.postMessage")

		fake.SetLatency(time.Hour)
		testkit.Eventually(t, 30*time.Second, "the reminder on its way to Slack", func() bool { return proxy.Begun("chat.postMessage") > posts })
		b.kill()
		if n := remindersOf(fake, slackfake.DefaultChannel, rec.Slack.TS); n != 0 {
			t.Fatalf("%d reminders in Slack before the restart, want none", n)
		}
		var st struct {
			Reminders int `json:"reminders"`
		}
		fake.SetLatency(0)
		restarted := time.Now()
		b.restart()
		testkit.Eventually(t, 60*time.Second, "the reminder posted after the restart", func() bool {
			return remindersOf(fake, slackfake.DefaultChannel, rec.Slack.TS) > 0
		})
		posted := time.Since(restarted)
		b.settled(lease + 30*time.Second)
		if n := remindersOf(fake, slackfake.DefaultChannel, rec.Slack.TS); n != 1 {
			t.Errorf("%d reminders in the question's thread, want exactly 1", n)
		}
		r := b.call(t.Context(), http.MethodGet, "/v1/inquiries/"+created.Key, nil)
		if err := json.Unmarshal(r.body, &st); err != nil || st.Reminders != 1 {
			t.Errorf("the inquiry counts %d reminders (%v), want 1: %s", st.Reminders, err, r)
		}
		t.Logf("figures: SIGKILL with a reminder claimed and its post in flight; after the restart it was posted within %s "+
			"(lease %s), once (lost 0, duplicated 0)", posted.Round(100*time.Millisecond), lease)
	})
}
