package mcptools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

// recorded reads a recorded JSON-RPC message of testdata/claude-code into v.
func recorded(t *testing.T, name string, v any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "claude-code", name))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, v))
}

// permissionCall is the recorded tools/call of Claude Code, made by cs in a goroutine; the
// channel gets its result.
func permissionCall(t *testing.T, cs *mcp.ClientSession) <-chan *mcp.CallToolResult {
	t.Helper()
	var req struct {
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	recorded(t, "claude-permission-prompt-tool.tools-call.request.json", &req)
	require.Equal(t, mcptools.PermissionPrompt, req.Params.Name)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	return done
}

// textOf is the one text block of a result, the JSON Claude Code parses.
func textOf(t *testing.T, done <-chan *mcp.CallToolResult) string {
	t.Helper()
	var res *mcp.CallToolResult
	select {
	case res = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("permission_prompt did not return")
	}
	require.NotNil(t, res)
	require.False(t, res.IsError)
	require.Len(t, res.Content, 1, "Claude Code takes a single text block")
	text, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "content %T", res.Content[0])
	return text.Text
}

// recordedText is the text block of a recorded result.
func recordedText(t *testing.T, name string) string {
	t.Helper()
	var res struct {
		Result struct {
			Content []struct{ Type, Text string } `json:"content"`
		} `json:"result"`
	}
	recorded(t, name, &res)
	require.Len(t, res.Result.Content, 1)
	return res.Result.Content[0].Text
}

// TestPermissionPromptAllowAndDeny: the recorded call of Claude Code is put to a person as a
// Confirm showing the tool's input whole as an editable JSON proposal; a yes comes back as the
// recorded allow (the input as given, as updatedInput), a yes with an edit as the edited input,
// a no with a reason as the recorded deny.
func TestPermissionPromptAllowAndDeny(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		reply  client.Reply
		result string
	}{
		{"allow", client.Reply{Value: inquiry.One("yes")}, "claude-permission-prompt-tool.result.allow.json"},
		{"allow an edit", client.Reply{Value: inquiry.One("yes"), Content: "{\"command\": \"git push origin main-42\"}"}, "claude-permission-prompt-tool.result.allow-edited.json"},
		{"allow unedited", client.Reply{Value: inquiry.One("yes"), Content: "{\n  \"command\": \"git push --force origin main-42\"\n}"}, "claude-permission-prompt-tool.result.allow.json"},
		{"deny with a reason", client.Reply{Value: inquiry.One("no"), Text: "force pushes need a release manager"}, "claude-permission-prompt-tool.result.deny.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
				done := permissionCall(t, cs)
				key := b.pendingKey(t)
				rec, err := b.api(b.admin).Get(context.Background(), key, 0)
				require.NoError(t, err)
				require.Equal(t, "Allow Claude Code to use Bash?", rec.Question)
				require.Equal(t, &inquiry.Proposal{Format: inquiry.FormatJSON, Content: "{\n  \"command\": \"git push --force origin main-42\"\n}", Title: "Bash input", Editable: true}, rec.Proposal)
				require.Equal(t, "Claude Code wants to use Bash with the input shown. Allow it as it is, edit the input and allow the edit, or deny it with your reason.", rec.Context)
				require.Equal(t, inquiry.KindConfirm, rec.Kind)
				require.Equal(t, "permission:toolu_01ABC", rec.ID)
				require.Equal(t, inquiry.ReasonOnNo, rec.Reason, "a deny carries the person's reason")
				require.NotNil(t, rec.ExpiresAt)

				_, err = b.api(b.answerer).Answer(context.Background(), key, tc.reply)
				require.NoError(t, err)
				require.Equal(t, recordedText(t, tc.result), textOf(t, done))
			})
		})
	}
}

// TestPermissionPromptTimeout: nobody decides before the question expires: the call is denied
// with a sentence saying so.
func TestPermissionPromptTimeout(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
		done := permissionCall(t, cs)
		key := b.pendingKey(t)
		rec, err := b.svc.Get(context.Background(), key)
		require.NoError(t, err)
		_, err = b.svc.Expire(context.Background(), rec)
		require.NoError(t, err)
		require.JSONEq(t, `{"behavior":"deny","message":"Nobody decided whether to allow Bash within 9m0s: the call is denied."}`, textOf(t, done))
	})
}

// TestPermissionPromptNobodyAsked: on a server that answers by default, nobody is asked and the
// call is denied at once, saying how to have a person decide; an input too long to show whole
// is denied without asking.
func TestPermissionPromptNobodyAskedOrTooLong(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, connect func(*bundle, string) *mcp.ClientSession) {
		b := setup(t, serverPolicy(inquiry.PolicyDefault))
		cs := connect(b, b.asker)
		require.JSONEq(t, `{"behavior":"deny","message":"Nobody was asked whether to allow Bash (the server's policy answers every question by its default, here no): the call is denied; set BOT_MCP_POLICY=ask for a person to decide."}`, textOf(t, permissionCall(t, cs)))

		long := strings.Repeat("x", inquiry.MaxProposalBytes)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcptools.PermissionPrompt, Arguments: map[string]any{
			"tool_name": "Write", "input": map[string]any{"file_path": "a.txt", "content": long},
		}})
		require.NoError(t, err)
		require.Len(t, res.Content, 1)
		require.JSONEq(t, `{"behavior":"deny","message":"The input of Write is too long to show a person whole (262178 bytes, at most 262144): the call is denied; split it into smaller calls."}`, res.Content[0].(*mcp.TextContent).Text)
		require.Len(t, b.all(t), 1, "only the first call asked")
	})
}

// TestPermissionPromptLongInput: an input far past what a question's context holds is asked,
// shown whole as the proposal, and an allow hands it back as it came.
func TestPermissionPromptLongInput(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
		content := strings.Repeat("line of the file\n", 10000) // 170,000 bytes
		done := make(chan *mcp.CallToolResult, 1)
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcptools.PermissionPrompt, Arguments: map[string]any{
				"tool_name": "Write", "input": map[string]any{"file_path": "a.txt", "content": content},
			}})
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		key := b.pendingKey(t)
		rec, err := b.api(b.admin).Get(context.Background(), key, 0)
		require.NoError(t, err)
		require.NotNil(t, rec.Proposal)
		var shown map[string]string
		require.NoError(t, json.Unmarshal([]byte(rec.Proposal.Content), &shown))
		require.Equal(t, content, shown["content"], "the input is shown whole")

		_, err = b.api(b.answerer).Answer(context.Background(), key, client.Reply{Value: inquiry.One("yes")})
		require.NoError(t, err)
		var out struct {
			Behavior     string            `json:"behavior"`
			UpdatedInput map[string]string `json:"updatedInput"`
		}
		require.NoError(t, json.Unmarshal([]byte(textOf(t, done)), &out))
		require.Equal(t, "allow", out.Behavior)
		require.Equal(t, map[string]string{"file_path": "a.txt", "content": content}, out.UpdatedInput)
	})
}
