package blockkit_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// now is the fixed clock of every test.
var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// validateAt is when fixtures are checked with inquiry.Validate: before every expiry they carry,
// including those of already expired inquiries.
var validateAt = now.Add(-24 * time.Hour)

const key = "inq_abcdefghijklmnop"

func at(d time.Duration) *time.Time {
	t := now.Add(d)
	return &t
}

// record is a pending inquiry of the given kind, as the server stores it.
func record(kind inquiry.Kind) *inquiry.Record {
	return &inquiry.Record{
		Key: key,
		Inquiry: inquiry.Inquiry{
			ID:       "deploy-42:merge",
			RunID:    "deploy-42",
			Kind:     kind,
			Question: "Merge PR #1234 into main now?",
			Context:  "CI is green and the PR has two approvals. The release train leaves at 15:00 UTC.",
		},
		Namespace: "ci",
		Config:    inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportSlack},
		Status:    inquiry.StatusPending,
		Slack:     inquiry.SlackRef{Channel: "C0DEPLOYS"},
		CreatedAt: now.Add(-time.Minute),
	}
}

var labels = []string{
	"Merge", "Hold", "Rebase first", "Squash and merge", "Ask the author", "Run the full suite",
	"Revert main", "Close the PR", "Defer to Monday", "Escalate to on-call", "Split the PR", "Skip this release",
}

// options returns n realistic options; every third has a description.
func options(n int) []inquiry.Option {
	opts := make([]inquiry.Option, n)
	for i := range opts {
		l := labels[i]
		opts[i] = inquiry.Option{Value: strings.ReplaceAll(strings.ToLower(l), " ", "-"), Label: l}
		if i%3 == 0 {
			opts[i].Description = fmt.Sprintf("what %q means, in a few words", l)
		}
	}
	return opts
}

func choice(n int, multiple bool) *inquiry.Record {
	rec := record(inquiry.KindChoice)
	rec.Options = options(n)
	rec.Multiple = multiple
	if multiple {
		rec.Question = "Which checks should run before the merge?"
	}
	return rec
}

// resolved marks rec resolved with status st and answer a (answered and resolved at now-5m).
func resolved(rec *inquiry.Record, st inquiry.Status, a *inquiry.Answer) *inquiry.Record {
	rec.Status = st
	rec.ResolvedAt = at(-5 * time.Minute)
	if a != nil {
		a.InquiryID = rec.ID
		a.AnsweredAt = *rec.ResolvedAt
		rec.Answer = a
	}
	return rec
}

// long builds a string of n copies of s.
func long(s string, n int) string { return strings.Repeat(s, n) }

// longOptions are n options at every limit: 150-character values, 75-character labels and
// descriptions.
func longOptions(n int) []inquiry.Option {
	opts := make([]inquiry.Option, n)
	for i := range opts {
		p := fmt.Sprintf("%02d", i)
		opts[i] = inquiry.Option{
			Value:       p + long("v", inquiry.MaxOptionValueChars-2),
			Label:       p + long("L", inquiry.MaxOptionLabelChars-2),
			Description: p + long("&", inquiry.MaxOptionDescriptionChars-2),
		}
	}
	return opts
}

// approval makes rec a team approval of n people.
func approval(rec *inquiry.Record, n int) *inquiry.Record {
	rec.Approvals = &n
	return rec
}

// vote is a vote given through Slack ten minutes before now.
func vote(by, value, text string) inquiry.Vote {
	return inquiry.Vote{By: by, Value: inquiry.One(value), Text: text, At: now.Add(-10 * time.Minute), Via: inquiry.ViaSlack}
}
