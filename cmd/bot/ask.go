package main

// bot ask: ask one question from a shell or a cron job, wait, and exit with the answer.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

const askHelp = `usage: bot ask [--confirm | --choice | --text] --question TEXT [flags]

Asks a person one question through the gateway at BOT_URL and waits for the answer. The answer
is printed on stdout: the chosen option's value (one per line for --multiple), or the text.

Exit status:
  0  answered (for --confirm: yes)
  1  --confirm answered no (or in own words, which are not a yes)
  3  declined, expired without a default, cancelled, refused by policy, or nobody answered
     within --timeout (the question then stays pending: its key and id are printed on stderr;
     answer it with 'bot answer KEY ...' and run the same command with --id ID to pick the
     answer up)
  4  unavailable: nobody can be asked (the transport cannot serve, or the inquiry failed)
  2  usage or any other error
An expired question WITH a default prints the assumed answer and exits as that answer would;
stderr says it was assumed.

So 'bot ask --confirm --question "Deploy?" && deploy' deploys only on a yes.

A team approval: --approvals 2 waits for two distinct people to say yes (one no answers no at
once, unless --no-veto); --requested-by names who asked for it, who may not give it (in a merge
gate, the pull request's author); --reason on_no asks a no for its reason. The exit status still
says the answer, and stderr says who decided:
  bot ask --confirm --question "Merge #42?" --approvals 2 --requested-by "$PR_AUTHOR" --reason on_no

A proposal shows the person what they approve, whole: --proposal FILE (a diff, a document, a
tool's input; at most 256 KiB), read as --format text, markdown, diff or json (by default from
the file's extension). With --editable the person may approve an edited version; the approved
content is then the answer's content, printed by --json (.answer.content, with .answer.edited):
  bot ask --confirm --question "Merge #42?" --proposal pr.diff --editable --json

Each run asks anew: without --id the id is derived from the question, kind, options and
default, plus a fresh part (cli:<fingerprint>:<time>-<random>), so a cron job's next run asks
again rather than finding the last run's answer. Give --id for what must be asked once: the
retries of one step (a job that re-runs after a crash, a CI job retried), which then find the
same question and its answer, e.g. --id "deploy-$CI_PIPELINE_ID". In a run (--run) too, each
bot ask without --id is a new question; the run's re-entry finds a recorded answer by --id.

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
	// Team approvals (inquiry.Approval): approvals is nil unless --approvals was given, so that
	// the server refuses a 0 with its sentence rather than the CLI reading it as "unset".
	approvals   *int
	noVeto      bool
	requestedBy stringList
	reason      string
	// Deadlines (inquiry.Deadlines), passed as given: the server's rules refuse what does not fit.
	deadlines inquiry.Deadlines
	extendBy  inquiry.Duration
	extendMax inquiry.Duration
	// A proposal (inquiry.Proposal): the file whose content the person approves, its format
	// (default: from the file's extension, else text), its title, and whether it may be edited.
	proposal, format, proposalTitle string
	editable                        bool
}

func runAsk(ctx context.Context, e *env) error {
	var f askFlags
	fs := commandFlags(e, "ask", askHelp)
	f.register(fs)
	if done, err := parseCommand(fs, e.args, e.stdout); done {
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
	req.Wait = nil
	local := &inquiry.Inquiry{ID: req.ID, RunID: f.run, Kind: req.Kind, Question: req.Question, Options: req.Options, Multiple: req.Multiple, AllowText: req.AllowText, Approval: req.Approval}

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
			fmt.Fprintf(e.stderr, "bot ask: --id %s was asked before, at %s, as %s: this is that question; give another --id, or none, to ask anew\n",
				req.ID, rec.CreatedAt.Local().Format("2006-01-02 15:04"), rec.Key)
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
					return exitf(exitUsage, "interrupted; question %s stays pending: answer it with bot answer %s, or %s to keep waiting", rec.Key, rec.Key, f.rerun(req.ID))
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
	return askOutcome(e, rec, f.timeout, !f.json, f.rerun(req.ID))
}

// register defines the flags of bot ask on fs.
func (f *askFlags) register(fs *flag.FlagSet) {
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
	fs.StringVar(&f.id, "id", "", "the inquiry's stable id: the same --id finds the same question and its answer, for retries of one step (default: a new question each run, the id derived from the question plus a fresh part)")
	fs.DurationVar(&f.timeout, "timeout", time.Hour, "how long to wait for the answer")
	fs.StringVar(&f.policy, "policy", string(inquiry.PolicyAsk), "ask, default (assume the default, ask nobody) or refuse")
	fs.StringVar(&f.transport, "transport", "", "slack or inbox (default: the server's)")
	fs.BoolVar(&f.allowText, "allow-text", false, "a choice or confirm may be answered in own words instead")
	fs.BoolVar(&f.multiple, "multiple", false, "a choice may take several options")
	fs.BoolVar(&f.json, "json", false, "print the final inquiry as JSON instead of the answer")
	fs.Func("approvals", "how many distinct people must give the same answer (a confirm or a single choice; default 1)", func(s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("%q is not a whole number: give how many people must agree, such as 2", s)
		}
		f.approvals = &n
		return nil
	})
	fs.BoolVar(&f.noVeto, "no-veto", false, "with --approvals, a no does not answer no at once: it takes as many noes as yeses")
	fs.Func("requested-by", "who asked for this approval and so may not give it: a Slack user (U…) or a token's name, repeatable or comma-separated (in a merge gate, the pull request's author)", func(s string) error {
		for _, who := range strings.Split(s, ",") {
			if who = strings.TrimSpace(who); who != "" {
				f.requestedBy = append(f.requestedBy, who)
			}
		}
		return nil
	})
	fs.StringVar(&f.reason, "reason", "", "when an answer must say why: on_no (a no or a decline) or always")
	fs.Func("remind", "remind who may answer this long before the expiry, a Go `duration` such as 30m; repeatable (at most 5; needs --expires-in)", func(s string) error {
		d, err := inquiry.ParseDuration(s)
		f.deadlines.Remind = append(f.deadlines.Remind, d)
		return err
	})
	fs.BoolVar(&f.deadlines.RemindHere, "remind-here", false, "a reminder of a question without --answerer mentions @here in Slack")
	fs.BoolVar(&f.deadlines.RemindDM, "remind-dm", false, "a reminder also goes to each --answerer user as a direct message in Slack")
	fs.Func("escalate", "an escalation step, repeatable (at most 3): `after=1h,channel=C…,answerers=U1+S2,mention`: after that long the question is posted in the channel too and those people may answer", func(s string) error {
		st, err := parseStep(s)
		f.deadlines.Escalate = append(f.deadlines.Escalate, st)
		return err
	})
	fs.StringVar(&f.proposal, "proposal", "", "a `file` whose content the person approves, shown whole (at most 256 KiB): a diff, a document, a tool's input")
	fs.StringVar(&f.format, "format", "", "how --proposal reads: text, markdown, diff or json (default: from the file's extension .diff/.patch, .md, .json, else text)")
	fs.StringVar(&f.proposalTitle, "proposal-title", "", "a one-line name for --proposal (default: the file's name)")
	fs.BoolVar(&f.editable, "editable", false, "with --proposal, the person may approve an edited version (its content is then the answer's)")
	fs.Func("extend-by", "people who may answer can give the question this much more time at once, a Go `duration` such as 1h (with --extend-max)", func(s string) (err error) {
		f.extendBy, err = inquiry.ParseDuration(s)
		return err
	})
	fs.Func("extend-max", "at most this much more time in all, a Go `duration` such as 4h (with --extend-by)", func(s string) (err error) {
		f.extendMax, err = inquiry.ParseDuration(s)
		return err
	})
}

// parseStep reads an escalation step as --escalate writes it: after=1h,channel=C…,answerers=U1+S2,mention.
func parseStep(s string) (inquiry.Step, error) {
	var st inquiry.Step
	for _, part := range strings.Split(s, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch name {
		case "after":
			d, err := inquiry.ParseDuration(value)
			if err != nil {
				return st, err
			}
			st.After = d
		case "channel":
			st.Channel = strings.TrimSpace(value)
		case "answerers":
			for _, a := range strings.Split(value, "+") {
				if a = strings.TrimSpace(a); a != "" {
					st.Answerers = append(st.Answerers, a)
				}
			}
		case "mention":
			st.Mention = value == "" || value == "true"
		default:
			return st, fmt.Errorf("%q is none of after, channel, answerers or mention: write a step like after=1h,channel=C0123,answerers=U1+S2,mention", name)
		}
	}
	if st.After == 0 {
		return st, fmt.Errorf("a step needs after=, how long after the question it happens, such as after=1h")
	}
	return st, nil
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
	req.Default = f.defaultValue(&req.Inquiry)
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
	req.Approval = f.approval()
	req.Deadlines = f.deadlines
	if f.extendBy != 0 || f.extendMax != 0 {
		if f.extendBy == 0 || f.extendMax == 0 {
			return req, exitf(exitUsage, "--extend-by and --extend-max go together: give how much more time at once and in all, such as --extend-by 1h --extend-max 4h")
		}
		req.Extend = &inquiry.Extension{By: f.extendBy, Max: f.extendMax}
	}
	if f.channel != "" || f.thread != "" || len(f.answerers) > 0 {
		req.Slack = &client.SlackTarget{Channel: f.channel, ThreadTS: f.thread, Answerers: f.answerers}
	}
	if req.Proposal, err = f.readProposal(); err != nil {
		return req, err
	}
	req.ID = strings.TrimSpace(f.id)
	if req.ID == "" {
		// Each bot ask is a new ask: a cron job's next run must not find the last run's answer.
		// The derived id keeps the same question's asks together; the fresh part tells them apart.
		req.ID = inquiry.DerivedID("cli", &req.Inquiry) + ":" + freshPart(time.Now())
	}
	return req, nil
}

// readProposal is the proposal the flags name (nil for none), read from its file; its rules
// (the size, the format, JSON that parses) are the server's to judge, but a file past the
// bound is not read whole to be sent and refused.
func (f *askFlags) readProposal() (*inquiry.Proposal, error) {
	if f.proposal == "" {
		if f.format != "" || f.proposalTitle != "" || f.editable {
			return nil, exitf(exitUsage, "--format, --proposal-title and --editable describe a proposal: give its file with --proposal FILE")
		}
		return nil, nil
	}
	file, err := os.Open(f.proposal)
	if err != nil {
		return nil, exitf(exitUsage, "--proposal %s cannot be read (%v): give the path of the file the person approves", f.proposal, err)
	}
	defer file.Close()
	content, err := io.ReadAll(io.LimitReader(file, inquiry.MaxProposalBytes+1))
	if err != nil {
		return nil, exitf(exitUsage, "--proposal %s cannot be read (%v): give the path of the file the person approves", f.proposal, err)
	}
	if len(content) > inquiry.MaxProposalBytes {
		return nil, exitf(exitUsage, "--proposal %s is larger than %d bytes (256 KiB), the most a proposal holds: propose a shorter file, such as a summary that links to the whole", f.proposal, inquiry.MaxProposalBytes)
	}
	format := inquiry.ProposalFormat(strings.TrimSpace(f.format))
	if format == "" {
		switch strings.ToLower(filepath.Ext(f.proposal)) {
		case ".diff", ".patch":
			format = inquiry.FormatDiff
		case ".md", ".markdown":
			format = inquiry.FormatMarkdown
		case ".json":
			format = inquiry.FormatJSON
		default:
			format = inquiry.FormatText
		}
	}
	title := strings.TrimSpace(f.proposalTitle)
	if title == "" {
		title = filepath.Base(f.proposal)
	}
	return &inquiry.Proposal{Format: format, Content: string(content), Title: title, Editable: f.editable}, nil
}

// freshPart is what makes an id without --id new on every run: the time it was asked, readable,
// and 32 random bits for the runs of the same second (cron jobs start on the minute). Its 25
// characters keep a derived id far under inquiry.MaxIDChars.
func freshPart(now time.Time) string {
	var b [4]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// rerun says how to run bot ask again to find the same question: as it was, with --id; else
// with the id it made, which a run without --id would not find.
func (f *askFlags) rerun(id string) string {
	if strings.TrimSpace(f.id) != "" {
		return "run this command again"
	}
	return "run this command again with --id " + id
}

// approval is the team approval the flags ask for, passed as given: the server's rules
// (inquiry.Validate) refuse what does not fit, with their sentences.
func (f *askFlags) approval() inquiry.Approval {
	a := inquiry.Approval{Approvals: f.approvals, RequestedBy: f.requestedBy, Reason: inquiry.Reason(strings.TrimSpace(f.reason))}
	if f.noVeto {
		a.Veto = new(bool)
	}
	return a
}

// parseOption reads "value=Label" (both sides non-empty) or plain words (value = label).
func parseOption(s string) inquiry.Option {
	s = strings.TrimSpace(s)
	if v, l, ok := strings.Cut(s, "="); ok && strings.TrimSpace(v) != "" && strings.TrimSpace(l) != "" {
		return inquiry.Option{Value: strings.TrimSpace(v), Label: strings.TrimSpace(l)}
	}
	return inquiry.Option{Value: s, Label: s}
}

// defaultValue reads --default as the asker typed it: words, or for a multiple choice answers
// separated by commas; inquiry.NamedDefault then reads an option named by its label or value.
func (f *askFlags) defaultValue(in *inquiry.Inquiry) inquiry.Value {
	d := strings.TrimSpace(f.def)
	switch {
	case d == "":
		return inquiry.Value{}
	case in.Kind == inquiry.KindChoice && in.Multiple:
		var vs []string
		for _, p := range strings.Split(d, ",") {
			if p = strings.TrimSpace(p); p != "" {
				vs = append(vs, p)
			}
		}
		return inquiry.NamedDefault(in, inquiry.Many(vs...))
	}
	return inquiry.NamedDefault(in, inquiry.One(d))
}

// askOutcome prints what a finished (or timed-out) ask came to and picks the exit status; rerun
// says how to pick up the answer of a question still pending.
func askOutcome(e *env, rec *inquiry.Record, timeout time.Duration, print bool, rerun string) error {
	in := &rec.Inquiry
	out := func(a *inquiry.Answer) {
		if !print {
			return
		}
		for _, line := range answerLines(in, a) {
			// Answers are stored without carriage returns now, but one stored before may hold
			// one, and a script may print what it reads to a terminal: as printed, never obeyed.
			fmt.Fprintln(e.stdout, inquiry.Printed(line))
		}
	}
	switch rec.Status {
	case inquiry.StatusPending:
		waited := "nobody answered within " + roundDuration(timeout)
		if tally := inquiry.Tallied(rec); tally != "" {
			waited = "not decided within " + roundDuration(timeout) + " (" + tally + ")"
		}
		if timeout == 0 {
			waited = "asked without waiting (--timeout 0)"
		}
		return exitf(exitDeclined, "%s; the question stays pending as %s: answer it with bot answer %s ..., and %s to pick the answer up",
			waited, rec.Key, rec.Key, rerun)
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
			return exitf(exitDeclined, "declined%s: %s", by, inquiry.Printed(a.Text))
		}
		return exitf(exitDeclined, "declined%s", by)
	}
	out(a)
	switch a.Source {
	case inquiry.SourceExpired:
		fmt.Fprintf(e.stderr, "bot ask: nobody answered before question %s expired; assumed its default: %s\n", rec.Key, inquiry.Printed(inquiry.RenderValue(in, a.Value)))
	case inquiry.SourceDefault:
		fmt.Fprintf(e.stderr, "bot ask: %s\n", inquiry.Printed(inquiry.RenderAnswer(in, a)))
	}
	if line, ok := decided(in, a); ok {
		fmt.Fprintf(e.stderr, "bot ask: %s\n", inquiry.Printed(line))
	} else if a.Value.Len() > 0 && a.Text != "" {
		fmt.Fprintf(e.stderr, "bot ask: with the words: %s\n", inquiry.Printed(a.Text))
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
