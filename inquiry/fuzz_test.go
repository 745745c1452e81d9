package inquiry_test

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/inquiry-bot/bot/inquiry"
)

// FuzzStateAnswerOf feeds StateAnswerOf any answer, capped or not: what a run's state keeps is
// valid UTF-8, at most StateTextChars characters of prose that begin the (repaired) prose, the
// decision and who and how untouched, truncated exactly when something was cut (or already
// was), and cutting again changes nothing.
func FuzzStateAnswerOf(f *testing.F) {
	f.Add("ship it", "merge", false, false, false)
	f.Add(strings.Repeat("é", 201), "", false, false, false)
	f.Add(strings.Repeat("😀", 300), "a|b", true, false, true)
	f.Add("ab\xffc\xfe", "\xff", false, true, false)
	f.Add(strings.Repeat("a", 199)+"\xf0\x9f", "", false, false, false)
	f.Add("", "", false, true, true)
	f.Fuzz(func(t *testing.T, text, values string, list, truncated, declined bool) {
		var v inquiry.Value
		switch {
		case list:
			v = inquiry.Many(strings.Split(values, "|")...)
		case values != "":
			v = inquiry.One(values)
		}
		at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		in := inquiry.Answer{InquiryID: "id", Value: v, Text: text, Declined: declined, Truncated: truncated,
			AnsweredBy: "U1", Source: inquiry.SourcePerson, AnsweredAt: at}
		for _, a := range []inquiry.Answer{in, inquiry.CapAnswer(in, 0)} {
			got := inquiry.StateAnswerOf(a)
			if !utf8.ValidString(got.Text) {
				t.Fatalf("StateAnswerOf kept %q: not valid UTF-8", got.Text)
			}
			n := utf8.RuneCountInString(got.Text)
			if n > inquiry.StateTextChars {
				t.Fatalf("StateAnswerOf kept %d characters, more than %d", n, inquiry.StateTextChars)
			}
			repaired := strings.ToValidUTF8(a.Text, "\uFFFD")
			if !strings.HasPrefix(repaired, got.Text) {
				t.Fatalf("StateAnswerOf(%q) = %q: not the beginning of the prose", a.Text, got.Text)
			}
			cut := utf8.RuneCountInString(repaired) > inquiry.StateTextChars
			if cut && n != inquiry.StateTextChars {
				t.Fatalf("StateAnswerOf cut to %d characters, not %d", n, inquiry.StateTextChars)
			}
			if got.Truncated != (a.Truncated || cut) {
				t.Fatalf("Truncated %v for a cut %v of an answer truncated %v", got.Truncated, cut, a.Truncated)
			}
			if !got.Value.Equal(a.Value) || got.Value.IsList() != a.Value.IsList() {
				t.Fatalf("StateAnswerOf changed the decision %v to %v", a.Value.Strings(), got.Value.Strings())
			}
			if got.InquiryID != a.InquiryID || got.Declined != a.Declined || got.AnsweredBy != a.AnsweredBy ||
				got.Source != a.Source || !got.AnsweredAt.Equal(a.AnsweredAt) {
				t.Fatalf("StateAnswerOf changed who or how: %+v -> %+v", a, got)
			}
			again := inquiry.StateAnswerOf(got)
			if again.Text != got.Text || again.Truncated != got.Truncated {
				t.Fatalf("StateAnswerOf is not idempotent: %q -> %q", got.Text, again.Text)
			}
		}
		// The state keeps the same prose whether the answer was capped first or not.
		if inquiry.StateAnswerOf(in).Text != inquiry.StateAnswerOf(inquiry.CapAnswer(in, 0)).Text {
			t.Fatal("StateAnswerOf(CapAnswer(a)) keeps other prose than StateAnswerOf(a)")
		}
	})
}

// FuzzCheckAnswer answers arbitrary valid inquiries with arbitrary replies: a refusal is an
// invalid_answer naming value, text or declined in one sentence; an answer taken chooses only
// offered values (a list exactly for multiple, each once), keeps words only where the inquiry
// takes words, within the ceiling and without control characters, and a decline has no value.
func FuzzCheckAnswer(f *testing.F) {
	f.Add("choice", "merge|hold|close", false, false, "merge", false, "", false)
	f.Add("choice", "merge|hold|close", false, false, " HOLD ", false, "", false)
	f.Add("choice", "merge|hold|close", false, false, "", false, "close", false)
	f.Add("choice", "a|b|c", true, true, "a|c|a", true, "because", false)
	f.Add("choice", "a|b|c", true, false, "", true, "", false)
	f.Add("confirm", "", false, true, "Yes", false, "after lunch", false)
	f.Add("confirm", "", false, false, "maybe", false, "", false)
	f.Add("text", "", false, false, "", false, "\x1b[2J", false)
	f.Add("text", "", false, false, "words", false, "", false)
	f.Add("text", "", false, false, "", false, strings.Repeat("é", 2100), true)
	f.Add("choice", "merge|hold", false, false, "merge", false, "", true)
	f.Fuzz(func(t *testing.T, kind, options string, multiple, allowText bool, value string, valueList bool, text string, declined bool) {
		in := &inquiry.Inquiry{ID: "q", Kind: inquiry.Kind(kind), Question: "Q?", Multiple: multiple, AllowText: allowText}
		if options != "" {
			for _, o := range strings.Split(options, "|") {
				in.Options = append(in.Options, inquiry.Option{Value: o, Label: o})
			}
		}
		if inquiry.Validate(in, time.Now()) != nil {
			return
		}
		var v inquiry.Value
		switch {
		case valueList && value == "":
			v = inquiry.Many()
		case valueList:
			v = inquiry.Many(strings.Split(value, "|")...)
		case value != "":
			v = inquiry.One(value)
		}
		a, err := inquiry.CheckAnswer(in, inquiry.Reply{Value: v, Text: text, Declined: declined})
		if err != nil {
			var e *inquiry.Error
			if !errors.As(err, &e) || e.Code != inquiry.CodeInvalidAnswer {
				t.Fatalf("refused with %#v, not invalid_answer", err)
			}
			switch e.Field {
			case "value", "text", "declined":
			default:
				t.Fatalf("refusal names the field %q", e.Field)
			}
			if e.Message == "" || strings.ContainsAny(e.Message, "\n") {
				t.Fatalf("refusal %q is not one line", e.Message)
			}
			return
		}
		if a.InquiryID != in.ID {
			t.Fatalf("answer of %q for inquiry %q", a.InquiryID, in.ID)
		}
		if !utf8.ValidString(a.Text) || utf8.RuneCountInString(a.Text) > inquiry.DefaultAnswerChars {
			t.Fatalf("answer text of %d characters, valid %v", utf8.RuneCountInString(a.Text), utf8.ValidString(a.Text))
		}
		for _, r := range a.Text {
			if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
				t.Fatalf("answer text keeps the control character %U", r)
			}
		}
		if a.Declined {
			if !a.Value.IsZero() {
				t.Fatalf("a decline with the value %v", a.Value.Strings())
			}
			return
		}
		offered := inquiry.Offered(in)
		seen := map[string]bool{}
		for _, s := range a.Value.Strings() {
			ok := false
			for _, o := range offered {
				ok = ok || o.Value == s
			}
			if !ok {
				t.Fatalf("chose %q, none of the offered %v", s, offered)
			}
			if seen[s] {
				t.Fatalf("chose %q twice", s)
			}
			seen[s] = true
		}
		switch in.Kind {
		case inquiry.KindText:
			if !a.Value.IsZero() || strings.TrimSpace(a.Text) == "" {
				t.Fatalf("a text question answered with value %v and text %q", a.Value.Strings(), a.Text)
			}
		default:
			if a.Value.Len() > 0 && a.Value.IsList() != in.Multiple {
				t.Fatalf("chose %v (list %v) for multiple=%v", a.Value.Strings(), a.Value.IsList(), in.Multiple)
			}
			if a.Text != "" && !in.AllowText {
				t.Fatalf("kept the words %q on a %s without allow_text", a.Text, in.Kind)
			}
			if a.Value.Len() == 0 && a.Text == "" {
				t.Fatal("took an answer with neither a value nor words")
			}
		}
	})
}
