package main

// An agent's shell never answers as the person: the commands that record an answer refuse in
// an environment that an agent harness marks as its tool shell. An agent asks (bot ask, bot
// mcp) and reads (bot questions); the answer is the person's, given where the agent cannot
// type it.

import (
	"fmt"
	"os"
)

// agentShellVar is the bot's own marker: bot mcp sets it for everything it starts, and a person
// may set it in any environment an agent works in that no harness marks.
const agentShellVar = "BOT_AGENT_SHELL"

// agentMarker is an environment variable that an agent harness sets in the shell it runs its
// tools in.
type agentMarker struct {
	name    string // the variable
	harness string // who sets it, as the refusal names it
}

// agentMarkers is the one list of markers, first match named. A marker counts when set to
// anything but empty: the lists they come from (Vercel's detect-agent, aws-cdk-cli's agent
// detection) read them so, and a harness that writes "true" where it wrote "1" must not open
// the door. Cursor's CURSOR_TRACE_ID is not here: Cursor's editor sets it in a person's own
// terminal too.
var agentMarkers = []agentMarker{
	{"CLAUDECODE", "Claude Code"}, // CLAUDECODE=1
	{"AI_AGENT", "an agent harness, by the generic marker Vercel proposed, which Claude Code sets too"},
	{"CODEX_SANDBOX", "OpenAI Codex CLI"},                  // its sandbox's kind, e.g. seatbelt
	{"CODEX_SANDBOX_NETWORK_DISABLED", "OpenAI Codex CLI"}, // =1 when the sandbox has no network
	{"CODEX_THREAD_ID", "OpenAI Codex CLI"},                // the session's id
	{"GEMINI_CLI", "Gemini CLI"},                           // GEMINI_CLI=1
	{"CURSOR_AGENT", "Cursor's agent CLI"},
	{agentShellVar, "bot mcp, which sets it for what it starts, or whoever set it"},
}

// agentShell reports the first marker of an agent harness's tool shell that getenv finds.
func agentShell(getenv func(string) string) (agentMarker, bool) {
	for _, m := range agentMarkers {
		if getenv(m.name) != "" {
			return m, true
		}
	}
	return agentMarker{}, false
}

// refuseInAgentShell is the refusal of a command that would record an answer (what: "bot
// answer"), with instead, what the command may still do, after it; or nil outside an agent's
// shell. The sentence names the marker, never its value.
func refuseInAgentShell(e *env, what, instead string) error {
	m, ok := agentShell(e.getenv)
	if !ok {
		return nil
	}
	return exitf(exitUsage, "%s is set, the mark of an agent's tool shell (%s): %s records no answer from there, "+
		"since the answer must come from the person — in Slack, on the answer page, or from their own terminal outside the agent; "+
		"nothing was sent%s", m.name, m.harness, what, instead)
}

// markAgentShell marks the process's environment as an agent's, for everything it starts.
func markAgentShell(e *env) error {
	setenv := e.setenv
	if setenv == nil {
		setenv = os.Setenv
	}
	if err := setenv(agentShellVar, "1"); err != nil {
		return fmt.Errorf("cannot set %s=1 for what this process starts: %w", agentShellVar, err)
	}
	return nil
}
