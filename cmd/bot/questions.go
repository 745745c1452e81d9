package main

// bot questions: the pending questions the token may answer, numbered, with their numbered options.

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

const questionsHelp = `usage: bot questions [--context] [--all] [--json]
       bot questions --show <key | number>
       bot questions -i [--context]

Lists the questions waiting for an answer that your token may answer, numbered oldest first
(the number 'bot answer N' takes), each with its numbered answers. --all also lists the
resolved ones with their answers, assumptions made by policy marked as such.

Each question is shown whole, wrapped to the terminal's width (80 columns off a terminal).
What its asker wrote — the question, the context, the answers' words — stands behind a bar
(│), so that words which imitate the bot's own lines read as quoted; a control or an invisible
character in it shows as a code such as ⟨U+000D⟩. The context is shown with --context; without
it a line says the question has one.

A question's proposal (what it asks to approve) is listed by its title and format with its first
lines behind the bar; a line says when they are not all of it. --show KEY shows the proposal
whole: through $PAGER (default less -R) on a terminal, plainly to a pipe or a file.

-i, on a terminal, is the interactive picker: the questions numbered, the selected one with its
answers. A digit picks an answer of the selected question and the bottom line asks whether to
send it: y sends (as bot answer does), n takes it back and nothing is sent. r writes an answer
in your own words, or an answer's number or words, as bot answer reads them (answers past 9:
r 10); Enter, then y/n; Esc cancels. d declines, c shows or hides the selected question's
context, the arrow keys or j/k move between questions, q or Ctrl-C quits. The confirmation
names the whole answer; a question taller than the window is not answered there (make the
window taller, or use bot answer). For a multiple choice, digits add or remove answers and Enter
asks to send them. The list follows the questions as they arrive and leave. Without a terminal
(a pipe, a file) -i prints the list as without it. In an agent harness's tool shell -i refuses,
as bot answer does: the list is the agent's to read, the answer the person's to give.

Flags:
`

func runQuestions(ctx context.Context, e *env) error {
	fs := commandFlags(e, "questions", questionsHelp)
	all := fs.Bool("all", false, "also list resolved questions and their answers")
	asJSON := fs.Bool("json", false, "print the questions as JSON (pending ones in the order of their numbers)")
	interactive := fs.Bool("i", false, "on a terminal, pick and send answers interactively (see above)")
	withContext := fs.Bool("context", false, "show each question's context, the background its asker gave (without it, a line says there is one)")
	show := fs.String("show", "", "show the proposal of the question with this `key` (or number) whole, paged on a terminal")
	if done, err := parseCommand(fs, e.args, e.stdout); done {
		return err
	}
	if *show != "" {
		if fs.NArg() > 0 || *all || *asJSON || *interactive {
			return exitf(exitUsage, "--show shows one proposal: give only its key, as in bot questions --show KEY")
		}
		return runShowProposal(ctx, e, *show)
	}
	if fs.NArg() > 0 {
		return exitf(exitUsage, "bot questions takes no arguments: use bot answer to answer one")
	}
	if *interactive && (*all || *asJSON) {
		return exitf(exitUsage, "-i is the interactive picker and shows only the waiting questions: drop --all and --json, or drop -i to list")
	}
	if *interactive {
		// The picker sends answers: refused in an agent's shell whether or not it has a terminal
		// (a harness may give its tools one). Listing stays allowed.
		if err := refuseInAgentShell(e, "bot questions -i", "; bot questions without -i lists the questions"); err != nil {
			return err
		}
	}
	c, err := newClient(e)
	if err != nil {
		return err
	}
	if *interactive {
		// Interactive only when asked and on a terminal: a script or an agent that runs bot
		// questions, even in a pseudo-terminal, gets the list and never a screen waiting for keys.
		if in, out, ok := terminals(e); ok {
			return runPicker(ctx, c, in, out, *withContext)
		}
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
	how := shown{width: outputWidth(w), context: *withContext, hint: "bot questions --context"}
	if len(pending) == 0 {
		fmt.Fprintln(w, "No questions are waiting for an answer.")
	}
	for i, r := range pending {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeQuestion(w, i+1, r, now, how)
	}
	if len(pending) > 0 {
		fmt.Fprintln(w)
		writeWrapped(w, "", "Answer with: bot answer <number> <answer number | answer words | own words>, or bot answer <number> --decline", how.width)
	}
	if *all {
		fmt.Fprintln(w)
		if len(resolved) == 0 {
			fmt.Fprintln(w, "No resolved questions.")
		} else {
			fmt.Fprintln(w, "Resolved (newest asked first):")
		}
		for _, r := range resolved {
			writeResolved(w, r, now, how)
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

// shown is how a listing shows its questions: the width it wraps to, and whether it shows each
// question's context or only says that there is one.
type shown struct {
	width   int
	context bool
	hint    string // how to show a context that is not shown
	// proposalLines is how many lines of a proposal are shown (0: listedProposalLines); the
	// picker shows fewer, so that a question with one still fits its window.
	proposalLines int
}

// writeQuestion prints one pending question with what a person needs to decide: the question
// whole, behind the gutter after its number; the context (or a line saying there is one); the
// numbered options, their words behind the gutter; then the bot's own lines (what approvals it
// needs, the tally, the deadlines, the facts), never behind it.
func writeQuestion(w io.Writer, n int, r *inquiry.Record, now time.Time, how shown) {
	in := &r.Inquiry
	num := fmt.Sprintf("%d. ", n)
	indent := strings.Repeat(" ", len(num))
	writeQuoted(w, num, indent, in.Question, how.width)
	if ctx := strings.TrimSpace(in.Context); ctx != "" {
		if how.context {
			writeWrapped(w, indent, "context:", how.width)
			writeQuoted(w, indent, indent, ctx, how.width)
		} else {
			lines := strings.Count(ctx, "\n") + 1
			writeWrapped(w, indent, fmt.Sprintf("context: %d %s, not shown (%s shows it)", lines, plural(lines, "line", "lines"), how.hint), how.width)
		}
	}
	writeProposalExcerpt(w, indent, r, how)
	offered := inquiry.Offered(in)
	opt := indent + "  "
	for i, o := range offered {
		label := o.Label
		if o.Value != o.Label && in.Kind == inquiry.KindChoice {
			label += " (" + o.Value + ")"
		}
		if o.Description != "" {
			label += " — " + o.Description
		}
		num := fmt.Sprintf("%d ", i+1)
		writeQuoted(w, opt+num, opt+strings.Repeat(" ", len(num)), label, how.width)
	}
	switch {
	case in.Kind == inquiry.KindText:
		writeWrapped(w, opt, "answer in your own words", how.width)
	case in.Multiple && in.AllowText:
		writeWrapped(w, opt, "choose one or more (1,3), or answer in your own words", how.width)
	case in.Multiple:
		writeWrapped(w, opt, "choose one or more, separated by commas (1,3)", how.width)
	case in.AllowText:
		writeWrapped(w, opt, "or answer in your own words", how.width)
	}
	// The bot's own lines name what the asker and the people wrote (requested_by, the labels of
	// a default, voters): printed, so that none of it is obeyed.
	if asked := inquiry.ApprovalAsked(in); asked != "" {
		// What the people who answer must give: how many must agree, a reason, who may not.
		writeWrapped(w, indent, inquiry.Printed(asked), how.width)
	}
	if tally := inquiry.Tallied(r); tally != "" {
		writeWrapped(w, indent, "so far: "+inquiry.Printed(tally), how.width)
	}
	if st := inquiry.DeadlineState(r); st != "" {
		writeWrapped(w, indent, inquiry.Printed(st), how.width)
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
		facts = append(facts, "if nobody answers: "+strconv.Quote(inquiry.RenderValue(in, in.Default)))
	} else if in.ExpiresAt != nil {
		facts = append(facts, "if nobody answers: declined")
	}
	writeWrapped(w, indent, "("+inquiry.Printed(strings.Join(facts, " · "))+")", how.width)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeResolved prints one resolved question, whole, and what it came to.
func writeResolved(w io.Writer, r *inquiry.Record, now time.Time, how shown) {
	in := &r.Inquiry
	writeQuoted(w, "-  ", "   ", in.Question, how.width)
	facts := []string{string(in.Kind), "key " + r.Key}
	if r.Namespace != "" {
		facts = append(facts, "from "+r.Namespace)
	}
	if r.ResolvedAt != nil {
		facts = append(facts, "resolved "+ago(now.Sub(*r.ResolvedAt)))
	}
	writeWrapped(w, "   ", "→ "+inquiry.Printed(inquiry.Outcome(r)), how.width)
	writeWrapped(w, "   ", "("+inquiry.Printed(strings.Join(facts, " · "))+")", how.width)
}
