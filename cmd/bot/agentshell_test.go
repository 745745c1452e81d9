package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// TestAgentShellMarkers reads each harness's marker, as the harness sets it, and a few that are
// not markers: a marker counts whatever its value, as the sources that list them read it, so a
// harness that writes "true" for "1" still marks its shell.
func TestAgentShellMarkers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env     []string
		name    string // the marker found, "" for none
		harness string
	}{
		{nil, "", ""},
		{[]string{"CLAUDECODE", "1"}, "CLAUDECODE", "Claude Code"},
		{[]string{"CLAUDECODE", "true"}, "CLAUDECODE", "Claude Code"},
		{[]string{"AI_AGENT", "claude-code"}, "AI_AGENT", "an agent harness"},
		{[]string{"CODEX_SANDBOX", "seatbelt"}, "CODEX_SANDBOX", "OpenAI Codex CLI"},
		{[]string{"CODEX_SANDBOX_NETWORK_DISABLED", "1"}, "CODEX_SANDBOX_NETWORK_DISABLED", "OpenAI Codex CLI"},
		{[]string{"CODEX_THREAD_ID", "0199a213-81c0-7800-8aa1-bbab2a035a53"}, "CODEX_THREAD_ID", "OpenAI Codex CLI"},
		{[]string{"GEMINI_CLI", "1"}, "GEMINI_CLI", "Gemini CLI"},
		{[]string{"CURSOR_AGENT", "1"}, "CURSOR_AGENT", "Cursor's agent CLI"},
		{[]string{"BOT_AGENT_SHELL", "1"}, "BOT_AGENT_SHELL", "bot mcp"},
		// Cursor's editor sets CURSOR_TRACE_ID in a person's own terminal too: not a marker.
		{[]string{"CURSOR_TRACE_ID", "3f1c"}, "", ""},
		{[]string{"CLAUDECODE", ""}, "", ""}, // set empty is unset
		{[]string{"TERM_PROGRAM", "vscode", "CI", "true"}, "", ""},
		// Two markers: the first of the table is named.
		{[]string{"AI_AGENT", "claude-code", "CLAUDECODE", "1"}, "CLAUDECODE", "Claude Code"},
	} {
		m, ok := agentShell(envOf(tc.env...))
		if ok != (tc.name != "") || m.name != tc.name || !strings.Contains(m.harness, tc.harness) {
			t.Errorf("agentShell(%q) = %+v, %v; want %q (%s)", tc.env, m, ok, tc.name, tc.harness)
		}
	}
}

// agentMarkerEnvs are the environments of the harnesses' tool shells, one marker each, as the
// harnesses set them.
var agentMarkerEnvs = [][2]string{
	{"CLAUDECODE", "1"},
	{"AI_AGENT", "claude-code"},
	{"CODEX_SANDBOX", "seatbelt"},
	{"CODEX_SANDBOX_NETWORK_DISABLED", "1"},
	{"CODEX_THREAD_ID", "0199a213-81c0-7800-8aa1-bbab2a035a53"},
	{"GEMINI_CLI", "1"},
	{"CURSOR_AGENT", "1"},
	{"BOT_AGENT_SHELL", "1"},
}

// TestAnswerRefusedInAnAgentShell runs the real binary against the real serve with each
// harness's marker: bot answer and bot questions -i refuse with one sentence and status 2, and
// nothing is recorded (the question stays pending, read through the API); bot questions still
// lists, and bot ask still asks. Without a marker (Cursor's editor's CURSOR_TRACE_ID is none)
// bot answer answers as before.
func TestAnswerRefusedInAnAgentShell(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	admin := client.New(b.url, b.admin)
	// The person's token file is the admin's: what refuses is the shell, not the token.
	in := func(marker [2]string, args ...string) result {
		t.Helper()
		r := runIn(t, b.dir, b.env(marker[0]+"="+marker[1]), args...)
		if strings.Contains(r.stdout+r.stderr, b.admin) {
			t.Errorf("bot %s printed the token:\n%s", strings.Join(args, " "), r)
		}
		return r
	}

	// The agent asks from its shell: that is what it is for.
	r := runIn(t, b.dir, b.env("BOT_TOKEN="+b.asker, "CLAUDECODE=1"), "ask", "--confirm", "--question", "Deploy to production?", "--timeout", "0")
	if r.code != exitDeclined || !strings.Contains(r.stderr, "stays pending") {
		t.Fatalf("bot ask in an agent shell:\n%s", r)
	}
	qs := b.questions(t)
	if len(qs) != 1 {
		t.Fatalf("pending after bot ask: %+v", qs)
	}
	key := qs[0].Key

	for _, m := range agentMarkerEnvs {
		for _, args := range [][]string{
			{"answer", "1", "yes"},
			{"answer", key, "--decline", "not", "mine"},
			{"questions", "-i"},
		} {
			r := in(m, args...)
			if r.code != exitUsage || r.stdout != "" || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 ||
				!strings.Contains(r.stderr, m[0]+" is set") || !strings.Contains(r.stderr, "must come from the person") ||
				!strings.Contains(r.stderr, "outside the agent") {
				t.Errorf("bot %s with %s=%s: want one sentence naming the marker, status 2:\n%s", strings.Join(args, " "), m[0], m[1], r)
			}
		}
		// Reading stays allowed.
		if r := in(m, "questions"); r.code != 0 || !strings.HasPrefix(r.stdout, "1. │ Deploy to production?\n") {
			t.Errorf("bot questions with %s=%s: want the list:\n%s", m[0], m[1], r)
		}
		if rec, err := admin.Get(ctx, key, 0); err != nil || rec.Status != inquiry.StatusPending || rec.Answer != nil || len(rec.Votes) != 0 {
			t.Fatalf("after bot answer with %s=%s the question is %+v, %v; want it pending, nothing recorded", m[0], m[1], rec, err)
		}
	}

	// A person's own terminal, in Cursor's editor or anywhere else: answered as before.
	r = in([2]string{"CURSOR_TRACE_ID", "3f1c"}, "answer", "1", "yes")
	if r.code != 0 || !strings.Contains(r.stdout, "Yes by admin") {
		t.Fatalf("bot answer without a marker:\n%s", r)
	}
	if rec, err := admin.Get(ctx, key, 0); err != nil || rec.Status != inquiry.StatusAnswered || rec.Answer.AnsweredBy != "admin" {
		t.Fatalf("after bot answer without a marker: %+v, %v", rec, err)
	}
}

// TestMCPMarksItsShell: bot mcp sets BOT_AGENT_SHELL=1 in its own environment before it serves,
// so that a command anything under it starts (a harness's tool, a shell) is an agent's.
func TestMCPMarksItsShell(t *testing.T) {
	t.Parallel()
	set := map[string]string{}
	var stdout, stderr bytes.Buffer
	vars := map[string]string{"BOT_TOKEN": "bot_x_y", "HOME": t.TempDir()}
	code := run(context.Background(), &env{
		args: []string{"mcp"}, stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(k string) string { return vars[k] },
		setenv: func(k, v string) error { set[k] = v; return nil },
	})
	if code != exitOK || set["BOT_AGENT_SHELL"] != "1" {
		t.Errorf("bot mcp: exit %d, set %v; want BOT_AGENT_SHELL=1\nstderr: %s", code, set, stderr.String())
	}
	if _, ok := agentShell(func(k string) string { return set[k] }); !ok {
		t.Error("what bot mcp sets is not read as an agent's shell")
	}
}
