package main

// bot mcp: the MCP tools ask_human, get_answer and permission_prompt on stdio, reaching the gateway at BOT_URL
// through the client package with the token of BOT_TOKEN or the token file.

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

const mcpHelp = `usage: bot mcp

Serves the MCP tools ask_human, get_answer and permission_prompt on stdin and stdout, for an
agent harness to start as a subprocess. The tools reach the gateway at BOT_URL (default http://127.0.0.1:8080) with the
token of BOT_TOKEN (else the token file bot serve wrote); the token needs the ask scope.

BOT_MCP_POLICY (ask, default or refuse), when set, is sent as the policy of every question.
Unset, the server's BOT_DEFAULT_POLICY decides — and with that unset too, every question is
answered at once by its default, nobody asked. Set BOT_MCP_POLICY=ask for this harness's
questions to be put to people.

In a harness's MCP configuration:

  {"mcpServers": {"inquiry": {"command": "bot", "args": ["mcp"],
    "env": {"BOT_URL": "http://127.0.0.1:8080", "BOT_TOKEN": "bot_..."}}}}

ask_human with answer_here asks the harness's own user in a form (MCP elicitation); bot mcp
forwards such a call to BOT_URL/mcp, which records the answer.

permission_prompt is for Claude Code: claude -p --permission-prompt-tool
mcp__inquiry__permission_prompt puts each tool call it would ask about to a person.

Stdout carries only the protocol; log lines go to stderr.
`

func runMCP(ctx context.Context, e *env) error {
	fs := commandFlags(e, "mcp", mcpHelp)
	if done, err := parseCommand(fs, e.args, e.stdout); done {
		return err
	}
	// Whatever runs under this server's harness is an agent's: mark the environment that what
	// this process starts inherits, so that bot answer run from there refuses. (bot hook sets it
	// the same way at its start.)
	if err := markAgentShell(e); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return exitf(exitUsage, "bot mcp takes no arguments: configure it with BOT_URL, BOT_TOKEN and BOT_MCP_POLICY")
	}
	policy, err := mcpPolicy(e, exitUsage)
	if err != nil {
		return err
	}
	c, err := newClient(e)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	if f, ok := e.stderr.(*os.File); ok {
		log = newLogger(e.getenv, f) // as bot serve logs: BOT_LOG_FORMAT, else json unless a terminal
	}
	// answer_here (the harness's own user answers in a form) is recorded by the server's /mcp,
	// in process: this server forwards it there with the same token.
	token, err := readToken(e.getenv)
	if err != nil {
		return exitf(exitUsage, "%s", err.Error())
	}
	base := strings.TrimRight(cmp.Or(strings.TrimSpace(e.getenv("BOT_URL")), defaultBotURL), "/")
	// ask_human's task ids are signed with this process's token (it is a secret, and it is the
	// asker): another token's bot mcp cannot read them.
	srv := mcptools.NewServer(c, mcptools.Options{Policy: policy, Version: version, Logger: log,
		HereEndpoint: base + "/mcp", HereToken: token, TaskSecret: []byte(token)})
	// TaskParams: a 2025-11-25 client's task param reaches ask_human (the SDK would drop it).
	err = srv.Run(ctx, mcptools.TaskParams(&mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}))
	switch {
	case err == nil, ctx.Err() != nil, errors.Is(err, io.EOF):
		// The harness closed stdin, or the process was told to stop: a normal end.
		return nil
	}
	return err
}

// nopWriteCloser leaves stdout open when the session closes.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpPolicy is BOT_MCP_POLICY, read by bot mcp and bot hook alike: "" (unset) lets the server
// decide. A value that is no policy is refused with the exit code the caller gives.
func mcpPolicy(e *env, code int) (inquiry.Policy, error) {
	raw := strings.TrimSpace(e.getenv("BOT_MCP_POLICY"))
	if raw == "" {
		return "", nil
	}
	p, err := inquiry.ParsePolicy(raw)
	if err != nil {
		return "", exitf(code, "BOT_MCP_POLICY=%q is not one of ask, default or refuse: set one of them, or unset it to let the server decide", raw)
	}
	return p, nil
}
