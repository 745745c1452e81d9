package adaptivecard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
)

// escalated is a pending choice with an expiry, an extension and two escalation steps: the first
// posts in another conversation and mentions one person, the second calls on two in the thread.
func escalated() *inquiry.Record {
	rec := choice(3, false)
	rec.ExpiresAt = at(2 * time.Hour)
	rec.Default = inquiry.One("hold")
	rec.Extend = &inquiry.Extension{By: inquiry.Duration(time.Hour), Max: inquiry.Duration(3 * time.Hour)}
	rec.Escalate = []inquiry.Step{
		{After: inquiry.Duration(30 * time.Minute), Channel: "19:leads@thread.tacv2", Answerers: []string{"5d1e4a2c-7b1f-4c0e-9a55-0c2f3e8b6a11"}, Mention: true},
		{After: inquiry.Duration(time.Hour), Answerers: []string{"5d1e4a2c-7b1f-4c0e-9a55-0c2f3e8b6a11", "c5e99701-2a32-49c1-a660-4629ceeb8c61"}, Mention: true},
	}
	return rec
}

var carol = adaptivecard.Person{ID: "29:carol", Name: "Carol Ng"}

// deadlineCases are the golden cards of escalation and extension.
func deadlineCases() []goldenCase {
	return []goldenCase{
		{"escalated_mention", func() *adaptivecard.Card {
			return adaptivecard.Escalated(escalated(), 1, now, []adaptivecard.Person{carol})
		}},
		{"escalated_in_thread", func() *adaptivecard.Card {
			return adaptivecard.EscalatedInThread(escalated(), 2, now, []adaptivecard.Person{carol, {ID: "c5e99701-2a32-49c1-a660-4629ceeb8c61"}})
		}},
		{"reminder_mentions", func() *adaptivecard.Card {
			rec := escalated()
			rec.ExpiresAt = at(45 * time.Minute)
			return adaptivecard.WithMentions(adaptivecard.Reminder(rec, 1, now), []adaptivecard.Person{carol})
		}},
		{"question_extend", func() *adaptivecard.Card {
			return adaptivecard.WithExtend(adaptivecard.Question(escalated(), now), escalated())
		}},
	}
}

// TestWithExtendOnlyWhileMoreTimeMayBeGiven: the Extend button shows while extend.max is not
// spent, and never on a resolved card.
func TestWithExtendOnlyWhileMoreTimeMayBeGiven(t *testing.T) {
	rec := escalated()
	has := func(c *adaptivecard.Card) bool {
		return strings.Contains(string(adaptivecard.Marshal(c)), `"verb":"extend"`)
	}
	if !has(adaptivecard.WithExtend(adaptivecard.Question(rec, now), rec)) {
		t.Fatal("a pending question with extend left: want the Extend button")
	}
	rec.ExtendedBy = rec.Extend.Max
	if has(adaptivecard.WithExtend(adaptivecard.Question(rec, now), rec)) {
		t.Fatal("extend.max spent: the button must be gone")
	}
	done := answered(escalated(), inquiry.Answer{Value: inquiry.One("merge"), AnsweredBy: "b15a9416-0ad3-4172-9210-7beb711d3f70"})
	if has(adaptivecard.WithExtend(adaptivecard.Resolved(done), done)) {
		t.Fatal("a decided question: no Extend button")
	}
}

// TestMentionsMatchTheirEntities: every <at>…</at> in a card's text has its entity, as Teams
// needs to show it as a mention, and a person without a name is mentioned by their id.
func TestMentionsMatchTheirEntities(t *testing.T) {
	c := adaptivecard.EscalatedInThread(escalated(), 2, now, []adaptivecard.Person{carol, {ID: "c5e99701-2a32-49c1-a660-4629ceeb8c61"}})
	raw := string(adaptivecard.Marshal(c))
	if c.MSTeams == nil || len(c.MSTeams.Entities) != 2 {
		t.Fatalf("want two mention entities, got %s", raw)
	}
	for _, e := range c.MSTeams.Entities {
		if !strings.Contains(raw, `"text":"`+e.Text) && !strings.Contains(raw, e.Text+" ") && !strings.Contains(raw, e.Text+":") {
			t.Errorf("entity %q is in no TextBlock: %s", e.Text, raw)
		}
	}
	if c.MSTeams.Entities[1].Text != "<at>c5e99701-2a32-49c1-a660-4629ceeb8c61</at>" {
		t.Fatalf("a person without a name: want their id, got %q", c.MSTeams.Entities[1].Text)
	}
	if strings.Contains(raw, "Action.Execute") {
		t.Fatalf("the call in the thread carries no controls of its own: %s", raw)
	}
}
