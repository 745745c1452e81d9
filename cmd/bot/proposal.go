package main

// A question's proposal in the CLI: its first lines in bot questions, whole (paged on a
// terminal) with bot questions --show, and edited in $VISUAL/$EDITOR by bot answer --edit.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// The excerpt bot questions shows of a proposal: a screenful, so that a listing of several
// questions stays readable; --show shows it whole.
const (
	listedProposalLines = 20
	listedProposalChars = 2000
	pickedProposalLines = 6 // in the picker, whose window must hold the whole question
)

// proposalHeading is the bot's line naming a proposal: its title (printed: the asker wrote it),
// its format, and whether it may be edited.
func proposalHeading(r *inquiry.Record) string {
	p := r.Proposal
	h := "proposal"
	if t := strings.TrimSpace(p.Title); t != "" {
		h += ` "` + inquiry.Printed(t) + `"` // printed, not %q: a control shows as its code
	}
	h += " (" + string(p.FormatOrText())
	if p.Editable {
		answer := "yes"
		if r.Kind != inquiry.KindConfirm {
			answer = "<answer>"
		}
		h += ", editable: bot answer " + r.Key + " " + answer + " --edit"
	}
	return h + "):"
}

// writeProposalExcerpt writes the first lines of r's proposal behind the gutter and, when they
// are not all of it, the sentence saying how much is shown and how to see it whole.
func writeProposalExcerpt(w io.Writer, indent string, r *inquiry.Record, how shown) {
	p, width := r.Proposal, how.width
	if p == nil {
		return
	}
	lines := how.proposalLines
	if lines == 0 {
		lines = listedProposalLines
	}
	writeWrapped(w, indent, proposalHeading(r), width)
	ex := inquiry.ExcerptOf(p.Content, lines, listedProposalChars)
	writeProposalText(w, indent, ex.Text, width)
	if s := ex.Sentence(); s != "" {
		writeWrapped(w, indent, s+" bot questions --show "+r.Key+" shows it whole.", width)
	}
}

// writeProposalText writes proposal text behind the gutter, keeping its blank lines and
// indentation (a diff's context lines start with a space), printed and wrapped.
func writeProposalText(w io.Writer, indent, s string, width int) {
	s = strings.TrimRight(inquiry.Printed(inquiry.NormalizeNewlines(s)), "\n")
	for _, line := range wrap(s, width-cellsOf(indent+gutter)) {
		io.WriteString(w, strings.TrimRight(indent+gutter+line, " ")+"\n")
	}
}

// runShowProposal shows the proposal of the question ref names whole: through $PAGER (less -R
// when there is one) when stdout is a terminal, plainly otherwise.
func runShowProposal(ctx context.Context, e *env, ref string) error {
	_, rec, err := findQuestion(ctx, e, ref)
	if err != nil {
		return err
	}
	if rec.Proposal == nil {
		return exitf(exitUsage, "question %s has no proposal: bot questions shows what it asks", ref)
	}
	var buf bytes.Buffer
	width := outputWidth(e.stdout)
	writeQuoted(&buf, "", "", rec.Question, width)
	writeWrapped(&buf, "", proposalHeading(rec), width)
	writeProposalText(&buf, "", rec.Proposal.Content, width)
	out, ok := e.stdout.(*os.File)
	if !ok || !term.IsTerminal(int(out.Fd())) {
		_, err := e.stdout.Write(buf.Bytes())
		return err
	}
	pager := strings.TrimSpace(os.Getenv("PAGER"))
	if pager == "" {
		if _, err := exec.LookPath("less"); err != nil {
			_, err := e.stdout.Write(buf.Bytes())
			return err
		}
		pager = "less -R"
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", pager)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &buf, out, e.stderr
	if err := cmd.Run(); err != nil {
		return exitf(exitUsage, "the pager %q failed (%v): set PAGER to one that works, or pipe the output (bot questions --show %s | cat)", pager, err, ref)
	}
	return nil
}

// editedContent is the content bot answer sends for an editable proposal: the file's with
// --content-file, else what the person leaves in $VISUAL/$EDITOR (vi by default), opened on
// the proposal. ok is false when it is the proposal unchanged: no edit, nothing to send.
func editedContent(e *env, p *inquiry.Proposal, file string) (content string, ok bool, err error) {
	var b []byte
	if file != "" {
		if b, err = os.ReadFile(file); err != nil {
			return "", false, exitf(exitUsage, "--content-file %s cannot be read (%v): give the path of the edited content. Nothing was sent.", file, err)
		}
	} else {
		if b, err = runEditor(e, p); err != nil {
			return "", false, err
		}
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return "", false, exitf(exitUsage, "the edited content is empty: keep the proposal's text to approve it, or answer no to refuse it. Nothing was sent.")
	}
	if string(b) == p.Content {
		return "", false, nil
	}
	return string(b), true, nil
}

// runEditor opens the editor on a temporary file holding the proposal and returns what the
// file holds when the editor exits; an editor that fails sends nothing.
func runEditor(e *env, p *inquiry.Proposal) ([]byte, error) {
	editor := strings.TrimSpace(os.Getenv("VISUAL"))
	if editor == "" {
		editor = strings.TrimSpace(os.Getenv("EDITOR"))
	}
	if editor == "" {
		editor = "vi"
	}
	dir, err := os.MkdirTemp("", "bot-proposal-")
	if err != nil {
		return nil, exitf(exitUsage, "no temporary file for the editor (%v): free the temporary directory, or give the content with --content-file. Nothing was sent.", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "proposal"+proposalExt(p.FormatOrText()))
	if err := os.WriteFile(path, []byte(p.Content), 0o600); err != nil {
		return nil, exitf(exitUsage, "no temporary file for the editor (%v): free the temporary directory, or give the content with --content-file. Nothing was sent.", err)
	}
	// Through the shell, as git runs $EDITOR: a value such as "code --wait" works.
	cmd := exec.Command("sh", "-c", editor+` "$1"`, "sh", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stderr, e.stderr
	if f, ok := e.stdout.(*os.File); ok {
		cmd.Stdout = f // a terminal editor draws on the terminal
	}
	if err := cmd.Run(); err != nil {
		return nil, exitf(exitUsage, "the editor %q did not finish (%v): fix it or set VISUAL or EDITOR to one that works, or give the content with --content-file. Nothing was sent.", editor, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, exitf(exitUsage, "the edited file cannot be read (%v): give the content with --content-file. Nothing was sent.", err)
	}
	return b, nil
}

// proposalExt names the temporary file so that the editor highlights the format.
func proposalExt(f inquiry.ProposalFormat) string {
	switch f {
	case inquiry.FormatDiff:
		return ".diff"
	case inquiry.FormatMarkdown:
		return ".md"
	case inquiry.FormatJSON:
		return ".json"
	}
	return ".txt"
}

// withEdit sets reply's content to the edited proposal of rec (--edit or --content-file),
// refused before any editor opens when there is nothing editable to approve.
func withEdit(e *env, rec *inquiry.Record, reply *client.Reply, edit bool, file string) error {
	switch {
	case edit && file != "":
		return exitf(exitUsage, "--edit and --content-file both give the edited content: use one. Nothing was sent.")
	case rec.Proposal == nil:
		return exitf(exitUsage, "question %s has no proposal to edit: answer without --edit or --content-file. Nothing was sent.", rec.Key)
	case !rec.Proposal.Editable:
		return exitf(exitUsage, "the proposal of question %s is not editable: approve it as it is, or answer no with a reason. Nothing was sent.", rec.Key)
	case reply.Declined || (rec.Kind == inquiry.KindConfirm && reply.Value.First() == "no"):
		return exitf(exitUsage, "an edited proposal is approved, not refused: answer yes with --edit, or no without it. Nothing was sent.")
	}
	content, ok, err := editedContent(e, rec.Proposal, file)
	if err != nil {
		return err
	}
	if ok {
		reply.Content = content
	}
	return nil
}

// editedNote says that an answer approved an edited proposal, and where its content is: the
// echo of bot answer names what was approved.
func editedNote(rec *inquiry.Record) string {
	if rec.Answer == nil || !rec.Answer.Edited {
		return ""
	}
	n := strings.Count(strings.TrimRight(inquiry.NormalizeNewlines(rec.Answer.Content), "\n"), "\n") + 1
	return fmt.Sprintf("The proposal was approved as edited (%d %s): bot questions --all --json shows the approved content as .answer.content.", n, plural(n, "line", "lines"))
}
