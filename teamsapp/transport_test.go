package teamsapp_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

func teamsRecord(b *bundle, conv string) *inquiry.Record {
	rec := b.ask(mergeQuestion("t-" + conv))
	rec.Teams = &inquiry.TeamsTarget{Conversation: conv, ServiceURL: b.fake.ServiceURL()}
	return rec
}

func TestPostAndUpdate(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	rec := teamsRecord(b, "19:chan@thread.tacv2")
	posted, err := b.app.Post(b.ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	calls := b.fake.Calls()
	if len(calls) != 1 || calls[0].Method != http.MethodPost || calls[0].Conversation != rec.Teams.Conversation || posted.ID == "" {
		t.Fatalf("want one post to the conversation, got %+v (posted %+v)", calls, posted)
	}
	if err := adaptivecard.Check(calls[0].Card()); err != nil || !strings.Contains(string(calls[0].Card()), `"verb":"answer"`) {
		t.Fatalf("the posted card: %v %s", err, calls[0].Card())
	}
	rec.Placements = []inquiry.Placement{{Via: inquiry.TransportTeams, Channel: posted.Place, TS: posted.ID}}
	got, err := b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("hold")}, inquiry.Identity{Channel: inquiry.ChannelTeams, ID: bob.AADObjectID})
	if err != nil {
		t.Fatal(err)
	}
	got.Teams, got.Placements = rec.Teams, rec.Placements
	if err := b.app.Update(b.ctx, got); err != nil {
		t.Fatal(err)
	}
	calls = b.fake.Calls()
	if len(calls) != 2 || calls[1].Method != http.MethodPut || calls[1].ActivityID != posted.ID {
		t.Fatalf("want the message updated with PUT, got %+v", calls)
	}
	card := string(calls[1].Card())
	if strings.Contains(card, "Action.Execute") || !strings.Contains(card, "Hold") || !strings.Contains(card, bob.AADObjectID) {
		t.Fatalf("the updated card should say who decided what, without buttons: %s", card)
	}
	if n := b.fake.TokenFetches(); n != 1 {
		t.Fatalf("the bot's token is kept until near its expiry: fetched %d times for 2 calls", n)
	}
}

func TestRetriesAndPermanentErrors(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	rec := teamsRecord(b, "19:retry@thread.tacv2")

	b.fake.FailNext(http.StatusTooManyRequests, "7")
	_, err := b.app.Post(b.ctx, rec)
	ra, ok := errors.AsType[*inquiry.RetryAfterError](err)
	if !ok || ra.After != 7*time.Second || inquiry.Fatal(err) {
		t.Fatalf("a 429: want a retry after 7s, got %v", err)
	}
	b.fake.FailNext(http.StatusBadGateway, "")
	if _, err = b.app.Post(b.ctx, rec); err == nil || inquiry.Fatal(err) {
		t.Fatalf("a 502: want an error to retry, got %v", err)
	}
	if len(b.fake.Calls()) != 0 {
		t.Fatalf("failed calls were recorded as posted: %+v", b.fake.Calls())
	}
	if _, err := b.app.Post(b.ctx, rec); err != nil {
		t.Fatalf("after the failures a post goes through: %v", err)
	}

	b.fake.Forbid("19:gone@thread.tacv2")
	_, err = b.app.Post(b.ctx, teamsRecord(b, "19:gone@thread.tacv2"))
	if !inquiry.Fatal(err) || !strings.Contains(err.Error(), "add the bot to that team or chat") {
		t.Fatalf("a 403: want a fatal error saying how to fix it, got %v", err)
	}
}

func TestWrongCredentialsAreFatal(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	b.fake.Password = "rotated"
	_, err := b.app.Post(b.ctx, teamsRecord(b, "19:x@thread.tacv2"))
	if !inquiry.Fatal(err) || !strings.Contains(err.Error(), "TEAMS_APP_PASSWORD") {
		t.Fatalf("want a fatal error naming the setting, got %v", err)
	}
}

func TestPostedBodyIsAnActivity(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	if _, err := b.app.Post(b.ctx, teamsRecord(b, "a:personal")); err != nil {
		t.Fatal(err)
	}
	var act struct {
		Type        string `json:"type"`
		Attachments []struct {
			ContentType string `json:"contentType"`
		} `json:"attachments"`
	}
	if err := json.Unmarshal(b.fake.Calls()[0].Body, &act); err != nil || act.Type != "message" || len(act.Attachments) != 1 || act.Attachments[0].ContentType != adaptivecard.ContentType {
		t.Fatalf("want a message activity with one Adaptive Card, got %+v %v", act, err)
	}
}

func TestRemindRepliesToTheQuestion(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	rec := teamsRecord(b, "19:remind@thread.tacv2")
	if err := b.app.Remind(b.ctx, rec, 1); err != nil || len(b.fake.Calls()) != 0 {
		t.Fatalf("a question never posted has nothing to remind of: %v %+v", err, b.fake.Calls())
	}
	posted, err := b.app.Post(b.ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.Placements = []inquiry.Placement{{Via: inquiry.TransportTeams, Channel: posted.Place, TS: posted.ID}}
	if err := b.app.Remind(b.ctx, rec, 2); err != nil {
		t.Fatal(err)
	}
	calls := b.fake.Calls()
	if len(calls) != 2 || calls[1].Method != http.MethodPost || calls[1].ActivityID != posted.ID || calls[1].Conversation != "19:remind@thread.tacv2;messageid="+posted.ID {
		t.Fatalf("want the reminder posted in reply to %s, in its channel thread, got %+v", posted.ID, calls)
	}
	card := string(calls[1].Card())
	if !strings.Contains(card, "Reminder 2") || strings.Contains(card, "Action.Execute") {
		t.Fatalf("the reminder says which it is and carries no buttons of its own: %s", card)
	}
	if m := calls[1].Mentions(); len(m) != 0 {
		t.Fatalf("a question that names nobody: the reminder mentions nobody, got %+v", m)
	}
}

// TestRemindMentionsWhoMayAnswer: a reminder calls on the question's answerers, by the names
// Teams' roster gives; in a chat, which has no threads, it goes to the chat itself.
func TestRemindMentionsWhoMayAnswer(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	b.fake.AddMember(alice)
	rec := teamsRecord(b, "19:chat@thread.v2")
	rec.Teams.Answerers = []string{alice.AADObjectID}
	posted, err := b.app.Post(b.ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.Placements = []inquiry.Placement{{Via: inquiry.TransportTeams, Channel: posted.Place, TS: posted.ID}}
	if err := b.app.Remind(b.ctx, rec, 1); err != nil {
		t.Fatal(err)
	}
	calls := b.fake.Calls()
	last := calls[len(calls)-1]
	if m := last.Mentions(); len(m) != 1 || m[0].Text != "<at>Alice</at>" || m[0].Mentioned.ID != alice.AADObjectID {
		t.Fatalf("want alice mentioned by name, got %+v", m)
	}
	if last.Conversation != "19:chat@thread.v2" || last.ActivityID != posted.ID {
		t.Fatalf("want a reply to %s in the chat itself, got %+v", posted.ID, last)
	}
}
