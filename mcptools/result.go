package mcptools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/inquiry-bot/bot/inquiry"
)

// Status is what a tool call came to, as the agent acts on it.
type Status string

// The outcomes of ask_human and get_answer.
const (
	StatusAnswered    Status = "answered"    // a person answered: act on it
	StatusAssumed     Status = "assumed"     // nobody answered; the default was assumed: act on it, say so
	StatusDeclined    Status = "declined"    // nobody could decide: decide yourself, say so
	StatusPending     Status = "pending"     // nobody has answered yet: get_answer with the key later
	StatusCancelled   Status = "cancelled"   // the question was withdrawn: decide yourself
	StatusUnavailable Status = "unavailable" // nobody can be asked (a tool error): do not retry
	StatusError       Status = "error"       // anything else the server refused (a tool error)
)

func (s Status) isError() bool { return s == StatusUnavailable || s == StatusError }

// Result is the structured content of both tools. Message, the same sentence as the text
// content, says what happened and what to do; the other fields say it to a program.
type Result struct {
	Status  Status `json:"status"`
	Message string `json:"message"`
	Key     string `json:"key,omitempty"`
	ID      string `json:"id,omitempty"`
	// Answer is what was answered: the chosen option's value (the first, with multiple), else
	// the words (inquiry.AnsweredWith). Empty for a decline and while pending.
	Answer string `json:"answer,omitempty"`
	// Values are every chosen value of a choice (with multiple), or "yes" or "no" of a confirm.
	Values []string `json:"values,omitempty"`
	// Label is the chosen options as the person saw them.
	Label string `json:"label,omitempty"`
	// Text is the person's own words: the answer to a text question, words beside or instead
	// of a choice, or the reason given for declining.
	Text string `json:"text,omitempty"`
	// Content is the approved version of the question's editable proposal, whole, when the
	// person sent one; Edited says it differs from what was proposed, so act on Content.
	Content    string `json:"content,omitempty"`
	Edited     bool   `json:"edited,omitempty"`
	Truncated  bool   `json:"truncated,omitempty"`
	AnsweredBy string `json:"answered_by,omitempty"`
	// Via is how the answer came in when it says so: web, email, or mcp (the client's own user).
	Via inquiry.Via `json:"via,omitempty"`
	// Source is person, default (assumed by policy, nobody was asked) or expired.
	Source    inquiry.Source `json:"source,omitempty"`
	AskedAt   string         `json:"asked_at,omitempty"`
	ExpiresAt string         `json:"expires_at,omitempty"`
	// Code and Field are the server's error code and the input field it concerns, for errors.
	Code  string `json:"code,omitempty"`
	Field string `json:"field,omitempty"`
	// Votes are the votes of a question that needs several people: so far while it is pending,
	// all of them once it is decided (answered_by is then whose vote decided it).
	Votes []inquiry.Vote `json:"votes,omitempty"`
	// Link is the web page where a person can answer a pending question (links.answer), for
	// the agent to hand to somebody who is not where it was asked.
	Link string `json:"link,omitempty"`
}

func resultSchema() *jsonschema.Schema {
	str := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: desc} }
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"status": {
				Type: "string",
				Enum: []any{string(StatusAnswered), string(StatusAssumed), string(StatusDeclined), string(StatusPending),
					string(StatusCancelled), string(StatusUnavailable), string(StatusError)},
				Description: "what happened; message says what to do about it",
			},
			"message":     str("what happened and what to do, in words"),
			"key":         str("the question's key, for get_answer"),
			"id":          str("the question's id"),
			"answer":      str("what was answered: the chosen option's value (the first one with multiple), else the words"),
			"values":      {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "every chosen value of a choice, or yes or no of a confirm"},
			"label":       str("the chosen options as the person saw them"),
			"text":        str("the person's own words: the answer to a text question, words beside or instead of a choice, or the reason for declining"),
			"content":     str("the approved version of the proposal, whole, when the person sent one: with edited true, act on this instead of what you proposed"),
			"edited":      {Type: "boolean", Description: "the person edited the proposal before approving it: content is the edited version"},
			"truncated":   {Type: "boolean", Description: "the words were cut to the answer ceiling"},
			"answered_by": str("who answered: a Slack user id or a token name"),
			"via":         {Type: "string", Enum: []any{string(inquiry.ViaWeb), string(inquiry.ViaEmail), string(inquiry.ViaMCP), string(inquiry.ViaTeams)}, Description: "how the answer came in, when it says: web or email (an answer link), mcp (the client's own user, answer_here), teams (a Teams card)"},
			"source":      {Type: "string", Enum: []any{string(inquiry.SourcePerson), string(inquiry.SourceDefault), string(inquiry.SourceExpired), string(inquiry.SourceCaller)}, Description: "person; default: assumed by policy, nobody was asked; expired: nobody answered in time; caller: handed back by the run's caller, not decided by a person here"},
			"asked_at":    str("when the question was first asked (RFC 3339)"),
			"expires_at":  str("when the question stops waiting (RFC 3339)"),
			"code":        str("the server's error code, for an error"),
			"field":       str("the input field an error concerns"),
			"votes": {
				Type: "array", Items: voteSchema(),
				Description: "the votes of a question that needs several people (approvals): so far while pending, all of them once decided",
			},
			"link": str("while pending: a web page where a person can answer it, to hand to somebody who is not where it was asked"),
		},
		PropertyOrder: []string{"status", "message", "key", "id", "answer", "values", "label", "text", "content", "edited", "truncated",
			"answered_by", "via", "source", "asked_at", "expires_at", "code", "field", "votes", "link"},
		Required: []string{"status", "message"},
	}
}

// voteSchema is one vote of a result's votes, as the API shows it.
func voteSchema() *jsonschema.Schema {
	str := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: desc} }
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"by": str("who voted: a Slack user id or a token name"),
			"value": {AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{Type: "string"}}},
				Description: "what they chose: an option's value, or yes or no"},
			"text":     str("their words: the reason, when one was given"),
			"declined": {Type: "boolean", Description: "they declined to decide"},
			"at":       str("when they voted (RFC 3339)"),
			"via": {Type: "string", Enum: []any{string(inquiry.ViaSlack), string(inquiry.ViaTeams), string(inquiry.ViaAPI), string(inquiry.ViaCLI), string(inquiry.ViaWeb), string(inquiry.ViaEmail), string(inquiry.ViaMCP)},
				Description: "how the vote came in"},
		},
		PropertyOrder: []string{"by", "value", "text", "declined", "at", "via"},
		Required:      []string{"by", "value", "text", "at", "via"},
	}
}

// describe is the one reading of an inquiry as it stands into a result.
func describe(rec *inquiry.Record) Result {
	in := &rec.Inquiry
	res := Result{Key: rec.Key, ID: rec.ID, AskedAt: rfc3339(&rec.CreatedAt)}
	if rec.ExpiresAt != nil {
		res.ExpiresAt = rfc3339(rec.ExpiresAt)
	}
	switch rec.Status {
	case inquiry.StatusPending:
		res.Status, res.Votes = StatusPending, rec.Votes
		if rec.Links != nil {
			res.Link = rec.Links.Answer
		}
		res.Message = notYet(rec) + " " + openUntil(rec) + " Call get_answer with key " + quote(rec.Key) +
			" later to pick up the answer; meanwhile carry on with work that does not depend on it."
		return res
	case inquiry.StatusCancelled:
		res.Status = StatusCancelled
		res.Message = "The question was withdrawn before anybody answered; nobody will answer it. Decide yourself and say so, or ask again with a new id."
		return res
	case inquiry.StatusFailed:
		msg := "the question could not be put to anybody"
		if rec.Failure != nil && rec.Failure.Message != "" {
			msg = rec.Failure.Message
		}
		res.Status, res.Code = StatusUnavailable, string(inquiry.CodeUnavailable)
		res.Message = unavailable(msg)
		return res
	}
	a := rec.Answer
	if a == nil { // a resolved inquiry always has one; say so rather than guess
		res.Status = StatusError
		res.Message = fmt.Sprintf("The question is %s but the server sent no answer: call get_answer with key %s again.", rec.Status, quote(rec.Key))
		return res
	}
	res.Source, res.AnsweredBy, res.Text, res.Truncated, res.Votes = a.Source, a.AnsweredBy, a.Text, a.Truncated, a.Votes
	res.Via, res.Content, res.Edited = a.Via, a.Content, a.Edited
	if in.Kind != inquiry.KindText {
		res.Values = a.Value.Strings()
		if a.Value.Len() > 0 {
			res.Label = inquiry.RenderValue(in, a.Value)
		}
	}
	res.Answer, _ = inquiry.AnsweredWith(a)

	if inquiry.IsDeclined(a) {
		res.Status = StatusDeclined
		switch a.Source {
		case inquiry.SourceExpired:
			res.Message = "Nobody answered before the question expired, and it has no default: declined. Nobody could decide — decide yourself and say so."
		case inquiry.SourceDefault:
			res.Message = "Nobody was asked: the server's policy answers every question by its default, and this one has none, so it is declined. Nobody could decide — decide yourself and say so (and give a default next time)."
		default:
			res.Message = "Declined" + by(a) + ": nobody could decide — decide yourself and say so."
			if a.Text != "" {
				res.Message += " Their reason: " + quote(a.Text)
			}
		}
		return res
	}
	what := decision(in, a)
	switch a.Source {
	case inquiry.SourceDefault:
		res.Status = StatusAssumed
		res.Message = "Nobody was asked: the server's policy answers every question by its default. The default " + what +
			" was assumed — act on it, and say it was assumed, not decided by a person."
	case inquiry.SourceExpired:
		res.Status = StatusAssumed
		res.Message = "Nobody answered before the question expired; the default " + what +
			" was assumed — act on it, and say it was assumed, not decided by a person."
	case inquiry.SourceCaller:
		res.Status = StatusAnswered
		res.Message = what + " — handed back by the run's caller" + strings.TrimPrefix(by(a), " by") + ", not decided by a person here."
	default:
		res.Status = StatusAnswered
		res.Message = what + " — answered" + by(a) + "."
		if said, ok := inquiry.DecidedBy(in, a); ok {
			// Who decided, each voter with their words: the decision itself is said without them.
			words := *a
			words.Text = ""
			res.Message = decision(in, &words) + " — " + said + "."
		}
		if a.Edited {
			res.Message += " They approved an edited version of the proposal, given whole in the next content block (and as content): act on it, not on what you proposed."
		}
		if a.Truncated {
			res.Message += fmt.Sprintf(" (Their words were cut to %d characters.)", inquiry.DefaultAnswerChars)
		}
	}
	return res
}

// decision says what an answer decided: the chosen options by their labels (with the values
// when they differ from what the person saw), and the words.
func decision(in *inquiry.Inquiry, a *inquiry.Answer) string {
	d := inquiry.DecisionOf(in, a)
	if len(d.Labels) > 0 {
		what := d.Chosen()
		if d.Relabelled() {
			quoted := make([]string, len(d.Values))
			for i, v := range d.Values {
				quoted[i] = quote(v)
			}
			noun := "value"
			if len(d.Values) > 1 {
				noun = "values"
			}
			what += " (" + noun + " " + strings.Join(quoted, ", ") + ")"
		}
		if d.Words != "" {
			what += ", with the words " + quote(d.Words)
		}
		return what
	}
	if !d.Declined && d.Words != "" {
		return quote(d.Words)
	}
	return "nothing"
}

// by names who answered, as " by U123", or "" when nobody is named.
func by(a *inquiry.Answer) string {
	if a.AnsweredBy == "" {
		return ""
	}
	return " by " + a.AnsweredBy
}

// notYet says that a pending question is not decided yet: the tally of one that needs several
// people (inquiry.Tallied), and what it asks of them before anybody voted.
func notYet(rec *inquiry.Record) string {
	if tally := inquiry.Tallied(rec); tally != "" {
		return "Not decided yet; so far " + tally + "."
	}
	if rec.Quorum() > 1 {
		return "Nobody has answered yet (" + inquiry.ApprovalAsked(&rec.Inquiry) + ")."
	}
	return "Nobody has answered yet."
}

// openUntil says how long a pending question waits, and what happens when it stops.
func openUntil(rec *inquiry.Record) string {
	if rec.ExpiresAt == nil {
		return "The question stays open until somebody answers."
	}
	then := "it is declined"
	if rec.HasDefault() {
		then = "the default " + inquiry.RenderValue(&rec.Inquiry, rec.Default) + " is assumed"
	}
	return "The question stays open until " + rfc3339(rec.ExpiresAt) + "; if nobody answers by then, " + then + "."
}

// unavailable is the sentence for a question nobody can be asked: the agent must not retry.
func unavailable(why string) string {
	return "No channel exists to ask a person, so do not retry: decide yourself, and say that nobody could be asked. The server said: " + why
}

func rfc3339(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// quote puts words in double quotes, escaping what could break the sentence around them.
func quote(s string) string { return strconv.Quote(s) }
