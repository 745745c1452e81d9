package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

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
