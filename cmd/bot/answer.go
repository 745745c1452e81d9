package main

// bot answer: answer a question by its key or number, with an option's number or words, own words, or --decline.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

const answerHelp = `usage: bot answer <key | number> <answer number | answer words | own words...> [--reason WHY]
       bot answer <key | number> --decline [reason...]

Answers a question listed by bot questions, by its number there or its key. The words after it
are the answer: a number picks that offered answer; words that ARE an offered answer (its label
or value, whatever the case and surrounding blanks) pick it; for a question that allows it, any
other words are your own answer. Words that are none of the offered answers of a question that
takes no other words are refused, and nothing is sent. For a multiple choice, separate answers
with commas: bot answer 2 1,3. For a text question the words are the answer. Put -- before
words that start with a dash.

--reason says why: a question that asks for a reason (bot questions marks it: "a no needs a
reason") refuses an answer without one. For one that needs several people, your answer is your
vote: bot answer 2 no --reason "not on a Friday". The reason may also follow the answer after a
colon, as in a Slack thread: bot answer 2 "no: not on a Friday".

An answer is the person's: in an agent harness's tool shell (CLAUDECODE=1, AI_AGENT, the Codex,
Gemini CLI and Cursor agent markers, or BOT_AGENT_SHELL=1, which bot mcp sets) bot answer
refuses and sends nothing. Answer in Slack, on the answer page, or from your own terminal.

An editable proposal (bot questions marks it) may be approved edited: bot answer KEY yes --edit
opens $VISUAL or $EDITOR (default vi) on it, and what the file holds when the editor exits is
sent as the approved content; unchanged, it is a plain yes. An empty file, or an editor that
exits with an error, sends nothing. --content-file FILE gives the edited content from a file.

Flags:
`

func runAnswer(ctx context.Context, e *env) error {
	fs := commandFlags(e, "answer", answerHelp)
	decline := fs.Bool("decline", false, "decline to decide (the words after it, if any, say why)")
	reason := fs.String("reason", "", "why: the reason a question may ask for (with a no, a decline, or every answer)")
	asJSON := fs.Bool("json", false, "print the answered inquiry as JSON")
	edit := fs.Bool("edit", false, "approve an edited version of an editable proposal: opens $VISUAL or $EDITOR (default vi) on it")
	contentFile := fs.String("content-file", "", "approve the content of this `file` as the edited version of an editable proposal (for scripts)")
	pos, err := parseInterspersed(fs, e.args, e.stdout)
	if err != nil {
		if err == errHelpShown {
			return nil
		}
		return err
	}
	// Before anything is read or sent: an agent's shell never answers as the person.
	if err := refuseInAgentShell(e, "bot answer", ""); err != nil {
		return err
	}
	if len(pos) == 0 {
		return exitf(exitUsage, "say which question: bot answer <key | number> <answer>, numbers as bot questions lists them")
	}
	words := strings.TrimSpace(strings.Join(pos[1:], " "))
	if words == "" && !*decline {
		return exitf(exitUsage, "say the answer after the question: bot answer %s <answer number | answer words | own words>, or --decline", pos[0])
	}
	c, rec, err := findQuestion(ctx, e, pos[0])
	if err != nil {
		return err
	}
	if rec.Status != inquiry.StatusPending {
		return exitf(exitUsage, "%s", inquiry.Printed(inquiry.AlreadyResolved(rec).Message)) // it names who answered and how
	}
	reply, note, err := readReply(&rec.Inquiry, words, *decline)
	if err != nil {
		return err
	}
	if *edit || *contentFile != "" {
		if err := withEdit(e, rec, &reply, *edit, *contentFile); err != nil {
			return err
		}
	}
	if why := strings.TrimSpace(*reason); why != "" {
		if reply.Text != "" {
			return exitf(exitUsage, "the words %q are already the answer's text, and --reason would be a second one: give the reason once (in --reason, or as the words). Nothing was sent.", reply.Text)
		}
		reply.Text = why
	}
	if note != "" {
		fmt.Fprintln(e.stdout, note)
	}
	answered, err := c.Answer(ctx, rec.Key, reply)
	if err != nil {
		if inquiry.ErrorCode(err) == inquiry.CodeInvalidAnswer && inquiry.ErrorField(err) == "text" {
			return exitf(exitUsage, "%s. With bot answer, give it with --reason: bot answer %s %s --reason \"...\"", strings.TrimSuffix(errMessage(err), "."), pos[0], answerWords(words, *decline))
		}
		return failed(ctx, err, false)
	}
	if *asJSON {
		return writeJSON(e.stdout, answered)
	}
	writeRecorded(e.stdout, answered, reply, outputWidth(e.stdout))
	return nil
}

// recorded says what was recorded for rec, the answer of reply: the answer whole, as the
// person chose it (for a vote that did not decide yet, the vote and the tally so far).
func recorded(rec *inquiry.Record, reply client.Reply) string {
	if rec.Status == inquiry.StatusPending {
		// A vote of an inquiry that needs several people, which did not decide it yet.
		vote := inquiry.RenderAnswer(&rec.Inquiry, &inquiry.Answer{Value: reply.Value, Text: reply.Text, Declined: reply.Declined})
		left := "Not decided yet"
		if tally := inquiry.Tallied(rec); tally != "" {
			left += ": " + tally
		}
		return inquiry.Printed(fmt.Sprintf("Your vote for %s is recorded: %s. %s.", rec.Key, vote, left))
	}
	what := inquiry.RenderAnswer(&rec.Inquiry, rec.Answer)
	if line, ok := decided(&rec.Inquiry, rec.Answer); ok {
		what = line
	}
	return inquiry.Printed(fmt.Sprintf("Recorded for %s: %s", rec.Key, what))
}

// writeRecorded echoes what was recorded, and the question it answers whole, behind the
// gutter: what the person decided is said beside what they decided it for.
func writeRecorded(w io.Writer, rec *inquiry.Record, reply client.Reply, width int) {
	writeWrapped(w, "", recorded(rec, reply), width)
	writeQuoted(w, "   ", "   ", rec.Question, width)
	if note := editedNote(rec); note != "" {
		writeWrapped(w, "   ", note, width)
	}
}

// answerWords is how the answer was typed, to repeat it in a hint.
func answerWords(words string, decline bool) string {
	if decline {
		return "--decline"
	}
	if strings.ContainsAny(words, " \t\"'") {
		return strconv.Quote(words)
	}
	return words
}

// parseInterspersed parses flags wherever they stand among the arguments (bot answer 1 yes
// --decline), up to a "--" after which everything is an argument.
func parseInterspersed(fs *flag.FlagSet, args []string, help io.Writer) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args, help); err != nil {
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

// findQuestion connects as the environment says and reads a question by key, or by its number
// in the listing of bot questions: the first steps of each command that acts on one question.
func findQuestion(ctx context.Context, e *env, ref string) (*client.Client, *inquiry.Record, error) {
	c, err := newClient(e)
	if err != nil {
		return nil, nil, err
	}
	n, err := strconv.Atoi(ref)
	if err != nil {
		rec, err := c.Get(ctx, ref, 0)
		if err != nil {
			return nil, nil, failed(ctx, err, false)
		}
		return c, rec, nil
	}
	pending, err := pendingQuestions(ctx, c)
	if err != nil {
		return nil, nil, failed(ctx, err, false)
	}
	if n < 1 || n > len(pending) {
		if len(pending) == 0 {
			return nil, nil, exitf(exitUsage, "there is no question %d: no questions are waiting for an answer", n)
		}
		return nil, nil, exitf(exitUsage, "there is no question %d: bot questions lists %d, numbered 1 to %d", n, len(pending), len(pending))
	}
	return c, pending[n-1], nil
}

// readReply reads typed words as the answer to in with inquiry.ReplyOf, a number naming the
// offered answer bot questions lists under it. Words that choose none are own words where the
// question allows them (note says so) and refused where it does not, before anything is sent.
func readReply(in *inquiry.Inquiry, words string, decline bool) (client.Reply, string, error) {
	if decline {
		return client.Reply{Declined: true, Text: words}, "", nil
	}
	r, miss := inquiry.ReplyOf(in, words, true)
	reply := client.Reply{Value: r.Value, Text: r.Text}
	if miss == "" {
		return reply, "", nil
	}
	offered := inquiry.Offered(in)
	if in.AllowText {
		return reply, fmt.Sprintf("Taken as your own words: %q is none of the offered answers (%s).", inquiry.Printed(words), numberedOptions(offered)), nil
	}
	how := "answer with the number or the words of one"
	if in.Multiple {
		how = "answer with numbers or words of them, separated by commas"
	}
	return client.Reply{}, "", exitf(exitUsage, "%q is none of the offered answers: %s; %s, or --decline. Nothing was sent.", inquiry.Printed(miss), numberedOptions(offered), how)
}

// numberedOptions is "1 Merge, 2 Hold", each label whole and printed.
func numberedOptions(opts []inquiry.Option) string {
	parts := make([]string, len(opts))
	for i, o := range opts {
		parts[i] = fmt.Sprintf("%d %s", i+1, inquiry.Printed(o.Label))
	}
	return strings.Join(parts, ", ")
}
