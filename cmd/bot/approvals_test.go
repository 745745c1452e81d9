package main

import (
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestAskApprovalsOfTwo: bot ask --approvals 2 with the built binary against a real server. The
// person it names in --requested-by is refused with the server's sentence; one yes is a vote
// (bot questions shows the tally); the second yes decides, and bot ask exits 0 saying who
// approved. Every vote made with the CLI is recorded as via cli.
func TestAskApprovalsOfTwo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ana := b.createToken(t, "ana", "answer")
	ben := b.createToken(t, "ben", "answer")
	carol := b.createToken(t, "carol", "answer")

	gate := b.ask(t, "--confirm", "--question", "Merge #42?", "--approvals", "2",
		"--requested-by", "carol, U0AUTHOR", "--requested-by", "ci", "--reason", "on_no")
	qs := b.waitPending(t, 1, gate)
	q := qs[0]
	if q.Approvals == nil || *q.Approvals != 2 || strings.Join(q.RequestedBy, "|") != "carol|U0AUTHOR|ci" || q.Reason != inquiry.ReasonOnNo {
		t.Fatalf("the inquiry asked = %+v", q.Approval)
	}
	list := b.bot(t, "", "questions")
	for _, want := range []string{"needs 2 approvals", "a no needs a reason", "not to be answered by carol, U0AUTHOR or ci"} {
		if !strings.Contains(list.stdout, want) {
			t.Errorf("bot questions lacks %q:\n%s", want, list)
		}
	}

	// Four eyes: who asked for the approval may not give it, whatever their scope.
	if r := b.bot(t, carol, "answer", "1", "yes"); r.code != exitUsage ||
		!strings.Contains(r.stderr, "carol asked for this approval (requested_by): someone else must give it") {
		t.Fatalf("bot answer by the requester:\n%s", r)
	}

	r := b.bot(t, ana, "answer", "1", "yes")
	if r.code != 0 || !strings.Contains(r.stdout, `Your vote for "Merge #42?"`) || !strings.Contains(r.stdout, "Not decided yet: 1 of 2 approvals: ana") {
		t.Fatalf("the first yes:\n%s", r)
	}
	list = b.bot(t, "", "questions")
	if !strings.Contains(list.stdout, "so far: 1 of 2 approvals: ana") {
		t.Errorf("bot questions lacks the tally:\n%s", list)
	}
	qs = b.questions(t)
	if len(qs) != 1 || len(qs[0].Votes) != 1 || qs[0].Votes[0].By != "ana" || qs[0].Votes[0].Value.First() != "yes" || qs[0].Votes[0].Via != inquiry.ViaCLI {
		t.Fatalf("bot questions --json after one vote: %+v", qs)
	}
	if gate.exited() {
		t.Fatalf("bot ask ended on one of two approvals:\n%s", gate.res)
	}

	r = b.bot(t, ben, "answer", q.Key, "yes")
	if r.code != 0 || !strings.Contains(r.stdout, "Yes — approved by ana and ben") {
		t.Fatalf("the second yes:\n%s", r)
	}
	if r := gate.wait(t); r.code != exitOK || strings.TrimSpace(r.stdout) != "yes" || !strings.Contains(r.stderr, "Yes — approved by ana and ben") {
		t.Fatalf("bot ask after two approvals:\n%s", r)
	}

	var done *numbered
	for _, x := range b.questions(t, "--all") {
		if x.Key == q.Key {
			done = &x
		}
	}
	if done == nil || done.Answer == nil || len(done.Answer.Votes) != 2 {
		t.Fatalf("bot questions --all --json: %+v", done)
	}
	for _, v := range done.Answer.Votes {
		if v.Via != inquiry.ViaCLI || v.At.IsZero() {
			t.Errorf("vote %+v: want via cli, with its time", v)
		}
	}
	if list := b.bot(t, "", "questions", "--all"); !strings.Contains(list.stdout, "→ Yes — approved by ana and ben") {
		t.Errorf("bot questions --all does not say who approved:\n%s", list)
	}
}

// TestAnswerWithReason: bot answer --reason with the built binary. A no without the reason the
// question asks for is refused with the server's sentence (and a hint at --reason), and nothing
// is recorded; with --reason it vetoes the approval, and bot ask exits 1 saying who and why.
func TestAnswerWithReason(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ana := b.createToken(t, "ana", "answer")

	gate := b.ask(t, "--confirm", "--question", "Deploy on Friday?", "--approvals", "2", "--reason", "on_no")
	b.waitPending(t, 1, gate)

	r := b.bot(t, ana, "answer", "1", "no")
	if r.code != exitUsage || !strings.Contains(r.stderr, "this question asks for a reason with a no") || !strings.Contains(r.stderr, `bot answer 1 no --reason "..."`) {
		t.Fatalf("a no without its reason:\n%s", r)
	}
	if qs := b.questions(t); len(qs) != 1 || len(qs[0].Votes) != 0 {
		t.Fatalf("a refused no was recorded: %+v", qs)
	}

	r = b.bot(t, ana, "answer", "--reason", "not on a Friday", "1", "no")
	if r.code != 0 || !strings.Contains(r.stdout, `No — vetoed by ana: "not on a Friday"`) {
		t.Fatalf("a no with its reason:\n%s", r)
	}
	if r := gate.wait(t); r.code != exitNo || strings.TrimSpace(r.stdout) != "no" || !strings.Contains(r.stderr, `vetoed by ana: "not on a Friday"`) {
		t.Fatalf("bot ask after the veto:\n%s", r)
	}

	// A question of one person that asks every answer for its reason: --reason is the answer's
	// text. The reason given twice (as own words and in --reason) is refused before sending.
	why := b.ask(t, "--question", "Which region?", "--option", "eu", "--option", "us", "--allow-text", "--reason", "always")
	b.waitPending(t, 1, why)
	if r := b.answer(t, "1", "eu"); r.code != exitUsage || !strings.Contains(r.stderr, "this question asks for a reason with every answer") {
		t.Fatalf("an answer without the reason asked for:\n%s", r)
	}
	if r := b.answer(t, "1", "somewhere", "cheap", "--reason", "cost"); r.code != exitUsage || !strings.Contains(r.stderr, "give the reason once") {
		t.Fatalf("own words and --reason:\n%s", r)
	}
	r = b.answer(t, "1", "eu", "--reason", "closest to our users", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"text": "closest to our users"`) {
		t.Fatalf("bot answer --reason --json:\n%s", r)
	}
	if r := why.wait(t); r.code != exitOK || strings.TrimSpace(r.stdout) != "eu" || !strings.Contains(r.stderr, "closest to our users") {
		t.Fatalf("bot ask after an answer with its reason:\n%s", r)
	}
}

// TestAskApprovalsRefused: what the server refuses of a team approval comes back as its
// sentence, exit 2, and nothing is asked.
func TestAskApprovalsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--confirm", "--approvals", "0"}, "approvals 0 is not from 1 to 20"},
		{[]string{"--confirm", "--approvals", "21"}, "approvals 21 is not from 1 to 20"},
		{[]string{"--text", "--approvals", "2"}, "a quorum of free answers decides nothing"},
		{[]string{"--option", "a", "--option", "b", "--no-veto"}, "veto is only for a confirm"},
		{[]string{"--confirm", "--reason", "sometimes"}, `reason "sometimes" is not one of on_no or always`},
		{[]string{"--confirm", "--approvals", "two"}, `"two" is not a whole number`},
	} {
		r := b.ask(t, append([]string{"--question", "Refused?"}, c.args...)...).wait(t)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("bot ask %q: want exit 2 saying %q\n%s", c.args, c.want, r)
		}
	}
	if qs := b.questions(t, "--all"); len(qs) != 0 {
		t.Errorf("refused asks left questions: %+v", qs)
	}
}
