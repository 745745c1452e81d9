package email

import (
	"fmt"
	"strings"

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
	// Lines are the excerpt's lines, each with its kind in a diff ("add", "del", "hunk", "file",
	// "meta" or "ctx"; "" outside a diff), which the HTML part colours by line.
	Lines []shownLine
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
	for _, l := range strings.Split(e.Text, "\n") {
		sl := shownLine{Text: l}
		if format == inquiry.FormatDiff {
			sl.Kind = string(inquiry.DiffLineKind(l))
		}
		s.Lines = append(s.Lines, sl)
	}
	switch {
	case e.InLine: // one line longer than the excerpt: a part of it
		s.Of = fmt.Sprintf("the first %d of its %d characters", e.Chars, e.TotalChars)
	case s.Cut:
		s.Of = fmt.Sprintf("the first %d of its %d lines", e.Lines, e.TotalLines)
	}
	return s
}

// shownLine is one line of an excerpt and its kind in a diff.
type shownLine struct{ Kind, Text string }

// approved is the version a person approved of rec's editable proposal when it differs from
// what was proposed, as a message shows it; nil when there is none.
func approved(rec *inquiry.Record) *shownProposal {
	a := rec.Answer
	if rec.Proposal == nil || a == nil || !a.Edited || a.Content == "" {
		return nil
	}
	return showProposal(&inquiry.Proposal{Format: rec.Proposal.FormatOrText(), Content: a.Content})
}
