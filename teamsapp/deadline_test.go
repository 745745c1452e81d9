package teamsapp_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/storage/storagetest"
	"github.com/inquiry-bot/bot/teamsapp/teamsfake"
)

var carol = teamsfake.Person{ID: "29:carol", Name: "Carol Ng", AADObjectID: "5d1e4a2c-7b1f-4c0e-9a55-0c2f3e8b6a11"}

// askTeams asks in through the service, posted to conv in Teams, and waits for the post.
func (b *bundle) askTeams(in inquiry.Inquiry, conv string, answerers ...string) *inquiry.Record {
	b.t.Helper()
	rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: in, ExpiresIn: "2h",
		Config: &inquiry.Config{Policy: inquiry.PolicyAsk},
		Teams:  &inquiry.TeamsTarget{Conversation: conv, ServiceURL: b.fake.ServiceURL(), Answerers: answerers}})
	if err != nil {
		b.t.Fatal(err)
	}
	testkit.Eventually(b.t, 10*time.Second, "the question posted to Teams", func() bool {
		got, err := b.svc.Get(b.ctx, rec.Key)
		return err == nil && posted(got).ID != ""
	})
	got, _ := b.svc.Get(b.ctx, rec.Key)
	return got
}

// sweep moves the clock by d and runs the deadline sweep, as bot serve does every few seconds.
func (b *bundle) sweep(d time.Duration) {
	b.t.Helper()
	b.clock.Add(d)
	if _, err := b.svc.SweepDeadlines(b.ctx, 0); err != nil {
		b.t.Fatal(err)
	}
}

// clickVerb sends the invoke of the card's button with verb.
func (b *bundle) clickVerb(who teamsfake.Person, verb string, data map[string]any) response {
	b.t.Helper()
	return b.send(b.fake.Execute("19:chan@thread.tacv2", "1759881511856", who, "Extend", verb, data))
}

// TestEscalationToAnotherConversation: at its step, a question asked in Teams is posted in the
// step's Teams conversation, mentioning the step's answerer by the name Teams gives; that
// person, refused before the step, may answer after it, and both cards — the question's and the
// step's — are updated for everyone with the decision.
func TestEscalationToAnotherConversation(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setup(t, databaseURL)
		b.dispatch()
		b.fake.AddMember(carol)
		in := mergeQuestion("escalate")
		in.Escalate = []inquiry.Step{{After: inquiry.Duration(30 * time.Minute), Channel: "19:leads@thread.tacv2", Answerers: []string{carol.AADObjectID}, Mention: true}}
		rec := b.askTeams(in, "19:team@thread.tacv2", alice.AADObjectID)

		if r := b.click(carol, map[string]any{"inquiry": rec.Key, "value": "merge"}); !strings.Contains(string(r.Value), "only "+alice.AADObjectID+" may answer") {
			t.Fatalf("before the step carol may not answer: got %s", r.Value)
		}
		b.sweep(31 * time.Minute)
		var step teamsfake.Call
		testkit.Eventually(t, 10*time.Second, "the question posted in the step's conversation", func() bool {
			for _, c := range b.fake.Calls() {
				if c.Method == http.MethodPost && c.Conversation == "19:leads@thread.tacv2" {
					step = c
					return true
				}
			}
			return false
		})
		card := string(step.Card())
		if !strings.Contains(card, "Escalated (step 1 of 1)") || !strings.Contains(card, `"verb":"answer"`) {
			t.Fatalf("the step's card: want why it is shown and the question's buttons, got %s", card)
		}
		if m := step.Mentions(); len(m) != 1 || m[0].Text != "<at>Carol Ng</at>" || m[0].Mentioned.ID != carol.AADObjectID || !strings.Contains(card, "<at>Carol Ng</at>") {
			t.Fatalf("want carol mentioned by her Teams name, got %+v in %s", m, card)
		}
		var place inquiry.Placement
		testkit.Eventually(t, 10*time.Second, "the step's placement on the record", func() bool {
			got, _ := b.svc.Get(b.ctx, rec.Key)
			if ps := got.Escalations(inquiry.TransportTeams); len(ps) == 1 {
				place = ps[0]
				return true
			}
			return false
		})
		if place.Step != 1 || place.Via != inquiry.TransportTeams || place.Channel != "19:leads@thread.tacv2" || place.TS == "" {
			t.Fatalf("want step 1 via teams in the step's conversation, got %+v", place)
		}

		r := b.click(carol, map[string]any{"inquiry": rec.Key, "value": "merge"})
		if strings.Contains(string(r.Value), "Action.Execute") {
			t.Fatalf("carol's answer after the step: want the resolved card, got %s", r.Value)
		}
		if got, _ := b.svc.Get(b.ctx, rec.Key); got.Status != inquiry.StatusAnswered || got.Answer.AnsweredBy != carol.AADObjectID {
			t.Fatalf("want answered by carol, got %s %+v", got.Status, got.Answer)
		}
		question := posted(rec)
		testkit.Eventually(t, 10*time.Second, "both cards updated with the decision, by carol's name", func() bool {
			var q, s bool
			for _, c := range b.fake.Calls() {
				done := c.Method == http.MethodPut && !strings.Contains(string(c.Card()), "Action.Execute") && strings.Contains(string(c.Card()), "Merge by Carol Ng")
				q = q || done && c.ActivityID == question.ID && c.Conversation == question.Place
				s = s || done && c.ActivityID == place.TS && c.Conversation == place.Channel
			}
			return q && s
		})
	})
}

// TestEscalationInTheThread: a step without a conversation that mentions its answerers calls on
// them in reply to the question; one the roster does not know is mentioned by their id.
func TestEscalationInTheThread(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	b.dispatch()
	b.fake.AddMember(carol)
	in := mergeQuestion("thread")
	in.Escalate = []inquiry.Step{{After: inquiry.Duration(10 * time.Minute), Answerers: []string{carol.AADObjectID, bob.AADObjectID}, Mention: true}}
	rec := b.askTeams(in, "19:team@thread.tacv2", alice.AADObjectID)
	b.sweep(11 * time.Minute)
	question := posted(rec)
	var call teamsfake.Call
	testkit.Eventually(t, 10*time.Second, "the call in the question's thread", func() bool {
		for _, c := range b.fake.Calls() {
			if c.Method == http.MethodPost && c.ActivityID == question.ID {
				call = c
				return true
			}
		}
		return false
	})
	m := call.Mentions()
	if len(m) != 2 || m[0].Text != "<at>Carol Ng</at>" || m[1].Text != "<at>"+bob.AADObjectID+"</at>" || m[1].Mentioned.ID != bob.AADObjectID {
		t.Fatalf("want carol by name and bob (not on the roster) by id, got %+v", m)
	}
	if strings.Contains(string(call.Card()), "Action.Execute") {
		t.Fatalf("the call carries no buttons of its own: %s", call.Card())
	}
	if r := b.click(bob, map[string]any{"inquiry": rec.Key, "value": "hold"}); strings.Contains(string(r.Value), "may answer") {
		t.Fatalf("bob, added by the step, is refused: %s", r.Value)
	}
}

// TestEscalationToASlackChannelIsRefused: a Teams question whose step names a Slack channel
// cannot be shown there; the error is fatal and says what to name instead.
func TestEscalationToASlackChannelIsRefused(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	rec := teamsRecord(b, "19:team@thread.tacv2")
	rec.Escalate = []inquiry.Step{{After: inquiry.Duration(time.Minute), Channel: "C0123456789"}}
	_, err := b.app.Escalate(b.ctx, rec, 1)
	if !inquiry.Fatal(err) || !strings.Contains(err.Error(), "no Teams conversation") || !strings.Contains(err.Error(), "19:") {
		t.Fatalf("want a fatal error naming what to give, got %v", err)
	}
	if len(b.fake.Calls()) != 0 {
		t.Fatalf("nothing is posted: %+v", b.fake.Calls())
	}
}

// TestExtendInTeams: the card carries "Extend by 30m" while more time may be given; a named
// answerer's click pushes the deadline back and the card is updated for everyone; somebody the
// question does not name is refused in words; once extend.max is spent the button is gone and
// a click on an old card is told why.
func TestExtendInTeams(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setup(t, databaseURL)
		b.dispatch()
		in := mergeQuestion("extend")
		in.Extend = &inquiry.Extension{By: inquiry.Duration(30 * time.Minute), Max: inquiry.Duration(30 * time.Minute)}
		rec := b.askTeams(in, "19:team@thread.tacv2", alice.AADObjectID)
		if card := string(b.fake.Calls()[0].Card()); !strings.Contains(card, `"verb":"extend"`) || !strings.Contains(card, "Extend by 30m") {
			t.Fatalf("the posted card: want an Extend by 30m button, got %s", card)
		}
		data := map[string]any{"inquiry": rec.Key}
		if r := b.clickVerb(bob, "extend", data); r.Type != "application/vnd.microsoft.activity.message" || !strings.Contains(string(r.Value), "only "+alice.AADObjectID+" may answer") {
			t.Fatalf("bob is not named: want the refusal in words, got %s %s", r.Type, r.Value)
		}
		r := b.clickVerb(alice, "extend", data)
		got, _ := b.svc.Get(b.ctx, rec.Key)
		if got.ExtendedBy != inquiry.Duration(30*time.Minute) || !got.ExpiresAt.Equal(rec.ExpiresAt.Add(30*time.Minute)) {
			t.Fatalf("want the deadline 30m later, got extended by %s to %s", got.ExtendedBy, got.ExpiresAt)
		}
		if strings.Contains(string(r.Value), `"verb":"extend"`) || !strings.Contains(string(r.Value), `"verb":"answer"`) {
			t.Fatalf("extend.max spent: want the question without its Extend button, got %s", r.Value)
		}
		testkit.Eventually(t, 10*time.Second, "the card updated for everyone", func() bool {
			calls := b.fake.Calls()
			last := calls[len(calls)-1]
			return last.Method == http.MethodPut && last.ActivityID == posted(rec).ID && !strings.Contains(string(last.Card()), `"verb":"extend"`)
		})
		if r := b.clickVerb(alice, "extend", data); !strings.Contains(string(r.Value), "extended by 30m already") {
			t.Fatalf("a click on an old card past extend.max: want why not, got %s", r.Value)
		}
	})
}
