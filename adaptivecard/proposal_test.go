package adaptivecard_test

import (
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/proposaltest"
)

const answerPage = proposaltest.AnswerPage

// teamsMarkup is the markup of a Teams card in a proposal's lines: a golden shows it printed as
// it is.
var teamsMarkup = proposaltest.Markup{JSON: "**check**", Markdown: "[run](https://evil.example) <at>Alice</at>"}

// proposalOf is content of the format with n short lines: 50 of them fit the card's characters,
// so its limit is its 50 lines.
func proposalOf(format inquiry.ProposalFormat, n int) string {
	return proposaltest.Content(format, n, teamsMarkup)
}

// withProposal is a pending confirm with the proposal and the answer page's link.
func withProposal(p *inquiry.Proposal) *inquiry.Record {
	return proposaltest.With(record(inquiry.KindConfirm), p)
}

// proposalCases are the golden cards of proposals: each format at the card's limit (50 lines)
// and one past it, one line at 5,000 characters and one past it, without the answer page's
// link, editable, and resolved.
func proposalCases() []goldenCase {
	q := func(rec *inquiry.Record) func() *adaptivecard.Card {
		return func() *adaptivecard.Card { return adaptivecard.Question(rec, now) }
	}
	var cases []goldenCase
	for _, g := range proposaltest.Goldens(teamsMarkup) {
		cases = append(cases, goldenCase{g.Name, q(withProposal(&inquiry.Proposal{Format: g.Format, Content: g.Content, Title: "Change for **build** 77"}))})
	}
	noLink := withProposal(&inquiry.Proposal{Format: inquiry.FormatDiff, Content: proposalOf(inquiry.FormatDiff, 51)})
	noLink.Links = nil
	resolved := answered(withProposal(&inquiry.Proposal{Format: inquiry.FormatDiff, Content: proposalOf(inquiry.FormatDiff, 51), Editable: true}),
		inquiry.Answer{Value: inquiry.One("yes"), Content: "+ replicas: 4", Edited: true, AnsweredBy: "b15a9416-0ad3-4172-9210-7beb711d3f70"})
	cases = append(cases,
		goldenCase{"proposal_chars_5000", q(withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: strings.Repeat("x", 5000)}))},
		goldenCase{"proposal_chars_5001", q(withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: strings.Repeat("x", 5001)}))},
		goldenCase{"proposal_shortened_no_link", q(noLink)},
		goldenCase{"proposal_editable", q(withProposal(&inquiry.Proposal{Format: inquiry.FormatJSON, Content: `{"replicas": 3}`, Editable: true}))},
		goldenCase{"proposal_resolved", func() *adaptivecard.Card { return adaptivecard.Resolved(resolved) }},
	)
	return cases
}

// shownOf returns the monospace text of a card and its sentence and OpenUrl titles.
func shownOf(t *testing.T, c *adaptivecard.Card) (mono string, texts []string, urls map[string]string) {
	t.Helper()
	urls = map[string]string{}
	var walk func(els []adaptivecard.Element)
	walk = func(els []adaptivecard.Element) {
		for _, e := range els {
			for _, in := range asElements(e["inlines"]) {
				if in["fontType"] == "Monospace" {
					mono = in["text"].(string)
				} else {
					texts = append(texts, in["text"].(string))
				}
			}
			for _, a := range asElements(e["actions"]) {
				if a["type"] == "Action.OpenUrl" {
					urls[a["title"].(string)] = a["url"].(string)
				}
			}
			walk(asElements(e["items"]))
		}
	}
	walk(c.Body)
	return mono, texts, urls
}

func asElements(v any) []adaptivecard.Element {
	els, _ := v.([]adaptivecard.Element)
	return els
}

// TestProposalNeverCutSilently: whole at 50 lines with no sentence; at 51 the first 50, a
// sentence saying so and View all to the answer page; one character past 5,000 without a link,
// the sentence alone.
func TestProposalNeverCutSilently(t *testing.T) {
	for _, tc := range proposaltest.Cuts(50, 5000) {
		rec := withProposal(&inquiry.Proposal{Format: inquiry.FormatDiff, Content: tc.Content})
		if !tc.Link {
			rec.Links = nil
		}
		mono, texts, urls := shownOf(t, adaptivecard.Question(rec, now))
		if mono != tc.Shown {
			t.Errorf("%s: shown %d characters, want %d", tc.Name, len([]rune(mono)), len([]rune(tc.Shown)))
		}
		var said []string
		for _, s := range texts {
			if strings.HasPrefix(s, "Shortened") {
				said = append(said, s)
			}
		}
		if tc.Sentence == "" && len(said) > 0 || tc.Sentence != "" && !containsString(said, tc.Sentence) {
			t.Errorf("%s: %q, want %q", tc.Name, said, tc.Sentence)
		}
		if want := map[string]string{"View all": answerPage}; tc.ViewAll && (len(urls) != 1 || urls["View all"] != answerPage) {
			t.Errorf("%s: links %v, want %v", tc.Name, urls, want)
		}
		if !tc.ViewAll && len(urls) != 0 {
			t.Errorf("%s: links %v where nothing is left out or nothing links", tc.Name, urls)
		}
	}
}

// TestLargestProposalFitsTheCard: a 256 KiB proposal leaves the card within what Teams takes.
func TestLargestProposalFitsTheCard(t *testing.T) {
	rec := withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: strings.Repeat("<&>\"\\ ", inquiry.MaxProposalBytes/7), Editable: true})
	if err := adaptivecard.Check(adaptivecard.Marshal(adaptivecard.Question(rec, now))); err != nil {
		t.Fatal(err)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
