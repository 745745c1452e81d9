package inquiry_test

import (
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

func TestReplyOf(t *testing.T) {
	t.Parallel()
	two := 2
	choice := &inquiry.Inquiry{Kind: inquiry.KindChoice, Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}}}
	withText := *choice
	withText.AllowText = true
	multi := &inquiry.Inquiry{Kind: inquiry.KindChoice, Multiple: true, Options: []inquiry.Option{{Value: "a", Label: "A"}, {Value: "b", Label: "B"}, {Value: "c", Label: "C"}}}
	comma := &inquiry.Inquiry{Kind: inquiry.KindChoice, Multiple: true, Options: []inquiry.Option{{Value: "rg", Label: "Red, green"}, {Value: "b", Label: "Blue"}}}
	confirm := &inquiry.Inquiry{Kind: inquiry.KindConfirm}
	withReason := &inquiry.Inquiry{Kind: inquiry.KindConfirm, Approval: inquiry.Approval{Approvals: &two, Reason: inquiry.ReasonOnNo}}
	eu := &inquiry.Inquiry{Kind: inquiry.KindChoice, Options: []inquiry.Option{{Value: "prod", Label: "Prod"}, {Value: "prod-eu", Label: "Prod EU"}},
		Approval: inquiry.Approval{Reason: inquiry.ReasonAlways}}
	text := &inquiry.Inquiry{Kind: inquiry.KindText}
	for _, tc := range []struct {
		name     string
		in       *inquiry.Inquiry
		typed    string
		numbered bool
		want     inquiry.Reply
		miss     string
	}{
		{"an answer's label", choice, "  hold ", false, inquiry.Reply{Value: inquiry.One("hold")}, ""},
		{"an answer's value", choice, "MERGE", false, inquiry.Reply{Value: inquiry.One("merge")}, ""},
		{"a number where answers are numbered", choice, "1", true, inquiry.Reply{Value: inquiry.One("merge")}, ""},
		{"a number where they are not", choice, "1", false, inquiry.Reply{Text: "1"}, "1"},
		{"a number out of range", choice, "3", true, inquiry.Reply{Text: "3"}, "3"},
		{"a sentence holding an answer", choice, "hold it", false, inquiry.Reply{Text: "hold it"}, "hold it"},
		{"own words", &withText, "hold it for now", false, inquiry.Reply{Text: "hold it for now"}, "hold it for now"},
		{"own words that are an answer", &withText, "Hold", false, inquiry.Reply{Value: inquiry.One("hold")}, ""},
		{"a confirm", confirm, "YES", false, inquiry.Reply{Value: inquiry.One("yes")}, ""},
		{"a confirm's number", confirm, "2", true, inquiry.Reply{Value: inquiry.One("no")}, ""},
		{"no abbreviation", confirm, "y", false, inquiry.Reply{Text: "y"}, "y"},
		{"a list", multi, "A, c", false, inquiry.Reply{Value: inquiry.Many("a", "c")}, ""},
		{"a list by number and words, once each", multi, "1, c,3,, a", true, inquiry.Reply{Value: inquiry.Many("a", "c")}, ""},
		{"one of a list", multi, "b", false, inquiry.Reply{Value: inquiry.Many("b")}, ""},
		{"a list with a miss", multi, "a, d, e", false, inquiry.Reply{Text: "a, d, e"}, "d"},
		{"a label holding a comma", comma, "red, GREEN", false, inquiry.Reply{Value: inquiry.Many("rg")}, ""},
		{"a label holding a comma in a list", comma, "Blue, Red, green", false, inquiry.Reply{Text: "Blue, Red, green"}, "Red"},
		{"a text's words", text, "2", true, inquiry.Reply{Text: "2"}, ""},
		{"an exact answer asked for a reason", withReason, " No ", false, inquiry.Reply{Value: inquiry.One("no")}, ""},
		{"an answer and its reason", withReason, "no: the tests fail", false, inquiry.Reply{Value: inquiry.One("no"), Text: "the tests fail"}, ""},
		{"its reason where answers are numbered", withReason, "no: the tests fail", true, inquiry.Reply{Value: inquiry.One("no"), Text: "the tests fail"}, ""},
		{"a line break", withReason, "Yes\nafter the backup", false, inquiry.Reply{Value: inquiry.One("yes"), Text: "after the backup"}, ""},
		{"not a word of its own", withReason, "nobody knows", false, inquiry.Reply{Text: "nobody knows"}, "nobody knows"},
		{"a longer word", withReason, "nobody: knows", false, inquiry.Reply{Text: "nobody: knows"}, "nobody: knows"},
		{"longest label wins", eu, "Prod EU — the US is frozen", false, inquiry.Reply{Value: inquiry.One("prod-eu"), Text: "the US is frozen"}, ""},
		{"shorter label", eu, "prod, because", false, inquiry.Reply{Value: inquiry.One("prod"), Text: "because"}, ""},
		{"an answer and a break alone", eu, "prod: ", false, inquiry.Reply{Text: "prod: "}, "prod:"},
		{"no reason asked", confirm, "no: the tests fail", false, inquiry.Reply{Text: "no: the tests fail"}, "no: the tests fail"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, miss := inquiry.ReplyOf(tc.in, tc.typed, tc.numbered)
			if !got.Value.Equal(tc.want.Value) || got.Text != tc.want.Text || got.Declined {
				t.Errorf("ReplyOf(%q) = %+v, want %+v", tc.typed, got, tc.want)
			}
			if miss != tc.miss {
				t.Errorf("ReplyOf(%q) misses %q, want %q", tc.typed, miss, tc.miss)
			}
		})
	}
}
