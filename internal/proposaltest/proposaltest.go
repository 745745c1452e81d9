// Package proposaltest holds what the proposal tests of the channels' renderers (blockkit for
// Slack, adaptivecard for Teams) share: the proposals their golden files show, of each format
// and n lines, and the cases by which a surface is shown never to shorten a proposal silently.
// Only tests import it.
package proposaltest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/inquiry-bot/bot/inquiry"
)

// AnswerPage is the answer page's link the tests' records carry: "View all" points to it.
const AnswerPage = "https://bot.example.com/a/aW5xX2V4YW1wbGUAAAAGYZKL.1UgL15Y6kq1lK9V0rZLys6HdZXc"

// Markup is a channel's own markup, put in the lines of a JSON and a Markdown proposal so that
// a golden file shows it printed as it is: never bold, a link or a mention.
type Markup struct{ JSON, Markdown string }

// Content is a proposal of the format with n lines, each short enough that 50 of them stay
// within 3,000 characters with a channel's markup of a few words: a surface's limit is then its
// lines.
func Content(format inquiry.ProposalFormat, n int, m Markup) string {
	var lines []string
	switch format {
	case inquiry.FormatDiff:
		lines = append(lines, fmt.Sprintf("@@ -1,%d +1,%d @@", n-1, n-1))
		for i := 1; i < n; i++ {
			lines = append(lines, fmt.Sprintf("+ replicas: %d # eu-west", i))
		}
	case inquiry.FormatJSON:
		lines = append(lines, "[")
		for i := 1; i < n-1; i++ {
			lines = append(lines, fmt.Sprintf(`  {"step": %d, "run": "migrate <db> & %s"},`, i, m.JSON))
		}
		lines[len(lines)-1] = strings.TrimSuffix(lines[len(lines)-1], ",")
		lines = append(lines, "]")
	case inquiry.FormatMarkdown:
		for i := range n {
			lines = append(lines, fmt.Sprintf("- **step %d**: %s", i+1, m.Markdown))
		}
	default:
		for i := range n {
			lines = append(lines, fmt.Sprintf("Line %d of the release note, as it goes out.", i+1))
		}
	}
	return strings.Join(lines, "\n")
}

// Formats are the formats of a proposal, each rendered in the golden files.
var Formats = []inquiry.ProposalFormat{inquiry.FormatText, inquiry.FormatMarkdown, inquiry.FormatDiff, inquiry.FormatJSON}

// Golden is a proposal a channel's golden file shows, named proposal_<format>_<n>_lines.
type Golden struct {
	Name    string
	Format  inquiry.ProposalFormat
	Content string
}

// Goldens are the proposals of each format at a surface's 50 lines and one past them, with the
// channel's markup m.
func Goldens(m Markup) []Golden {
	var out []Golden
	for _, f := range Formats {
		for _, n := range []int{50, 51} {
			out = append(out, Golden{Name: fmt.Sprintf("proposal_%s_%d_lines", f, n), Format: f, Content: Content(f, n, m)})
		}
	}
	return out
}

// With gives rec the proposal p and the answer page's link, and returns it.
func With(rec *inquiry.Record, p *inquiry.Proposal) *inquiry.Record {
	rec.Proposal = p
	rec.Links = &inquiry.Links{Answer: AnswerPage}
	return rec
}

// Cut is one way a surface shows a proposal: whole, or shortened with a sentence that says how
// much it shows and, where the record has the answer page, "View all" to it.
type Cut struct {
	Name    string
	Content string
	Link    bool   // the record carries AnswerPage
	Shown   string // what the surface shows of Content
	// Sentence is what the surface says of it, "" when it shows it whole.
	Sentence string
	// ViewAll says "View all" links to AnswerPage; otherwise no link is offered.
	ViewAll bool
}

// Cuts are the cases of a surface that shows at most lines lines and chars characters: a diff
// of lines lines, shown whole; one line more, shown to its lines with the sentence and "View
// all"; and one line of chars+1 characters without the answer page, shown to chars characters
// with the sentence alone.
func Cuts(lines, chars int) []Cut {
	whole := Content(inquiry.FormatDiff, lines, Markup{})
	past := Content(inquiry.FormatDiff, lines+1, Markup{})
	long := strings.Repeat("é", chars+1)
	return []Cut{
		{Name: "at the lines", Content: whole, Link: true, Shown: whole},
		{Name: "one line past", Content: past, Link: true, Shown: past[:strings.LastIndexByte(past, '\n')],
			Sentence: fmt.Sprintf("Shortened: the first %s of %s lines are shown.", thousands(lines), thousands(lines+1)), ViewAll: true},
		{Name: "one character past, no link", Content: long, Shown: long[:len("é")*chars],
			Sentence: fmt.Sprintf("Shortened: the first %s of %s characters are shown.", thousands(chars), thousands(chars+1))},
	}
}

// thousands writes n as the sentences do: 3,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
