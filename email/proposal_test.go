package email_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// withProposal is the test's record carrying p.
func withProposal(p inquiry.Proposal) *inquiry.Record {
	rec := record("alice@example.com")
	rec.Proposal = &p
	return rec
}

const link = "https://bot.example/a/k1.alice-at-example.com"

// TestProposalShownWhole: a proposal within the excerpt's bounds is shown whole, quoted as the
// asker's in the plain part and escaped in the HTML part, and nothing says it was shortened.
func TestProposalShownWhole(t *testing.T) {
	diff := "--- a/x.html\n+++ b/x.html\n@@ -1 +1 @@\n-<p>old</p>\n+<script>alert(1)</script>\n"
	m := mailed(t, withProposal(inquiry.Proposal{Format: inquiry.FormatDiff, Title: "PR <42>", Content: diff}))
	require.Contains(t, m.Text, `>
> What it asks you to approve, "PR <42>" (diff):
>
> --- a/x.html
> +++ b/x.html
> @@ -1 +1 @@
> -<p>old</p>
> +<script>alert(1)</script>

(End of the asker's text. Answer only through the link above.)`)
	// The HTML part's colouring, line by line, is TestGolden's; here, escaped and inside the quote.
	require.Contains(t, m.HTML, `<p>What it asks you to approve, &ldquo;PR &lt;42&gt;&rdquo; (diff):</p>`)
	require.Contains(t, m.HTML, `&#43;&lt;script&gt;alert(1)&lt;/script&gt;
</span></pre>
</blockquote>`)
	require.NotContains(t, m.HTML, "<script>")
	require.NotContains(t, m.Text+m.HTML, "Shortened")
	// The proposal sits inside the asker's quote, after the question.
	require.Less(t, strings.Index(m.HTML, "<blockquote"), strings.Index(m.HTML, "What it asks you to approve"))
}

// TestProposalShortened: past 40 lines, or past 4,096 characters, the message shows the first lines, says
// how much of how much, and says in the bot's own words (outside the quote) that the whole is on
// the answer page, with the link — one line over each bound, and one line longer than that.
func TestProposalShortened(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	t.Run("40 lines: whole", func(t *testing.T) {
		m := mailed(t, withProposal(inquiry.Proposal{Content: lines(40)}))
		require.Contains(t, m.Text, "(text):\n>\n> line 1\n")
		require.Contains(t, m.Text, "> line 40\n\n(End of the asker's text.")
		require.NotContains(t, m.Text+m.HTML, "Shortened")
	})
	t.Run("41 lines: the first 40", func(t *testing.T) {
		m := mailed(t, withProposal(inquiry.Proposal{Content: lines(41)}))
		require.Contains(t, m.Text, "(text, the first 40 of its 41 lines):\n>\n> line 1\n")
		require.Contains(t, m.Text, "> line 40\n\nShortened: the whole proposal is on the answer page: "+link+"\n\n(End of the asker's text.")
		require.NotContains(t, m.Text, "line 41")
		require.NotContains(t, m.HTML, "line 41")
		require.Contains(t, m.HTML, "line 40</pre>\n</blockquote>\n<p><strong>Shortened:</strong> the whole proposal is on the answer page: <a href=\""+link+"\">open the whole proposal</a>.</p>")
	})
	t.Run("past 4,096 characters: the lines within them", func(t *testing.T) {
		long := strings.Repeat("x", 1023) + "\n" // four lines are 4,095 characters with their breaks
		m := mailed(t, withProposal(inquiry.Proposal{Format: inquiry.FormatMarkdown, Content: strings.Repeat(long, 4)}))
		require.NotContains(t, m.Text, "Shortened")
		m = mailed(t, withProposal(inquiry.Proposal{Format: inquiry.FormatMarkdown, Content: strings.Repeat(long, 4) + "y\n"}))
		require.Contains(t, m.Text, "(markdown, the first 4 of its 5 lines):")
		require.Contains(t, m.Text, "Shortened: the whole proposal is on the answer page: "+link)
		require.NotContains(t, m.Text, "> y")
	})
	t.Run("one line past 4,096 characters: its first 4,096", func(t *testing.T) {
		m := mailed(t, withProposal(inquiry.Proposal{Format: inquiry.FormatJSON, Content: `"` + strings.Repeat("é", 5000) + `"`}))
		require.Contains(t, m.Text, "(json, the first 4096 of its 5002 characters):\n>\n> \""+strings.Repeat("é", 4095)+"\n\nShortened: the whole proposal is on the answer page: "+link)
		require.Contains(t, m.HTML, "<strong>Shortened:</strong>")
	})
}

// TestProposalPrinted: a character that would rewrite a line in the proposal or its title shows
// as a code in both parts; CRLF line endings are line endings.
func TestProposalPrinted(t *testing.T) {
	m := mailed(t, withProposal(inquiry.Proposal{Title: "fix\u202e", Content: "a\r\nb\u202ec\r\n"}))
	require.Contains(t, m.Text, `"fix⟨U+202E⟩" (text):`+"\n>\n> a\n> b⟨U+202E⟩c\n")
	require.Contains(t, m.HTML, "b⟨U&#43;202E⟩c</pre>")
	require.NotContains(t, m.Text+m.HTML, "\u202e")
}
