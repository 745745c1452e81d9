package teamsapp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/dispatch"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/storage/storagetest"
	"github.com/inquiry-bot/bot/teamsapp/teamsfake"
)

// dispatch runs the delivery dispatcher until the test ends, as bot serve runs it.
func (b *bundle) dispatch() {
	ctx, cancel := context.WithCancel(context.Background())
	d := &dispatch.Dispatcher{Store: b.store, Handlers: b.svc.TransportHandlers(), Now: b.clock.Now, Poll: 20 * time.Millisecond, Log: quiet}
	b.svc.Kick = d.Kick
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	b.t.Cleanup(func() { cancel(); <-done })
}

// posted is where the record says Teams showed its question (zero when not yet): a step-0
// placement via teams, or for a record stored before, its slack fields.
func posted(rec *inquiry.Record) inquiry.Posted {
	if rec == nil {
		return inquiry.Posted{}
	}
	where, _ := rec.PostedOn(inquiry.TransportTeams)
	return where
}

func (b *bundle) calls(n int) []teamsfake.Call {
	b.t.Helper()
	testkit.Eventually(b.t, 10*time.Second, "the fake Teams to receive the bot's calls", func() bool { return len(b.fake.Calls()) >= n })
	return b.fake.Calls()
}

// TestQuorumOfTwoInTeams: a question that needs two people's answers counts one click, shows the
// tally on the card, and resolves on the second person's click.
func TestQuorumOfTwoInTeams(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setup(t, databaseURL)
		b.dispatch()
		conv := "19:quorum@thread.tacv2"
		in := mergeQuestion("quorum")
		two := 2
		in.Approvals = &two
		rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: in,
			Config: &inquiry.Config{Policy: inquiry.PolicyAsk},
			Teams:  &inquiry.TeamsTarget{Conversation: conv, ServiceURL: b.fake.ServiceURL(), Answerers: []string{alice.AADObjectID, bob.AADObjectID}}})
		if err != nil {
			t.Fatal(err)
		}
		b.calls(1)
		testkit.Eventually(t, 10*time.Second, "the post to be recorded", func() bool {
			got, err := b.svc.Get(b.ctx, rec.Key)
			return err == nil && posted(got).ID != ""
		})
		r := b.click(alice, map[string]any{"inquiry": rec.Key, "value": "merge"})
		if !strings.Contains(string(r.Value), "1 given so far") || !strings.Contains(string(r.Value), "Action.Execute") {
			t.Fatalf("one vote of two: want the question still open with its tally, got %s", r.Value)
		}
		if got, _ := b.svc.Get(b.ctx, rec.Key); got.Status != inquiry.StatusPending {
			t.Fatalf("one vote of two resolved it: %s", got.Status)
		}
		r = b.click(bob, map[string]any{"inquiry": rec.Key, "value": "merge"})
		if strings.Contains(string(r.Value), "Action.Execute") {
			t.Fatalf("the second vote: want the resolved card, got %s", r.Value)
		}
		got, _ := b.svc.Get(b.ctx, rec.Key)
		if got.Status != inquiry.StatusAnswered || len(got.Answer.Votes) != 2 {
			t.Fatalf("want answered with two votes, got %s %+v", got.Status, got.Answer)
		}
		for _, v := range got.Answer.Votes {
			if v.Via != inquiry.ViaTeams {
				t.Errorf("vote by %s came in via %q, want %q", v.By, v.Via, inquiry.ViaTeams)
			}
		}
		testkit.Eventually(t, 10*time.Second, "the message to show the decision", func() bool {
			calls := b.fake.Calls()
			last := calls[len(calls)-1]
			return last.Method == http.MethodPut && !strings.Contains(string(last.Card()), "Action.Execute")
		})
	})
}
