// Package mcptools offers the inquiry bot to any agent harness as MCP tools: ask_human
// puts one question to a person and waits a bounded time for the answer, get_answer picks the
// answer up later by the question's key. permission_prompt is Claude Code's
// --permission-prompt-tool: a person allows or denies a tool call shown whole (AskPermission,
// which `bot hook claude-code` asks through too).
//
// It owns the tools' schemas and descriptions (what a model reads to decide when a question is
// genuinely a person's to answer) and the one reading of an outcome into words a model acts on: answered, assumed (nobody answered,
// the default was taken), declined, pending (come back with get_answer), and, as a tool error,
// unavailable (nobody can be asked: do not retry).
//
// With answer_here, ask_human asks the MCP client's own user instead (here.go): as a form where
// the client declares form elicitation, by the question's answer page where it declares URL mode
// only; one handler serves 2026-07-28's input-required results and, through the SDK, older
// clients' elicitation/create. `bot mcp` forwards such a call to the server's /mcp (forward.go),
// where the answer is recorded via mcp.
//
// A client that declares MCP's tasks extension (io.modelcontextprotocol/tasks) in a tools/call
// gets ask_human back as a task at once and polls tasks/get until it completes with the result
// the blocking call would have returned (tasks.go); the inquiry is the task, nothing more is
// stored, and the task's id is signed for the caller's namespace.
//
// The tools reach the bot through a Backend: the HTTP client of package client for `bot mcp` on
// stdio (NewServer with a *client.Client), or the ask service in-process for the server's own
// /mcp endpoint over streamable HTTP (HTTPHandler, behind the API's bearer tokens).
//
// # Policy
//
// The tools send no config.policy unless Options.Policy says so (`bot mcp` reads it from
// BOT_MCP_POLICY): with no configuration the policy is default, and an agent in a headless run
// is exactly the asker that rule protects. On a server whose BOT_DEFAULT_POLICY is unset, ask_human
// therefore answers at once with the question's default, labelled as assumed by policy; operators
// who want agents' questions put to people set BOT_DEFAULT_POLICY=ask on the server, or
// BOT_MCP_POLICY=ask for one harness.
package mcptools
