package proposaltest

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestContentKeepsItsWord: n lines of each format, 50 of them within 3,000 characters with
// markup of a few words, and JSON that parses; each cut shows the beginning of its content.
func TestContentKeepsItsWord(t *testing.T) {
	m := Markup{JSON: "**check**", Markdown: "[run](https://evil.example) <at>Alice</at>"}
	for _, f := range Formats {
		for _, n := range []int{3, 50, 51} {
			c := Content(f, n, m)
			if got := strings.Count(c, "\n") + 1; got != n {
				t.Errorf("%s, %d lines: has %d", f, n, got)
			}
			if f == inquiry.FormatJSON && !json.Valid([]byte(c)) {
				t.Errorf("%s, %d lines: does not parse", f, n)
			}
			if n == 50 && utf8.RuneCountInString(c) > 3000 {
				t.Errorf("%s, 50 lines: %d characters, more than 3,000", f, utf8.RuneCountInString(c))
			}
		}
	}
	for _, c := range Cuts(50, 3000) {
		if !strings.HasPrefix(c.Content, c.Shown) || (c.Sentence == "") != (c.Shown == c.Content) {
			t.Errorf("%s: shows %d of %d bytes, sentence %q", c.Name, len(c.Shown), len(c.Content), c.Sentence)
		}
	}
}
