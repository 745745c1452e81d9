package inquiry_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestExcerptOf: a surface shows whole lines within both bounds, says how much when it shows
// less, and never cuts silently.
func TestExcerptOf(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat("x", i%7+1) + "\n")
		}
		return b.String()
	}
	tests := []struct {
		name, content      string
		maxLines, maxChars int
		wantLines          int
		want               string
	}{
		{"whole at the line bound", lines(50), 50, 3000, 50, ""},
		{"one line past it", lines(51), 50, 3000, 50, "Shortened: the first 50 of 51 lines are shown."},
		{"the character bound", strings.Repeat("abcd\n", 1000), 50, 14, 3, "Shortened: the first 3 of 1,000 lines are shown."},
		{"one long line", strings.Repeat("é", 3001), 50, 3000, 0, "Shortened: the first 3,000 of 3,001 characters are shown."},
		{"one line exactly at the bound", strings.Repeat("é", 3000), 50, 3000, 1, ""},
		{"CRLF is one break", "a\r\nb\r\n", 1, 3000, 1, "Shortened: the first 1 of 2 lines are shown."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := inquiry.ExcerptOf(tt.content, tt.maxLines, tt.maxChars)
			require.Equal(t, tt.wantLines, e.Lines)
			require.Equal(t, tt.want, e.Sentence())
			require.Equal(t, tt.want != "", e.Cut())
			require.LessOrEqual(t, len([]rune(e.Text)), tt.maxChars)
			require.NotContains(t, e.Text, "\r")
		})
	}
	// What is shown is shown as Printed shows it: a bidi control is a visible code.
	require.Equal(t, inquiry.Printed("a\u202Eb"), inquiry.ExcerptOf("a\u202Eb", 5, 100).Text)
}
