// Command bot is the inquiry bot: the service (serve), its operator commands (token, migrate,
// render) and the command-line client that asks and answers (ask, questions, answer, runs, mcp,
// hook).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Exit statuses of the client commands (the README: bot ask's exit status is the answer).
const (
	exitOK          = 0 // answered (for a Confirm: yes)
	exitNo          = 1 // a Confirm answered no
	exitUsage       = 2 // usage or any other error
	exitDeclined    = 3 // declined, or expired without a default
	exitUnavailable = 4 // nobody can be asked
)

// exitError carries an exit status and the sentence to print.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func exitf(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

// env is what a command runs with: its arguments, streams and environment, so tests can run
// commands in-process as well as through the built binary.
type env struct {
	args   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// setenv changes the process's environment, which what it starts inherits (os.Setenv; nil:
	// os.Setenv too).
	setenv func(key, value string) error
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env) error
}

func commands() []command {
	return []command{
		{"serve", "run the service", runServe},
		{"ask", "ask a question and wait for the answer", runAsk},
		{"questions", "list the pending questions you may answer", runQuestions},
		{"answer", "answer a question by number, option or own words", runAnswer},
		{"extend", "give a pending question more time, as its asker allows", runExtend},
		{"runs", "list runs and their status", runRuns},
		{"log", "print the record of an inquiry: every event, oldest first", runLog},
		{"token", "create, list or revoke API tokens (create|list|revoke)", runToken},
		{"migrate", "apply the database migrations", runMigrate},
		{"mcp", "serve the ask_human, get_answer and permission_prompt tools over MCP on stdio", runMCP},
		{"hook", "answer a Claude Code hook (PermissionRequest, Elicitation) through a person", runHook},
		{"render", "print the Block Kit JSON of an inquiry file", runRender},
		{"version", "print the version", runVersion},
	}
}

func runVersion(_ context.Context, e *env) error {
	fs := commandFlags(e, "version", "usage: bot version\n\nPrints the version of bot.\n")
	if done, err := parseCommand(fs, e.args, e.stdout); done {
		return err
	}
	fmt.Fprintln(e.stdout, "bot", version)
	return nil
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: bot <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'bot <command> -h' for a command's flags. Configuration comes from the environment (README).")
}

// run runs one command line and returns the process exit status.
func run(ctx context.Context, e *env) int {
	if len(e.args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	switch e.args[0] {
	case "-h", "-help", "--help", "help": // asked for: stdout, status 0
		usage(e.stdout)
		return exitOK
	}
	name := e.args[0]
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		sub := *e
		sub.args = e.args[1:]
		err := c.run(ctx, &sub)
		if err == nil || errors.Is(err, errHelpShown) {
			return exitOK
		}
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.msg != "" {
				fmt.Fprintln(e.stderr, "bot "+name+": "+ee.msg)
			}
			return ee.code
		}
		fmt.Fprintln(e.stderr, "bot "+name+": "+err.Error())
		return exitUsage
	}
	fmt.Fprintf(e.stderr, "bot: unknown command %q: run 'bot help' for the list\n", name)
	return exitUsage
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &env{args: os.Args[1:], stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, setenv: os.Setenv})
	stop()
	os.Exit(code)
}
