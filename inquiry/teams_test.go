package inquiry_test

import (
	"strings"
	"testing"
	"time"

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
	if err := inquiry.ValidateTeams(ok, inquiry.TransportSlack); err != nil {
		t.Fatalf("a teams object beside slack is posted to as well (fan-out): %v", err)
	}
	for name, c := range map[string]struct {
		t         *inquiry.TeamsTarget
		transport string
		says      string
	}{
		"no object":                     {nil, inquiry.TransportTeams, "teams.conversation"},
		"no conversation":               {&inquiry.TeamsTarget{}, inquiry.TransportTeams, "teams.conversation"},
		"beside slack, no conversation": {&inquiry.TeamsTarget{}, inquiry.TransportSlack, "teams.conversation"},
		"service not URL":               {&inquiry.TeamsTarget{Conversation: "c", ServiceURL: "smba"}, inquiry.TransportTeams, "not a URL"},
		"answerer twice":                {&inquiry.TeamsTarget{Conversation: "c", Answerers: []string{"A", "a"}}, inquiry.TransportTeams, "again"},
		"answerer blank":                {&inquiry.TeamsTarget{Conversation: "c", Answerers: []string{" "}}, inquiry.TransportTeams, "empty"},
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

// A Teams escalation step names a Teams conversation and Entra object ids: they pass where a
// Slack step's ids do, and anything else is refused with what to give.
func TestTeamsEscalationStepValidates(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	exp := now.Add(2 * time.Hour)
	in := func(st inquiry.Step) *inquiry.Inquiry {
		st.After = inquiry.Duration(30 * time.Minute)
		return &inquiry.Inquiry{ID: "q", Kind: inquiry.KindConfirm, Question: "Ship?", ExpiresAt: &exp,
			Deadlines: inquiry.Deadlines{Escalate: []inquiry.Step{st}}}
	}
	for _, st := range []inquiry.Step{
		{Channel: "19:0c5a2b3c4d5e6f@thread.tacv2", Answerers: []string{"b15a9416-0ad3-4172-9210-7beb711d3f70"}, Mention: true},
		{Channel: "a:1xYz-personal"},
		{Answerers: []string{"B15A9416-0AD3-4172-9210-7BEB711D3F70"}, Mention: true},
	} {
		if err := inquiry.Validate(in(st), now); err != nil {
			t.Errorf("step %+v: %v", st, err)
		}
	}
	for _, c := range []struct {
		st   inquiry.Step
		says string
	}{
		{inquiry.Step{Channel: "19:no-thread-suffix"}, "nor a Teams conversation id"},
		{inquiry.Step{Channel: "general"}, "nor a Teams conversation id"},
		{inquiry.Step{Answerers: []string{"b15a9416-0ad3-4172-9210"}}, "Entra object id"},
	} {
		err := inquiry.Validate(in(c.st), now)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("step %+v: want a refusal saying %q, got %v", c.st, c.says, err)
		}
	}
}

// Whoever an escalation step taken adds may answer in Teams too; a step not yet taken adds
// nobody, and a step's Slack ids are not Teams people.
func TestTeamsAnswerersWidenWithEscalation(t *testing.T) {
	const alice, carol = "11111111-1111-1111-1111-111111111111", "33333333-3333-3333-3333-333333333333"
	rec := &inquiry.Record{Key: "k", Teams: &inquiry.TeamsTarget{Conversation: "c", Answerers: []string{alice}}}
	rec.Escalate = []inquiry.Step{{After: inquiry.Duration(time.Minute), Answerers: []string{carol, "U0CAROL"}}}
	carolIn := inquiry.Identity{Channel: inquiry.ChannelTeams, ID: carol}
	if p := inquiry.MayAnswer(rec, carolIn); p.Allowed {
		t.Fatal("a step not taken yet let its answerer answer")
	}
	rec.Escalation = 1
	if p := inquiry.MayAnswer(rec, carolIn); !p.Allowed {
		t.Fatalf("the step taken names carol, who is refused: %v", p.Err())
	}
	if got := inquiry.TeamsAnswerers(rec); len(got) != 2 {
		t.Fatalf("Teams answerers after the step: want alice and carol, got %v", got)
	}
}

// A question asked in Teams refuses a step with a Slack channel or Slack people, whom Teams
// cannot reach; a question asked in Slack is not checked by this rule.
func TestCheckTeamsEscalation(t *testing.T) {
	in := &inquiry.Inquiry{Deadlines: inquiry.Deadlines{Escalate: []inquiry.Step{
		{Channel: "19:leads@thread.tacv2", Answerers: []string{"5d1e4a2c-7b1f-4c0e-9a55-0c2f3e8b6a11"}},
	}}}
	if err := inquiry.CheckTeamsEscalation(in, inquiry.TransportTeams); err != nil {
		t.Fatalf("a Teams step: %v", err)
	}
	for _, c := range []struct {
		st   inquiry.Step
		says string
	}{
		{inquiry.Step{Channel: "C0123456789"}, "escalate[0].channel \"C0123456789\" is no Teams conversation"},
		{inquiry.Step{Answerers: []string{"U0123456789"}}, "is no Entra object id"},
	} {
		in.Escalate = []inquiry.Step{c.st}
		if err := inquiry.CheckTeamsEscalation(in, inquiry.TransportTeams); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v: want a refusal saying %q, got %v", c.st, c.says, err)
		}
		if err := inquiry.CheckTeamsEscalation(in, inquiry.TransportSlack); err != nil {
			t.Errorf("%+v asked in Slack: a Slack step, got %v", c.st, err)
		}
	}
	// Asked in Slack, a Teams step is refused the other way round.
	for _, c := range []struct {
		st   inquiry.Step
		says string
	}{
		{inquiry.Step{Channel: "19:leads@thread.tacv2"}, "escalate[0].channel \"19:leads@thread.tacv2\" is no Slack channel"},
		{inquiry.Step{Answerers: []string{"5d1e4a2c-7b1f-4c0e-9a55-0c2f3e8b6a11"}}, "is no Slack user or group id"},
	} {
		in.Escalate = []inquiry.Step{c.st}
		if err := inquiry.CheckTeamsEscalation(in, inquiry.TransportSlack); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v asked in Slack: want a refusal saying %q, got %v", c.st, c.says, err)
		}
	}
}
