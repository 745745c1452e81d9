package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// Tool names.
const (
	AskHuman  = "ask_human"
	GetAnswer = "get_answer"
)

// Waits of one tool call: by default a little under the usual 60 s tool timeout, at most the
// longest long-poll the API holds.
const (
	DefaultWait = 50 * time.Second
	MaxWait     = inquiry.MaxWait
)

// Options tune the tools.
type Options struct {
	// Policy, when set, is sent as config.policy with every question; "" leaves it to the
	// server (its BOT_DEFAULT_POLICY, "default" when unset). See the package doc.
	Policy inquiry.Policy
	// Version is the server version reported to clients; "" means "dev".
	Version string
	// Logger hears one line per tool call and the SDK's own messages; nil logs nothing.
	Logger *slog.Logger
	// HereEndpoint, for a Backend that cannot record an MCP client's own answer (the HTTP client
	// of `bot mcp`), is the server's /mcp that answer_here is forwarded to, authenticated with
	// HereToken (forward.go); "" leaves answer_here to ask people as usual there.
	HereEndpoint, HereToken string
	// TaskSecret, for NewServer, signs the ids of the tasks ask_human returns to a client that
	// supports them (tasks.go): a secret of this server's asker, such as its token; nil offers
	// no tasks. The server's /mcp (HTTPHandler) signs with the service's link secret instead.
	TaskSecret []byte
}

// NewServer returns an MCP server offering ask_human and get_answer over b. Serve it with
// Run(ctx, &mcp.StdioTransport{}) or any other transport of the SDK.
func NewServer(b Backend, opts Options) *mcp.Server {
	t := &tools{backend: func(*mcp.RequestExtra) (Backend, error) { return b, nil }, opts: opts, log: opts.Logger, now: time.Now}
	if len(opts.TaskSecret) > 0 {
		t.taskKey = func(*mcp.RequestExtra) ([]byte, string) { return opts.TaskSecret, "" }
	}
	return serve(t)
}

// tools is the tools' state: where each call finds its backend, and the options.
type tools struct {
	backend func(*mcp.RequestExtra) (Backend, error)
	opts    Options
	// taskKey is what task ids are signed with for a request's caller: a secret, and the
	// namespace the id is bound to (tasks.go). nil, or a nil secret, offers no tasks.
	taskKey func(*mcp.RequestExtra) (secret []byte, namespace string)
	log     *slog.Logger
	now     func() time.Time
	// stateless: the server cannot send the client a request of its own (stateless HTTP), so a
	// client older than 2026-07-28 cannot be asked to fill a form.
	stateless bool
}

// newStatelessServer serves the tools over stateless HTTP, which carries no request of the
// server's.
func newStatelessServer(backend func(*mcp.RequestExtra) (Backend, error), taskKey func(*mcp.RequestExtra) ([]byte, string), opts Options) *mcp.Server {
	return serve(&tools{backend: backend, taskKey: taskKey, opts: opts, log: opts.Logger, now: time.Now, stateless: true})
}

func serve(t *tools) *mcp.Server {
	opts := t.opts
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "inquiry-bot", Title: "Inquiry bot", Version: version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       sdkLogger(opts.Logger),
		// Tools only: no logging capability is claimed that the server does not use. And no
		// tools.listChanged (the SDK's default once a tool is added): the two tools are all there
		// ever is, and over stateless HTTP (HTTPHandler) no stream exists to send the notice on.
		Capabilities: capabilities(t.taskKey != nil),
	})
	mcp.AddTool(s, askHumanTool(), t.askHuman)
	mcp.AddTool(s, getAnswerTool(), t.getAnswer)
	mcp.AddTool(s, permissionTool(), t.permissionPrompt)
	if t.taskKey != nil {
		t.registerTasks(s)
	}
	return s
}

// capabilities are the server's: tools, and the tasks extension where ask_human can return
// tasks (server/discover shows it to 2026-07-28 clients).
func capabilities(tasks bool) *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	if tasks {
		c.AddExtension(TasksExtension, map[string]any{})
	}
	return c
}

// sdkLogger passes on the SDK's warnings and errors only: it logs every session's start and end
// at info, and over stateless HTTP every request is a session.
func sdkLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(minLevel{l.Handler(), slog.LevelWarn})
}

type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(as), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}

const instructions = `Ask a person only what is genuinely theirs to answer: a decision that is not yours to make, or a fact only they know — never what you can find out by reading code, docs or logs, or by running a command. ask_human waits up to wait_seconds for the answer; when it says pending, carry on with work that does not depend on the answer and pick it up later with get_answer and the key.`

var askHumanDescription = fmt.Sprintf(`Ask a person one question and wait (up to wait_seconds, default 50) for the answer.

Use it only when the question is genuinely a person's to answer: a decision that is not yours to make (approve a merge, a deploy, a spend or a risk; choose between options with real trade-offs the person owns) or a fact only they know (their preference, their intent). Do not use it for what you can discover yourself by reading code, docs or logs, or by running a command, nor to report progress or to ask leave for routine steps.

When the person at this client is the one to decide and is watching, set answer_here: the client asks them directly, and the answer comes back in this call.

Prefer kind "choice" with %d to %d short options, or "confirm" for yes or no: an answer you can act on at once. Use "text" only when the answer must be in words. Always give a default where one is defensible: it is assumed when nobody answers before the question expires, and when the server is set to answer by default without asking anybody.

Where your client runs tool calls as tasks (MCP tasks), this call returns at once as a task, and the task completes with this same result once the question is settled, however long the person takes: wait for the task rather than asking again or calling get_answer. Without tasks, the call waits up to wait_seconds as below.

The result's status says what happened:
- answered: a person answered; act on the answer.
- assumed: nobody answered (the question expired, or the server's policy answers every question by its default without asking); the default was assumed. Act on it, and say it was assumed.
- declined: nobody could decide. Decide yourself and say so.
- pending: nobody has answered yet. Carry on with work that does not depend on it and call get_answer with the key later. Asking the same question again finds the same inquiry (asked once, answered once); pass a new id to ask the same words afresh.
- cancelled: the question was withdrawn. Decide yourself and say so.
- unavailable (a tool error): no channel exists to ask a person. Do not retry; decide yourself and say that nobody could be asked.
Other tool errors carry the server's sentence on what to fix.`, inquiry.MinOptions, inquiry.MaxOptions)

const getAnswerDescription = `Pick up the answer to a question that ask_human left pending, by its key (a question ask_human returned as a task needs none: the task's result is the answer). Waits up to wait_seconds (default 50) for an answer; when there is still none the status is pending again — call it again later, after doing other work, not in a tight loop. The result reads like ask_human's: answered, assumed, declined, pending, cancelled, or the tool error unavailable (do not retry; decide yourself).`

// askInput is what ask_human takes.
type askInput struct {
	Question    string           `json:"question"`
	Kind        inquiry.Kind     `json:"kind,omitempty"`
	Options     []inquiry.Option `json:"options,omitempty"`
	Context     string           `json:"context,omitempty"`
	Default     inquiry.Value    `json:"default,omitzero"`
	Multiple    bool             `json:"multiple,omitempty"`
	AllowText   bool             `json:"allow_text,omitempty"`
	ExpiresIn   string           `json:"expires_in,omitempty"`
	ID          string           `json:"id,omitempty"`
	WaitSeconds *int             `json:"wait_seconds,omitempty"`
	// A team approval (inquiry.Approval), passed through for the server's rules.
	Approvals   *int           `json:"approvals,omitempty"`
	Veto        *bool          `json:"veto,omitempty"`
	RequestedBy []string       `json:"requested_by,omitempty"`
	Reason      inquiry.Reason `json:"reason,omitempty"`
	// Deadlines (inquiry.Deadlines): reminders and more time; an escalation needs channel ids an
	// agent rarely knows, and is left to the API.
	Remind []inquiry.Duration `json:"remind,omitempty"`
	Extend *inquiry.Extension `json:"extend,omitempty"`
	// Proposal is what the person approves, shown whole (inquiry.Proposal), passed as given.
	Proposal *inquiry.Proposal `json:"proposal,omitempty"`
	// AnswerHere asks the client's own user, in the client (form elicitation): here.go.
	AnswerHere bool `json:"answer_here,omitempty"`
}

// getInput is what get_answer takes.
type getInput struct {
	Key         string `json:"key"`
	WaitSeconds *int   `json:"wait_seconds,omitempty"`
}

// The schemas are written out rather than inferred: a model reads the descriptions, and the
// types that decode themselves (an option as a string or an object, a default as a string or
// a list) need a schema that says so. The limits the server checks on counts and lengths are in
// the schema too, as the OpenAPI document states them, each the constant of package inquiry, so
// a client or a model sees them before it calls (the SDK refuses a call beyond one; JSON
// Schema's lengths count characters, as the server does). What a schema cannot say (printable
// ids, labels that differ whatever their case) comes back as the server's sentence.
func askHumanTool() *mcp.Tool {
	str := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: desc} }
	bounded := func(minLen, maxLen int, desc string) *jsonschema.Schema {
		s := str(desc)
		if minLen > 0 {
			s.MinLength = jsonschema.Ptr(minLen)
		}
		s.MaxLength = jsonschema.Ptr(maxLen)
		return s
	}
	boolean := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "boolean", Description: desc} }
	option := &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
		// A bare string is both the value and the label: the shorter of their bounds holds.
		bounded(1, min(inquiry.MaxOptionValueChars, inquiry.MaxOptionLabelChars), "an answer in a few words, used as both its value and its label"),
		{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"value":       bounded(0, inquiry.MaxOptionValueChars, fmt.Sprintf("what the answer returns when chosen (at most %d characters; default: the label)", inquiry.MaxOptionValueChars)),
				"label":       bounded(0, inquiry.MaxOptionLabelChars, fmt.Sprintf("what the person sees: a few words, at most %d characters (default: the value)", inquiry.MaxOptionLabelChars)),
				"description": bounded(0, inquiry.MaxOptionDescriptionChars, fmt.Sprintf("an optional hint under the label, at most %d characters", inquiry.MaxOptionDescriptionChars)),
			},
			PropertyOrder:        []string{"value", "label", "description"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		},
	}}
	in := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"question": bounded(1, inquiry.MaxQuestionChars, fmt.Sprintf("The one question, in plain words a person can answer at a glance (at most %d characters). Put the background in context.", inquiry.MaxQuestionChars)),
			"kind": {
				Type: "string", Enum: []any{"choice", "confirm", "text"},
				Description: `"choice": pick among options; "confirm": yes or no; "text": an answer in words. Default: "choice" when options are given, else "text".`,
			},
			"options": {
				Type: "array", Items: option,
				MinItems: jsonschema.Ptr(inquiry.MinOptions), MaxItems: jsonschema.Ptr(inquiry.MaxOptions),
				Description: fmt.Sprintf("For a choice only: %d to %d answers to offer, each a string or {value, label, description}. Labels are a few words and all different, whatever their case.", inquiry.MinOptions, inquiry.MaxOptions),
			},
			"context": bounded(0, inquiry.MaxContextChars, fmt.Sprintf("Background the person needs to decide, in a sentence or two: what you are doing and what each answer leads to (at most %d characters).", inquiry.MaxContextChars)),
			"default": {AnyOf: []*jsonschema.Schema{
				{Type: "string", MaxLength: jsonschema.Ptr(inquiry.DefaultAnswerChars)},
				{Type: "array", MaxItems: jsonschema.Ptr(inquiry.MaxOptions), Items: &jsonschema.Schema{Type: "string", MaxLength: jsonschema.Ptr(inquiry.MaxOptionValueChars)}},
			}, Description: `What to assume when nobody answers: an option's value or label (a list of them with multiple), "yes" or "no" for a confirm, words for a text question. Give one whenever one is defensible.`},
			"multiple":     boolean("For a choice: the person may pick several options."),
			"allow_text":   boolean("For a choice or a confirm: the person may answer in their own words instead."),
			"expires_in":   str(`How long the question stays open, a duration such as "30m", "2h" or "24h". When it passes, the default is assumed (without a default the question is declined). Without it, the question stays open until somebody answers.`),
			"id":           bounded(1, inquiry.MaxIDChars, fmt.Sprintf(`A stable id for this question, the same every time this step runs, such as "deploy-42:merge" (1 to %d printable characters). Default: the server derives it from the question, kind, options, context, multiple, allow_text, default, approval and proposal, so asking the same question again finds the same inquiry and its answer. Give a new id to ask the same words afresh.`, inquiry.MaxIDChars)),
			"wait_seconds": waitSeconds(" When nobody has answered by then, the status is pending and the key picks the answer up later with get_answer."),
			"approvals": {
				Type: "integer", Minimum: jsonschema.Ptr(1.0), Maximum: jsonschema.Ptr(float64(inquiry.MaxApprovals)),
				Description: fmt.Sprintf("For a confirm or a single choice: how many distinct people must give the same answer, 1 to %d (default 1). For a confirm, one no answers no at once unless veto is false.", inquiry.MaxApprovals),
			},
			"veto": boolean("For a confirm with approvals above 1 (default true): one no answers no at once. false: it takes as many noes as approvals."),
			"requested_by": {
				Type: "array", MaxItems: jsonschema.Ptr(inquiry.MaxRequestedBy),
				Items:       bounded(1, min(inquiry.MaxIDChars, inquiry.MaxSlackRefChars), "a Slack user id (U…) or a token's name"),
				Description: fmt.Sprintf("Who asked for this approval, and so may not give it (four eyes): Slack user ids or token names, at most %d — for a merge, the pull request's author.", inquiry.MaxRequestedBy),
			},
			"reason": {
				Type: "string", Enum: []any{string(inquiry.ReasonOnNo), string(inquiry.ReasonAlways)},
				Description: `When the person must say why: "on_no" (a no or a decline), "always" (every answer). The reason comes back as the answer's text.`,
			},
			"remind": {
				Type: "array", MaxItems: jsonschema.Ptr(inquiry.MaxReminders), Items: str(`a duration before the expiry, such as "30m"`),
				Description: fmt.Sprintf(`With expires_in: remind the people who may answer this long before the question expires, such as ["30m", "5m"] (at most %d).`, inquiry.MaxReminders),
			},
			"extend": {
				Type: "object",
				Properties: map[string]*jsonschema.Schema{
					"by":  str(`how much more time one extension gives, such as "1h"`),
					"max": str(`the most time that may be added in all, such as "4h"`),
				},
				PropertyOrder: []string{"by", "max"}, Required: []string{"by", "max"},
				AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
				Description:          "With expires_in: the people who may answer may give the question more time, by at a time and max in all.",
			},
			"proposal": {
				Type: "object",
				Properties: map[string]*jsonschema.Schema{
					"format": {
						Type: "string", Enum: []any{string(inquiry.FormatText), string(inquiry.FormatMarkdown), string(inquiry.FormatDiff), string(inquiry.FormatJSON)},
						Description: `How the content reads (default "text"); "json" content must parse.`,
					},
					"content":  bounded(1, inquiry.MaxProposalBytes, fmt.Sprintf("What the person approves, whole: the diff, the document, the tool's input (at most %d bytes, 256 KiB).", inquiry.MaxProposalBytes)),
					"title":    bounded(0, inquiry.MaxProposalTitleChars, fmt.Sprintf("A one-line name for it, such as \"PR #42\" (at most %d characters).", inquiry.MaxProposalTitleChars)),
					"editable": boolean("For a confirm or a single-person choice: the person may approve an edited version; the answer then carries the approved content."),
				},
				PropertyOrder: []string{"format", "content", "title", "editable"}, Required: []string{"content"},
				AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
				Description:          "What the person approves, shown to them whole rather than described in context: a diff, a config change, an outgoing message, a tool's input. Two proposals are two questions.",
			},
			"answer_here": boolean(answerHereDescription),
		},
		PropertyOrder:        []string{"question", "kind", "options", "context", "default", "multiple", "allow_text", "expires_in", "id", "wait_seconds", "approvals", "veto", "requested_by", "reason", "remind", "extend", "proposal", "answer_here"},
		Required:             []string{"question"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	return tool(AskHuman, "Ask a person", askHumanDescription, in, mcp.ToolAnnotations{
		// The same arguments find the same inquiry: asked once, answered once.
		IdempotentHint:  true,
		DestructiveHint: jsonschema.Ptr(false),
		OpenWorldHint:   jsonschema.Ptr(true),
	})
}

func getAnswerTool() *mcp.Tool {
	in := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"key":          {Type: "string", Description: "The key ask_human returned (it starts with inq_)."},
			"wait_seconds": waitSeconds(""),
		},
		PropertyOrder:        []string{"key", "wait_seconds"},
		Required:             []string{"key"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	return tool(GetAnswer, "Pick up a person's answer", getAnswerDescription, in, mcp.ToolAnnotations{
		ReadOnlyHint:   true,
		IdempotentHint: true,
		OpenWorldHint:  jsonschema.Ptr(true),
	})
}

// tool is one of the two tools: arguments in, a Result out (resultSchema), and the hints, whose
// title is the tool's.
func tool(name, title, description string, in *jsonschema.Schema, hints mcp.ToolAnnotations) *mcp.Tool {
	hints.Title = title
	return &mcp.Tool{
		Name:         name,
		Title:        title,
		Description:  description,
		InputSchema:  in,
		OutputSchema: resultSchema(),
		Annotations:  &hints,
	}
}

// waitSeconds is the schema of both tools' wait_seconds, its description followed by more.
func waitSeconds(more string) *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "integer", Minimum: jsonschema.Ptr(0.0), Maximum: jsonschema.Ptr(MaxWait.Seconds()),
		Default:     json.RawMessage(`50`),
		Description: "How long this call waits for an answer, 0 to 55 seconds (default 50)." + more,
	}
}

// wait reads wait_seconds: absent is DefaultWait, and it is bounded to 0..MaxWait.
func wait(seconds *int) time.Duration {
	if seconds == nil {
		return DefaultWait
	}
	return inquiry.ClampWait(time.Duration(*seconds) * time.Second)
}

func (t *tools) askHuman(ctx context.Context, req *mcp.CallToolRequest, in askInput) (*mcp.CallToolResult, Result, error) {
	b, err := t.backend(extraOf(req))
	if err != nil {
		return t.finish(ctx, AskHuman, t.failure(err, ""))
	}
	ask, err := t.askRequest(in)
	if err != nil {
		return t.finish(ctx, AskHuman, t.failure(err, ""))
	}
	var note string
	if in.AnswerHere {
		if why := hereRefusal(in); why != "" {
			return t.finish(ctx, AskHuman, Result{Status: StatusError, Code: string(inquiry.CodeBadRequest), Field: "answer_here", Message: why})
		}
		ha, ok := b.(HereAnswerer)
		editable := in.Proposal != nil && in.Proposal.Editable
		mode := t.hereMode(req, editable)
		if mode == modeForm && editable {
			return t.finish(ctx, AskHuman, Result{Status: StatusError, Code: string(inquiry.CodeBadRequest), Field: "answer_here", Message: hereEditRefusal})
		}
		switch {
		case ok && mode != "":
			ask.Config = &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportInbox} // nobody else is asked
			ask.Wait = inquiry.Seconds(0)
			rec, _, err := b.Ask(ctx, ask)
			if err != nil {
				return t.finish(ctx, AskHuman, t.failure(err, ""))
			}
			if rec.Status != inquiry.StatusPending {
				return t.finish(ctx, AskHuman, describe(rec)) // asked and settled before
			}
			if mode == modeURL && (rec.Links == nil || rec.Links.Answer == "") {
				return t.finish(ctx, AskHuman, Result{Status: StatusError, Key: rec.Key, Code: string(inquiry.CodeUnavailable),
					Message: "answer_here needs a form in this client or the question's answer page, and this server has no answer pages (BOT_PUBLIC_URL and the link secret are unset): ask without answer_here, and people are asked as usual."})
			}
			return t.askHere(ctx, req, ha, rec, mode, wait(in.WaitSeconds))
		case !ok && mode != "" && t.opts.HereEndpoint != "":
			args, err := json.Marshal(in)
			if err != nil {
				return t.finish(ctx, AskHuman, t.failure(err, ""))
			}
			return t.forwardHere(ctx, req, args)
		case ok && t.stateless && req.ProtocolVersion() < protocol2026:
			// Whatever it declared: this endpoint cannot send it an elicitation (hereMode).
			note = " (answer_here was not possible: this endpoint asks the client's own user only on MCP 2026-07-28, and this client speaks " + req.ProtocolVersion() + "; a client of an older revision can be asked through `bot mcp` over stdio. The question was put to people as usual.)"
		case ok:
			note = " (answer_here was not possible: this client can show neither a form nor a link (elicitation), so the question was put to people as usual.)"
		default:
			note = " (answer_here was not possible: this server records a client's own answer only at the bot's /mcp endpoint, so the question was put to people as usual.)"
		}
	}
	slot := slotOf(ctx)
	if slot != nil {
		ask.Wait = inquiry.Seconds(0) // the task is the wait: tasks/get picks the answer up
	}
	start := t.now()
	rec, created, err := b.Ask(ctx, ask)
	if err != nil {
		return t.finish(ctx, AskHuman, t.failure(err, ""))
	}
	if slot != nil {
		slot.rec, slot.note = rec, note
	}
	res := describe(rec)
	if !created && rec.CreatedAt.Before(start.Add(-askedBeforeAfter)) {
		res.Message += " (This question was asked before, at " + rec.CreatedAt.UTC().Format(time.RFC3339) +
			", with the same id " + quote(rec.ID) + ": this is where it stands. To ask afresh, give a new id.)"
	}
	res.Message += note
	return t.finish(ctx, AskHuman, res)
}

// askedBeforeAfter is how old an inquiry found again must be for the result to say it was asked
// before: a model re-asking within minutes is picking its own question up, not an old one.
const askedBeforeAfter = 10 * time.Minute

func (t *tools) getAnswer(ctx context.Context, req *mcp.CallToolRequest, in getInput) (*mcp.CallToolResult, Result, error) {
	b, err := t.backend(extraOf(req))
	if err != nil {
		return t.finish(ctx, GetAnswer, t.failure(err, ""))
	}
	key := strings.TrimSpace(in.Key)
	if key == "" {
		return t.finish(ctx, GetAnswer, t.failure(inquiry.FieldErrorf(inquiry.CodeBadRequest, "key", "key is required: pass the key ask_human returned (it starts with inq_)"), ""))
	}
	rec, err := b.Get(ctx, key, wait(in.WaitSeconds))
	if err != nil {
		return t.finish(ctx, GetAnswer, t.failure(err, key))
	}
	return t.finish(ctx, GetAnswer, describe(rec))
}

// finish turns a result into the tool's answer: the sentence as text content, the result as
// structured content, and IsError for the outcomes that are errors.
func (t *tools) finish(ctx context.Context, tool string, res Result) (*mcp.CallToolResult, Result, error) {
	if res.Status.isError() {
		t.log.WarnContext(ctx, "mcp tool call", "tool", tool, "status", res.Status, "key", res.Key, "code", res.Code, "message", res.Message)
	} else {
		t.log.InfoContext(ctx, "mcp tool call", "tool", tool, "status", res.Status, "key", res.Key)
	}
	return toolResult(res, false), res, nil
}

// toolResult is res as a tool's result: the sentence as text content, IsError for the outcomes
// that are errors, and res as structured content when structured (the SDK fills it in from a
// handler's typed result; a task's result has no handler to fill it).
func toolResult(res Result, structured bool) *mcp.CallToolResult {
	out := &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: res.Message}},
		IsError: res.Status.isError(),
	}
	if res.Edited {
		// A model that reads only the text blocks must still get what was approved, whole.
		out.Content = append(out.Content, &mcp.TextContent{Text: res.Content})
	}
	if structured {
		out.StructuredContent = res
	}
	return out
}

// askRequest turns the tool's input into the API's request: the kind inferred from the
// options, a default named by its label read as the option's value, and the policy of the
// options. Without an id it sends none: the server derives it, once, for every asker.
func (t *tools) askRequest(in askInput) (client.AskRequest, error) {
	var req client.AskRequest
	req.Question = strings.TrimSpace(in.Question)
	req.Kind = inquiry.Kind(strings.ToLower(strings.TrimSpace(string(in.Kind))))
	req.Context = strings.TrimSpace(in.Context)
	req.Options, req.Multiple, req.AllowText = in.Options, in.Multiple, in.AllowText
	req.ExpiresIn = strings.TrimSpace(in.ExpiresIn)
	req.Wait = inquiry.Seconds(wait(in.WaitSeconds))
	if req.Kind == "" {
		req.Kind = inquiry.KindText
		if len(in.Options) > 0 {
			req.Kind = inquiry.KindChoice
		}
	}
	req.Default = inquiry.NamedDefault(&req.Inquiry, in.Default)
	req.Approval = inquiry.Approval{Approvals: in.Approvals, Veto: in.Veto, RequestedBy: in.RequestedBy, Reason: in.Reason}
	req.Remind, req.Extend = in.Remind, in.Extend
	req.Proposal = in.Proposal
	if t.opts.Policy != "" {
		req.Config = &inquiry.Config{Policy: t.opts.Policy}
	}
	req.ID = strings.TrimSpace(in.ID) // none: the server derives it from the content
	return req, nil
}

// failure is the result of an error: declined for a refusal by policy, unavailable (a tool
// error the agent must not retry) when nobody can be asked, else a tool error with the server's
// sentence. key is the key asked for, if any.
func (t *tools) failure(err error, key string) Result {
	code := inquiry.ErrorCode(err)
	var ie *inquiry.Error
	var te *client.TransportError
	msg := inquiry.ErrorMessage(err)
	switch {
	case errors.As(err, &ie):
	case errors.As(err, &te):
		msg, code = te.Error(), "" // a sentence of the client's, naming BOT_URL
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		msg, code = "the call was cancelled before the server answered; the question, if it was asked, stays open: ask the same question again or call get_answer with its key", ""
	default:
		t.log.Error("mcp tool call failed", "err", err) // its detail is not the caller's to read
	}
	res := Result{Status: StatusError, Key: key, Code: string(code), Field: inquiry.ErrorField(err)}
	switch {
	case inquiry.Fatal(err):
		res.Status = StatusUnavailable
		res.Message = unavailable(msg)
	case code == inquiry.CodeDeclined:
		res.Status = StatusDeclined
		res.Message = "Declined: the server's policy lets nobody be asked this question. Nobody could decide — decide yourself and say so."
	case code == inquiry.CodeNotFound && key != "":
		res.Message = "No question has the key " + quote(key) + ": pass the key ask_human returned (it starts with inq_), not the question's id."
	default:
		res.Message = msg
	}
	return res
}
