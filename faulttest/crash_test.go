package faulttest

import (
	"testing"
	"time"

	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// crashLease is the dispatcher's lease in the crash tests: a delivery the killed process had
// claimed is taken again when it runs out. FAULT_SOAK=1 keeps the default (one minute).
func crashLease() (env []string, lease time.Duration) {
	if soak() {
		return nil, time.Minute
	}
	return []string{"BOT_DELIVERY_LEASE=3s"}, 3 * time.Second
}

// TestKilledBetweenCommitAndPost: the bot is SIGKILLed after it committed inquiries (and their
// post deliveries) and before their posts to Slack completed. Started again on the same
// database, it posts each of them, once.
func TestKilledBetweenCommitAndPost(t *testing.T) {
	t.Parallel()
	leaseEnv, lease := crashLease()

	// The dispatcher claimed the posts and the first is on its way to Slack (which is slow to
	// answer) when the process dies: the claim holds until its lease runs out.
	t.Run("post in flight", func(t *testing.T) {
		eachSlackBot(t, leaseEnv, func(t *testing.T, fake *slackfake.Server, proxy *slackProxy, b *bot) {
			fake.SetLatency(time.Hour)
			const n = 3
			keys, _ := createAll(t, b, "inflight", slackfake.DefaultChannel, n)
			testkit.Eventually(t, 20*time.Second, "a post on its way to Slack", func() bool { return proxy.Begun("chat.postMessage") > 0 })
			b.kill()
			if got := len(fake.BotMessages(slackfake.DefaultChannel)); got != 0 {
				t.Fatalf("%d messages in Slack before the restart, want none", got)
			}
			fake.SetLatency(0)
			restarted := time.Now()
			b.restart()
			posted := exactlyOnePost(t, b, fake, slackfake.DefaultChannel, keys)
			t.Logf("figures: SIGKILL with %d posts claimed, 1 in flight; after the restart all %d posted within %s "+
				"(lease %s), each once (lost 0, duplicated 0)", n, n, posted.Sub(restarted).Round(100*time.Millisecond), lease)
		})
	})

	// The first attempt failed (Slack refused the connection) and the posts wait for their retry
	// when the process dies: nothing holds them but their due time.
	t.Run("post waiting for a retry", func(t *testing.T) {
		eachSlackBot(t, leaseEnv, func(t *testing.T, fake *slackfake.Server, proxy *slackProxy, b *bot) {
			proxy.Down()
			const n = 3
			keys, _ := createAll(t, b, "retry", slackfake.DefaultChannel, n)
			testkit.Eventually(t, 20*time.Second, "a failed post attempt", func() bool { return retries(b.logs(), "post") > 0 })
			b.kill()
			proxy.Up()
			restarted := time.Now()
			b.restart()
			posted := exactlyOnePost(t, b, fake, slackfake.DefaultChannel, keys)
			t.Logf("figures: SIGKILL with %d posts waiting for their retry; after the restart all %d posted within %s, "+
				"each once (lost 0, duplicated 0)", n, n, posted.Sub(restarted).Round(100*time.Millisecond))
		})
	})

	// Slack posted the message, but the process died before it heard so (before it stored the
	// message's ts). The restarted bot must find the message rather than post it again.
	t.Run("posted but not recorded", func(t *testing.T) {
		eachSlackBot(t, leaseEnv, func(t *testing.T, fake *slackfake.Server, proxy *slackProxy, b *bot) {
			proxy.Hold()
			keys, _ := createAll(t, b, "unrecorded", slackfake.DefaultChannel, 1)
			testkit.Eventually(t, 20*time.Second, "the message posted in Slack", func() bool {
				return postsOf(fake, slackfake.DefaultChannel, keys[0]) == 1
			})
			b.kill() // Slack's answer is still held: the bot never heard the message's ts
			proxy.Release()
			slackTS := fake.BotMessages(slackfake.DefaultChannel)[0].TS
			b.restart()
			exactlyOnePost(t, b, fake, slackfake.DefaultChannel, keys)
			if rec := b.get(keys[0]); rec.Slack.TS != slackTS {
				t.Errorf("the restarted bot recorded ts %q, want the message Slack posted, %q", rec.Slack.TS, slackTS)
			}
			if n := proxy.Begun("conversations.history"); n == 0 {
				t.Errorf("the restarted bot never looked for the earlier post")
			}
			t.Logf("figures: SIGKILL after Slack posted and before the bot stored the ts; after the restart the bot looked "+
				"(%d conversations.history) and found it: %d chat.postMessage in all, 1 message (duplicated 0)",
				proxy.Begun("conversations.history"), len(fake.Calls("chat.postMessage")))
		})
	})
}
