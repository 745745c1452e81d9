package web

import (
	"strings"

	"github.com/inquiry-bot/bot/inquiry"
)

// shownProposal is a proposal as the page shows it: whole, one line at a time, each line of a
// diff with the class that colours it. Every line is text for html/template to escape.
type shownProposal struct {
	Title, Format string
	// Editable offers the textarea.
	Editable bool
	// ID names the section's elements ("proposal", or "approved" for the version approved
	// under it); From is the line that says whose version it is.
	ID, From string
	Lines    []shownLine
}

// shownLine is one line of a proposal, without its line ending, and its class ("" outside a
// diff).
type shownLine struct{ Class, Text string }

// showProposal is p as the page shows it, nil for none.
func showProposal(p *inquiry.Proposal) *shownProposal {
	if p == nil {
		return nil
	}
	format := p.FormatOrText()
	s := &shownProposal{Title: p.Title, Format: string(format), Editable: p.Editable, ID: "proposal",
		From: "What you approve, whole, as its asker sent it (" + string(format) + "):"}
	lines := strings.Split(strings.TrimSuffix(p.Content, "\n"), "\n")
	s.Lines = make([]shownLine, len(lines))
	for i, l := range lines {
		// A CR before the line's end is its line ending, not a character to show as a code.
		l = strings.TrimSuffix(l, "\r")
		s.Lines[i].Text = l
		if format == inquiry.FormatDiff {
			s.Lines[i].Class = diffClass(l)
		}
	}
	return s
}

// settled is what the page of a resolved inquiry shows of its proposal: what was proposed and,
// when the person approved an edit, the version approved under it, both whole, so that whoever
// opens the link sees what changed. Nil, nil without a proposal.
func settled(rec *inquiry.Record) (proposed, approved *shownProposal) {
	if rec.Proposal == nil {
		return nil, nil
	}
	proposed = showProposal(rec.Proposal)
	proposed.Editable = false
	proposed.From = "What was proposed, whole, as its asker sent it (" + proposed.Format + "):"
	if a := rec.Answer; a != nil && a.Edited && a.Content != "" {
		approved = showProposal(&inquiry.Proposal{Format: rec.Proposal.FormatOrText(), Content: a.Content, Title: "The version approved"})
		approved.ID = "approved"
		approved.From = "Approved with an edit: whoever asked gets this version, whole (" + approved.Format + "):"
	}
	return proposed, approved
}

// diffClass names the kind of a unified diff's line: a file's header, a hunk's header, an added
// or removed line, git's other headers, or context.
func diffClass(l string) string {
	switch {
	case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		return "file"
	case strings.HasPrefix(l, "@@"):
		return "hunk"
	case strings.HasPrefix(l, "+"):
		return "add"
	case strings.HasPrefix(l, "-"):
		return "del"
	case strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "), strings.HasPrefix(l, `\`):
		return "meta"
	}
	return "ctx"
}

// edited is the content a person's edit of p approves, "" when it is p's own. A browser posts a
// textarea's (and a hidden field's) lines ended by CRLF whatever they were, so the lines are
// ended as p's are: by LF, or by CRLF when every line of p is. An edit that differs from p only
// in its line endings is no edit. Reading it again is the same: the confirmation, which posts it
// once more, carries it unchanged.
func edited(p *inquiry.Proposal, posted string) string {
	lf := strings.ReplaceAll(posted, "\r\n", "\n")
	if p == nil {
		return lf
	}
	if lf == strings.ReplaceAll(p.Content, "\r\n", "\n") {
		return ""
	}
	if crlfOnly(p.Content) {
		return strings.ReplaceAll(lf, "\n", "\r\n")
	}
	return lf
}

// crlfOnly reports whether s has line breaks and every one is CRLF.
func crlfOnly(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}
