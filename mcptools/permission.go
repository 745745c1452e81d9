package mcptools

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// PermissionPrompt is the tool Claude Code's --permission-prompt-tool calls (as
// mcp__<server>__permission_prompt) before a tool call it would otherwise ask its own user about.
const PermissionPrompt = "permission_prompt"

// DefaultPermissionTimeout is how long a permission question stays open: nobody deciding by
// then denies the call. Under Claude Code's ten minutes for a hook, so that `bot hook` answers
// before it is cut off.
const DefaultPermissionTimeout = 9 * time.Minute

// Permission is one tool call an agent asks leave for.
type Permission struct {
	// Tool is the tool's name, as the harness calls it (Bash, Edit, mcp__github__create_issue).
	Tool string
	// Input is the call's input, a JSON object, shown to the person whole.
	Input json.RawMessage
	// ToolUseID, when the harness gives one, identifies the call: asking again with it finds the
	// same question. Without it every ask is a new question.
	ToolUseID string
	// Asker names who asks in the question ("Claude Code"); "" is "the agent".
	Asker string
}

// Decision is a person's decision on a Permission (or the sentence of why nobody made one).
type Decision struct {
	Allow bool
	// Message is why the call is denied: the person's reason, or a sentence saying why nobody
	// decided. Empty when allowed.
	Message string
	// Key is the question's key, when one was asked.
	Key string
	// UpdatedInput is the input the person edited and allowed, compact JSON (an object); nil
	// when they allowed the input as it was.
	UpdatedInput json.RawMessage
}

// AskPermission puts a tool call to a person as a Confirm (the tool and its input shown whole,
// as an editable JSON proposal; a no needs a reason) and waits for the decision, long-polling in pieces the API holds, until
// timeout passes: then the question expires and its default, no, denies the call. An error is
// one the caller could not get past (the server unreachable, ctx done); every outcome of the
// question itself, nobody asked included, is a Decision.
func AskPermission(ctx context.Context, b Backend, p Permission, policy inquiry.Policy, timeout time.Duration) (Decision, error) {
	req, d, ok := permissionQuestion(p, policy, timeout)
	if !ok {
		return d, nil
	}
	rec, _, err := b.Ask(ctx, req)
	if err != nil {
		if inquiry.ErrorCode(err) == inquiry.CodeDeclined || inquiry.Fatal(err) {
			return Decision{Message: fmt.Sprintf("Nobody could be asked whether to allow %s (%s): the call is denied; do it another way or ask the user.", p.Tool, strings.TrimSuffix(inquiry.ErrorMessage(err), "."))}, nil
		}
		return Decision{}, err
	}
	// The question expires on the server at timeout; past it (and a margin for the sweep), stop
	// waiting for a server that does not expire it.
	giveUp := time.Now().Add(timeout + time.Minute)
	for rec.Status == inquiry.StatusPending && time.Now().Before(giveUp) {
		next, err := b.Get(ctx, rec.Key, MaxWait)
		if err != nil {
			return Decision{Key: rec.Key}, err
		}
		rec = next
	}
	return decided(p, rec, timeout), nil
}

// permissionQuestion is the Confirm for p, or (ok false) the decision when p cannot be shown.
// The input is the question's proposal, a JSON document the person may edit before allowing
// the call; shown whole up to the proposal's bound, and denied unasked past it.
func permissionQuestion(p Permission, policy inquiry.Policy, timeout time.Duration) (client.AskRequest, Decision, bool) {
	var req client.AskRequest
	input := bytes.TrimSpace(p.Input)
	if len(input) == 0 {
		input = []byte("{}")
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, input, "", "  "); err != nil {
		return req, Decision{Message: fmt.Sprintf("The input of %s is not JSON, so no person can be shown it: the call is denied.", p.Tool)}, false
	}
	if pretty.Len() > inquiry.MaxProposalBytes {
		// Whole or not at all: a person must not approve what they were not shown.
		pretty.Reset()
		_ = json.Compact(&pretty, input)
	}
	if n := pretty.Len(); n > inquiry.MaxProposalBytes {
		return req, Decision{Message: fmt.Sprintf("The input of %s is too long to show a person whole (%d bytes, at most %d): the call is denied; split it into smaller calls.", p.Tool, n, inquiry.MaxProposalBytes)}, false
	}
	asker := p.Asker
	if asker == "" {
		asker = "the agent"
	}
	req.Question = fmt.Sprintf("Allow %s to use %s?", asker, p.Tool)
	req.Context = fmt.Sprintf("%s wants to use %s with the input shown. Allow it as it is, edit the input and allow the edit, or deny it with your reason.", capitalized(asker), p.Tool)
	title := p.Tool + " input"
	if utf8.RuneCountInString(title) > inquiry.MaxProposalTitleChars {
		title = "The tool's input"
	}
	req.Proposal = &inquiry.Proposal{Format: inquiry.FormatJSON, Content: pretty.String(), Title: title, Editable: true}
	if utf8.RuneCountInString(req.Question) > inquiry.MaxQuestionChars {
		return req, Decision{Message: fmt.Sprintf("The tool's name is too long to put to a person (at most %d characters): the call is denied.", inquiry.MaxQuestionChars)}, false
	}
	req.Kind = inquiry.KindConfirm
	req.Default = inquiry.One("no")
	req.Approval = inquiry.Approval{Reason: inquiry.ReasonOnNo}
	req.ExpiresIn = timeout.String()
	req.Wait = inquiry.Seconds(MaxWait)
	if policy != "" {
		req.Config = &inquiry.Config{Policy: policy}
	}
	if p.ToolUseID != "" {
		req.ID = "permission:" + p.ToolUseID
		if utf8.RuneCountInString(req.ID) > inquiry.MaxIDChars {
			sum := sha256.Sum256([]byte(p.ToolUseID))
			req.ID = "permission:" + hex.EncodeToString(sum[:])
		}
	} else {
		req.ID = "permission:" + rand.Text() // a new question each time: an old yes allows nothing new
	}
	return req, Decision{}, true
}

// decided reads the question as it ended into a Decision.
func decided(p Permission, rec *inquiry.Record, timeout time.Duration) Decision {
	d := Decision{Key: rec.Key}
	a := rec.Answer
	switch {
	case rec.Status == inquiry.StatusPending:
		d.Message = fmt.Sprintf("Nobody decided whether to allow %s within %s: the call is denied.", p.Tool, timeout)
	case rec.Status == inquiry.StatusCancelled:
		d.Message = fmt.Sprintf("The question whether to allow %s was withdrawn before anybody decided: the call is denied.", p.Tool)
	case rec.Status == inquiry.StatusFailed || a == nil:
		why := "the question could not be put to anybody"
		if rec.Failure != nil && rec.Failure.Message != "" {
			why = strings.TrimSuffix(rec.Failure.Message, ".")
		}
		d.Message = fmt.Sprintf("Nobody could be asked whether to allow %s (%s): the call is denied; do it another way or ask the user.", p.Tool, why)
	case a.Source == inquiry.SourceExpired:
		d.Message = fmt.Sprintf("Nobody decided whether to allow %s within %s: the call is denied.", p.Tool, timeout)
	case a.Source == inquiry.SourceDefault:
		d.Message = fmt.Sprintf("Nobody was asked whether to allow %s (the server's policy answers every question by its default, here no): the call is denied; set BOT_MCP_POLICY=ask for a person to decide.", p.Tool)
	case inquiry.IsDeclined(a):
		d.Message = fmt.Sprintf("%s would not decide whether to allow %s: the call is denied.", who(a), p.Tool)
		if a.Text != "" {
			d.Message = a.Text
		}
	case slices.Equal(a.Value.Strings(), []string{"yes"}) && a.Edited:
		edited, err := editedInput(a.Content)
		if err != nil {
			d.Message = fmt.Sprintf("%s allowed %s with an edited input that is not a JSON object (%v): the call is denied; ask again and edit the input as one JSON object.", who(a), p.Tool, err)
			break
		}
		d.Allow, d.UpdatedInput = true, edited
	case slices.Equal(a.Value.Strings(), []string{"yes"}):
		d.Allow = true
	default:
		d.Message = a.Text
		if d.Message == "" {
			d.Message = fmt.Sprintf("%s denied the use of %s.", who(a), p.Tool)
		}
	}
	return d
}

// editedInput is a person's edit of a tool's input as the compact JSON object a harness takes
// as the call's new input. The service has checked that it parses; a tool's input must also be
// an object, which an edit to an array or a string is not.
func editedInput(content string) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &obj); err != nil || obj == nil {
		return nil, errors.New("a tool's input is an object in braces")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(content)); err != nil {
		return nil, err
	}
	return compact.Bytes(), nil
}

// capitalized is s with its first letter upper case, for the start of a sentence.
func capitalized(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// who names who answered, for the start of a sentence.
func who(a *inquiry.Answer) string {
	if a.AnsweredBy == "" {
		return "The person asked"
	}
	return a.AnsweredBy
}

// permissionInput is what Claude Code sends permission_prompt.
type permissionInput struct {
	ToolName  string          `json:"tool_name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
}

// permissionOutput is the JSON of the one text block Claude Code parses: updatedInput is
// required on allow (the input as given, or as the person edited it), message on deny.
type permissionOutput struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	Message      string          `json:"message,omitempty"`
}

const permissionDescription = `Claude Code's permission prompt (claude --permission-prompt-tool mcp__<server>__permission_prompt): puts a tool call the agent wants to make to a person, who allows or denies it. Not for a model to call itself: ask a question with ask_human.`

func permissionTool() *mcp.Tool {
	in := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"tool_name":   {Type: "string", Description: "the tool the agent wants to use"},
			"input":       {Type: "object", Description: "the tool call's input, shown to the person whole"},
			"tool_use_id": {Type: "string", Description: "the tool call's id: asking again with it finds the same question"},
		},
		PropertyOrder: []string{"tool_name", "input", "tool_use_id"},
		Required:      []string{"tool_name", "input"},
	}
	return &mcp.Tool{
		Name:        PermissionPrompt,
		Title:       "Ask a person to allow a tool call",
		Description: permissionDescription,
		InputSchema: in,
		Annotations: &mcp.ToolAnnotations{
			Title:           "Ask a person to allow a tool call",
			DestructiveHint: jsonschema.Ptr(false),
			OpenWorldHint:   jsonschema.Ptr(true),
		},
	}
}

// permissionPrompt answers Claude Code with ONE text block holding the decision's JSON: a
// server it cannot reach, too, is a deny with the sentence why (Claude Code denies anyway on a
// tool error, but without saying why).
func (t *tools) permissionPrompt(ctx context.Context, req *mcp.CallToolRequest, in permissionInput) (*mcp.CallToolResult, any, error) {
	p := Permission{Tool: strings.TrimSpace(in.ToolName), Input: in.Input, ToolUseID: strings.TrimSpace(in.ToolUseID), Asker: "Claude Code"}
	var d Decision
	b, err := t.backend(extraOf(req))
	if err == nil {
		d, err = AskPermission(ctx, b, p, t.opts.Policy, DefaultPermissionTimeout)
	}
	if err != nil {
		d = Decision{Message: "The permission question could not be asked: " + t.failure(err, d.Key).Message}
	}
	out := permissionOutput{Behavior: "deny", Message: d.Message}
	if d.Allow {
		out = permissionOutput{Behavior: "allow", UpdatedInput: in.Input}
		if d.UpdatedInput != nil {
			out.UpdatedInput = d.UpdatedInput
		} else if len(bytes.TrimSpace(in.Input)) == 0 {
			out.UpdatedInput = json.RawMessage("{}")
		}
	}
	text, err := json.Marshal(out)
	if err != nil {
		return nil, nil, err
	}
	t.log.InfoContext(ctx, "mcp tool call", "tool", PermissionPrompt, "behavior", out.Behavior, "key", d.Key)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil, nil
}
