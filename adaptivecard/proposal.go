package adaptivecard

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/inquiry-bot/bot/inquiry"
)

// How much of a proposal a card shows: its first lines, within a share of the card's MaxBytes
// so a 256 KiB diff never pushes the card past what Teams takes. The answer page shows it whole.
const (
	MaxProposalLines = 50
	MaxProposalChars = 5000
)

// proposal renders the proposal of rec, if any: a line naming its format and its title (the
// asker's words, a TextRun), its first lines in monospace in an emphasis Container, and wherever
// it is shortened a sentence saying how much is shown with a "View all" Action.OpenUrl to the
// answer page. On a pending card an editable proposal links to the page to be edited there.
func proposal(rec *inquiry.Record, pending bool) []Element {
	p := rec.Proposal
	if p == nil {
		return nil
	}
	format := p.Format
	if format == "" {
		format = inquiry.FormatText
	}
	inlines := []Element{{"type": "TextRun", "text": "Proposal (" + string(format) + ")", "weight": "Bolder"}}
	if t := strings.TrimSpace(p.Title); t != "" {
		inlines = append(inlines, Element{"type": "TextRun", "text": ": " + inquiry.Printed(inquiry.OneLine(t, inquiry.MaxProposalTitleChars))})
	}
	page := answerPage(rec)
	out := []Element{{"type": "RichTextBlock", "inlines": inlines}}
	out = append(out, monospace(p.Content, page, pending && p.Editable)...)
	if a := rec.Answer; !pending && a != nil && a.Edited && a.Content != "" {
		// The version approved, under the proposal, so both read side by side.
		out = append(out, Element{"type": "RichTextBlock", "inlines": []Element{{"type": "TextRun",
			"text": "Approved with an edit; whoever asked gets this version:", "weight": "Bolder"}}})
		out = append(out, monospace(a.Content, page, false)...)
	}
	return out
}

// monospace shows content's first lines in monospace in an emphasis Container, and wherever
// it is shortened a sentence saying how much is shown with "View all" to page when there is
// one; edit adds "Edit on the web".
func monospace(content, page string, edit bool) []Element {
	shown, sentence := firstLines(content, MaxProposalLines, MaxProposalChars)
	out := []Element{{"type": "Container", "style": "emphasis", "items": []Element{
		{"type": "RichTextBlock", "inlines": []Element{{"type": "TextRun", "text": shown, "fontType": "Monospace"}}},
	}}}
	var actions []Element
	if sentence != "" {
		out = append(out, subtle(sentence))
		if page != "" {
			actions = append(actions, Element{"type": "Action.OpenUrl", "title": "View all", "url": page})
		}
	}
	if edit && page != "" {
		actions = append(actions, Element{"type": "Action.OpenUrl", "title": "Edit on the web", "url": page})
	}
	if len(actions) > 0 {
		out = append(out, Element{"type": "ActionSet", "actions": actions})
	}
	return out
}

// answerPage is the inquiry's answer page when it has one that a card can open: an absolute
// http(s) URL.
func answerPage(rec *inquiry.Record) string {
	if rec.Links == nil {
		return ""
	}
	if u := rec.Links.Answer; strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return u
	}
	return ""
}

// firstLines is the part of content a card shows — at most maxLines whole lines and maxChars
// characters, or the first maxChars characters of a longer first line — printed
// (inquiry.Printed) with line endings as \n, and the sentence that says how much that is, ""
// when it is all.
func firstLines(content string, maxLines, maxChars int) (shown, sentence string) {
	s := strings.TrimRight(inquiry.Printed(strings.ReplaceAll(content, "\r\n", "\n")), "\n")
	lines := strings.Split(s, "\n")
	var b strings.Builder
	n, whole := 0, 0
	for i, l := range lines {
		add := utf8.RuneCountInString(l)
		if i > 0 {
			add++
		}
		if i == maxLines || n+add > maxChars {
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
		n += add
		whole++
	}
	switch {
	case whole == len(lines):
		return b.String(), ""
	case whole == 0:
		r := []rune(lines[0])
		return string(r[:maxChars]), fmt.Sprintf("Shortened: the first %s of %s characters are shown.",
			thousands(maxChars), thousands(utf8.RuneCountInString(s)))
	}
	return b.String(), fmt.Sprintf("Shortened: the first %s of %s lines are shown.", thousands(whole), thousands(len(lines)))
}

// thousands writes n with a comma between thousands: 1,990.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
