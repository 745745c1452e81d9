package adaptivecard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// What Teams needs of a card, and the names of this package's routing.
const (
	// ContentType is the attachment content type of an Adaptive Card, and the type of an invoke
	// response that replaces the card.
	ContentType = "application/vnd.microsoft.card.adaptive"
	// Version is the schema version of every card: Teams renders Action.Execute from 1.5 and
	// is limited to 1.5.
	Version = "1.5"
	// Schema is the $schema every card names.
	Schema = "http://adaptivecards.io/schemas/adaptive-card.json"
	// Verb is the verb of every Action.Execute that answers.
	Verb = "answer"
	// MaxButtons is how many answers are buttons; past it a Choice is a choice set. Five is the
	// maxActions of the Adaptive Cards host config's defaults, which the card's oracle checks.
	MaxButtons = 5
	// MaxBytes is the size a card is kept under: Teams refuses a bot message past about 100 KB
	// and asks to stay under 80 KB.
	MaxBytes = 80 << 10

	// The data members of an Action.Execute and the ids of the inputs merged into it.
	DataInquiry = "inquiry" // the inquiry key, in every action
	DataValue   = "value"   // the value of the button clicked
	InputChoice = "choice"  // the choice set: option indexes, comma-separated
	InputText   = "text"    // the answer's words: a Text, a Choice's own words, a reason
)

// Element is one element or action of a card, as its JSON object.
type Element = map[string]any

// Card is an Adaptive Card.
type Card struct {
	Schema  string    `json:"$schema"`
	Type    string    `json:"type"`
	Version string    `json:"version"`
	Body    []Element `json:"body"`
	// MSTeams holds what only Teams reads of a card: the people its text mentions.
	MSTeams *MSTeams `json:"msteams,omitempty"`
}

// Attachment is a card as a Bot Framework activity carries it.
type Attachment struct {
	ContentType string `json:"contentType"`
	Content     *Card  `json:"content"`
}

// Attach wraps c as an activity's attachment.
func Attach(c *Card) Attachment { return Attachment{ContentType: ContentType, Content: c} }

func newCard(body ...Element) *Card {
	return &Card{Schema: Schema, Type: "AdaptiveCard", Version: Version, Body: body}
}

// Question is the card of a pending inquiry, seen at now: its words, what it asks with, and its
// deadline, default and who may answer it.
func Question(rec *inquiry.Record, now time.Time) *Card {
	c := newCard(heading("A question for you"), quoted(rec))
	c.Body = append(c.Body, proposal(rec, true)...)
	c.Body = append(c.Body, controls(rec)...)
	if m := meta(rec, now); len(m) > 0 {
		c.Body = append(c.Body, subtle(strings.Join(m, " · ")))
	}
	return c
}

// Reminder is the card of reminder n of a pending inquiry, seen at now, posted in reply to its
// question: the words again and the deadline, and where to answer (the question's card, which
// alone carries the buttons, so that one question is answered in one place).
func Reminder(rec *inquiry.Record, n int, now time.Time) *Card {
	head := "Reminder: this question is still waiting for an answer"
	if n > 1 {
		head = fmt.Sprintf("Reminder %d: this question is still waiting for an answer", n)
	}
	c := newCard(heading(head), quoted(rec))
	if m := meta(rec, now); len(m) > 0 {
		c.Body = append(c.Body, subtle(strings.Join(m, " · ")))
	}
	c.Body = append(c.Body, Element{"type": "TextBlock", "text": "Answer on the question's card above.", "wrap": true, "isSubtle": true})
	return c
}

// Resolved is the card of a resolved inquiry: its words and what became of it, who decided
// and what, with no buttons left to click. A pending inquiry shown with it is one past its
// expiry that the sweep has not resolved yet.
func Resolved(rec *inquiry.Record) *Card {
	line := inquiry.Outcome(rec)
	if rec.Status == inquiry.StatusPending { // past its expiry, not yet swept
		line = "expired with nobody's answer; assumed: " + inquiry.Assumed(&rec.Inquiry)
	}
	c := newCard(heading(resolvedHeading(rec)), quoted(rec))
	c.Body = append(c.Body, proposal(rec, false)...)
	c.Body = append(c.Body, words(line, "Bolder"))
	return c
}

// Current is Question for a pending inquiry and Resolved for any other.
func Current(rec *inquiry.Record, now time.Time) *Card {
	if rec.Status == inquiry.StatusPending && !rec.DueAt(now) {
		return Question(rec, now)
	}
	return Resolved(rec)
}

// WithNote is c with note, the bot's sentence to whoever clicked (why their click was not taken),
// above everything else.
func WithNote(c *Card, note string) *Card {
	out := *c
	out.Body = append([]Element{words(note, "Bolder", "attention")}, c.Body...)
	return &out
}

// Note is a card that says one sentence: for an inquiry that is no longer known.
func Note(sentence string) *Card { return newCard(words(sentence, "Bolder", "attention")) }

func resolvedHeading(rec *inquiry.Record) string {
	switch rec.Status {
	case inquiry.StatusAnswered:
		return "Decided"
	case inquiry.StatusExpired, inquiry.StatusPending:
		return "Expired"
	case inquiry.StatusCancelled:
		return "Cancelled"
	case inquiry.StatusFailed:
		return "Failed"
	}
	return "Closed"
}

// heading is the bot's own words: a TextBlock, whose markdown the bot controls.
func heading(s string) Element {
	return Element{"type": "TextBlock", "text": s, "weight": "Bolder", "size": "Medium", "wrap": true}
}

// words shows s as it is: a TextRun in a RichTextBlock is not markdown.
func words(s string, weight ...string) Element {
	run := Element{"type": "TextRun", "text": inquiry.Printed(s)}
	if len(weight) > 0 {
		run["weight"] = weight[0]
	}
	if len(weight) > 1 {
		run["color"] = weight[1]
	}
	return Element{"type": "RichTextBlock", "inlines": []Element{run}}
}

func subtle(s string) Element {
	return Element{"type": "RichTextBlock", "inlines": []Element{{"type": "TextRun", "text": inquiry.Printed(s), "isSubtle": true, "size": "Small"}}}
}

// quoted is the asker's text, marked off in an emphasis container: the question, its context
// and the options' descriptions.
func quoted(rec *inquiry.Record) Element {
	items := []Element{words(rec.Question)}
	if c := strings.TrimSpace(rec.Context); c != "" {
		items = append(items, subtle(c))
	}
	for _, o := range rec.Options {
		if o.Description != "" {
			items = append(items, subtle(o.Label+": "+o.Description))
		}
	}
	return Element{"type": "Container", "style": "emphasis", "items": items}
}

// controls are the inputs and actions of a pending inquiry.
func controls(rec *inquiry.Record) []Element {
	key := rec.Key
	var out []Element
	offered := inquiry.Offered(&rec.Inquiry)
	buttons := rec.Kind == inquiry.KindConfirm || (rec.Kind == inquiry.KindChoice && !rec.Multiple && len(offered) <= MaxButtons)
	if rec.Kind == inquiry.KindChoice && !buttons {
		choices := make([]Element, len(offered))
		for i, o := range offered {
			choices[i] = Element{"title": inquiry.Printed(o.Label), "value": strconv.Itoa(i)}
		}
		set := Element{"type": "Input.ChoiceSet", "id": InputChoice, "label": "Your answer", "choices": choices}
		if rec.Multiple {
			set["isMultiSelect"] = true
			set["style"] = "expanded"
			set["label"] = "Your answers (one or more)"
		} else {
			set["style"] = "compact"
			set["placeholder"] = "Choose one"
		}
		out = append(out, set)
	}
	if t := textInput(rec); t != nil {
		out = append(out, t)
	}
	var actions []Element
	if buttons {
		for _, o := range offered {
			actions = append(actions, execute(inquiry.Printed(o.Label), Element{DataInquiry: key, DataValue: o.Value}))
		}
	} else {
		actions = append(actions, execute("Send", Element{DataInquiry: key}))
	}
	return append(out, Element{"type": "ActionSet", "actions": actions})
}

// textInput is the Input.Text of an inquiry that asks for words: a Text's answer, a Choice's
// own words, a reason.
func textInput(rec *inquiry.Record) Element {
	in := Element{"type": "Input.Text", "id": InputText, "isMultiline": true, "maxLength": inquiry.DefaultAnswerChars}
	switch {
	case rec.Kind == inquiry.KindText:
		in["label"] = "Your answer"
		in["isRequired"] = true
		in["errorMessage"] = "Write your answer before you send it."
	case rec.Reason == inquiry.ReasonAlways:
		in["label"] = "Your reason (required)"
		in["isRequired"] = true
		in["errorMessage"] = "Say why before you answer."
	case rec.Reason == inquiry.ReasonOnNo:
		in["label"] = "Your reason (required for a no)"
	case rec.AllowText:
		in["label"] = "Or answer in your own words"
	default:
		return nil
	}
	return in
}

// execute is an Action.Execute with verb answer, and for clients without Universal Actions an
// Action.Submit carrying the same data.
func execute(title string, data Element) Element {
	return Element{"type": "Action.Execute", "title": title, "verb": Verb, "data": data,
		"fallback": Element{"type": "Action.Submit", "title": title, "data": data}}
}

// meta are the lines under a pending question: who may answer, approvals, deadline, default.
func meta(rec *inquiry.Record, now time.Time) []string {
	var m []string
	if q := rec.Quorum(); q > 1 {
		need := fmt.Sprintf("needs %d people's answers, %d given so far", q, len(rec.Votes))
		if who := inquiry.Tallied(rec); who != "" {
			need += " (" + who + ")" // who voted, by the names Named gives them
		}
		m = append(m, need)
	}
	if rec.Teams != nil && len(rec.Teams.Answerers) > 0 {
		m = append(m, "only the people it names may answer")
	}
	if rec.ExpiresAt != nil {
		m = append(m, inquiry.Deadline(*rec.ExpiresAt, now)+", then "+inquiry.Assumed(&rec.Inquiry))
	} else if rec.HasDefault() {
		m = append(m, "default "+inquiry.Assumed(&rec.Inquiry))
	}
	if rec.Reason == inquiry.ReasonOnNo {
		m = append(m, "a no must say why")
	}
	return m
}

// Marshal is c's JSON, as posted: with <, > and & as they are, which a card shows as text.
func Marshal(c *Card) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		panic(err) // maps of strings, numbers and bools always encode
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
