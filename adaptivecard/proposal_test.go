package adaptivecard_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
)

const answerPage = "https://bot.example.com/a/aW5xX2V4YW1wbGUAAAAGYZKL.1UgL15Y6kq1lK9V0rZLys6HdZXc"

// proposalOf is content of the format with n short lines: 50 of them fit the card's characters,
// so its limit is its 50 lines.
func proposalOf(format inquiry.ProposalFormat, n int) string {
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
			lines = append(lines, fmt.Sprintf(`  {"step": %d, "run": "migrate <db> & **check**"},`, i))
		}
		lines[len(lines)-1] = strings.TrimSuffix(lines[len(lines)-1], ",")
		lines = append(lines, "]")
	case inquiry.FormatMarkdown:
		for i := range n {
			lines = append(lines, fmt.Sprintf("- **step %d**: [run](https://evil.example) <at>Alice</at>", i+1))
		}
	default:
		for i := range n {
			lines = append(lines, fmt.Sprintf("Line %d of the release note, as it goes out.", i+1))
		}
	}
	return strings.Join(lines, "\n")
}

func withProposal(p *inquiry.Proposal) *inquiry.Record {
	rec := record(inquiry.KindConfirm)
	rec.Proposal = p
	rec.Links = &inquiry.Links{Answer: answerPage}
	return rec
}

// proposalCases are the golden cards of proposals: each format at the card's limit (50 lines)
// and one past it, one line at 5,000 characters and one past it, without the answer page's
// link, editable, and resolved.
func proposalCases() []goldenCase {
	q := func(rec *inquiry.Record) func() *adaptivecard.Card {
		return func() *adaptivecard.Card { return adaptivecard.Question(rec, now) }
	}
	var cases []goldenCase
	for _, f := range []inquiry.ProposalFormat{inquiry.FormatText, inquiry.FormatMarkdown, inquiry.FormatDiff, inquiry.FormatJSON} {
		for _, n := range []int{50, 51} {
			cases = append(cases, goldenCase{fmt.Sprintf("proposal_%s_%d_lines", f, n),
				q(withProposal(&inquiry.Proposal{Format: f, Content: proposalOf(f, n), Title: "Change for **build** 77"}))})
		}
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
// sentence saying so and View all to the answer page; without a link the sentence alone.
func TestProposalNeverCutSilently(t *testing.T) {
	whole := proposalOf(inquiry.FormatDiff, 50)
	mono, texts, urls := shownOf(t, adaptivecard.Question(withProposal(&inquiry.Proposal{Format: inquiry.FormatDiff, Content: whole}), now))
	if mono != whole || len(urls) != 0 {
		t.Errorf("50 lines: shown %d of %d bytes, links %v; want all, no link", len(mono), len(whole), urls)
	}
	for _, s := range texts {
		if strings.HasPrefix(s, "Shortened") {
			t.Errorf("50 lines: %q", s)
		}
	}

	past := proposalOf(inquiry.FormatDiff, 51)
	mono, texts, urls = shownOf(t, adaptivecard.Question(withProposal(&inquiry.Proposal{Format: inquiry.FormatDiff, Content: past}), now))
	if mono != past[:strings.LastIndexByte(past, '\n')] {
		t.Errorf("51 lines: not the first 50 shown")
	}
	if !containsString(texts, "Shortened: the first 50 of 51 lines are shown.") || urls["View all"] != answerPage {
		t.Errorf("51 lines: texts %q, links %v; want the sentence and View all", texts, urls)
	}

	rec := withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: strings.Repeat("é", 5001)})
	rec.Links = nil
	mono, texts, urls = shownOf(t, adaptivecard.Question(rec, now))
	if len([]rune(mono)) != 5000 || len(urls) != 0 || !containsString(texts, "Shortened: the first 5,000 of 5,001 characters are shown.") {
		t.Errorf("one line of 5,001 without a link: %d shown, texts %q, links %v", len([]rune(mono)), texts, urls)
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
