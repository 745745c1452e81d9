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
			s.Lines[i].Class = string(inquiry.DiffLineKind(l))
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

// edited is the content a person's edit of p approves, "" when it is p's own (the answer then
// approves p as proposed). A browser posts a textarea's (and a hidden field's) lines ended by
// CRLF whatever they were; Proposal.Edit gives them p's line endings, so the confirmation, which
// posts the edit once more, carries it unchanged.
func edited(p *inquiry.Proposal, posted string) string {
	if content, changed := p.Edit(posted); changed {
		return content
	}
	return ""
}
