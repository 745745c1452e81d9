package inquiry_test

import (
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

func TestValidateTeams(t *testing.T) {
	ok := &inquiry.TeamsTarget{Conversation: "19:abc@thread.tacv2", ServiceURL: "https://smba.trafficmanager.net/teams/", Answerers: []string{"b15a9416"}}
	if err := inquiry.ValidateTeams(ok, inquiry.TransportTeams); err != nil {
		t.Fatalf("a good teams object: %v", err)
	}
	if err := inquiry.ValidateTeams(nil, inquiry.TransportSlack); err != nil {
		t.Fatalf("no teams object for slack: %v", err)
	}
	for name, c := range map[string]struct {
		t         *inquiry.TeamsTarget
		transport string
		says      string
	}{
		"no object":       {nil, inquiry.TransportTeams, "teams.conversation"},
		"no conversation": {&inquiry.TeamsTarget{}, inquiry.TransportTeams, "teams.conversation"},
		"other transport": {ok, inquiry.TransportSlack, `set config.transport to "teams"`},
		"service not URL": {&inquiry.TeamsTarget{Conversation: "c", ServiceURL: "smba"}, inquiry.TransportTeams, "not a URL"},
		"answerer twice":  {&inquiry.TeamsTarget{Conversation: "c", Answerers: []string{"A", "a"}}, inquiry.TransportTeams, "again"},
		"answerer blank":  {&inquiry.TeamsTarget{Conversation: "c", Answerers: []string{" "}}, inquiry.TransportTeams, "empty"},
	} {
		err := inquiry.ValidateTeams(c.t, c.transport)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: want a refusal saying %q, got %v", name, c.says, err)
		}
	}
}

func TestMayAnswerInTeams(t *testing.T) {
	rec := &inquiry.Record{Key: "k", Teams: &inquiry.TeamsTarget{Conversation: "c", Answerers: []string{"alice-oid"}}}
	if p := inquiry.MayAnswer(rec, inquiry.Identity{Channel: inquiry.ChannelTeams, ID: "alice-oid"}); !p.Allowed {
		t.Fatalf("a named answerer is refused: %v", p.Err())
	}
	p := inquiry.MayAnswer(rec, inquiry.Identity{Channel: inquiry.ChannelTeams, ID: "bob-oid"})
	if p.Allowed || !strings.Contains(p.Err().Error(), "only alice-oid may answer") {
		t.Fatalf("someone not named: want a refusal in words, got %+v", p)
	}
	if !inquiry.NamesAnswerers(rec) {
		t.Fatal("Teams answerers name who may answer: the question must have no general link")
	}
	open := &inquiry.Record{Key: "k", Teams: &inquiry.TeamsTarget{Conversation: "c"}}
	if p := inquiry.MayAnswer(open, inquiry.Identity{Channel: inquiry.ChannelTeams, ID: "bob-oid"}); !p.Allowed {
		t.Fatalf("nobody named: anybody in the conversation answers, got %v", p.Err())
	}
	if p := inquiry.MayAnswer(open, inquiry.Identity{Channel: inquiry.ChannelTeams}); p.Allowed {
		t.Fatal("a Teams click without an object id names nobody and must not answer")
	}
}
