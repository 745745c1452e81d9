package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// ---- end to end: the real binary against the real serve ----

// cliBundle is a running server with an asking token (scope ask, like an agent or a cron job)
// and the admin token in the token file for answering (like the person on the same machine).
type cliBundle struct {
	*server
	asker string
}

func setup(t *testing.T) *cliBundle {
	t.Helper()
	s := startServer(t)
	return &cliBundle{server: s, asker: s.createToken(t, "asker", "ask")}
}

// ask starts `bot ask` in the background with the asking token.
func (b *cliBundle) ask(t *testing.T, args ...string) *proc {
	t.Helper()
	return b.start(t, b.asker, append([]string{"ask"}, args...)...)
}

// answer runs `bot answer` with the admin token from the token file.
func (b *cliBundle) answer(t *testing.T, args ...string) result {
	t.Helper()
	return b.bot(t, "", append([]string{"answer"}, args...)...)
}

// numbered is a question as bot questions --json lists it.
type numbered struct {
	Number int `json:"number"`
	inquiry.Record
}

func (b *cliBundle) questions(t *testing.T, args ...string) []numbered {
	t.Helper()
	r := b.bot(t, "", append([]string{"questions", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("bot questions --json:\n%s", r)
	}
	var out struct {
		Questions []numbered `json:"questions"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("bot questions --json printed no JSON: %v\n%s", err, r)
	}
	return out.Questions
}

// flat is s with every run of blanks one space: the bot's own lines read whole across the
// breaks of their wrapping.
func flat(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// waitPending waits until n questions are pending, and returns them in their numbered order.
func (b *cliBundle) waitPending(t *testing.T, n int, p *proc) []numbered {
	t.Helper()
	var qs []numbered
	eventually(t, "the question to be pending", func() bool {
		if p != nil && p.exited() {
			t.Fatalf("bot ask ended before it was answered:\n%s", p.res)
		}
		qs = b.questions(t)
		return len(qs) >= n
	})
	return qs
}

func TestAskConfirmExitsByTheAnswer(t *testing.T) {
	t.Parallel()
	b := setup(t)

	yes := b.ask(t, "--confirm", "--question", "Deploy?")
	qs := b.waitPending(t, 1, yes)
	if qs[0].Number != 1 || qs[0].Question != "Deploy?" || qs[0].Kind != inquiry.KindConfirm || qs[0].Namespace != "asker" {
		t.Fatalf("bot questions = %+v", qs[0])
	}
	// The asking token may not answer its own question.
	if r := b.bot(t, b.asker, "answer", "1", "yes"); r.code != exitUsage {
		t.Errorf("bot answer with an ask token:\n%s", r)
	}
	if r := b.answer(t, "1", "yes"); r.code != 0 || !strings.Contains(r.stdout, "Yes by admin") {
		t.Fatalf("bot answer 1 yes:\n%s", r)
	}
	if r := yes.wait(t); r.code != exitOK || strings.TrimSpace(r.stdout) != "yes" {
		t.Fatalf("bot ask after yes:\n%s", r)
	}

	no := b.ask(t, "--confirm", "--question", "Deploy the other one?")
	qs = b.waitPending(t, 1, no)
	if r := b.answer(t, qs[0].Key, "No"); r.code != 0 {
		t.Fatalf("bot answer KEY No:\n%s", r)
	}
	if r := no.wait(t); r.code != exitNo || strings.TrimSpace(r.stdout) != "no" {
		t.Fatalf("bot ask after no:\n%s", r)
	}

	// Answering again is refused with who answered first.
	r := b.answer(t, qs[0].Key, "yes")
	if r.code != exitUsage || !strings.Contains(r.stderr, "already answered") || !strings.Contains(r.stderr, "admin") {
		t.Errorf("bot answer on an answered question:\n%s", r)
	}
}

func TestAnswerByNumberWordsAndOwnWords(t *testing.T) {
	t.Parallel()
	b := setup(t)

	merge := b.ask(t, "--question", "Merge now?", "--option", "Merge", "--option", "Hold",
		"--context", "CI is green.", "--default", "hold", "--expires-in", "1h")
	b.waitPending(t, 1, merge)

	list := b.bot(t, "", "questions", "--context")
	for _, want := range []string{"1. │ Merge now?", "   context:\n   │ CI is green.", "     1 │ Merge", "     2 │ Hold",
		"choice", "from asker", `if nobody answers: "Hold"`, "expires in", "bot answer <number>"} {
		if !strings.Contains(list.stdout, want) && !strings.Contains(flat(list.stdout), want) {
			t.Errorf("bot questions lacks %q:\n%s", want, list)
		}
	}

	// Words that are none of the offered answers are refused, and nothing is sent.
	r := b.answer(t, "1", "maybe", "later")
	if r.code != exitUsage || !strings.Contains(r.stderr, `"maybe later" is none of the offered answers: 1 Merge, 2 Hold`) {
		t.Fatalf("bot answer 1 maybe later:\n%s", r)
	}
	if qs := b.questions(t); len(qs) != 1 || qs[0].Status != inquiry.StatusPending {
		t.Fatalf("after a refused answer the question is no longer pending: %+v", qs)
	}
	// Words that ARE an option choose it, whatever the case and blanks.
	if r := b.answer(t, "1", "  hold "); r.code != 0 || !strings.Contains(r.stdout, "Hold by admin") {
		t.Fatalf(`bot answer 1 "  hold ":\n%s`, r)
	}
	if r := merge.wait(t); r.code != 0 || strings.TrimSpace(r.stdout) != "Hold" {
		t.Fatalf("bot ask after hold:\n%s", r)
	}

	// By number, with value=Label options: the value is printed.
	pick := b.ask(t, "--choice", "--question", "Which region?", "--option", "eu=Europe", "--option", "us=United States")
	b.waitPending(t, 1, pick)
	if r := b.answer(t, "1", "2"); r.code != 0 || !strings.Contains(r.stdout, "United States by admin") {
		t.Fatalf("bot answer 1 2:\n%s", r)
	}
	if r := pick.wait(t); r.code != 0 || strings.TrimSpace(r.stdout) != "us" {
		t.Fatalf("bot ask after 2:\n%s", r)
	}

	// With allow_text, other words are taken as the person's own words, and said so.
	own := b.ask(t, "--question", "Release when?", "--option", "Today", "--option", "Tomorrow", "--allow-text")
	b.waitPending(t, 1, own)
	r = b.answer(t, "1", "after", "the", "freeze")
	if r.code != 0 || !strings.Contains(r.stdout, "Taken as your own words") || !strings.Contains(r.stdout, "none of the offered answers") {
		t.Fatalf("bot answer 1 after the freeze:\n%s", r)
	}
	if r := own.wait(t); r.code != 0 || strings.TrimSpace(r.stdout) != "after the freeze" {
		t.Fatalf("bot ask after own words:\n%s", r)
	}

	// A multiple choice takes numbers and words separated by commas; one value a line.
	multi := b.ask(t, "--question", "Which checks?", "--multiple", "--option", "lint", "--option", "unit", "--option", "e2e")
	b.waitPending(t, 1, multi)
	if r := b.answer(t, "1", "1, E2E"); r.code != 0 {
		t.Fatalf("bot answer 1 1, E2E:\n%s", r)
	}
	if r := multi.wait(t); r.code != 0 || r.stdout != "lint\ne2e\n" {
		t.Fatalf("bot ask --multiple:\n%s", r)
	}

	// A text question takes the words as they are.
	text := b.ask(t, "--text", "--question", "Release name?")
	b.waitPending(t, 1, text)
	if r := b.answer(t, "1", "2"); r.code != 0 {
		t.Fatalf("bot answer 1 2 (text):\n%s", r)
	}
	if r := text.wait(t); r.code != 0 || strings.TrimSpace(r.stdout) != "2" {
		t.Fatalf("bot ask --text:\n%s", r)
	}
}

func TestNumbersAreOldestFirst(t *testing.T) {
	t.Parallel()
	b := setup(t)
	first := b.ask(t, "--confirm", "--question", "First?")
	b.waitPending(t, 1, first)
	second := b.ask(t, "--confirm", "--question", "Second?")
	qs := b.waitPending(t, 2, second)
	if qs[0].Question != "First?" || qs[1].Question != "Second?" || qs[1].Number != 2 {
		t.Fatalf("numbering: %+v", qs)
	}
	if r := b.answer(t, "2", "no"); r.code != 0 || !strings.Contains(r.stdout, "\n   │ Second?\n") {
		t.Fatalf("bot answer 2 no:\n%s", r)
	}
	if r := second.wait(t); r.code != exitNo {
		t.Fatalf("second:\n%s", r)
	}
	if r := b.answer(t, "1", "--decline", "not", "my", "call"); r.code != 0 || !strings.Contains(r.stdout, "declined") {
		t.Fatalf("bot answer 1 --decline:\n%s", r)
	}
	if r := first.wait(t); r.code != exitDeclined || !strings.Contains(r.stderr, "declined by admin: not my call") {
		t.Fatalf("first after a decline:\n%s", r)
	}
	if r := b.answer(t, "1", "yes"); r.code != exitUsage || !strings.Contains(r.stderr, "there is no question 1") {
		t.Fatalf("bot answer 1 with nothing pending:\n%s", r)
	}
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// Without a default, an expiry is nobody deciding: exit 3.
	none := b.ask(t, "--confirm", "--question", "Expire me?", "--expires-in", "1s")
	// With a default, it is assumed, said so on stderr, and exits as the answer would.
	no := b.ask(t, "--confirm", "--question", "Assume no?", "--expires-in", "1s", "--default", "no")
	yes := b.ask(t, "--confirm", "--question", "Assume yes?", "--expires-in", "1s", "--default", "yes")

	if r := none.wait(t); r.code != exitDeclined || r.stdout != "" || !strings.Contains(r.stderr, "expired") {
		t.Errorf("expired without default:\n%s", r)
	}
	if r := no.wait(t); r.code != exitNo || strings.TrimSpace(r.stdout) != "no" || !strings.Contains(r.stderr, "assumed its default") {
		t.Errorf("expired with default no:\n%s", r)
	}
	if r := yes.wait(t); r.code != exitOK || strings.TrimSpace(r.stdout) != "yes" || !strings.Contains(r.stderr, "assumed its default") {
		t.Errorf("expired with default yes:\n%s", r)
	}

	list := b.bot(t, "", "questions", "--all")
	for _, want := range []string{"No questions are waiting", "Resolved", "Assume no?", "assumed: nobody answered in time", "expired: nobody decided"} {
		if !strings.Contains(list.stdout, want) {
			t.Errorf("bot questions --all lacks %q:\n%s", want, list)
		}
	}
}

func TestPolicyDefaultAndRefuse(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.ask(t, "--confirm", "--question", "Auto?", "--default", "yes", "--policy", "default").wait(t)
	if r.code != exitOK || strings.TrimSpace(r.stdout) != "yes" || !strings.Contains(r.stderr, "assumed by policy") {
		t.Fatalf("--policy default:\n%s", r)
	}
	var rec inquiry.Record
	r = b.ask(t, "--confirm", "--question", "Auto?", "--default", "yes", "--policy", "default", "--json").wait(t)
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || r.code != exitOK {
		t.Fatalf("--json: %v\n%s", err, r)
	}
	if rec.Status != inquiry.StatusAnswered || rec.Answer == nil || rec.Answer.Source != inquiry.SourceDefault || rec.Config.Policy != inquiry.PolicyDefault {
		t.Errorf("--json printed %+v", rec)
	}
	list := b.bot(t, "", "questions", "--all")
	if !strings.Contains(list.stdout, "Auto?") || !strings.Contains(list.stdout, "assumed by policy") {
		t.Errorf("bot questions --all does not mark the assumption:\n%s", list)
	}
	r = b.ask(t, "--confirm", "--question", "Refused?", "--policy", "refuse").wait(t)
	if r.code != exitDeclined {
		t.Errorf("--policy refuse:\n%s", r)
	}
}

func TestUnavailableAndTimeout(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// This server has no Slack: asking through it fails at once, fatally.
	start := time.Now()
	r := b.ask(t, "--confirm", "--question", "Via Slack?", "--transport", "slack").wait(t)
	if r.code != exitUnavailable || r.stderr == "" || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("--transport slack without Slack:\n%s", r)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("--transport slack took %s; want at once", d)
	}
	// Naming a channel means asking in Slack: the same, without --transport.
	r = b.ask(t, "--confirm", "--question", "In a channel?", "--channel", "C0123456789").wait(t)
	if r.code != exitUnavailable || !strings.Contains(r.stderr, "SLACK_BOT_TOKEN") {
		t.Errorf("--channel without Slack:\n%s", r)
	}

	// Nobody answers within --timeout: exit 3, the key on stderr, the question left pending.
	r = b.ask(t, "--text", "--question", "Anyone there?", "--timeout", "2s").wait(t)
	if r.code != exitDeclined || !strings.Contains(r.stderr, "nobody answered within 2s") || !strings.Contains(r.stderr, "inq_") {
		t.Fatalf("--timeout 2s:\n%s", r)
	}
	qs := b.questions(t)
	if len(qs) != 1 || !strings.Contains(r.stderr, qs[0].Key) {
		t.Fatalf("after the timeout: %+v\n%s", qs, r)
	}
	// Answered later, the same command with the --id it printed picks the answer up (without
	// --id it would ask anew).
	if !strings.Contains(r.stderr, "--id "+qs[0].ID) {
		t.Errorf("after the timeout, stderr does not say to run again with --id %s:\n%s", qs[0].ID, r)
	}
	if r := b.answer(t, qs[0].Key, "nobody", "but", "me"); r.code != 0 {
		t.Fatalf("bot answer KEY:\n%s", r)
	}
	if r := b.ask(t, "--text", "--question", "Anyone there?", "--timeout", "2s", "--id", qs[0].ID).wait(t); r.code != 0 || strings.TrimSpace(r.stdout) != "nobody but me" {
		t.Fatalf("the same bot ask with its --id after the answer:\n%s", r)
	}

	// Usage errors are exit 2 with one sentence.
	if r := b.ask(t, "--confirm").wait(t); r.code != exitUsage || !strings.Contains(r.stderr, "--question is required") {
		t.Errorf("bot ask without --question:\n%s", r)
	}
	if r := b.ask(t, "--question", "Pick?", "--option", "a", "--option", "a").wait(t); r.code != exitUsage || strings.Contains(r.stderr, b.asker) {
		t.Errorf("bot ask with duplicate options:\n%s", r)
	}
}

func TestRuns(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ship := b.ask(t, "--run", "deploy-42", "--confirm", "--question", "Ship it?")
	b.waitPending(t, 1, ship)
	var list result
	eventually(t, "the run to wait", func() bool {
		list = b.bot(t, "", "runs")
		return strings.Contains(list.stdout, "waiting")
	})
	for _, want := range []string{"RUN", "WAITING ON", "deploy-42", "asker", "waiting", `"Ship it?"`, "inq_"} {
		if !strings.Contains(list.stdout, want) {
			t.Errorf("bot runs lacks %q:\n%s", want, list)
		}
	}
	if r := b.answer(t, "1", "yes"); r.code != 0 {
		t.Fatalf("bot answer:\n%s", r)
	}
	if r := ship.wait(t); r.code != exitOK || strings.TrimSpace(r.stdout) != "yes" {
		t.Fatalf("bot ask --run:\n%s", r)
	}
	if r := b.bot(t, b.asker, "runs", "--status", "sleeping"); r.code != exitUsage ||
		!strings.Contains(r.stderr, `--status "sleeping" is not one of running, waiting, completed, failed or abandoned: use one of them, or leave it out for all`) {
		t.Errorf("bot runs --status sleeping:\n%s", r)
	}
	r := b.bot(t, b.asker, "runs", "--json", "--status", "running")
	var out struct {
		Runs []client.Run `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Runs) != 1 {
		t.Fatalf("bot runs --json --status running: %v\n%s", err, r)
	}
	got := out.Runs[0]
	if got.ID != "deploy-42" || got.WaitingOn != nil || len(got.Answers) != 1 {
		t.Errorf("run = %+v", got)
	}
	var shipID string
	for id, a := range got.Answers {
		if !strings.HasPrefix(id, "cli:") || a.Value.First() != "yes" {
			t.Errorf("run answers = %+v", got.Answers)
		}
		shipID = id
	}
	// A re-entry of the same step, by its --id, returns the recorded answer at once.
	if r := b.ask(t, "--run", "deploy-42", "--id", shipID, "--confirm", "--question", "Ship it?", "--timeout", "3s").wait(t); r.code != 0 || strings.TrimSpace(r.stdout) != "yes" {
		t.Fatalf("bot ask --run --id again:\n%s", r)
	}
	// Without --id, each bot ask is a new ask, in a run too.
	if r := b.ask(t, "--run", "deploy-42", "--confirm", "--question", "Ship it?", "--timeout", "0").wait(t); r.code != exitDeclined || r.stdout != "" || !strings.Contains(r.stderr, "stays pending") {
		t.Fatalf("bot ask --run without --id again:\n%s", r)
	}
	if qs := b.questions(t); len(qs) != 1 || qs[0].RunID != "deploy-42" || qs[0].ID == shipID || !strings.HasPrefix(qs[0].ID, shipID[:len("cli:")+16]) {
		t.Fatalf("after bot ask --run without --id again: %+v", qs)
	}
}

// TestAskWithoutIDAsksAnew: a cron job's bot ask without --id asks a new question each run — the
// second day is asked, not answered at once by the first day's yes — while with --id a retry of
// the same step finds the same inquiry and its answer.
func TestAskWithoutIDAsksAnew(t *testing.T) {
	t.Parallel()
	b := setup(t)
	deploy := []string{"--confirm", "--question", "Deploy to production?"}

	first := b.ask(t, deploy...)
	day1 := b.waitPending(t, 1, first)[0]
	if r := b.answer(t, day1.Key, "yes"); r.code != 0 {
		t.Fatalf("bot answer:\n%s", r)
	}
	if r := first.wait(t); r.code != exitOK || strings.TrimSpace(r.stdout) != "yes" {
		t.Fatalf("the first bot ask:\n%s", r)
	}
	second := b.ask(t, deploy...)
	day2 := b.waitPending(t, 1, second)[0] // fails if it ended, answered by day 1's yes
	if day2.Key == day1.Key || day2.ID == day1.ID {
		t.Fatalf("the second run found the first's inquiry: %s %s", day2.Key, day2.ID)
	}
	for _, id := range []string{day1.ID, day2.ID} {
		// The derived id (the same question's) and a fresh part, within the id's limits.
		parts := strings.SplitN(id, ":", 3)
		if len(parts) != 3 || parts[0] != "cli" || len(parts[1]) != 16 || parts[2] == "" || len(id) > inquiry.MaxIDChars || !strings.HasPrefix(day2.ID, "cli:"+parts[1]+":") {
			t.Errorf("id %q: want cli:<fingerprint>:<fresh part>, at most %d characters", id, inquiry.MaxIDChars)
		}
		if r, bad := inquiry.Unprintable(id); bad {
			t.Errorf("id %q has the unprintable %U", id, r)
		}
	}
	if r := b.answer(t, day2.Key, "no"); r.code != 0 {
		t.Fatalf("bot answer:\n%s", r)
	}
	if r := second.wait(t); r.code != exitNo || strings.TrimSpace(r.stdout) != "no" {
		t.Fatalf("the second bot ask:\n%s", r)
	}

	// With --id, a retry of the same step finds the same inquiry and its answer, without asking.
	step := append([]string{"--id", "deploy-2026-04-12"}, deploy...)
	p := b.ask(t, step...)
	q := b.waitPending(t, 1, p)[0]
	if q.ID != "deploy-2026-04-12" {
		t.Errorf("--id deploy-2026-04-12 asked %q", q.ID)
	}
	if r := b.answer(t, q.Key, "yes"); r.code != 0 {
		t.Fatalf("bot answer:\n%s", r)
	}
	if r := p.wait(t); r.code != exitOK {
		t.Fatalf("bot ask --id:\n%s", r)
	}
	again := b.ask(t, append(step, "--timeout", "5s")...).wait(t)
	if again.code != exitOK || strings.TrimSpace(again.stdout) != "yes" || strings.Contains(again.stderr, "waiting") {
		t.Fatalf("the same bot ask --id again:\n%s", again)
	}
	all, err := client.New(b.url, b.admin).ListAll(context.Background(), client.ListOptions{Limit: 500}, maxListed)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range all {
		if r.ID == "deploy-2026-04-12" {
			n++
		}
	}
	if n != 1 || len(all) != 3 {
		t.Errorf("%d inquiries of id deploy-2026-04-12 among %d; want 1 among 3", n, len(all))
	}
}

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
		if !strings.Contains(flat(list.stdout), want) {
			t.Errorf("bot questions lacks %q:\n%s", want, list)
		}
	}

	// Four eyes: who asked for the approval may not give it, whatever their scope.
	if r := b.bot(t, carol, "answer", "1", "yes"); r.code != exitUsage ||
		!strings.Contains(r.stderr, "carol asked for this approval (requested_by): someone else must give it") {
		t.Fatalf("bot answer by the requester:\n%s", r)
	}

	r := b.bot(t, ana, "answer", "1", "yes")
	if r.code != 0 || !strings.Contains(r.stdout, "Your vote for "+q.Key+" is recorded") || !strings.Contains(flat(r.stdout), "Not decided yet: 1 of 2 approvals: ana") || !strings.Contains(r.stdout, "\n   │ Merge #42?\n") {
		t.Fatalf("the first yes:\n%s", r)
	}
	list = b.bot(t, "", "questions")
	if !strings.Contains(flat(list.stdout), "so far: 1 of 2 approvals: ana") {
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
	if r.code != 0 || !strings.Contains(flat(r.stdout), `No — vetoed by ana: "not on a Friday"`) {
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

// TestAskWithDeadlinesAndExtend: bot ask --remind, --escalate, --extend-by and --extend-max with
// the built binary against a real server; bot questions shows where the deadlines stand, and
// bot extend moves the expiry as the asker allows and no further.
func TestAskWithDeadlinesAndExtend(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ana := b.createToken(t, "ana", "answer")
	gate := b.ask(t, "--confirm", "--question", "Ship it?", "--expires-in", "2h", "--default", "no",
		"--remind", "30m", "--remind", "5m", "--escalate", "after=1h,answerers=S0LEADS1+U0BOB1,mention",
		"--extend-by", "1h", "--extend-max", "90m")
	q := b.waitPending(t, 1, gate)[0]
	if got := q.Remind; len(got) != 2 || got[0] != inquiry.Duration(30*time.Minute) || got[1] != inquiry.Duration(5*time.Minute) {
		t.Fatalf("remind = %v", got)
	}
	if len(q.Escalate) != 1 || strings.Join(q.Escalate[0].Answerers, "|") != "S0LEADS1|U0BOB1" || !q.Escalate[0].Mention {
		t.Fatalf("escalate = %+v", q.Escalate)
	}
	list := b.bot(t, "", "questions")
	for _, want := range []string{"not escalated yet (1 step(s))", "0 reminder(s) sent, 2 to come"} {
		if !strings.Contains(list.stdout, want) {
			t.Errorf("bot questions lacks %q:\n%s", want, list)
		}
	}

	r := b.bot(t, ana, "extend", "1")
	if r.code != 0 || !strings.Contains(r.stdout, "Deadline extended by 1h, to ") {
		t.Fatalf("bot extend 1:\n%s", r)
	}
	after := b.questions(t)[0]
	if got := after.ExpiresAt.Sub(*q.ExpiresAt); got != time.Hour {
		t.Errorf("the expiry moved by %s, want 1h", got)
	}
	if r := b.bot(t, ana, "extend", q.Key, "1h"); r.code == 0 || !strings.Contains(r.stderr, "more than the 30m left of extend.max 1h30m") {
		t.Errorf("bot extend past extend.max:\n%s", r)
	}
	if r := b.bot(t, ana, "extend", q.Key, "soon"); r.code != exitUsage || !strings.Contains(r.stderr, `"soon" is not a positive duration`) {
		t.Errorf("bot extend soon:\n%s", r)
	}
	// A second extension says what it gave, and the total apart (it used to say the total only).
	if r := b.bot(t, ana, "extend", q.Key, "30m"); r.code != 0 || !strings.Contains(r.stdout, "Deadline extended by 30m, to ") || !strings.Contains(r.stdout, "(1h30m in all)") {
		t.Errorf("bot extend by the 30m left:\n%s", r)
	}
	if list = b.bot(t, "", "questions"); !strings.Contains(flat(list.stdout), "extended by 1h") {
		t.Errorf("bot questions lacks the extension:\n%s", list)
	}
	if log := b.bot(t, "", "log", q.Key); !strings.Contains(log.stdout, "extended") || !strings.Contains(log.stdout, "by 1h (in all 1h)") {
		t.Errorf("bot log lacks the extension:\n%s", log)
	}
	if r := b.bot(t, ana, "answer", "1", "yes"); r.code != 0 {
		t.Fatalf("bot answer:\n%s", r)
	}
	if res := gate.wait(t); res.code != 0 {
		t.Fatalf("bot ask after a yes:\n%s", res)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--remind", "10m"}, "remind needs an expiry"},
		{[]string{"--expires-in", "1h", "--remind", "2h"}, "falls at or before now"},
		{[]string{"--expires-in", "1h", "--escalate", "after=2h,channel=C0OPS1"}, "falls at or after the expiry"},
		{[]string{"--expires-in", "1h", "--escalate", "channel=C0OPS1"}, "a step needs after="},
		{[]string{"--expires-in", "1h", "--extend-by", "1h"}, "--extend-by and --extend-max go together"},
	} {
		r := b.ask(t, append([]string{"--confirm", "--question", "Refused?"}, c.args...)...).wait(t)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("bot ask %q: want exit 2 saying %q\n%s", c.args, c.want, r)
		}
	}
}

// TestLog: bot log prints an inquiry's record, one event a line (time, type, who, what), and
// --json as the API gives it; a token of another namespace reads nothing of it.
func TestLog(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ship := b.ask(t, "--confirm", "--question", "Ship it?")
	key := b.waitPending(t, 1, ship)[0].Key
	if r := b.answer(t, "1", "no"); r.code != 0 {
		t.Fatalf("bot answer:\n%s", r)
	}
	if r := ship.wait(t); r.code != exitNo {
		t.Fatalf("bot ask:\n%s", r)
	}

	r := b.bot(t, b.asker, "log", key)
	if r.code != 0 {
		t.Fatalf("bot log:\n%s", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("bot log printed %d lines, want created and answered:\n%s", len(lines), r)
	}
	for i, want := range [][]string{
		{"created", "asker", `confirm "Ship it?"`, "policy ask", "transport inbox"},
		{"answered", "admin", "no"},
	} {
		f := strings.Fields(lines[i])
		if len(f) < 4 || !strings.HasSuffix(f[1], "Z") || f[2] != want[0] || f[3] != want[1] {
			t.Errorf("line %d is not TIME TYPE BY SUMMARY with %v: %q", i, want[:2], lines[i])
		}
		for _, w := range want[2:] {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d lacks %q: %q", i, w, lines[i])
			}
		}
	}

	r = b.bot(t, b.asker, "log", key, "--json")
	var out struct {
		Events []inquiry.Event `json:"events"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("bot log --json: %v\n%s", err, r)
	}
	if len(out.Events) != 2 || out.Events[0].Type != inquiry.EventCreated || out.Events[1].Type != inquiry.EventAnswered ||
		out.Events[0].InquiryKey != key || out.Events[0].ID >= out.Events[1].ID || !strings.Contains(r.stdout, `"id": "`) {
		t.Errorf("bot log --json:\n%s", r)
	}

	other := b.createToken(t, "elsewhere", "ask")
	if r := b.bot(t, other, "log", key); r.code != exitUsage || !strings.Contains(r.stderr, "another namespace") {
		t.Errorf("bot log by another namespace:\n%s", r)
	}
	if r := b.bot(t, b.asker, "log", "inq_nothere"); r.code != exitUsage || !strings.Contains(r.stderr, "inq_nothere") {
		t.Errorf("bot log of no inquiry:\n%s", r)
	}
	if r := b.bot(t, b.asker, "log"); r.code != exitUsage || !strings.Contains(r.stderr, "one inquiry key") {
		t.Errorf("bot log without a key:\n%s", r)
	}
}

// ---- in process: the reading of typed answers ----

func TestReadReply(t *testing.T) {
	t.Parallel()
	choice := &inquiry.Inquiry{Kind: inquiry.KindChoice, Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}}}
	withText := *choice
	withText.AllowText = true
	multi := &inquiry.Inquiry{Kind: inquiry.KindChoice, Multiple: true, Options: []inquiry.Option{{Value: "a", Label: "A"}, {Value: "b", Label: "B"}, {Value: "c", Label: "C"}}}
	confirm := &inquiry.Inquiry{Kind: inquiry.KindConfirm}
	text := &inquiry.Inquiry{Kind: inquiry.KindText}
	tests := []struct {
		name    string
		in      *inquiry.Inquiry
		words   string
		decline bool
		want    client.Reply
		note    bool
		refused string
	}{
		{"number", choice, "1", false, client.Reply{Value: inquiry.One("merge")}, false, ""},
		{"words", choice, "  hold ", false, client.Reply{Value: inquiry.One("hold")}, false, ""},
		{"value", choice, "MERGE", false, client.Reply{Value: inquiry.One("merge")}, false, ""},
		{"out of range is words", choice, "3", false, client.Reply{}, false, `"3" is none of the offered answers: 1 Merge, 2 Hold`},
		{"sentence with an option", choice, "hold it", false, client.Reply{}, false, `"hold it" is none of the offered answers: 1 Merge, 2 Hold`},
		{"own words", &withText, "hold it for now", false, client.Reply{Text: "hold it for now"}, true, ""},
		{"own words still pick an option", &withText, "Hold", false, client.Reply{Value: inquiry.One("hold")}, false, ""},
		{"confirm yes", confirm, "YES", false, client.Reply{Value: inquiry.One("yes")}, false, ""},
		{"confirm number", confirm, "2", false, client.Reply{Value: inquiry.One("no")}, false, ""},
		{"confirm y", confirm, "y", false, client.Reply{}, false, `"y" is none of the offered answers: 1 Yes, 2 No`},
		{"multiple", multi, "1, c,3", false, client.Reply{Value: inquiry.Many("a", "c")}, false, ""},
		{"multiple miss", multi, "a, d", false, client.Reply{}, false, `"d" is none of the offered answers: 1 A, 2 B, 3 C`},
		{"text number", text, "2", false, client.Reply{Text: "2"}, false, ""},
		{"decline", choice, "not mine", true, client.Reply{Declined: true, Text: "not mine"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, note, err := readReply(tt.in, tt.words, tt.decline)
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("err = %v, want it to say %q", err, tt.refused)
				}
				if code := err.(*exitError).code; code != exitUsage {
					t.Errorf("exit %d, want %d", code, exitUsage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.Value.Equal(tt.want.Value) || got.Text != tt.want.Text || got.Declined != tt.want.Declined {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if (note != "") != tt.note {
				t.Errorf("note = %q", note)
			}
		})
	}
}

func TestAskRequestFromFlags(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) (client.AskRequest, error) {
		var f askFlags
		fs := flag.NewFlagSet("ask", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return f.request()
	}
	req, err := parse("--question", "Merge?", "--option", "merge=Merge now", "--option", "Hold", "--default", "merge now")
	if err != nil {
		t.Fatal(err)
	}
	if req.Kind != inquiry.KindChoice || req.Options[0] != (inquiry.Option{Value: "merge", Label: "Merge now"}) ||
		req.Options[1] != (inquiry.Option{Value: "Hold", Label: "Hold"}) || req.Default.First() != "merge" ||
		req.Config.Policy != inquiry.PolicyAsk || !strings.HasPrefix(req.ID, "cli:") {
		t.Errorf("request = %+v", req)
	}
	// Without --id, each run asks anew: the same command gives another id, which begins with the
	// same derived id (the question's fingerprint); another question another derived id.
	same, _ := parse("--question", "Merge?", "--option", "merge=Merge now", "--option", "Hold", "--default", "merge now")
	other, _ := parse("--question", "Merge?", "--option", "merge=Merge now", "--option", "Hold")
	derived := func(id string) string { return id[:strings.LastIndex(id, ":")] }
	if same.ID == req.ID || derived(same.ID) != derived(req.ID) || derived(other.ID) == derived(req.ID) {
		t.Errorf("ids %s %s %s: want the same command to give another id of the same derived one, and another question another", req.ID, same.ID, other.ID)
	}
	if fixed, _ := parse("--question", "Merge?", "--id", "  merge-42 "); fixed.ID != "merge-42" {
		t.Errorf("--id merge-42: id %q", fixed.ID)
	}
	if req, _ := parse("--question", "Why?"); req.Kind != inquiry.KindText {
		t.Errorf("no kind, no options: %s, want text", req.Kind)
	}
	if req, _ := parse("--question", "Which?", "--multiple", "--option", "a", "--option", "b", "--default", "A,b"); !req.Default.Equal(inquiry.Many("a", "b")) {
		t.Errorf("multiple default = %v", req.Default)
	}
	// A team approval passes through as given, for the server's rules to judge; a flag left out
	// is no field.
	req, _ = parse("--confirm", "--question", "Merge #42?", "--approvals", "2", "--no-veto",
		"--requested-by", "U0AUTHOR, ci", "--requested-by", "bob", "--reason", "on_no")
	if a := req.Approval; a.Approvals == nil || *a.Approvals != 2 || a.Veto == nil || *a.Veto ||
		strings.Join(a.RequestedBy, "|") != "U0AUTHOR|ci|bob" || a.Reason != inquiry.ReasonOnNo {
		t.Errorf("approval = %+v", a)
	}
	if zero, _ := parse("--confirm", "--question", "Merge #42?", "--approvals", "0"); zero.Approvals == nil || *zero.Approvals != 0 {
		t.Errorf("--approvals 0 = %v, want it sent for the server to refuse", zero.Approvals)
	}
	plain, _ := parse("--confirm", "--question", "Merge #42?")
	if plain.Approvals != nil || plain.Veto != nil || plain.RequestedBy != nil || plain.Reason != "" {
		t.Errorf("no approval flags: %+v", plain.Approval)
	}
	if two, _ := parse("--confirm", "--question", "Merge #42?", "--approvals", "2"); two.ID == plain.ID {
		t.Errorf("another approval asked the same id %s: a quorum of 2 is another question than one", two.ID)
	}

	for _, args := range [][]string{
		{"--confirm", "--text", "--question", "x"},
		{"--confirm"},
		{"--question", "x", "--option", "only one"},
		{"--confirm", "--question", "x", "--option", "a", "--option", "b"},
		{"--question", "x", "--policy", "sometimes"},
	} {
		if _, err := parse(args...); err == nil || err.(*exitError).code != exitUsage {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
}

func TestParseInterspersed(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("answer", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	decline := fs.Bool("decline", false, "")
	pos, err := parseInterspersed(fs, []string{"1", "--decline", "not", "--", "-mine"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !*decline || strings.Join(pos, "|") != "1|not|-mine" {
		t.Errorf("decline %v, args %q", *decline, pos)
	}
}

// ---- end to end: the help of every command, and tokens ----

// TestHelpOfEveryCommand runs the real binary with -h and --help after every command and every
// token subcommand (and alone): each prints its usage once, to stdout, and exits 0. Nothing else
// happens: no server is reached and no database is opened.
func TestHelpOfEveryCommand(t *testing.T) {
	t.Parallel()
	lines := [][]string{{}} // bot -h, bot --help
	for _, c := range commands() {
		lines = append(lines, []string{c.name})
	}
	for _, sub := range []string{"create", "list", "revoke"} {
		lines = append(lines, []string{"token", sub})
	}
	for _, words := range lines {
		for _, flag := range []string{"-h", "--help"} {
			args := append(append([]string{}, words...), flag)
			name := strings.Join(args, " ")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				r := runIn(t, dir, []string{
					"DATABASE_URL=sqlite:" + filepath.Join(dir, "bot.db"),
					"BOT_URL=http://127.0.0.1:1", // nothing listens: a command that ran instead would fail
					"BOT_TOKEN=bot_none_none",
				}, args...)
				want := strings.TrimSpace("usage: bot " + strings.Join(words, " "))
				got := r.stdout
				if r.code != 0 || r.stderr != "" || strings.Count(strings.ToLower(got), "usage:") != 1 || !strings.HasPrefix(got, want) {
					t.Errorf("bot %s: exit %d, want 0 with one usage starting %q on stdout and nothing on stderr\nstdout:\n%s\nstderr:\n%s", name, r.code, want, got, r.stderr)
				}
				if _, err := os.Stat(filepath.Join(dir, "bot.db")); err == nil {
					t.Errorf("bot %s opened the database", name)
				}
			})
		}
	}
}

// tokenCLI runs `bot token ...` with exactly env (and PATH and HOME), in dir as the current
// directory, the way an operator on another machine runs it.
func tokenCLI(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return runIn(t, dir, env, append([]string{"token"}, args...)...)
}

// lastLine is the last line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// TestTokenThroughTheAPI manages tokens with only BOT_URL and BOT_TOKEN set, from a directory
// that holds no database: the tokens are made, listed and revoked on the server the operator
// names (before, they went to a new ./inquiry-bot.db, a created token got 401 and a live token
// could not be revoked). A token without the admin scope is refused, and nothing is ever opened
// in the current directory.
func TestTokenThroughTheAPI(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	elsewhere := t.TempDir()
	remote := []string{"BOT_URL=" + s.url, "BOT_TOKEN=" + s.admin}

	r := tokenCLI(t, elsewhere, remote, "create", "--name", "ci-agent", "--scope", "ask")
	if r.code != 0 || !strings.Contains(r.stderr, `created token "ci-agent"`) {
		t.Fatalf("bot token create through the API:\n%s", r)
	}
	agent := lastLine(r.stdout)
	if code, body := call(t, "GET", s.url+"/v1/inquiries", agent, ""); code != 200 {
		t.Fatalf("the token made through the API gets %d: %s", code, body)
	}

	// An admin token made remotely is an admin of the same server.
	r = tokenCLI(t, elsewhere, remote, "create", "--name", "ops", "--scope", "admin")
	if r.code != 0 {
		t.Fatalf("bot token create --scope admin:\n%s", r)
	}
	ops := lastLine(r.stdout)
	if code, body := call(t, "GET", s.url+"/v1/runs", ops, ""); code != 200 {
		t.Fatalf("the admin token made through the API gets %d: %s", code, body)
	}

	// The list is the server's: both names, no token, and the server's callback secret (the
	// same one the database holds).
	list := tokenCLI(t, elsewhere, remote, "list")
	local := tokenCLI(t, elsewhere, []string{"DATABASE_URL=sqlite:" + filepath.Join(s.dir, "bot.db")}, "list")
	if list.code != 0 || local.code != 0 {
		t.Fatalf("bot token list:\n%s\nlocal:\n%s", list, local)
	}
	for _, name := range []string{"admin", "ci-agent", "ops"} {
		if !strings.Contains(list.stdout, name) {
			t.Errorf("bot token list through the API does not list %s:\n%s", name, list)
		}
	}
	for _, secret := range []string{s.admin, agent, ops} {
		_, sec, _ := strings.Cut(strings.TrimPrefix(secret, "bot_"), "_")
		if strings.Contains(list.stdout+list.stderr, sec) {
			t.Errorf("bot token list printed a token's secret:\n%s", list)
		}
	}
	if got, want := lastLine(list.stdout), lastLine(local.stdout); got != want || !strings.HasPrefix(got, "callback secret") || strings.Contains(got, "not generated") {
		t.Errorf("callback secret line through the API %q, in the database %q", got, want)
	}

	// Revoking through the API revokes on the server: the token is refused at once.
	r = tokenCLI(t, elsewhere, remote, "revoke", "ci-agent")
	if r.code != 0 || !strings.Contains(r.stdout, "revoked ci-agent") {
		t.Fatalf("bot token revoke through the API:\n%s", r)
	}
	if code, body := call(t, "GET", s.url+"/v1/inquiries", agent, ""); code != 401 {
		t.Fatalf("a revoked token gets %d: %s", code, body)
	}
	r = tokenCLI(t, elsewhere, remote, "revoke", "no-such-token")
	if r.code != exitUsage || !strings.Contains(r.stderr, `no token named "no-such-token"`) {
		t.Errorf("bot token revoke of an unknown name:\n%s", r)
	}
	r = tokenCLI(t, elsewhere, remote, "create", "--name", "ops", "--scope", "ask")
	if r.code != exitUsage || !strings.Contains(r.stderr, `"ops" exists already`) {
		t.Errorf("bot token create of a name in use:\n%s", r)
	}

	// Only an admin token manages tokens.
	asker := []string{"BOT_URL=" + s.url, "BOT_TOKEN=" + s.createToken(t, "asker", "ask")}
	for _, args := range [][]string{{"create", "--name", "sneaky", "--scope", "admin"}, {"list"}, {"revoke", "ops"}} {
		r := tokenCLI(t, elsewhere, asker, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "admin scope") || strings.Contains(r.stdout, "callback secret") {
			t.Errorf("bot token %s with an ask token:\n%s", strings.Join(args, " "), r)
		}
	}
	if code, _ := call(t, "GET", s.url+"/v1/runs", ops, ""); code != 200 {
		t.Errorf("an ask token revoked the admin token ops")
	}

	entries, err := os.ReadDir(elsewhere)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "inquiry-bot.db") {
			t.Errorf("bot token opened %s in the current directory", e.Name())
		}
	}
}

// TestTokenLocalWithoutBotURL keeps the database path: with DATABASE_URL (and no BOT_URL) the
// token is written to that database, and the server it belongs to accepts it.
func TestTokenLocalWithoutBotURL(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	db := []string{"DATABASE_URL=sqlite:" + filepath.Join(s.dir, "bot.db")}
	r := tokenCLI(t, t.TempDir(), db, "create", "--name", "local", "--scope", "answer")
	if r.code != 0 {
		t.Fatalf("bot token create on the database:\n%s", r)
	}
	tok := lastLine(r.stdout)
	if code, body := call(t, "GET", s.url+"/v1/inquiries", tok, ""); code != 200 {
		t.Fatalf("the token made on the database gets %d: %s", code, body)
	}
	if r := tokenCLI(t, t.TempDir(), db, "revoke", "local"); r.code != 0 {
		t.Fatalf("bot token revoke on the database:\n%s", r)
	}
	// Another process revoked it: the server refuses it at its next request.
	eventually(t, "the token revoked on the database to be refused", func() bool {
		code, _ := call(t, "GET", s.url+"/v1/inquiries", tok, "")
		return code == 401
	})

	// With neither BOT_URL nor DATABASE_URL it is the default file here, as before, but it says so.
	here := t.TempDir()
	r = tokenCLI(t, here, nil, "create", "--name", "local", "--scope", "ask")
	if r.code != 0 || !strings.Contains(r.stderr, "neither BOT_URL nor DATABASE_URL is set: using the database sqlite:inquiry-bot.db in the current directory") {
		t.Errorf("bot token create with neither variable:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(here, "inquiry-bot.db")); err != nil {
		t.Errorf("the default database: %v", err)
	}
}
