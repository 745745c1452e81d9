package main

// bot questions: the pending questions the token may answer, numbered, with their numbered options.

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

const questionsHelp = `usage: bot questions [--all] [--json]
       bot questions -i

Lists the questions waiting for an answer that your token may answer, numbered oldest first
(the number 'bot answer N' takes), each with its numbered answers. --all also lists the
resolved ones with their answers, assumptions made by policy marked as such.

-i, on a terminal, is the interactive picker: the questions numbered, the selected one with its
answers. A digit picks an answer of the selected question and the bottom line asks whether to
send it: y sends (as bot answer does), n takes it back and nothing is sent. r writes an answer
in your own words, or an answer's number or words, as bot answer reads them (answers past 9:
r 10); Enter, then y/n; Esc cancels. d declines, the arrow keys or j/k move between
questions, q or Ctrl-C quits. For a multiple choice, digits add or remove answers and Enter
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
	if done, err := parseCommand(fs, e.args, e.stdout); done {
		return err
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
			return runPicker(ctx, c, in, out)
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
			fmt.Fprintln(w, "Resolved (newest asked first):")
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
	fmt.Fprintf(w, "%d. %s\n", n, inquiry.OneLine(in.Question, 100))
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
	if asked := inquiry.ApprovalAsked(in); asked != "" {
		// What the people who answer must give: how many must agree, a reason, who may not.
		fmt.Fprintf(w, "   %s\n", asked)
	}
	if tally := inquiry.Tallied(r); tally != "" {
		fmt.Fprintf(w, "   so far: %s\n", tally)
	}
	if st := inquiry.DeadlineState(r); st != "" {
		fmt.Fprintf(w, "   %s\n", st)
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
	what := inquiry.Outcome(r)
	fmt.Fprintf(w, "-  %s\n", inquiry.OneLine(in.Question, 100))
	facts := []string{string(in.Kind), "key " + r.Key}
	if r.Namespace != "" {
		facts = append(facts, "from "+r.Namespace)
	}
	if r.ResolvedAt != nil {
		facts = append(facts, "resolved "+ago(now.Sub(*r.ResolvedAt)))
	}
	fmt.Fprintf(w, "   → %s\n   (%s)\n", what, strings.Join(facts, " · "))
}
