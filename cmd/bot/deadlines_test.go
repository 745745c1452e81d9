package main

import (
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

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
	if list = b.bot(t, "", "questions"); !strings.Contains(list.stdout, "extended by 1h") {
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
