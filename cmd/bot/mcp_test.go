package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/mcptools"
)

// TestMCPOverStdio runs the real `bot mcp` as an agent harness does — a subprocess spoken to
// over stdin and stdout by the SDK's client — against the real serve.
func TestMCPOverStdio(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, cmd, stderr := b.mcpOverStdio(ctx, t, mcp.NewClient(&mcp.Implementation{Name: "test-harness", Version: "1"}, nil), nil)
	defer func() {
		if t.Failed() {
			t.Logf("bot mcp stderr:\n%s", stderr.String())
		}
	}()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "ask_human,get_answer,permission_prompt" {
		t.Fatalf("tools/list: %v", names)
	}
	if got := cs.InitializeResult().ServerInfo; got.Name != "inquiry-bot" || got.Version != version {
		t.Errorf("server info %+v", got)
	}

	callTool := func(name string, args map[string]any) mcptools.Result {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var out mcptools.Result
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, raw, err)
		}
		if res.IsError {
			t.Fatalf("%s: tool error: %s", name, out.Message)
		}
		return out
	}
	asked := callTool(mcptools.AskHuman, map[string]any{"question": "Deploy to production?", "kind": "confirm", "default": "no", "wait_seconds": 0})
	if asked.Status != mcptools.StatusPending || !strings.HasPrefix(asked.Key, "inq_") {
		t.Fatalf("ask_human: %+v", asked)
	}
	// ask_human sends no id: the server derives it. bot ask derives its own by the same rule,
	// with its own prefix, and adds a fresh part.
	r := b.ask(t, "--confirm", "--question", "Deploy to production?", "--default", "no", "--timeout", "0", "--json").wait(t)
	var cli struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &cli); err != nil || r.code != exitDeclined {
		t.Fatalf("bot ask --timeout 0 --json: %v\n%s", err, r)
	}
	if !strings.HasPrefix(strings.TrimPrefix(cli.ID, "cli:"), strings.TrimPrefix(asked.ID, "auto:")+":") || !strings.HasPrefix(asked.ID, "auto:") {
		t.Errorf("derived ids differ beyond their prefix: bot ask %q, ask_human %q", cli.ID, asked.ID)
	}

	// The person answers from their shell.
	if r := b.answer(t, asked.Key, "yes"); r.code != 0 {
		t.Fatalf("bot answer:\n%s", r)
	}
	got := callTool(mcptools.GetAnswer, map[string]any{"key": asked.Key})
	if got.Status != mcptools.StatusAnswered || got.Answer != "yes" || got.AnsweredBy != "admin" || got.Message != "Yes — answered by admin." {
		t.Fatalf("get_answer: %+v", got)
	}

	// The harness closes stdin: bot mcp ends, and well.
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("bot mcp did not exit cleanly: %v", cmd.ProcessState)
	}
	for _, secret := range []string{b.asker, b.admin} {
		if strings.Contains(stderr.String(), secret) {
			t.Errorf("bot mcp logged a token:\n%s", stderr.String())
		}
	}
}

// TestMCPConfiguration checks that bot mcp refuses to start on a wrong setting with one
// sentence naming it, before it speaks any protocol.
func TestMCPConfiguration(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runMCPWith := func(vars map[string]string, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		vars["HOME"] = dir
		vars["XDG_CONFIG_HOME"] = filepath.Join(dir, "cfg")
		code := run(context.Background(), &env{
			args: append([]string{"mcp"}, args...), stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
			getenv: func(k string) string { return vars[k] },
			setenv: func(k, v string) error { return nil }, // not the test process's own environment
		})
		return code, stdout.String(), stderr.String()
	}

	code, stdout, stderr := runMCPWith(map[string]string{"BOT_TOKEN": "bot_x_y", "BOT_MCP_POLICY": "sometimes"})
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, `BOT_MCP_POLICY="sometimes" is not one of ask, default or refuse`) {
		t.Errorf("a wrong BOT_MCP_POLICY: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, stderr = runMCPWith(map[string]string{})
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "no token: set BOT_TOKEN") {
		t.Errorf("no token: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, stderr = runMCPWith(map[string]string{}, "-h")
	if code != exitOK || stderr != "" || !strings.Contains(stdout, `"args": ["mcp"]`) { // help asked for: stdout
		t.Errorf("bot mcp -h: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	// Stdin already closed: the session ends at once, cleanly, with nothing on stdout.
	code, stdout, stderr = runMCPWith(map[string]string{"BOT_TOKEN": "bot_x_y", "BOT_MCP_POLICY": "ask"})
	if code != exitOK || stdout != "" {
		t.Errorf("bot mcp on a closed stdin: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}

// mcpOverStdio starts the real `bot mcp` as the asker, as a harness does, and connects cl to it
// over stdin and stdout with opts (nil: the defaults). The caller closes the session, which ends
// cmd; stderr is the process's, for a failure's report.
func (b *cliBundle) mcpOverStdio(ctx context.Context, t *testing.T, cl *mcp.Client, opts *mcp.ClientSessionOptions) (cs *mcp.ClientSession, cmd *exec.Cmd, stderr *testkit.SyncBuffer) {
	t.Helper()
	stderr = &testkit.SyncBuffer{}
	cmd = exec.Command(botBin, "mcp")
	cmd.Env = b.env("BOT_TOKEN=" + b.asker)
	cmd.Stderr = stderr
	cs, err := cl.Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
	if err != nil {
		t.Fatalf("connect to bot mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	return cs, cmd, stderr
}
