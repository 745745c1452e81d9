package main

// bot hook claude-code: a Claude Code command hook that puts its question to a person through
// the bot: a PermissionRequest (allow or deny a tool call) or an Elicitation (any MCP server's
// request for input), read as JSON on stdin, answered as the hook's JSON on stdout.

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

const hookHelp = `usage: bot hook claude-code [--timeout 9m]

A Claude Code command hook: reads the hook's JSON on stdin, asks a person through the gateway at
BOT_URL (with BOT_TOKEN, else the token file; the token needs the ask scope), and writes the
hook's JSON output on stdout. BOT_MCP_POLICY (ask, default or refuse), when set, is sent as the
policy of every question, as bot mcp does: set it to ask unless the server's BOT_DEFAULT_POLICY is.

Events:
  PermissionRequest  a Confirm showing the tool and its input whole (up to 256 KiB), which the
                     person may edit before allowing it; a no needs a reason.
                     {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                      "decision": {"behavior": "allow"}}} (with "updatedInput": {...} when the
                     person edited the input), or "deny" with the reason as message.
  Elicitation        an MCP server's request for input. A form of one field is asked as a
                     Choice (an enum; several of them for a list of enums), a Confirm (a boolean)
                     or a Text (a string); URL mode sends the person the link and asks whether
                     they did what the page asks.
                     {"hookSpecificOutput": {"hookEventName": "Elicitation",
                      "action": "accept", "content": {...}}}, or "decline" with no content.

Defaults (documented for the hook protocol):
  nobody decides within --timeout     PermissionRequest: deny, with a sentence saying so;
                                      Elicitation: cancel. Exit status 0.
  the person declines to decide       PermissionRequest: deny (their reason, if any);
                                      Elicitation: decline. Exit status 0.
  the question cannot be put          exit status 1 and the sentence on stderr: a non-blocking
  (the bot unreachable or refusing,   error, so Claude Code goes on as without the hook and
  a form of several fields, another   asks its own user. Never exit status 2, which would
  event)                              deny the call unasked.

Keep --timeout under the hook's own timeout in Claude Code's settings (600 s by default):
  {"hooks": {"PermissionRequest": [{"hooks": [{"type": "command",
    "command": "bot hook claude-code", "timeout": 600}]}],
   "Elicitation": [{"hooks": [{"type": "command", "command": "bot hook claude-code", "timeout": 600}]}]}}

Flags:
`

// hookCannotAsk is the exit status when the question cannot be put: Claude Code reads any
// status but 0 and 2 as a non-blocking error and carries on as without the hook.
const hookCannotAsk = 1

func runHook(ctx context.Context, e *env) error {
	fs := commandFlags(e, "hook", hookHelp)
	timeout := fs.Duration("timeout", mcptools.DefaultPermissionTimeout, "how long the person has to decide; keep it under the hook's timeout in Claude Code's settings")
	// The harness first (bot hook claude-code --timeout 5m), its flags after it.
	args := e.args
	harness := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		harness, args = args[0], args[1:]
	}
	if done, err := parseCommand(fs, args, e.stdout); done {
		if err != nil {
			return exitf(hookCannotAsk, "%v", err)
		}
		return nil
	}
	// What runs under this hook is the agent's, as under bot mcp.
	if err := markAgentShell(e); err != nil {
		return exitf(hookCannotAsk, "%v", err)
	}
	if harness != "claude-code" || fs.NArg() > 0 {
		return exitf(hookCannotAsk, "bot hook takes one argument, the harness, and knows claude-code: run bot hook claude-code")
	}
	if *timeout < time.Second {
		return exitf(hookCannotAsk, "--timeout %s is too short for a person to decide: give at least 1s, such as 9m", *timeout)
	}
	policy, err := mcpPolicy(e, hookCannotAsk)
	if err != nil {
		return err
	}
	raw, err := io.ReadAll(io.LimitReader(e.stdin, 1<<20))
	if err != nil {
		return exitf(hookCannotAsk, "cannot read the hook's input on stdin: %v", err)
	}
	var in hookInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return exitf(hookCannotAsk, "the hook's input on stdin is not a JSON object (%v): configure bot hook claude-code as a command hook of Claude Code", err)
	}
	c, err := newClient(e)
	if err != nil {
		return exitf(hookCannotAsk, "%s", strings.TrimPrefix(err.Error(), "bot: "))
	}
	var out hookOutput
	switch in.Event {
	case "PermissionRequest":
		out, err = permissionHook(ctx, c, in, policy, *timeout)
	case "Elicitation":
		out, err = elicitationHook(ctx, c, in, policy, *timeout)
	default:
		return exitf(hookCannotAsk, "the hook event %q is not one bot hook claude-code answers: configure it for PermissionRequest and Elicitation only", in.Event)
	}
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return exitf(hookCannotAsk, "the question could not be put, so Claude Code asks its own user: %s", errMessage(err))
	}
	enc := json.NewEncoder(e.stdout)
	return enc.Encode(out)
}

// hookInput is what Claude Code sends a PermissionRequest or Elicitation hook (the fields read
// here; the others, session_id and the like, are not needed).
type hookInput struct {
	Event string `json:"hook_event_name"`
	// PermissionRequest.
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	// Elicitation.
	Server          string          `json:"mcp_server_name"`
	Message         string          `json:"message"`
	Mode            string          `json:"mode"`
	URL             string          `json:"url"`
	ElicitationID   string          `json:"elicitation_id"`
	RequestedSchema json.RawMessage `json:"requested_schema"`
}

// hookOutput is the hook's JSON on stdout.
type hookOutput struct {
	Specific any `json:"hookSpecificOutput"`
}

type permissionOutput struct {
	Event    string             `json:"hookEventName"`
	Decision permissionDecision `json:"decision"`
}

type permissionDecision struct {
	Behavior string `json:"behavior"`
	// UpdatedInput is the tool's input as the person edited it, on an allow; left out when
	// they allowed it as it was, so Claude Code runs the call unchanged.
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	Message      string          `json:"message,omitempty"`
}

type elicitationOutput struct {
	Event   string         `json:"hookEventName"`
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

func permissionHook(ctx context.Context, c *client.Client, in hookInput, policy inquiry.Policy, timeout time.Duration) (hookOutput, error) {
	if strings.TrimSpace(in.ToolName) == "" {
		return hookOutput{}, exitf(hookCannotAsk, "the PermissionRequest has no tool_name: nothing to put to a person")
	}
	d, err := mcptools.AskPermission(ctx, c, mcptools.Permission{Tool: in.ToolName, Input: in.ToolInput, Asker: "Claude Code"}, policy, timeout)
	if err != nil {
		return hookOutput{}, err
	}
	dec := permissionDecision{Behavior: "deny", Message: d.Message}
	if d.Allow {
		dec = permissionDecision{Behavior: "allow", UpdatedInput: d.UpdatedInput}
	}
	return hookOutput{permissionOutput{Event: "PermissionRequest", Decision: dec}}, nil
}

// property is the part of an elicitation's property schema read here (MCP 2025-11-25's
// PrimitiveSchemaDefinition, and the legacy enumNames).
type property struct {
	Type        string         `json:"type"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Enum        []string       `json:"enum"`
	EnumNames   []string       `json:"enumNames"`
	OneOf       []titledConst  `json:"oneOf"`
	Items       *property      `json:"items"`
	AnyOf       []titledConst  `json:"anyOf"`
	Properties  map[string]any `json:"properties"`
}

type titledConst struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// options are the choices of an enum property, labelled by their titles where it has them.
func (p *property) options() []inquiry.Option {
	var opts []inquiry.Option
	switch {
	case len(p.OneOf) > 0:
		for _, o := range p.OneOf {
			opts = append(opts, inquiry.Option{Value: o.Const, Label: o.Title})
		}
	case len(p.AnyOf) > 0:
		for _, o := range p.AnyOf {
			opts = append(opts, inquiry.Option{Value: o.Const, Label: o.Title})
		}
	default:
		for i, v := range p.Enum {
			o := inquiry.Option{Value: v}
			if i < len(p.EnumNames) {
				o.Label = p.EnumNames[i]
			}
			opts = append(opts, o)
		}
	}
	for i := range opts {
		if opts[i].Label == "" {
			opts[i].Label = opts[i].Value
		}
	}
	return opts
}

func elicitationHook(ctx context.Context, c *client.Client, in hookInput, policy inquiry.Policy, timeout time.Duration) (hookOutput, error) {
	server := strings.TrimSpace(in.Server)
	if server == "" {
		server = "An MCP server"
	}
	var req client.AskRequest
	req.Question = strings.TrimSpace(in.Message)
	if req.Question == "" {
		return hookOutput{}, exitf(hookCannotAsk, "the Elicitation has no message: nothing to put to a person")
	}
	if utf8.RuneCountInString(req.Question) > inquiry.MaxQuestionChars {
		return hookOutput{}, exitf(hookCannotAsk, "the Elicitation's message is longer than a question may be (%d characters): Claude Code asks its own user", inquiry.MaxQuestionChars)
	}
	// read turns the decided question into the content of an accept.
	var read func(a *inquiry.Answer) map[string]any
	if in.Mode == "url" {
		if in.URL == "" {
			return hookOutput{}, exitf(hookCannotAsk, "the Elicitation is in URL mode but has no url: nothing to send a person to")
		}
		req.Kind = inquiry.KindConfirm
		req.Context = fmt.Sprintf("%s (an MCP server of Claude Code's) asks you to open this page and do what it asks, then answer yes:\n%s", server, in.URL)
		read = func(a *inquiry.Answer) map[string]any {
			if slices.Equal(a.Value.Strings(), []string{"yes"}) {
				return map[string]any{}
			}
			return nil
		}
	} else {
		var schema struct {
			Properties map[string]property `json:"properties"`
		}
		if len(in.RequestedSchema) > 0 {
			if err := json.Unmarshal(in.RequestedSchema, &schema); err != nil {
				return hookOutput{}, exitf(hookCannotAsk, "the Elicitation's requested_schema does not read as a form (%v): Claude Code asks its own user", err)
			}
		}
		if len(schema.Properties) != 1 {
			return hookOutput{}, exitf(hookCannotAsk, "the Elicitation asks for %d fields, and the bot puts a form of one field only (a choice, a yes or no, or words): Claude Code asks its own user", len(schema.Properties))
		}
		var name string
		var p property
		for name, p = range schema.Properties {
		}
		req.Context = fmt.Sprintf("%s (an MCP server of Claude Code's) asks for %s.", server, fieldName(name, p))
		if p.Description != "" {
			req.Context += " " + p.Description
		}
		switch {
		case p.Type == "boolean":
			req.Kind = inquiry.KindConfirm
			read = func(a *inquiry.Answer) map[string]any {
				return map[string]any{name: slices.Equal(a.Value.Strings(), []string{"yes"})}
			}
		case p.Type == "string" && (len(p.Enum) > 0 || len(p.OneOf) > 0):
			req.Kind, req.Options = inquiry.KindChoice, p.options()
			read = func(a *inquiry.Answer) map[string]any { return map[string]any{name: a.Value.Strings()[0]} }
		case p.Type == "array" && p.Items != nil && (len(p.Items.Enum) > 0 || len(p.Items.AnyOf) > 0):
			req.Kind, req.Options, req.Multiple = inquiry.KindChoice, p.Items.options(), true
			read = func(a *inquiry.Answer) map[string]any { return map[string]any{name: a.Value.Strings()} }
		case p.Type == "string":
			req.Kind = inquiry.KindText
			read = func(a *inquiry.Answer) map[string]any { return map[string]any{name: a.Text} }
		default:
			return hookOutput{}, exitf(hookCannotAsk, "the Elicitation's field %q is of type %q, and the bot asks for a choice, a yes or no, or words: Claude Code asks its own user", name, p.Type)
		}
	}
	req.ExpiresIn = timeout.String()
	req.Wait = inquiry.Seconds(mcptools.MaxWait)
	if policy != "" {
		req.Config = &inquiry.Config{Policy: policy}
	}
	if in.ElicitationID != "" && utf8.RuneCountInString(in.ElicitationID) < inquiry.MaxIDChars-len("elicitation:") {
		req.ID = "elicitation:" + in.ElicitationID
	} else {
		req.ID = "elicitation:" + rand.Text()
	}
	rec, err := waitDecided(ctx, c, req, timeout)
	if err != nil {
		return hookOutput{}, err
	}
	out := elicitationOutput{Event: "Elicitation", Action: "cancel"}
	a := rec.Answer
	switch {
	case rec.Status == inquiry.StatusPending || rec.Status == inquiry.StatusCancelled || a == nil || a.Source == inquiry.SourceExpired:
		// Nobody decided in time (or the question was withdrawn): cancel, as a dismissed dialog.
	case rec.Status == inquiry.StatusFailed:
		return hookOutput{}, exitf(hookCannotAsk, "nobody could be asked, so Claude Code asks its own user")
	case a.Source == inquiry.SourceDefault:
		return hookOutput{}, exitf(hookCannotAsk, "nobody was asked (the server's policy answers every question by its default; set BOT_MCP_POLICY=ask), so Claude Code asks its own user")
	case inquiry.IsDeclined(a):
		out.Action = "decline"
	default:
		if content := read(a); content != nil {
			out.Action, out.Content = "accept", content
		} else {
			out.Action = "decline"
		}
	}
	return hookOutput{out}, nil
}

// fieldName is how the context names a form's field: its title, else its name.
func fieldName(name string, p property) string {
	if p.Title != "" {
		return strings.ToLower(p.Title[:1]) + p.Title[1:]
	}
	return name
}

// waitDecided asks req and waits until it is decided, in long-polls the API holds, or until
// timeout (and a margin for the server's sweep) has passed.
func waitDecided(ctx context.Context, c *client.Client, req client.AskRequest, timeout time.Duration) (*inquiry.Record, error) {
	rec, _, err := c.Ask(ctx, req)
	if err != nil {
		return nil, err
	}
	giveUp := time.Now().Add(timeout + time.Minute)
	for rec.Status == inquiry.StatusPending && time.Now().Before(giveUp) {
		next, err := c.Get(ctx, rec.Key, mcptools.MaxWait)
		if err != nil {
			return nil, err
		}
		rec = next
	}
	return rec, nil
}
