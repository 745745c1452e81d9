package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/inquiry-bot/bot/inquiry"
)

// answer_here: the client's own user is the one asked. Where the client supports form
// elicitation, ask_human puts the question in the client's form and records the answer via mcp.
// One handler serves both eras of the protocol: on 2026-07-28 it returns an input-required result
// and reads the client's retry; for an older client the SDK sends elicitation/create itself and
// calls the handler again with the response (its multi-round-trip middleware).

// HereAnswerer is a Backend that can record the answer of the MCP client's own user
// (inquiry.MCPUser): ServiceBackend, in process. A Backend without it (the HTTP client of `bot
// mcp`) cannot, and answer_here falls back to asking people as usual.
type HereAnswerer interface {
	Backend
	AnswerHere(ctx context.Context, key string, reply inquiry.Reply) (*inquiry.Record, error)
}

var _ HereAnswerer = ServiceBackend{}

// AnswerHere implements HereAnswerer: the answer of the person at the client whose connection
// authenticated as b.Token, via mcp.
func (b ServiceBackend) AnswerHere(ctx context.Context, key string, reply inquiry.Reply) (*inquiry.Record, error) {
	ctx = inquiry.WithVia(inquiry.WithCaller(ctx, b.Token), inquiry.ViaMCP)
	rec, err := b.Service.Answer(ctx, key, reply, inquiry.MCPUser(b.Token))
	return b.linked(rec), err
}

// hereInput is the key of the one input request ask_human sends.
const hereInput = "answer"

// The form's fields: the answer, and words of the person's own where the question takes them.
const (
	fieldAnswer = "answer"
	fieldText   = "text"
)

// elicitModes reports which elicitation modes the calling client declared: an elicitation
// capability with neither mode named is form only (the 2025-06-18 shape).
func elicitModes(req *mcp.CallToolRequest) (form, url bool) {
	if req == nil {
		return false, false
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false, false
	}
	e := caps.Elicitation
	if e.Form == nil && e.URL == nil {
		return true, false
	}
	return e.Form != nil, e.URL != nil
}

// hereRefusal is why answer_here cannot be taken for in, or "".
func hereRefusal(in askInput) string {
	switch {
	case in.Approvals != nil && *in.Approvals > 1:
		return "answer_here asks the client's own user, one person, and this question needs the approvals of several: drop answer_here, or approvals"
	case len(in.RequestedBy) > 0:
		return "answer_here asks the client's own user, who may be who requested this approval (requested_by): drop answer_here for an approval that must come from someone else"
	}
	return ""
}

// hereEditRefusal is the sentence refusing answer_here for an editable proposal where the
// client can show only a form: a form's fields are short answers, and an edit approved there
// could not be the document the person read.
const hereEditRefusal = "answer_here would ask in this client's form, which cannot edit a document, and this proposal is editable: drop answer_here to have people edit it in Slack or on the web, or drop editable to have it approved as it stands."

// askHere is ask_human with answer_here on a client that takes a form or opens a page (mode):
// rec is the inquiry, just asked (pending, in the inbox). Without the client's response it
// returns the input request; with it, it records the form's answer, or waits for the page's (a
// decline when the person declined or cancelled either).
func (t *tools) askHere(ctx context.Context, req *mcp.CallToolRequest, ha HereAnswerer, rec *inquiry.Record, mode string, wait time.Duration) (*mcp.CallToolResult, Result, error) {
	var responses mcp.InputResponseMap
	var state string
	if req.Params != nil {
		responses, state = req.Params.InputResponses, req.Params.RequestState
	}
	if responses == nil {
		t.log.InfoContext(ctx, "mcp tool call", "tool", AskHuman, "status", "input_required", "mode", mode, "key", rec.Key)
		ask := hereForm(rec)
		if mode == modeURL {
			ask = herePage(rec, req.ProtocolVersion() < protocol2026)
		}
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{hereInput: ask},
			// The key only: the retry asks again and finds the same inquiry, and who may answer it
			// is decided by the service, never by this state.
			RequestState: rec.Key,
		}, Result{}, nil
	}
	if state != rec.Key {
		return t.finish(ctx, AskHuman, Result{Status: StatusError, Key: rec.Key, Code: string(inquiry.CodeBadRequest),
			Message: "The retry's requestState is not the one this question was sent with: retry with the requestState of the input-required result exactly as it came, or call ask_human afresh."})
	}
	er, _ := responses[hereInput].(*mcp.ElicitResult)
	if er == nil {
		return t.finish(ctx, AskHuman, Result{Status: StatusError, Key: rec.Key, Code: string(inquiry.CodeBadRequest),
			Message: fmt.Sprintf("The retry carries no elicitation response under %q: answer the input request of that name, or call ask_human afresh.", hereInput)})
	}
	if mode == modeURL && er.Action == "accept" {
		// The person went to the page: their answer comes from there (via web). Wait for it as
		// ask_human waits; pending hands over to get_answer.
		out, err := ha.Get(ctx, rec.Key, wait)
		if err != nil {
			return t.finish(ctx, AskHuman, t.failure(err, rec.Key))
		}
		return t.finish(ctx, AskHuman, describe(out))
	}
	reply := hereReply(rec, er)
	out, err := ha.AnswerHere(ctx, rec.Key, reply)
	if err != nil {
		if inquiry.ErrorCode(err) == inquiry.CodeAlreadyResolved && out != nil {
			return t.finish(ctx, AskHuman, describe(out)) // answered elsewhere first: that answer stands
		}
		return t.finish(ctx, AskHuman, t.failure(err, rec.Key))
	}
	return t.finish(ctx, AskHuman, describe(out))
}

// hereReply reads the client's response as a reply: accept with the form's content, a decline
// for decline and cancel alike (nobody decided; never a failure).
func hereReply(rec *inquiry.Record, er *mcp.ElicitResult) inquiry.Reply {
	if er.Action != "accept" {
		return inquiry.Reply{Declined: true}
	}
	var r inquiry.Reply
	if s, ok := er.Content[fieldText].(string); ok {
		r.Text = s
	}
	switch v := er.Content[fieldAnswer].(type) {
	case bool:
		r.Value = inquiry.One(map[bool]string{true: "yes", false: "no"}[v])
	case string:
		if rec.Kind == inquiry.KindText {
			r.Text = v
		} else if v != "" {
			r.Value = inquiry.One(v)
		}
	case []any:
		items := make([]string, 0, len(v))
		for _, x := range v {
			items = append(items, fmt.Sprint(x))
		}
		r.Value = inquiry.Many(items...)
	}
	return r
}

// hereForm is the form that asks rec in the client: a choice as a string of titled constants
// (several: an array of them), a confirm as a boolean, a text question as a string; a field for
// words where the question takes them; the default pre-filled.
func hereForm(rec *inquiry.Record) *mcp.ElicitParams {
	msg := rec.Question
	if rec.Context != "" {
		msg += "\n\n" + rec.Context
	}
	if p := rec.Proposal; p != nil {
		// Shown whole and read-only: a form has no field that edits a document (hereEditRefusal).
		title := "What you approve"
		if p.Title != "" {
			title += ": " + p.Title
		}
		msg += "\n\n" + title + "\n\n" + p.Content
	}
	answer := map[string]any{"title": "Answer"}
	var options []any
	for _, o := range inquiry.Offered(&rec.Inquiry) {
		options = append(options, map[string]any{"const": o.Value, "title": o.Label})
	}
	def := rec.Default
	switch {
	case rec.Kind == inquiry.KindConfirm:
		answer["type"] = "boolean"
		if v := def.First(); v == "yes" || v == "no" {
			answer["default"] = v == "yes"
		}
	case rec.Kind == inquiry.KindChoice && rec.Multiple:
		answer["type"] = "array"
		answer["items"] = map[string]any{"anyOf": options}
		if !def.IsZero() {
			answer["default"] = def.Strings()
		}
	case rec.Kind == inquiry.KindChoice:
		answer["type"] = "string"
		answer["oneOf"] = options
		if !def.IsZero() {
			answer["default"] = def.First()
		}
	default:
		answer["type"] = "string"
		answer["maxLength"] = inquiry.DefaultAnswerChars
		if !def.IsZero() {
			answer["default"] = def.String()
		}
	}
	props := map[string]any{fieldAnswer: answer}
	required := []string{fieldAnswer}
	switch {
	case rec.Kind != inquiry.KindText && rec.AllowText:
		props[fieldText] = map[string]any{"type": "string", "title": "Or in your own words", "maxLength": inquiry.DefaultAnswerChars}
		required = nil // either field answers
	case rec.Kind != inquiry.KindText && rec.Reason != inquiry.ReasonNone:
		title := "Why (needed for a no)"
		if rec.Reason == inquiry.ReasonAlways {
			title = "Why"
		}
		props[fieldText] = map[string]any{"type": "string", "title": title, "maxLength": inquiry.DefaultAnswerChars}
	}
	schema := map[string]any{"type": "object", "properties": props}
	if required != nil {
		schema["required"] = required
	}
	raw, _ := json.Marshal(schema) // maps of strings, numbers and lists: it marshals
	return &mcp.ElicitParams{Mode: "form", Message: strings.TrimSpace(msg), RequestedSchema: json.RawMessage(raw)}
}

const answerHereDescription = `Ask your own user — the person at this client — instead of people elsewhere. Use it when that person is the one who decides and is watching this session; leave it out to reach the people the server asks (Slack, e-mail, the web), for instance when nobody watches this session. The client shows the question as a form and the answer is recorded as theirs; a client that can only open links sends them to the question's answer page, and the call then waits up to wait_seconds like any other. A person who declines or dismisses the form gives the status declined. A proposal is shown whole in the form, read-only; an editable one is sent to the answer page, where it can be edited, and refused on a client that shows only forms. Not for approvals that must come from someone else (requested_by) or from several people (approvals). Where the client can do neither, the question goes to people as usual and the message says so.`

// The ways answer_here asks the client's user.
const (
	modeForm = "form" // the question as a form in the client
	modeURL  = "url"  // the client opens the question's answer page
)

// protocol2026 is the first revision where input requests ride on the tool's result.
const protocol2026 = "2026-07-28"

// hereMode is how the client's user can be asked on this call, "" for not at all: a form where
// the client declared form elicitation, else the answer page where it declared URL mode — and
// only where the server can reach the client: by an input-required result on 2026-07-28, or by
// a request of its own on a connection that carries one (stdio), which stateless HTTP does not.
//
// An editable proposal prefers the page, where it can be edited, to a form, where it cannot.
func (t *tools) hereMode(req *mcp.CallToolRequest, editable bool) string {
	if t.stateless && req.ProtocolVersion() < protocol2026 {
		return ""
	}
	switch form, url := elicitModes(req); {
	case form && !(editable && url):
		return modeForm
	case url:
		return modeURL
	}
	return ""
}

// herePage sends the client's user to rec's answer page (URL mode). A client before 2026-07-28
// needs an elicitation id: the question's key.
func herePage(rec *inquiry.Record, legacy bool) *mcp.ElicitParams {
	p := &mcp.ElicitParams{Mode: modeURL, URL: rec.Links.Answer,
		Message: "Answer this question on its page: " + inquiry.OneLine(rec.Question, 200)}
	if legacy {
		p.ElicitationID = rec.Key
	}
	return p
}
