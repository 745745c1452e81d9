package inquiry

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Excerpt is how much of a proposal a surface shows when it cannot show it whole (a Slack
// message, a Teams card, an e-mail): its first lines, whole where they fit, and what it leaves
// out, so that the surface says so (Sentence) and links to the answer page, which shows it all.
type Excerpt struct {
	// Text is what is shown, as Printed shows it, with line endings as \n.
	Text string
	// Lines is how many whole lines Text holds, of TotalLines.
	Lines, TotalLines int
	// Chars is how many characters Text holds, of TotalChars.
	Chars, TotalChars int
	// InLine says even the first line was longer than the bound: Text is its beginning.
	InLine bool
}

// ExcerptOf is the part of content a surface shows: at most maxLines whole lines and maxChars
// characters (line breaks counted); when even the first line is longer, its first maxChars
// characters.
func ExcerptOf(content string, maxLines, maxChars int) Excerpt {
	s := strings.TrimRight(Printed(NormalizeNewlines(content)), "\n")
	lines := strings.Split(s, "\n")
	e := Excerpt{TotalLines: len(lines), TotalChars: utf8.RuneCountInString(s)}
	var b strings.Builder
	for i, l := range lines {
		add := utf8.RuneCountInString(l)
		if i > 0 {
			add++ // the line break
		}
		if i == maxLines || e.Chars+add > maxChars {
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
		e.Chars += add
		e.Lines++
	}
	if e.Lines == 0 && e.TotalChars > 0 {
		r := []rune(lines[0])
		e.Chars = min(len(r), maxChars)
		b.WriteString(string(r[:e.Chars]))
		e.InLine = true
	}
	e.Text = b.String()
	return e
}

// Cut reports whether the excerpt leaves some of the proposal out.
func (e Excerpt) Cut() bool { return e.Lines < e.TotalLines || e.InLine }

// Sentence says how much a shortened excerpt shows, "" when it is the whole proposal.
func (e Excerpt) Sentence() string {
	p := message.NewPrinter(language.English) // 1,990: thousands as the bot's English writes them
	switch {
	case !e.Cut():
		return ""
	case e.InLine:
		return p.Sprintf("Shortened: the first %d of %d characters are shown.", e.Chars, e.TotalChars)
	}
	return p.Sprintf("Shortened: the first %d of %d lines are shown.", e.Lines, e.TotalLines)
}
