package adaptivecard

import (
	"strings"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// VerbExtend is the verb of the Action.Execute that gives an inquiry more time (its extend).
const VerbExtend = "extend"

// Person is someone a card mentions: the id Teams knows them by (their Entra object id, or the
// 29:… id Teams gives) and the name Teams shows for them.
type Person struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// MSTeams is a card's msteams object: the mention entities of its text.
type MSTeams struct {
	Entities []Entity `json:"entities,omitempty"`
}

// Entity is one mention: Text, as it stands in a TextBlock ("<at>Name</at>"), and who it names.
type Entity struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Mentioned Person `json:"mentioned"`
}

// Escalated is the card of escalation step (1-based) of a pending inquiry, posted in the step's
// conversation: a line saying why it is shown there, the people the step mentions, and the
// question with its controls as in the question's own card.
func Escalated(rec *inquiry.Record, step int, now time.Time, mention []Person) *Card {
	q := WithExtend(Question(rec, now), rec)
	head := []Element{heading(inquiry.EscalationText(rec, step))}
	c := *q
	if line, ms := mentions(mention); line != "" {
		head = append(head, Element{"type": "TextBlock", "text": line + ": you may answer this question too.", "wrap": true})
		c.MSTeams = ms
	}
	c.Body = append(head, q.Body[1:]...) // the escalation line in place of "A question for you"
	return &c
}

// EscalatedInThread is the card of escalation step (1-based) of a pending inquiry whose step
// names no conversation but mentions its answerers: a reply in the question's thread calling on
// them, with no controls of its own (they answer on the question's card).
func EscalatedInThread(rec *inquiry.Record, step int, now time.Time, mention []Person) *Card {
	c := newCard(heading(inquiry.EscalationText(rec, step)))
	line, ms := mentions(mention)
	if line == "" {
		line = "You"
	}
	line += " may answer it too"
	if left := inquiry.TimeLeft(rec, now); left != "" {
		line += ": " + left + " left"
	}
	c.Body = append(c.Body,
		Element{"type": "TextBlock", "text": line + ".", "wrap": true},
		Element{"type": "TextBlock", "text": "Answer on the question's card above.", "wrap": true, "isSubtle": true})
	c.MSTeams = ms
	return c
}

// WithExtend is c with an "Extend by …" button when rec, pending, may be given more time still
// (inquiry.MayExtend); c as it is otherwise. The button is an ActionSet of its own, so that a
// question's five answer buttons stay five.
func WithExtend(c *Card, rec *inquiry.Record) *Card {
	if rec.Extend == nil || rec.Status != inquiry.StatusPending {
		return c
	}
	by, err := inquiry.MayExtend(rec, 0)
	if err != nil {
		return c
	}
	title := "Extend by " + by.String()
	data := Element{DataInquiry: rec.Key}
	act := Element{"type": "Action.Execute", "title": title, "verb": VerbExtend, "data": data,
		"fallback": Element{"type": "Action.Submit", "title": title, "data": data}}
	out := *c
	out.Body = append(append([]Element(nil), c.Body...), Element{"type": "ActionSet", "actions": []Element{act}})
	return &out
}

// mentions is the text that mentions people ("<at>Alice</at> and <at>Bob</at>") and the
// entities Teams needs to show it as mentions; "" and nil for nobody.
func mentions(people []Person) (string, *MSTeams) {
	if len(people) == 0 {
		return "", nil
	}
	ms := &MSTeams{}
	var at []string
	for _, p := range people {
		name := strings.TrimSpace(p.Name)
		if name == "" {
			name = p.ID
		}
		text := "<at>" + name + "</at>"
		at = append(at, text)
		ms.Entities = append(ms.Entities, Entity{Type: "mention", Text: text, Mentioned: Person{ID: p.ID, Name: name}})
	}
	return inquiry.AndList(at), ms
}

// WithMentions is c with a line calling on people ("<at>Alice</at> and <at>Bob</at>: you may
// answer this question.") under its heading, and the entities Teams needs to notify them; c as
// it is for nobody. A reminder calls on who may answer as Slack's reminder mentions them.
func WithMentions(c *Card, people []Person) *Card {
	line, ms := mentions(people)
	if line == "" || len(c.Body) == 0 {
		return c
	}
	out := *c
	out.Body = append([]Element{c.Body[0], {"type": "TextBlock", "text": line + ": you may answer this question.", "wrap": true}}, c.Body[1:]...)
	out.MSTeams = ms
	return &out
}
