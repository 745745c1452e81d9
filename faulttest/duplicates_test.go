package faulttest

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// other is a second person, who clicks at the same moment as the first.
const other = "U0FAKEUSR2"

// TestSlackDuplicates: Slack delivers the same thing more than once — a click replayed, sequentially
// and concurrently (with another person's click racing it), a thread reply's event redelivered
// with X-Slack-Retry-Num, sequentially, concurrently, and after the bot restarted (its memory
// of served event ids gone). Each is acked; one answer is recorded per inquiry, never changed by
// a replay; each message is updated once.
func TestSlackDuplicates(t *testing.T) {
	t.Parallel()
	eachSlackBot(t, nil, func(t *testing.T, fake *slackfake.Server, proxy *slackProxy, b *bot) {
		ch := slackfake.DefaultChannel

		keys, _ := createAll(t, b, "dup", ch, 3)
		var recs []*record
		for _, k := range keys {
			recs = append(recs, b.waitPosted(k, 30*time.Second))
		}
		clicked, raced, replied := recs[0], recs[1], recs[2]
		var mu sync.Mutex // send is called from goroutines too
		var sent, acked int
		send := func(what string, f func() (*slackfake.Response, error)) {
			t.Helper()
			resp, err := f()
			mu.Lock()
			defer mu.Unlock()
			sent++
			if err != nil || resp.Status != http.StatusOK {
				t.Errorf("%s: want a 200 ack, got %v %v", what, resp, err)
				return
			}
			acked++
		}

		// A click, replayed twice: the same signed payload (trigger_id, action_ts and all).
		payload, err := fake.ClickPayload(person, ch, clicked.Slack.TS, "Yes")
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			send(fmt.Sprintf("click %d", i+1), func() (*slackfake.Response, error) { return fake.SendInteraction(payload) })
		}
		first := b.get(clicked.Key)
		if first.Status != "answered" || first.value() != "Yes" || first.Answer.AnsweredBy != person {
			t.Fatalf("after the click: %s %q by %v", first.Status, first.value(), first.Answer)
		}

		// Five copies of one click at once, racing another person's click on No.
		yes, err := fake.ClickPayload(person, ch, raced.Slack.TS, "Yes")
		if err != nil {
			t.Fatal(err)
		}
		no, err := fake.ClickPayload(other, ch, raced.Slack.TS, "No")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range 6 {
			p := yes
			if i == 5 {
				p = no
			}
			wg.Go(func() {
				send("concurrent click", func() (*slackfake.Response, error) { return fake.SendInteraction(p) })
			})
		}
		wg.Wait()
		racedFirst := b.get(raced.Key)
		if racedFirst.Status != "answered" {
			t.Fatalf("after the concurrent clicks: %s", racedFirst.Status)
		}
		if w := map[string]string{person: "Yes", other: "No"}[racedFirst.Answer.AnsweredBy]; w != racedFirst.value() {
			t.Errorf("after the concurrent clicks: %q by %s — not what that person clicked", racedFirst.value(), racedFirst.Answer.AnsweredBy)
		}

		// A thread reply, its event redelivered as Slack's retries 1 and 2, then 3 to 6 at once.
		send("thread reply", func() (*slackfake.Response, error) { return fake.ReplyInThread(person, ch, replied.Slack.TS, "No") })
		for n := 1; n <= 2; n++ {
			send(fmt.Sprintf("event retry %d", n), func() (*slackfake.Response, error) { return fake.RedeliverLastEvent(n) })
		}
		for n := 3; n <= 6; n++ {
			wg.Go(func() {
				send(fmt.Sprintf("event retry %d", n), func() (*slackfake.Response, error) { return fake.RedeliverLastEvent(n) })
			})
		}
		wg.Wait()
		repliedFirst := b.get(replied.Key)
		if repliedFirst.Status != "answered" || repliedFirst.value() != "No" {
			t.Fatalf("after the thread reply: %s %q", repliedFirst.Status, repliedFirst.value())
		}

		// The bot restarts: what it remembered of served events is gone; the store still
		// knows the answers.
		b.stop()
		b.restart()
		send("event retry 7, after a restart", func() (*slackfake.Response, error) { return fake.RedeliverLastEvent(7) })
		send("click replayed after a restart", func() (*slackfake.Response, error) { return fake.SendInteraction(payload) })

		// One answer each, as first recorded; one update each.
		for _, want := range []*record{first, racedFirst, repliedFirst} {
			got := b.get(want.Key)
			if got.Status != "answered" || got.value() != want.value() || got.Answer.AnsweredBy != want.Answer.AnsweredBy ||
				!got.Answer.AnsweredAt.Equal(want.Answer.AnsweredAt) {
				t.Errorf("inquiry %s changed after the duplicates: %q by %s at %s, first %q by %s at %s", want.Key,
					got.value(), got.Answer.AnsweredBy, got.Answer.AnsweredAt, want.value(), want.Answer.AnsweredBy, want.Answer.AnsweredAt)
			}
		}
		for _, rec := range recs {
			testkit.Eventually(t, 30*time.Second, "the answered message updated", func() bool {
				m, ok := fake.Message(ch, rec.Slack.TS)
				return ok && m.Edits > 0
			})
		}
		b.settled(30 * time.Second)
		updates := 0
		for _, rec := range recs {
			m, _ := fake.Message(ch, rec.Slack.TS)
			updates += m.Edits
			if m.Edits != 1 {
				t.Errorf("message of %s updated %d times, want once", rec.Key, m.Edits)
			}
		}
		if acked != sent {
			t.Errorf("%d of %d deliveries acked", acked, sent)
		}
		already := 0
		for _, e := range append(fake.Ephemerals(person), fake.Ephemerals(other)...) {
			if strings.Contains(e.Text, "already answered") {
				already++
			}
		}
		t.Logf("figures: %d deliveries sent — 3 originals, 7 click replays (4 concurrent, 1 after a restart), "+
			"7 event retries with X-Slack-Retry-Num (4 concurrent, 1 after a restart), 1 racing click by another person — %d acked; "+
			"3 answers recorded, none changed by a duplicate (answered twice: 0); %d message updates for 3 messages; "+
			"%d \"already answered\" ephemerals", sent, acked, updates, already)
	})
}
