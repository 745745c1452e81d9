package email

import (
	"fmt"

	"github.com/inquiry-bot/bot/inquiry"
)

// A message shows the first lines of a proposal, at most this many lines and characters: enough
// to recognise it, short enough for any mail client. The answer page shows it whole, and the
// message says so whenever it shows less (inquiry.ExcerptOf, as every surface).
const (
	excerptLines = 40
	excerptChars = 4 << 10
)

// shownProposal is a proposal as a message shows it. Every string is the asker's, as
// inquiry.Printed shows it.
type shownProposal struct {
	Title, Format string
	Excerpt       string // the first lines, without a final line break
	// Cut says the excerpt is not the whole; Of says how much is shown of how much.
	Cut bool
	Of  string
}

// showProposal is p as a message shows it, nil for none.
func showProposal(p *inquiry.Proposal) *shownProposal {
	if p == nil {
		return nil
	}
	format := p.FormatOrText()
	e := inquiry.ExcerptOf(p.Content, excerptLines, excerptChars)
	s := &shownProposal{Title: inquiry.Printed(p.Title), Format: string(format), Excerpt: e.Text, Cut: e.Cut()}
	switch {
	case e.InLine: // one line longer than the excerpt: a part of it
		s.Of = fmt.Sprintf("the first %d of its %d characters", e.Chars, e.TotalChars)
	case s.Cut:
		s.Of = fmt.Sprintf("the first %d of its %d lines", e.Lines, e.TotalLines)
	}
	return s
}
