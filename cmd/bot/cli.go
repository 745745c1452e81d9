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
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
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
	var ie *inquiry.Error
	if errors.As(err, &ie) {
		return inquiry.ErrorMessage(err)
	}
	return err.Error()
}

// parseFlags parses args, printing the usage for -h and returning errHelpShown.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelpShown
		}
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

// ---- bot ask ----

const askHelp = `usage: bot ask [--confirm | --choice | --text] --question TEXT [flags]

Asks a person one question through the gateway at BOT_URL and waits for the answer. The answer
is printed on stdout: the chosen option's value (one per line for --multiple), or the text.

Exit status:
  0  answered (for --confirm: yes)
  1  --confirm answered no (or in own words, which are not a yes)
  3  declined, expired without a default, cancelled, refused by policy, or nobody answered
     within --timeout (the question then stays pending: its key is printed on stderr, answer it
     with 'bot answer KEY ...' and run the same command again to pick the answer up)
  4  unavailable: nobody can be asked (the transport cannot serve, or the inquiry failed)
  2  usage or any other error
An expired question WITH a default prints the assumed answer and exits as that answer would;
stderr says it was assumed.

So 'bot ask --confirm --question "Deploy?" && deploy' deploys only on a yes.

The same command finds the same inquiry (--id is derived from the question, kind, options and
default): run again, it picks up the answer it already has. To ask afresh each time, give a
fresh --id, e.g. --id "deploy-$(date +%F)".

Flags:
`

// askFlags are the flags of bot ask.
type askFlags struct {
	confirm, choice, text bool
	question, context     string
	options, answerers    stringList
	def, expiresIn        string
	channel, thread       string
	run, id               string
	timeout               time.Duration
	policy, transport     string
	allowText, multiple   bool
	json                  bool
}

func runAsk(ctx context.Context, e *env) error {
	var f askFlags
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { io.WriteString(fs.Output(), askHelp); fs.PrintDefaults() }
	fs.BoolVar(&f.confirm, "confirm", false, "a yes-or-no question")
	fs.BoolVar(&f.choice, "choice", false, "pick among the --option answers (the default when --option is given)")
	fs.BoolVar(&f.text, "text", false, "an answer in words (the default without --option)")
	fs.StringVar(&f.question, "question", "", "the question, in plain words (required)")
	fs.StringVar(&f.context, "context", "", "background the person needs to decide")
	fs.Var(&f.options, "option", "an offered answer, repeatable: `value=Label` or plain words")
	fs.StringVar(&f.def, "default", "", "what to assume when nobody answers in time: an option (comma-separated with --multiple), yes/no, or text")
	fs.StringVar(&f.expiresIn, "expires-in", "", "how long the question stays open, a Go `duration` such as 2h")
	fs.StringVar(&f.channel, "channel", "", "Slack channel to ask in")
	fs.StringVar(&f.thread, "thread", "", "Slack thread ts to ask in")
	fs.Var(&f.answerers, "answerer", "Slack user (U…) or user group (S…) who may answer, repeatable")
	fs.StringVar(&f.run, "run", "", "the run this question belongs to (it waits on it, visible in bot runs)")
	fs.StringVar(&f.id, "id", "", "the inquiry's stable id (default: derived from the question, kind, options and default)")
	fs.DurationVar(&f.timeout, "timeout", time.Hour, "how long to wait for the answer")
	fs.StringVar(&f.policy, "policy", string(inquiry.PolicyAsk), "ask, default (assume the default, ask nobody) or refuse")
	fs.StringVar(&f.transport, "transport", "", "slack or inbox (default: the server's)")
	fs.BoolVar(&f.allowText, "allow-text", false, "a choice or confirm may be answered in own words instead")
	fs.BoolVar(&f.multiple, "multiple", false, "a choice may take several options")
	fs.BoolVar(&f.json, "json", false, "print the final inquiry as JSON instead of the answer")
	if err := parseFlags(fs, e.args); err != nil {
		if err == errHelpShown {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return exitf(exitUsage, "unexpected argument %q: put the question in --question \"...\"", fs.Arg(0))
	}
	req, err := f.request()
	if err != nil {
		return err
	}
	if f.timeout < 0 {
		return exitf(exitUsage, "--timeout %s is negative: give how long to wait, such as 30m", f.timeout)
	}
	c, err := newClient(e)
	if err != nil {
		return err
	}

	start := time.Now()
	deadline := start.Add(f.timeout)
	// The first request does not wait, so the key is known (and shown) at once; the waiting is
	// the long-poll below.
	req.Wait = 0
	local := &inquiry.Inquiry{ID: req.ID, RunID: f.run, Kind: req.Kind, Question: req.Question, Options: req.Options, Multiple: req.Multiple, AllowText: req.AllowText}

	var rec *inquiry.Record
	parked := false // the run waits on the question and is to be resumed when it resolves
	if f.run != "" {
		// Without a wait the run parks on the question at once, so bot runs shows what it
		// waits on; this process long-polls the inquiry below and resumes the run when the
		// answer comes.
		ra, err := c.AskInRun(ctx, f.run, req)
		if err != nil {
			return failed(ctx, err, true)
		}
		rec, parked = ra.Inquiry, !ra.Answered()
		if ra.Answered() && (rec == nil || rec.Answer == nil) {
			// A re-entry whose inquiry is gone from the store: the run's state holds the answer.
			rec = &inquiry.Record{Inquiry: *local, Status: inquiry.StatusAnswered, Answer: ra.Answer}
		}
	} else {
		var created bool
		rec, created, err = c.Ask(ctx, req)
		if err != nil {
			return failed(ctx, err, true)
		}
		if !created && rec.CreatedAt.Before(start.Add(-10*time.Second)) {
			fmt.Fprintf(e.stderr, "bot ask: this question (%s) was asked before, at %s; pass a fresh --id to ask it again\n",
				rec.Key, rec.CreatedAt.Local().Format("2006-01-02 15:04"))
		}
	}
	if rec == nil {
		return exitf(exitUsage, "the gateway answered without the inquiry: check that BOT_URL is the inquiry bot")
	}

	if rec.Status == inquiry.StatusPending {
		if left := time.Until(deadline); left > 0 {
			fmt.Fprintf(e.stderr, "bot ask: asked %s; waiting up to %s for an answer (bot questions lists it, bot answer %s ... answers it)\n",
				rec.Key, roundDuration(left), rec.Key)
			waited, err := c.WaitAnswer(ctx, rec.Key, left)
			if waited != nil {
				rec = waited
			}
			if err != nil {
				if ctx.Err() != nil {
					return exitf(exitUsage, "interrupted; question %s stays pending: answer it with bot answer %s, or run this command again to keep waiting", rec.Key, rec.Key)
				}
				return failed(ctx, err, true)
			}
		}
	}
	if parked && rec.Status.Resolved() && rec.Answer != nil {
		// The run parked on this question; this process is still here, so it runs on.
		if _, err := c.Resume(ctx, f.run, map[string]inquiry.Answer{rec.ID: *rec.Answer}); err != nil && ctx.Err() == nil {
			fmt.Fprintf(e.stderr, "bot ask: the answer came, but run %s could not be set running again: %s\n", f.run, errMessage(err))
		}
	}
	if f.json {
		if err := writeJSON(e.stdout, rec); err != nil {
			return err
		}
	}
	return askOutcome(e, rec, f.timeout, !f.json)
}

// request builds the ask request from the flags, or says what is wrong with them.
func (f *askFlags) request() (client.AskRequest, error) {
	var req client.AskRequest
	kinds := 0
	for _, k := range []struct {
		set  bool
		kind inquiry.Kind
	}{{f.confirm, inquiry.KindConfirm}, {f.choice, inquiry.KindChoice}, {f.text, inquiry.KindText}} {
		if k.set {
			kinds++
			req.Kind = k.kind
		}
	}
	switch {
	case kinds > 1:
		return req, exitf(exitUsage, "give one of --confirm, --choice or --text, not several")
	case kinds == 0 && len(f.options) > 0:
		req.Kind = inquiry.KindChoice
	case kinds == 0:
		req.Kind = inquiry.KindText
	}
	req.Question = strings.TrimSpace(f.question)
	if req.Question == "" {
		return req, exitf(exitUsage, "--question is required: bot ask --confirm --question \"Deploy to production?\"")
	}
	if req.Kind == inquiry.KindChoice && len(f.options) < inquiry.MinOptions {
		return req, exitf(exitUsage, "a choice offers %d to %d answers: give each with --option (value=Label, or plain words)", inquiry.MinOptions, inquiry.MaxOptions)
	}
	if req.Kind != inquiry.KindChoice && len(f.options) > 0 {
		return req, exitf(exitUsage, "--option is only for a choice, not a %s: drop the options, or use --choice", req.Kind)
	}
	for _, o := range f.options {
		req.Options = append(req.Options, parseOption(o))
	}
	req.Context = strings.TrimSpace(f.context)
	req.Multiple = f.multiple
	req.AllowText = f.allowText
	req.Default = f.defaultValue(req.Kind, req.Options)
	req.ExpiresIn = strings.TrimSpace(f.expiresIn)
	if _, err := inquiry.ExpiryFrom(nil, req.ExpiresIn, time.Now()); err != nil {
		return req, exitf(exitUsage, "--expires-in %q is not a positive duration: write it like 2h, 90m or 1h30m", f.expiresIn)
	}
	policy, err := inquiry.ParsePolicy(f.policy)
	if err != nil {
		return req, exitf(exitUsage, "--%s", err.Error())
	}
	transport := strings.TrimSpace(f.transport)
	if transport == "" && (f.channel != "" || f.thread != "") {
		// Naming a channel or a thread means asking in Slack: a server without Slack says so at
		// once (exit 4) rather than keeping the question in its inbox.
		transport = inquiry.TransportSlack
	}
	req.Config = &inquiry.Config{Policy: policy, Transport: transport}
	if f.channel != "" || f.thread != "" || len(f.answerers) > 0 {
		req.Slack = &client.SlackTarget{Channel: f.channel, ThreadTS: f.thread, Answerers: f.answerers}
	}
	req.ID = strings.TrimSpace(f.id)
	if req.ID == "" {
		req.ID = derivedID(&req)
	}
	return req, nil
}

// parseOption reads "value=Label" (both sides non-empty) or plain words (value = label).
func parseOption(s string) inquiry.Option {
	s = strings.TrimSpace(s)
	if v, l, ok := strings.Cut(s, "="); ok && strings.TrimSpace(v) != "" && strings.TrimSpace(l) != "" {
		return inquiry.Option{Value: strings.TrimSpace(v), Label: strings.TrimSpace(l)}
	}
	return inquiry.Option{Value: s, Label: s}
}

// defaultValue reads --default: an option may be named by its label or value (read with
// inquiry.Chosen); what matches nothing is sent as typed for the server to refuse with reasons.
func (f *askFlags) defaultValue(kind inquiry.Kind, opts []inquiry.Option) inquiry.Value {
	d := strings.TrimSpace(f.def)
	if d == "" {
		return inquiry.Value{}
	}
	pick := func(s string) string {
		if o, ok := inquiry.Chosen(inquiry.Offered(&inquiry.Inquiry{Kind: kind, Options: opts}), s); ok {
			return o.Value
		}
		return strings.TrimSpace(s)
	}
	switch {
	case kind == inquiry.KindText:
		return inquiry.One(d)
	case kind == inquiry.KindChoice && f.multiple:
		var vs []string
		for _, p := range strings.Split(d, ",") {
			if strings.TrimSpace(p) != "" {
				vs = append(vs, pick(p))
			}
		}
		return inquiry.Many(vs...)
	}
	return inquiry.One(pick(d))
}

// derivedID is a stable id for a question asked without --id: the same command gives the same
// id, so running it again finds the same inquiry. Everything that makes two inquiries the same
// (inquiry.SameContent) goes in, so a changed question is a new inquiry rather than a conflict.
func derivedID(req *client.AskRequest) string {
	return "cli:" + inquiry.Fingerprint(&inquiry.Inquiry{Kind: req.Kind, Question: req.Question, Context: req.Context,
		Options: req.Options, Multiple: req.Multiple, AllowText: req.AllowText, Default: req.Default})
}

// askOutcome prints what a finished (or timed-out) ask came to and picks the exit status.
func askOutcome(e *env, rec *inquiry.Record, timeout time.Duration, print bool) error {
	in := &rec.Inquiry
	out := func(a *inquiry.Answer) {
		if !print {
			return
		}
		for _, line := range answerLines(in, a) {
			fmt.Fprintln(e.stdout, line)
		}
	}
	switch rec.Status {
	case inquiry.StatusPending:
		waited := "nobody answered within " + roundDuration(timeout)
		if timeout == 0 {
			waited = "asked without waiting (--timeout 0)"
		}
		return exitf(exitDeclined, "%s; the question stays pending as %s: answer it with bot answer %s ..., and run this command again to pick the answer up",
			waited, rec.Key, rec.Key)
	case inquiry.StatusCancelled:
		return exitf(exitDeclined, "question %s was cancelled: nobody will answer it", rec.Key)
	case inquiry.StatusFailed:
		msg := "it could not be put to anybody"
		if rec.Failure != nil && rec.Failure.Message != "" {
			msg = rec.Failure.Message
		}
		return exitf(exitUnavailable, "question %s failed: %s", rec.Key, msg)
	}
	a := rec.Answer
	if a == nil {
		return exitf(exitUsage, "question %s is %s but has no answer", rec.Key, rec.Status)
	}
	if a.Declined {
		if a.Source == inquiry.SourceExpired {
			return exitf(exitDeclined, "nobody answered before question %s expired, and it has no default", rec.Key)
		}
		by := ""
		if a.AnsweredBy != "" {
			by = " by " + a.AnsweredBy
		}
		if a.Text != "" {
			return exitf(exitDeclined, "declined%s: %s", by, a.Text)
		}
		return exitf(exitDeclined, "declined%s", by)
	}
	out(a)
	switch a.Source {
	case inquiry.SourceExpired:
		fmt.Fprintf(e.stderr, "bot ask: nobody answered before question %s expired; assumed its default: %s\n", rec.Key, inquiry.RenderValue(in, a.Value))
	case inquiry.SourceDefault:
		fmt.Fprintf(e.stderr, "bot ask: %s\n", inquiry.RenderAnswer(in, a))
	}
	if a.Value.Len() > 0 && a.Text != "" {
		fmt.Fprintf(e.stderr, "bot ask: with the words: %s\n", a.Text)
	}
	if in.Kind == inquiry.KindConfirm {
		switch {
		case a.Value.First() == "yes":
			return nil
		case a.Value.First() == "no":
			return &exitError{code: exitNo}
		default:
			return exitf(exitNo, "answered in own words, which are not a yes")
		}
	}
	return nil
}

// answerLines is what bot ask prints for an answer: the chosen values one per line, else the
// text.
func answerLines(in *inquiry.Inquiry, a *inquiry.Answer) []string {
	if a.Value.Len() > 0 && in.Kind != inquiry.KindText {
		return a.Value.Strings()
	}
	if a.Text != "" {
		return []string{a.Text}
	}
	if v, ok := inquiry.AnsweredWith(a); ok {
		return []string{v}
	}
	return nil
}

// ---- bot questions ----

const questionsHelp = `usage: bot questions [--all] [--json]

Lists the questions waiting for an answer that your token may answer, numbered oldest first
(the number 'bot answer N' takes), each with its numbered answers. --all also lists the
resolved ones with their answers, assumptions made by policy marked as such.

Flags:
`

func runQuestions(ctx context.Context, e *env) error {
	fs := flag.NewFlagSet("questions", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { io.WriteString(fs.Output(), questionsHelp); fs.PrintDefaults() }
	all := fs.Bool("all", false, "also list resolved questions and their answers")
	asJSON := fs.Bool("json", false, "print the questions as JSON (pending ones in the order of their numbers)")
	if err := parseFlags(fs, e.args); err != nil {
		if err == errHelpShown {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return exitf(exitUsage, "bot questions takes no arguments: use bot answer to answer one")
	}
	c, err := newClient(e)
	if err != nil {
		return err
	}
	pending, err := pendingQuestions(ctx, c)
	if err != nil {
		return failed(ctx, err, false)
	}
	var resolved []*inquiry.Record
	if *all {
		recs, err := c.ListAll(ctx, client.ListOptions{Limit: 500}, maxListed)
		if err != nil {
			return failed(ctx, err, false)
		}
		for _, r := range recs {
			if r.Status != inquiry.StatusPending {
				resolved = append(resolved, r)
			}
		}
	}
	if *asJSON {
		type numbered struct {
			Number int `json:"number,omitempty"`
			*inquiry.Record
		}
		out := struct {
			Questions []numbered `json:"questions"`
		}{Questions: []numbered{}}
		for i, r := range pending {
			out.Questions = append(out.Questions, numbered{i + 1, r})
		}
		for _, r := range resolved {
			out.Questions = append(out.Questions, numbered{0, r})
		}
		return writeJSON(e.stdout, out)
	}
	now := time.Now()
	w := e.stdout
	if len(pending) == 0 {
		fmt.Fprintln(w, "No questions are waiting for an answer.")
	}
	for i, r := range pending {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeQuestion(w, i+1, r, now)
	}
	if len(pending) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Answer with: bot answer <number> <answer number | answer words | own words>, or bot answer <number> --decline")
	}
	if *all {
		fmt.Fprintln(w)
		if len(resolved) == 0 {
			fmt.Fprintln(w, "No resolved questions.")
		} else {
			fmt.Fprintln(w, "Resolved (newest first):")
		}
		for _, r := range resolved {
			writeResolved(w, r, now)
		}
	}
	return nil
}

// pendingQuestions is the one listing bot questions numbers and bot answer resolves numbers
// against: the pending inquiries the token may see, oldest first, so that a question keeps its
// number while newer ones arrive.
func pendingQuestions(ctx context.Context, c *client.Client) ([]*inquiry.Record, error) {
	recs, err := c.ListAll(ctx, client.ListOptions{Status: inquiry.StatusPending, Limit: 500}, maxListed)
	if err != nil {
		return nil, err
	}
	slices.Reverse(recs) // the API lists newest first
	return recs, nil
}

// writeQuestion prints one pending question with what a person needs to decide.
func writeQuestion(w io.Writer, n int, r *inquiry.Record, now time.Time) {
	in := &r.Inquiry
	fmt.Fprintf(w, "%d. %s\n", n, oneLine(in.Question))
	if in.Context != "" {
		for _, line := range strings.Split(strings.TrimSpace(in.Context), "\n") {
			fmt.Fprintf(w, "   %s\n", strings.TrimRight(line, " \t\r"))
		}
	}
	offered := inquiry.Offered(in)
	for i, o := range offered {
		label := o.Label
		if o.Value != o.Label && in.Kind == inquiry.KindChoice {
			label += " (" + o.Value + ")"
		}
		if o.Description != "" {
			label += " — " + o.Description
		}
		fmt.Fprintf(w, "     %d  %s\n", i+1, label)
	}
	switch {
	case in.Kind == inquiry.KindText:
		fmt.Fprintln(w, "     answer in your own words")
	case in.Multiple && in.AllowText:
		fmt.Fprintln(w, "     choose one or more (1,3), or answer in your own words")
	case in.Multiple:
		fmt.Fprintln(w, "     choose one or more, separated by commas (1,3)")
	case in.AllowText:
		fmt.Fprintln(w, "     or answer in your own words")
	}
	facts := []string{string(in.Kind), "key " + r.Key}
	if r.Namespace != "" {
		facts = append(facts, "from "+r.Namespace)
	}
	if in.RunID != "" {
		facts = append(facts, "run "+in.RunID)
	}
	if !r.CreatedAt.IsZero() {
		facts = append(facts, "asked "+ago(now.Sub(r.CreatedAt)))
	}
	if in.ExpiresAt != nil {
		facts = append(facts, "expires in "+roundDuration(in.ExpiresAt.Sub(now)))
	}
	if in.HasDefault() {
		facts = append(facts, "if nobody answers: "+inquiry.RenderValue(in, in.Default))
	} else if in.ExpiresAt != nil {
		facts = append(facts, "if nobody answers: declined")
	}
	fmt.Fprintf(w, "   (%s)\n", strings.Join(facts, " · "))
}

// writeResolved prints one resolved question and what it came to.
func writeResolved(w io.Writer, r *inquiry.Record, now time.Time) {
	in := &r.Inquiry
	var what string
	switch r.Status {
	case inquiry.StatusAnswered, inquiry.StatusExpired:
		what = inquiry.RenderAnswer(in, r.Answer) // it marks assumptions, by policy or expiry
	case inquiry.StatusCancelled:
		what = "cancelled by the asker"
	case inquiry.StatusFailed:
		what = "failed"
		if r.Failure != nil {
			what += ": " + r.Failure.Message
		}
	default:
		what = string(r.Status)
	}
	fmt.Fprintf(w, "-  %s\n", oneLine(in.Question))
	facts := []string{string(in.Kind), "key " + r.Key}
	if r.Namespace != "" {
		facts = append(facts, "from "+r.Namespace)
	}
	if r.ResolvedAt != nil {
		facts = append(facts, "resolved "+ago(now.Sub(*r.ResolvedAt)))
	}
	fmt.Fprintf(w, "   → %s\n   (%s)\n", what, strings.Join(facts, " · "))
}

// ---- bot answer ----

const answerHelp = `usage: bot answer <key | number> <answer number | answer words | own words...>
       bot answer <key | number> --decline [reason...]

Answers a question listed by bot questions, by its number there or its key. The words after it
are the answer: a number picks that offered answer; words that ARE an offered answer (its label
or value, whatever the case and surrounding blanks) pick it; for a question that allows it, any
other words are your own answer. Words that are none of the offered answers of a question that
takes no other words are refused, and nothing is sent. For a multiple choice, separate answers
with commas: bot answer 2 1,3. For a text question the words are the answer. Put -- before
words that start with a dash.

Flags:
`

func runAnswer(ctx context.Context, e *env) error {
	fs := flag.NewFlagSet("answer", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { io.WriteString(fs.Output(), answerHelp); fs.PrintDefaults() }
	decline := fs.Bool("decline", false, "decline to decide (the words after it, if any, say why)")
	asJSON := fs.Bool("json", false, "print the answered inquiry as JSON")
	pos, err := parseInterspersed(fs, e.args)
	if err != nil {
		if err == errHelpShown {
			return nil
		}
		return err
	}
	if len(pos) == 0 {
		return exitf(exitUsage, "say which question: bot answer <key | number> <answer>, numbers as bot questions lists them")
	}
	words := strings.TrimSpace(strings.Join(pos[1:], " "))
	if words == "" && !*decline {
		return exitf(exitUsage, "say the answer after the question: bot answer %s <answer number | answer words | own words>, or --decline", pos[0])
	}
	c, err := newClient(e)
	if err != nil {
		return err
	}
	rec, err := findQuestion(ctx, c, pos[0])
	if err != nil {
		return err
	}
	if rec.Status != inquiry.StatusPending {
		return exitf(exitUsage, "%s", inquiry.AlreadyResolved(rec).Message)
	}
	reply, note, err := readReply(&rec.Inquiry, words, *decline)
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(e.stdout, note)
	}
	answered, err := c.Answer(ctx, rec.Key, reply)
	if err != nil {
		return failed(ctx, err, false)
	}
	if *asJSON {
		return writeJSON(e.stdout, answered)
	}
	fmt.Fprintf(e.stdout, "Recorded for %q (%s): %s\n", oneLine(answered.Question), answered.Key, inquiry.RenderAnswer(&answered.Inquiry, answered.Answer))
	return nil
}

// parseInterspersed parses flags wherever they stand among the arguments (bot answer 1 yes
// --decline), up to a "--" after which everything is an argument.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// findQuestion reads a question by key, or by its number in the listing of bot questions.
func findQuestion(ctx context.Context, c *client.Client, ref string) (*inquiry.Record, error) {
	n, err := strconv.Atoi(ref)
	if err != nil {
		rec, err := c.Get(ctx, ref, 0)
		if err != nil {
			return nil, failed(ctx, err, false)
		}
		return rec, nil
	}
	pending, err := pendingQuestions(ctx, c)
	if err != nil {
		return nil, failed(ctx, err, false)
	}
	if n < 1 || n > len(pending) {
		if len(pending) == 0 {
			return nil, exitf(exitUsage, "there is no question %d: no questions are waiting for an answer", n)
		}
		return nil, exitf(exitUsage, "there is no question %d: bot questions lists %d, numbered 1 to %d", n, len(pending), len(pending))
	}
	return pending[n-1], nil
}

// readReply reads typed words as the answer to in: a number picks that offered answer, words
// that are an offered answer (inquiry.Chosen) pick it, other words are own words where the
// question allows them and refused where it does not. note says when words were taken as own
// words.
func readReply(in *inquiry.Inquiry, words string, decline bool) (client.Reply, string, error) {
	if decline {
		return client.Reply{Declined: true, Text: words}, "", nil
	}
	if in.Kind == inquiry.KindText {
		return client.Reply{Text: words}, "", nil
	}
	offered := inquiry.Offered(in)
	pick := func(s string) (inquiry.Option, bool) {
		s = strings.TrimSpace(s)
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(offered) {
			return offered[n-1], true
		}
		return inquiry.Chosen(offered, s)
	}
	parts := []string{words}
	if in.Multiple {
		parts = strings.Split(words, ",")
	}
	var values []string
	var miss string
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			continue
		}
		o, ok := pick(p)
		if !ok {
			miss = strings.TrimSpace(p)
			break
		}
		if !slices.Contains(values, o.Value) {
			values = append(values, o.Value)
		}
	}
	if miss == "" && len(values) > 0 {
		if in.Multiple {
			return client.Reply{Value: inquiry.Many(values...)}, "", nil
		}
		return client.Reply{Value: inquiry.One(values[0])}, "", nil
	}
	if in.AllowText {
		return client.Reply{Text: words}, fmt.Sprintf("Taken as your own words: %q is none of the offered answers (%s).", words, numberedOptions(offered)), nil
	}
	if miss == "" {
		miss = words
	}
	how := "answer with the number or the words of one"
	if in.Multiple {
		how = "answer with numbers or words of them, separated by commas"
	}
	return client.Reply{}, "", exitf(exitUsage, "%q is none of the offered answers: %s; %s, or --decline. Nothing was sent.", miss, numberedOptions(offered), how)
}

// numberedOptions is "1 Merge, 2 Hold".
func numberedOptions(opts []inquiry.Option) string {
	parts := make([]string, len(opts))
	for i, o := range opts {
		parts[i] = fmt.Sprintf("%d %s", i+1, o.Label)
	}
	return strings.Join(parts, ", ")
}

// ---- bot runs ----

const runsHelp = `usage: bot runs [--status STATUS] [--json]

Lists runs, most recently updated first, with their status, the age of their heartbeat and,
for a waiting run, the question it waits on.

Flags:
`

func runRuns(ctx context.Context, e *env) error {
	fs := flag.NewFlagSet("runs", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { io.WriteString(fs.Output(), runsHelp); fs.PrintDefaults() }
	status := fs.String("status", "", "only runs with this status: running, waiting, completed, failed or abandoned")
	namespace := fs.String("namespace", "", "only runs of this namespace (admin tokens)")
	limit := fs.Int("limit", 100, "at most this many runs")
	asJSON := fs.Bool("json", false, "print the runs as JSON")
	if err := parseFlags(fs, e.args); err != nil {
		if err == errHelpShown {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return exitf(exitUsage, "bot runs takes no arguments")
	}
	st := inquiry.RunStatus(strings.TrimSpace(*status))
	if st != "" && !st.Valid() {
		return exitf(exitUsage, "--status %q is not one of running, waiting, completed, failed or abandoned", *status)
	}
	c, err := newClient(e)
	if err != nil {
		return err
	}
	runs, err := c.ListRuns(ctx, client.RunListOptions{Status: st, Namespace: *namespace, Limit: *limit})
	if err != nil {
		return failed(ctx, err, false)
	}
	if *asJSON {
		if runs == nil {
			runs = []*client.Run{}
		}
		return writeJSON(e.stdout, struct {
			Runs []*client.Run `json:"runs"`
		}{runs})
	}
	if len(runs) == 0 {
		fmt.Fprintln(e.stdout, "No runs.")
		return nil
	}
	now := time.Now()
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tNAMESPACE\tSTATUS\tHEARTBEAT\tANSWERS\tWAITING ON")
	for _, r := range runs {
		waiting := "-"
		if r.WaitingOn != nil {
			waiting = fmt.Sprintf("%s %q", r.WaitingOn.Key, oneLine(r.WaitingOn.Question))
		}
		hb := "-"
		if !r.HeartbeatAt.IsZero() {
			hb = ago(now.Sub(r.HeartbeatAt))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", r.ID, r.Namespace, r.Status, hb, len(r.Answers), waiting)
	}
	return tw.Flush()
}

// ---- helpers ----

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// oneLine folds blanks and newlines and keeps a list row short.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 100 {
		return string(r[:99]) + "…"
	}
	return s
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
