package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// resolved is the record of key as bot questions --all --json lists it.
func (b *cliBundle) resolved(t *testing.T, key string) numbered {
	t.Helper()
	for _, q := range b.questions(t, "--all") {
		if q.Key == key {
			return q
		}
	}
	t.Fatalf("question %s is not listed", key)
	return numbered{}
}

// TestQuestionsShowProposal: the listing shows a proposal's title, format and first lines
// behind the gutter, and a long one's sentence with how to see it whole; --show prints it
// whole off a terminal.
func TestQuestionsShowProposal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var lines []string
	for i := 1; i <= 60; i++ {
		lines = append(lines, fmt.Sprintf("+line %d", i))
	}
	content := strings.Join(lines, "\n") + "\n"
	file := filepath.Join(t.TempDir(), "pr.diff")
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	p := b.ask(t, "--confirm", "--question", "Merge #42?", "--proposal", file, "--proposal-title", "PR #42", "--editable")
	key := b.waitPending(t, 1, p)[0].Key

	r := b.bot(t, "", "questions")
	if r.code != 0 {
		t.Fatalf("bot questions:\n%s", r)
	}
	for _, want := range []string{`proposal "PR #42" (diff, editable: bot answer ` + key + ` yes --edit):`,
		"Shortened: the first 20 of 60 lines are shown. bot questions --show " + key + " shows it whole."} {
		if !strings.Contains(flat(r.stdout), want) {
			t.Errorf("bot questions does not say %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "│ +line 20\n") || strings.Contains(r.stdout, "+line 21") {
		t.Errorf("bot questions does not show exactly the first 20 lines behind the gutter:\n%s", r.stdout)
	}

	r = b.bot(t, "", "questions", "--show", key)
	if r.code != 0 {
		t.Fatalf("bot questions --show:\n%s", r)
	}
	for _, l := range lines {
		if !strings.Contains(r.stdout, "│ "+l+"\n") {
			t.Fatalf("bot questions --show lacks %q:\n%s", l, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "Shortened") {
		t.Errorf("bot questions --show says it is shortened:\n%s", r.stdout)
	}

	// On a terminal it goes through $PAGER, here one that marks every line it is given.
	pt := b.startPTYEnv(t, []string{"PAGER=sed 's/^/PAGED /'"}, "questions", "--show", key)
	pt.waitFor(t, "PAGED │ +line 1\r\n")
	pt.waitFor(t, "PAGED │ +line 60\r\n")
	<-pt.done
	if pt.err != nil {
		t.Errorf("bot questions --show on a terminal: %v\n%s", pt.err, pt.screen)
	}
}

// TestAnswerEditProposal: --edit sends what the editor left, byte for byte, recorded as
// edited; an editor that fails or leaves the file empty sends nothing; the proposal unchanged
// is a plain yes; a proposal that is not editable is refused before any editor opens.
func TestAnswerEditProposal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	proposal := write("config.txt", "timeout = 30\nretries = 3\n")
	edited := "timeout = 60\n\tretries = 5 — é\nno newline at the end"
	newFile := write("edited.txt", edited)
	empty := write("empty.txt", "")

	p := b.ask(t, "--confirm", "--question", "Apply the config?", "--proposal", proposal, "--editable", "--id", "cfg-1")
	key := b.waitPending(t, 1, p)[0].Key

	// An editor that fails, and one that leaves the file empty: nothing is sent.
	for name, editor := range map[string]string{"fails": "false", "empties": "cp " + empty} {
		r := runIn(t, b.dir, append(b.env(), "VISUAL=", "EDITOR="+editor), "answer", key, "yes", "--edit")
		if r.code != exitUsage || !strings.Contains(r.stderr, "Nothing was sent.") {
			t.Errorf("editor that %s:\n%s", name, r)
		}
		if q := b.resolved(t, key); q.Status != inquiry.StatusPending {
			t.Fatalf("after an editor that %s the question is %s", name, q.Status)
		}
	}

	r := runIn(t, b.dir, append(b.env(), "VISUAL=", "EDITOR=cp "+newFile), "answer", key, "yes", "--edit")
	if r.code != 0 || !strings.Contains(flat(r.stdout), "The proposal was approved as edited (3 lines)") {
		t.Fatalf("bot answer --edit:\n%s", r)
	}
	if res := p.wait(t); res.code != exitOK {
		t.Fatalf("bot ask after an edited yes:\n%s", res)
	}
	q := b.resolved(t, key)
	if q.Answer == nil || !q.Answer.Edited || q.Answer.Content != edited || q.Proposal.Content != "timeout = 30\nretries = 3\n" {
		t.Fatalf("answer = %+v, proposal = %+v; want edited with %q and the proposal kept", q.Answer, q.Proposal, edited)
	}

	// The proposal unchanged (an editor that only exits) is a plain yes.
	p = b.ask(t, "--confirm", "--question", "Apply the config again?", "--proposal", proposal, "--editable", "--id", "cfg-2")
	key = b.waitPending(t, 1, p)[0].Key
	if r := runIn(t, b.dir, append(b.env(), "VISUAL=true"), "answer", key, "yes", "--edit"); r.code != 0 || strings.Contains(r.stdout, "edited") {
		t.Fatalf("bot answer --edit with the proposal unchanged:\n%s", r)
	}
	p.wait(t)
	if q := b.resolved(t, key); q.Answer == nil || q.Answer.Edited || q.Answer.Content != "" {
		t.Errorf("unchanged: answer = %+v, want a plain yes", q.Answer)
	}

	// --content-file for scripts.
	p = b.ask(t, "--confirm", "--question", "Apply the third config?", "--proposal", proposal, "--editable", "--id", "cfg-3")
	key = b.waitPending(t, 1, p)[0].Key
	if r := b.answer(t, key, "yes", "--content-file", newFile); r.code != 0 {
		t.Fatalf("bot answer --content-file:\n%s", r)
	}
	p.wait(t)
	if q := b.resolved(t, key); q.Answer == nil || !q.Answer.Edited || q.Answer.Content != edited {
		t.Errorf("--content-file: answer = %+v", q.Answer)
	}

	// Not editable: refused before the editor opens (one that would fail the test by running).
	p = b.ask(t, "--confirm", "--question", "Apply as is?", "--proposal", proposal, "--id", "cfg-4")
	key = b.waitPending(t, 1, p)[0].Key
	marker := filepath.Join(dir, "editor-ran")
	r = runIn(t, b.dir, append(b.env(), "VISUAL=touch "+marker+" #"), "answer", key, "yes", "--edit")
	if r.code != exitUsage || !strings.Contains(r.stderr, "is not editable") {
		t.Errorf("--edit on a proposal that is not editable:\n%s", r)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the editor ran for a proposal that is not editable")
	}
	if q := b.resolved(t, key); q.Status != inquiry.StatusPending {
		t.Errorf("after a refused --edit the question is %s", q.Status)
	}
}

// TestPickerShowsProposalExcerpt: the picker shows the first lines of the selected question's
// proposal, fewer than the listing, and says it is shortened and how to see it whole.
func TestPickerShowsProposalExcerpt(t *testing.T) {
	t.Parallel()
	r := pickRecord("inq_p", "Merge #42?", inquiry.KindConfirm)
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("+line %d", i))
	}
	r.Inquiry.Proposal = &inquiry.Proposal{Format: inquiry.FormatDiff, Content: strings.Join(lines, "\n"), Title: "PR \x1b[2J#42 KEY", Editable: true}
	got := strings.Join(newPicker(r).view(time.Time{}, 100, 40), "\n")
	for _, want := range []string{`proposal "PR ⟨U+001B⟩[2J#42 KEY" (diff, editable: bot answer inq_p yes --edit):`, "│ +line 6", "Shortened: the first 6 of 30 lines are shown. bot questions --show inq_p shows it whole."} {
		if !strings.Contains(got, want) {
			t.Errorf("picker lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "+line 7") || strings.Contains(got, "\x1b") {
		t.Errorf("picker shows more than 6 lines, or a control character:\n%s", got)
	}
}
