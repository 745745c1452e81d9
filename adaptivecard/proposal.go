package adaptivecard

import (
	"strings"

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
//
// A pending question that names who may answer has no page everybody may open (a link the whole
// conversation sees would answer as anybody). Where its record, as rendered, carries
// PersonalLinks, its card carries "View all" and "Edit on the web" as an Action.Execute of verb
// VerbPage instead: the click asks the bot for a link of the clicker's own, which the bot shows
// to them alone (WithPage).
func proposal(rec *inquiry.Record, pending bool) []Element {
	p := rec.Proposal
	if p == nil {
		return nil
	}
	format := p.FormatOrText()
	inlines := []Element{{"type": "TextRun", "text": "Proposal (" + string(format) + ")", "weight": "Bolder"}}
	if t := strings.TrimSpace(p.Title); t != "" {
		inlines = append(inlines, Element{"type": "TextRun", "text": ": " + inquiry.Printed(inquiry.OneLine(t, inquiry.MaxProposalTitleChars))})
	}
	page := link{url: answerPage(rec)}
	if pending && rec.Links != nil && rec.Links.Answer == PersonalLinks {
		page.personal = rec.Key
	}
	out := []Element{{"type": "RichTextBlock", "inlines": inlines}}
	out = append(out, monospace(p.Content, page, pending && p.Editable)...)
	if a := rec.Answer; !pending && a != nil && a.Edited && a.Content != "" {
		// The version approved, under the proposal, so both read side by side.
		out = append(out, Element{"type": "RichTextBlock", "inlines": []Element{{"type": "TextRun",
			"text": "Approved with an edit; whoever asked gets this version:", "weight": "Bolder"}}})
		out = append(out, monospace(a.Content, link{url: page.url}, false)...)
	}
	return out
}

// link is where a card's "View all" and "Edit on the web" lead: the answer page's URL, or for a
// question whose page is each person's own, its key (an Action.Execute asks for the link).
type link struct {
	url      string
	personal string
}

// action is the button titled title that opens l; nil when l leads nowhere.
func (l link) action(title string) Element {
	switch {
	case l.url != "":
		return Element{"type": "Action.OpenUrl", "title": title, "url": l.url}
	case l.personal != "":
		data := Element{DataInquiry: l.personal}
		return Element{"type": "Action.Execute", "title": title, "verb": VerbPage, "data": data,
			"fallback": Element{"type": "Action.Submit", "title": title, "data": data}}
	}
	return nil
}

// monospace shows content's first lines in monospace in an emphasis Container, and wherever
// it is shortened a sentence saying how much is shown with "View all" to page when there is
// one; edit adds "Edit on the web".
func monospace(content string, page link, edit bool) []Element {
	e := inquiry.ExcerptOf(content, MaxProposalLines, MaxProposalChars)
	shown, sentence := e.Text, e.Sentence()
	out := []Element{{"type": "Container", "style": "emphasis", "items": []Element{
		{"type": "RichTextBlock", "inlines": []Element{{"type": "TextRun", "text": shown, "fontType": "Monospace"}}},
	}}}
	var actions []Element
	if sentence != "" {
		out = append(out, subtle(sentence))
		if a := page.action("View all"); a != nil {
			actions = append(actions, a)
		}
	}
	if a := page.action("Edit on the web"); edit && a != nil {
		actions = append(actions, a)
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
