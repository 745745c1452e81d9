package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// hookRun is `bot hook claude-code` running in the background with a hook input on stdin.
type hookRun struct {
	done chan result
}

// startHook runs the real binary as Claude Code runs a command hook: the recorded input file
// of testdata/hook on stdin, against the real serve, with the asker's token.
func (b *cliBundle) startHook(t *testing.T, input string, args ...string) hookRun {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "hook", input))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(botBin, append([]string{"hook", "claude-code"}, args...)...)
	cmd.Env = b.env("BOT_TOKEN=" + b.asker)
	cmd.Stdin = bytes.NewReader(raw)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := hookRun{done: make(chan result, 1)}
	go func() {
		err := cmd.Wait()
		r := result{stdout: stdout.String(), stderr: stderr.String()}
		var xe *exec.ExitError
		if errors.As(err, &xe) {
			r.code = xe.ExitCode()
		} else if err != nil {
			r.code, r.stderr = -1, r.stderr+err.Error()
		}
		h.done <- r
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return h
}

func (h hookRun) wait(t *testing.T) result {
	t.Helper()
	select {
	case r := <-h.done:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("bot hook claude-code did not end within 60s")
		return result{}
	}
}

// pending waits for the one pending question and returns it.
func (b *cliBundle) pending(t *testing.T) *inquiry.Record {
	t.Helper()
	admin := client.New(b.url, b.admin)
	var rec *inquiry.Record
	eventually(t, "the hook's question", func() bool {
		list, err := admin.List(context.Background(), client.ListOptions{Status: inquiry.StatusPending})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Inquiries) > 1 {
			t.Fatalf("%d questions pending, want one", len(list.Inquiries))
		}
		if len(list.Inquiries) == 1 {
			rec = list.Inquiries[0]
		}
		return rec != nil
	})
	return rec
}

// golden checks the hook's output against testdata/hook/name byte for byte: the files CI
// type-checks against the Claude Agent SDK's types.
func golden(t *testing.T, r result, name string) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("bot hook claude-code:\n%s", r)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "hook", name))
	if err != nil {
		t.Fatal(err)
	}
	if r.stdout != string(want) {
		t.Fatalf("stdout differs from testdata/hook/%s\n got: %s\nwant: %s", name, r.stdout, want)
	}
}

// TestHookPermissionRequest: Claude Code's recorded PermissionRequest, put to a person as a
// Confirm with the tool's input whole as an editable JSON proposal; a yes allows, a yes with an
// edit allows the edit (updatedInput), a no denies with the person's reason, and nobody deciding
// within --timeout denies with a sentence.
func TestHookPermissionRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := client.New(b.url, b.admin)

	h := b.startHook(t, "permission-request.input.json")
	rec := b.pending(t)
	if rec.Question != "Allow Claude Code to use Bash?" || rec.Kind != inquiry.KindConfirm {
		t.Fatalf("question %q (%s)", rec.Question, rec.Kind)
	}
	input := "{\n  \"command\": \"rm -rf node_modules\",\n  \"description\": \"Remove node_modules directory\"\n}"
	if want := (&inquiry.Proposal{Format: inquiry.FormatJSON, Content: input, Title: "Bash input", Editable: true}); rec.Proposal == nil || *rec.Proposal != *want {
		t.Fatalf("proposal %+v, want %+v", rec.Proposal, want)
	}
	if _, err := admin.Answer(context.Background(), rec.Key, client.Reply{Value: inquiry.One("yes")}); err != nil {
		t.Fatal(err)
	}
	golden(t, h.wait(t), "permission-allow.output.json")

	// An edit of the input, allowed: the edit is the call's updatedInput; an edit that is no
	// object is denied with a sentence, never run as something else.
	h = b.startHook(t, "permission-request.input.json")
	rec = b.pending(t)
	edited := "{\n  \"command\": \"rm -rf node_modules/.cache\",\n  \"description\": \"Remove node_modules directory\"\n}\n"
	if _, err := admin.Answer(context.Background(), rec.Key, client.Reply{Value: inquiry.One("yes"), Content: edited}); err != nil {
		t.Fatal(err)
	}
	golden(t, h.wait(t), "permission-edited.output.json")

	h = b.startHook(t, "permission-request.input.json")
	rec = b.pending(t)
	if _, err := admin.Answer(context.Background(), rec.Key, client.Reply{Value: inquiry.One("yes"), Content: `["rm", "-rf", "/"]`}); err != nil {
		t.Fatal(err)
	}
	r := h.wait(t)
	if want := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"admin allowed Bash with an edited input that is not a JSON object (a tool's input is an object in braces): the call is denied; ask again and edit the input as one JSON object."}}}` + "\n"; r.code != 0 || r.stdout != want {
		t.Fatalf("an edit to an array:\n%s\nwant stdout %s", r, want)
	}

	h = b.startHook(t, "permission-request.input.json")
	rec = b.pending(t)
	if _, err := admin.Answer(context.Background(), rec.Key, client.Reply{Value: inquiry.One("no"), Text: "not in the shared checkout"}); err != nil {
		t.Fatal(err)
	}
	golden(t, h.wait(t), "permission-deny.output.json")

	// The server's sweep (every second here) expires the question: its default, no, denies.
	golden(t, b.startHook(t, "permission-request.input.json", "--timeout", "2s").wait(t), "permission-timeout.output.json")
}

// TestHookElicitation: MCP servers' elicitations handed to the hook: a form of one field is a
// Text, a Confirm or a Choice; URL mode sends the link; a decline declines; nobody answering
// cancels; a form of several fields is a non-blocking error that leaves it to Claude Code.
func TestHookElicitation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := client.New(b.url, b.admin)
	for _, tc := range []struct {
		input, output string
		kind          inquiry.Kind
		context       string
		reply         client.Reply
	}{
		{"elicitation-form.input.json", "elicitation-form.output.json", inquiry.KindText,
			"my-mcp-server (an MCP server of Claude Code's) asks for username.", client.Reply{Text: "alice"}},
		{"elicitation-url.input.json", "elicitation-url.output.json", inquiry.KindConfirm,
			"my-mcp-server (an MCP server of Claude Code's) asks you to open this page and do what it asks, then answer yes:\nhttps://auth.example.com/login",
			client.Reply{Value: inquiry.One("yes")}},
		{"elicitation-boolean.input.json", "elicitation-boolean.output.json", inquiry.KindConfirm,
			"my-mcp-server (an MCP server of Claude Code's) asks for deploy now. The release is tagged v2.4.0.", client.Reply{Value: inquiry.One("no")}},
		{"elicitation-enum.input.json", "elicitation-enum.output.json", inquiry.KindChoice,
			"my-mcp-server (an MCP server of Claude Code's) asks for environment.", client.Reply{Value: inquiry.One("Production")}},
		{"elicitation-form.input.json", "elicitation-decline.output.json", inquiry.KindText,
			"my-mcp-server (an MCP server of Claude Code's) asks for username.", client.Reply{Declined: true}},
	} {
		h := b.startHook(t, tc.input)
		rec := b.pending(t)
		if rec.Kind != tc.kind || rec.Context != tc.context {
			t.Fatalf("%s: asked a %s with context %q, want a %s with %q", tc.input, rec.Kind, rec.Context, tc.kind, tc.context)
		}
		if _, err := admin.Answer(context.Background(), rec.Key, tc.reply); err != nil {
			t.Fatalf("%s: %v", tc.input, err)
		}
		golden(t, h.wait(t), tc.output)
	}

	golden(t, b.startHook(t, "elicitation-form.input.json", "--timeout", "2s").wait(t), "elicitation-timeout.output.json")

	r := b.startHook(t, "elicitation-two-fields.input.json").wait(t)
	if r.code != hookCannotAsk || r.stdout != "" ||
		r.stderr != "bot hook: the Elicitation asks for 2 fields, and the bot puts a form of one field only (a choice, a yes or no, or words): Claude Code asks its own user\n" {
		t.Fatalf("a form of two fields:\n%s", r)
	}
}

// TestHookCannotAsk: whatever keeps the question from being put exits 1 (a non-blocking error
// for Claude Code, never 2, which would deny unasked) with one sentence on stderr.
func TestHookCannotAsk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input, err := os.ReadFile(filepath.Join("testdata", "hook", "permission-request.input.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, stdin string
		env         []string
		stderr      string
	}{
		{"not JSON", "hello", []string{"BOT_TOKEN=bot_x_y"}, "bot hook: the hook's input on stdin is not a JSON object"},
		{"another event", `{"hook_event_name":"PreToolUse"}`, []string{"BOT_TOKEN=bot_x_y"},
			`bot hook: the hook event "PreToolUse" is not one bot hook claude-code answers: configure it for PermissionRequest and Elicitation only`},
		{"no server", string(input), []string{"BOT_TOKEN=bot_x_y", "BOT_URL=http://127.0.0.1:1"}, "bot hook: the question could not be put, so Claude Code asks its own user: "},
	} {
		cmd := exec.Command(botBin, "hook", "claude-code")
		cmd.Dir = dir
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "cfg")}, tc.env...)
		cmd.Stdin = strings.NewReader(tc.stdin)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var xe *exec.ExitError
		if !errors.As(err, &xe) || xe.ExitCode() != hookCannotAsk {
			t.Fatalf("%s: %v, want exit status %d\nstderr: %s", tc.name, err, hookCannotAsk, stderr.String())
		}
		if stdout.String() != "" || !strings.HasPrefix(stderr.String(), tc.stderr) || strings.Count(stderr.String(), "\n") != 1 {
			t.Fatalf("%s: stdout %q, stderr %q", tc.name, stdout.String(), stderr.String())
		}
	}
}
