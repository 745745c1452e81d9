package main

// The command-line client: bot ask, bot questions, bot answer and bot runs talk to the gateway
// at BOT_URL through the client package, with the token of BOT_TOKEN or the token file.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// defaultBotURL is where the CLI finds the gateway when BOT_URL is unset.
const defaultBotURL = "http://127.0.0.1:8080"

// maxListed bounds how many questions bot questions and bot answer read.
const maxListed = 1000

// newClient builds the API client from BOT_URL and the token.
func newClient(e *env) (*client.Client, error) {
	token, err := readToken(e.getenv)
	if err != nil {
		return nil, exitf(exitUsage, "%s", err.Error())
	}
	base := strings.TrimSpace(e.getenv("BOT_URL"))
	if base == "" {
		base = defaultBotURL
	}
	return client.New(base, token, client.WithUserAgent("bot-cli/"+version)), nil
}

// failed turns an API or transport error into the one sentence to print and an exit status:
// unavailable (fatal) is exitUnavailable and a refusal by policy exitDeclined when asking;
// everything else is exitUsage.
func failed(ctx context.Context, err error, asking bool) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return exitf(exitUsage, "interrupted")
	}
	msg := errMessage(err)
	switch {
	case asking && inquiry.Fatal(err):
		return exitf(exitUnavailable, "%s", msg)
	case asking && inquiry.ErrorCode(err) == inquiry.CodeDeclined:
		return exitf(exitDeclined, "%s", msg)
	}
	return exitf(exitUsage, "%s", msg)
}

// errMessage is the sentence for err: the API's message for an *inquiry.Error (without any
// cause behind it), else the error's own sentence (a gateway that cannot be reached).
func errMessage(err error) string {
	// A sentence of the server's can quote an asker's label or a person's words: printed, never
	// obeyed.
	var ie *inquiry.Error
	if errors.As(err, &ie) {
		return inquiry.Printed(inquiry.ErrorMessage(err))
	}
	return inquiry.Printed(err.Error())
}

// commandFlags is the flag set of bot name. Its usage is help followed by the flags and their
// defaults (nothing, for a command without flags); flag's sentence about a wrong flag goes to
// stderr, with the usage.
func commandFlags(e *env, name, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { io.WriteString(fs.Output(), help); fs.PrintDefaults() }
	return fs
}

// parseCommand parses args with parseFlags and reports whether the command ends there: after the
// help asked for (err nil: status 0), or on a wrong flag (err says so).
func parseCommand(fs *flag.FlagSet, args []string, help io.Writer) (done bool, err error) {
	err = parseFlags(fs, args, help)
	if err == errHelpShown {
		return true, nil
	}
	return err != nil, err
}

// parseFlags parses args. The usage asked for with -h or --help is printed once, to help (the
// command's stdout), and ends the command with errHelpShown (status 0); a wrong flag prints
// flag's sentence and the usage to the flag set's output (stderr), status 2.
func parseFlags(fs *flag.FlagSet, args []string, help io.Writer) error {
	usage := fs.Usage
	if usage == nil {
		usage = func() { fmt.Fprintf(fs.Output(), "usage: bot %s [flags]\n", fs.Name()); fs.PrintDefaults() }
	}
	fs.Usage = func() {} // flag would print it on either outcome, to one place: it is printed below
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		out := fs.Output()
		fs.SetOutput(help)
		usage()
		fs.SetOutput(out)
		return errHelpShown
	case err != nil:
		usage()
		return exitf(exitUsage, "")
	}
	return nil
}

// errHelpShown ends a command whose -h was asked for: the help is printed, the status is 0.
var errHelpShown = errors.New("help shown")

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ", ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ago is a rough age: "12s ago", "5m ago", "3h ago", "2d ago".
func ago(d time.Duration) string {
	if d < time.Second {
		return "just now"
	}
	return roundDuration(d) + " ago"
}

// roundDuration keeps a duration readable: 42s, 5m, 1h30m, 2d3h.
func roundDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < 48*time.Hour:
		s := strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
		if strings.HasSuffix(s, "h0m") {
			s = strings.TrimSuffix(s, "0m")
		}
		return s
	}
	days := int(d / (24 * time.Hour))
	hours := int((d % (24 * time.Hour)) / time.Hour)
	return fmt.Sprintf("%dd%dh", days, hours)
}

// decided is the line of an answer that took several people — what it decided and who decided
// it (inquiry.DecidedBy), "Yes — approved by U1 and U2" — or false for any other answer.
func decided(in *inquiry.Inquiry, a *inquiry.Answer) (string, bool) {
	said, ok := inquiry.DecidedBy(in, a)
	if !ok {
		return "", false
	}
	return inquiry.RenderValue(in, a.Value) + " — " + said, true
}
