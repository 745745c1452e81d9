package faulttest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// slackLatency is how long the slow fake Slack takes per call.
const slackLatency = 5 * time.Second

// quick bounds a create while Slack is down, slow or failing: a create that waited on a Slack
// call would take at least slackLatency while Slack is slow. It is a causal bound, not a
// performance target (the figures the tests log are the measure), generous enough for a loaded
// CI machine running everything with the race detector.
const quick = slackLatency

// ackWithin is Slack's own limit on an ack: after three seconds Slack shows the person an error.
const ackWithin = 3 * time.Second

// person is the Slack user who answers in these tests.
const person = "U0FAKEUSR1"

// createAll creates n Slack inquiries named prefix-i in channel and returns their keys and the
// longest a create took.
func createAll(t *testing.T, b *bot, prefix, channel string, n int) (keys []string, slowest time.Duration) {
	t.Helper()
	for i := range n {
		body := choice(fmt.Sprintf("%s-%d", prefix, i), viaSlack)
		body["slack"] = map[string]any{"channel": channel}
		start := time.Now()
		rec := b.mustCall(http.MethodPost, "/v1/inquiries", body, http.StatusCreated)
		slowest = max(slowest, time.Since(start))
		if rec.Status != "pending" || rec.Slack.TS != "" {
			t.Fatalf("create %s: want pending and not yet posted, got %s with ts %q", rec.ID, rec.Status, rec.Slack.TS)
		}
		keys = append(keys, rec.Key)
	}
	return keys, slowest
}

// exactlyOnePost checks that each key was posted, once, in channel — once the bot has no
// delivery left, so that a late duplicate would show. It returns when the last one was seen
// posted.
func exactlyOnePost(t *testing.T, b *bot, fake *slackfake.Server, channel string, keys []string) (allPosted time.Time) {
	t.Helper()
	within := 60 * time.Second
	if soak() {
		within += time.Minute // the crash test then waits for the default lease
	}
	for _, k := range keys {
		rec := b.waitPosted(k, within)
		if rec.Slack.Channel != channel {
			t.Errorf("inquiry %s posted to %s, want %s", k, rec.Slack.Channel, channel)
		}
	}
	allPosted = time.Now()
	b.settled(within)
	for _, k := range keys {
		if n := postsOf(fake, channel, k); n != 1 {
			t.Errorf("inquiry %s: %d messages in %s, want exactly 1", k, n, channel)
		}
	}
	return allPosted
}

// retries counts the dispatcher's log lines of failed attempts of a kind of delivery.
func retries(logs, kind string) int {
	n := 0
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, `"msg":"delivery retry"`) && strings.Contains(line, `"kind":"`+kind+`"`) {
			n++
		}
	}
	return n
}

// TestSlackDown: Slack refuses connections (a network outage, DNS, a firewall). Creates succeed
// at once, the questions are posted when Slack is back, each once.
func TestSlackDown(t *testing.T) {
	t.Parallel()
	eachSlackBot(t, nil, func(t *testing.T, fake *slackfake.Server, proxy *slackProxy, b *bot) {
		proxy.Down()
		const n = 5
		keys, slowest := createAll(t, b, "down", slackfake.DefaultChannel, n)
		if slowest >= quick {
			t.Errorf("a create took %s while Slack was down; creates must not wait on Slack", slowest)
		}
		// Down until the first post fails (else the fault was not injected).
		down := time.Now()
		testkit.Eventually(t, 30*time.Second, "a post attempt failing while Slack is down", func() bool { return retries(b.logs(), "post") > 0 })
		for _, k := range keys {
			if rec := b.get(k); rec.Status != "pending" || rec.Slack.TS != "" {
				t.Fatalf("inquiry %s while Slack is down: %s, ts %q", k, rec.Status, rec.Slack.TS)
			}
		}
		proxy.Up()
		back := time.Now()
		outage := back.Sub(down).Round(10 * time.Millisecond)
		posted := exactlyOnePost(t, b, fake, slackfake.DefaultChannel, keys)
		failed := retries(b.logs(), "post")
		if failed == 0 {
			t.Errorf("no post attempt failed while Slack was down: the fault was not injected")
		}
		t.Logf("figures: Slack refusing connections for %s; %d creates, slowest %s; %d post attempts failed; "+
			"all %d posted within %s of Slack's return, each once (lost 0, duplicated 0)",
			outage, n, slowest.Round(time.Millisecond), failed, n, posted.Sub(back).Round(100*time.Millisecond))
	})
}

// TestSlack500: Slack's edge answers 500 to the first posts. They are retried with backoff and
// posted once.
func TestSlack500(t *testing.T) {
	t.Parallel()
	eachSlackBot(t, nil, func(t *testing.T, fake *slackfake.Server, proxy *slackProxy, b *bot) {
		const fails = 3
		for range fails {
			fake.FailNextStatus("chat.postMessage", http.StatusInternalServerError)
		}
		const n = 3
		keys, slowest := createAll(t, b, "err500", slackfake.DefaultChannel, n)
		if slowest >= quick {
			t.Errorf("a create took %s while Slack answered 500; creates must not wait on Slack", slowest)
		}
		exactlyOnePost(t, b, fake, slackfake.DefaultChannel, keys)
		var failed, ok int
		for _, c := range fake.Calls("chat.postMessage") {
			switch {
			case c.Status == http.StatusInternalServerError:
				failed++
			case c.Status == http.StatusOK && c.Error == "":
				ok++
			}
		}
		if failed != fails || ok != n {
			t.Errorf("chat.postMessage: %d answered 500 and %d succeeded, want %d and %d", failed, ok, fails, n)
		}
		t.Logf("figures: %d creates, slowest %s; %d posts answered 500 and were retried; %d posted, each once (lost 0, duplicated 0)",
			n, slowest.Round(time.Millisecond), failed, ok)
	})
}

// TestSlackSlow: every Slack call takes 5 s. Creates return at once; a click and a thread reply
// are acked without waiting on Slack, and their answers recorded at once; the posts and the
// message update happen, late, once.
func TestSlackSlow(t *testing.T) {
	t.Parallel()
	eachSlackBot(t, nil, func(t *testing.T, fake *slackfake.Server, proxy *slackProxy, b *bot) {
		// Two questions posted while Slack is quick: one to click, one to reply to.
		keys, _ := createAll(t, b, "before", slackfake.DefaultChannel, 2)
		clicked, replied := b.waitPosted(keys[0], 30*time.Second), b.waitPosted(keys[1], 30*time.Second)

		fake.SetLatency(slackLatency)

		resp, err := fake.Click(person, clicked.Slack.Channel, clicked.Slack.TS, "Yes")
		if err != nil || resp.Status != http.StatusOK {
			t.Fatalf("click while Slack is slow: %v %v", resp, err)
		}
		if resp.Elapsed >= ackWithin {
			t.Errorf("the click was acked after %s: the ack waited on Slack (%s a call)", resp.Elapsed, slackLatency)
		}
		if rec := b.get(clicked.Key); rec.Status != "answered" || rec.value() != "Yes" || rec.Answer.AnsweredBy != person {
			t.Errorf("after the acked click: %s %q by %v, want answered Yes by %s", rec.Status, rec.value(), rec.Answer, person)
		}
		ev, err := fake.ReplyInThread(person, replied.Slack.Channel, replied.Slack.TS, "No")
		if err != nil || ev.Status != http.StatusOK {
			t.Fatalf("thread reply while Slack is slow: %v %v", ev, err)
		}
		if ev.Elapsed >= ackWithin {
			t.Errorf("the thread reply was acked after %s: the ack waited on Slack (%s a call)", ev.Elapsed, slackLatency)
		}
		if rec := b.get(replied.Key); rec.Status != "answered" || rec.value() != "No" {
			t.Errorf("after the acked thread reply: %s %q, want answered No", rec.Status, rec.value())
		}

		// Questions asked while Slack is slow, in channels of their own so their posts run side
		// by side (a channel's messages go out one after another).
		channels := []string{"C0FAKESLOW1", "C0FAKESLOW2"}
		var later []string
		var slowest time.Duration
		for _, ch := range channels {
			fake.AddChannel(ch, strings.ToLower(ch))
			k, d := createAll(t, b, "slow-"+ch, ch, 1)
			later, slowest = append(later, k...), max(slowest, d)
		}
		if slowest >= quick {
			t.Errorf("a create took %s while Slack was slow; creates must not wait on Slack", slowest)
		}
		for i, ch := range channels {
			exactlyOnePost(t, b, fake, ch, later[i:i+1])
		}
		// Both answered messages are updated, once: controls gone.
		for _, rec := range []*record{clicked, replied} {
			testkit.Eventually(t, 60*time.Second, "the answered message updated", func() bool {
				m, ok := fake.Message(rec.Slack.Channel, rec.Slack.TS)
				return ok && m.Edits > 0
			})
		}
		b.settled(60 * time.Second)
		for _, rec := range []*record{clicked, replied} {
			m, _ := fake.Message(rec.Slack.Channel, rec.Slack.TS)
			if m.Edits != 1 || m.HasControls() {
				t.Errorf("message of %s: %d edits, controls %v; want 1 edit and no controls", rec.Key, m.Edits, m.HasControls())
			}
		}
		t.Logf("figures: Slack %s per call; click acked in %s, thread reply in %s, both recorded at once; "+
			"%d creates, slowest %s; %d posts and 2 updates made late, each once (lost 0, duplicated 0)",
			slackLatency, resp.Elapsed.Round(time.Millisecond), ev.Elapsed.Round(time.Millisecond),
			len(later), slowest.Round(time.Millisecond), len(later))
	})
}

// TestSlackConnectionCutAfterPost: Slack posts the message, and the connection breaks before its
// answer reaches the bot (a proxy restart, a network blip). The retry finds the message instead
// of posting it again.
func TestSlackConnectionCutAfterPost(t *testing.T) {
	t.Parallel()
	eachSlackBot(t, nil, func(t *testing.T, fake *slackfake.Server, proxy *slackProxy, b *bot) {
		proxy.Hold()
		keys, _ := createAll(t, b, "cut", slackfake.DefaultChannel, 1)
		testkit.Eventually(t, 20*time.Second, "the message posted in Slack", func() bool {
			return postsOf(fake, slackfake.DefaultChannel, keys[0]) == 1
		})
		proxy.Down() // the bot's connection is cut while Slack's answer is held
		proxy.Release()
		proxy.Up()
		exactlyOnePost(t, b, fake, slackfake.DefaultChannel, keys)
		if rec, m := b.get(keys[0]), fake.BotMessages(slackfake.DefaultChannel)[0]; rec.Slack.TS != m.TS {
			t.Errorf("recorded ts %q, want the message Slack posted, %q", rec.Slack.TS, m.TS)
		}
		if retries(b.logs(), "post") == 0 {
			t.Errorf("the cut post was not retried: the fault was not injected")
		}
		t.Logf("figures: connection cut after Slack posted; the retry looked (%d conversations.history) and found it: "+
			"%d chat.postMessage, 1 message (duplicated 0)", proxy.Begun("conversations.history"), len(fake.Calls("chat.postMessage")))
	})
}

// TestBurstOutlastsLease: a dispatcher's work outlasts the lease it claimed it under — a burst of
// questions for one channel goes out at about one a second, and a slow Slack takes seconds a
// message — while the sweeper claims due work every second beside it. Each question is posted
// once. (Here 12 questions under a 2 s lease; by default the lease is a minute, which a burst of
// about 60 for one channel, or 6 while Slack takes 5 s a call, outlasts the same way.)
func TestBurstOutlastsLease(t *testing.T) {
	t.Parallel()
	const lease = 2 * time.Second
	eachSlackBot(t, []string{"BOT_DELIVERY_LEASE=" + lease.String()}, func(t *testing.T, fake *slackfake.Server, proxy *slackProxy, b *bot) {
		const n = 12
		keys, _ := createAll(t, b, "burst", slackfake.DefaultChannel, n)
		start := time.Now()
		posted := exactlyOnePost(t, b, fake, slackfake.DefaultChannel, keys)
		if got := len(fake.Calls("chat.postMessage")); got != n {
			t.Errorf("%d chat.postMessage calls for %d questions", got, n)
		}
		t.Logf("figures: %d questions for one channel under a %s lease, the sweeper claiming every second; "+
			"all posted in %s (paced), each once: %d chat.postMessage (duplicated 0)",
			n, lease, posted.Sub(start).Round(100*time.Millisecond), len(fake.Calls("chat.postMessage")))
	})
}
