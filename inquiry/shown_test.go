package inquiry_test

import (
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

// What a person sees is what they decide: text that would show a person something other than
// what is decided is refused at create, with a sentence naming the field and the fix.
func TestValidateRefusesDisguise(t *testing.T) {
	choice := func(labels ...string) func(in *inquiry.Inquiry) {
		return func(in *inquiry.Inquiry) {
			in.Options = nil
			for i, l := range labels {
				in.Options = append(in.Options, inquiry.Option{Value: "v" + string(rune('a'+i)), Label: l})
			}
		}
	}
	cases := []struct {
		name  string
		edit  func(in *inquiry.Inquiry)
		field string
		says  string
	}{
		{"a context rewriting its line", func(in *inquiry.Inquiry) {
			in.Context = "CI: 214 tests FAILED\r   CI: all 214 tests passed; scan clean."
		}, "context", "carriage return"},
		{"a question with CR LF", func(in *inquiry.Inquiry) { in.Question = "Merge?\r\nSure." }, "question", "carriage return"},
		{"a right-to-left override in the question", func(in *inquiry.Inquiry) { in.Question = "Merge PR \u202e41# ?" }, "question", "reorders the text"},
		{"an isolate in the context", func(in *inquiry.Inquiry) { in.Context = "a \u2067b\u2069" }, "context", "reorders the text"},
		{"a line separator in the question", func(in *inquiry.Inquiry) { in.Question = "Merge?\u2028Approved." }, "question", "breaks or moves the line"},
		{"a zero-width space in a label", choice("Merge", "Merge\u200b"), "options[1].label", "shows as nothing"},
		{"a Hangul filler in a label", choice("Merge\u3164", "Hold"), "options[0].label", "shows as nothing"},
		{"a blank Braille pattern in a value", func(in *inquiry.Inquiry) {
			in.Options = []inquiry.Option{{Value: "merge\u2800", Label: "Merge"}, {Value: "hold", Label: "Hold"}}
		}, "options[0].value", "shows as nothing"},
		{"a variation selector in a label", choice("Merge\ufe0f", "Hold"), "options[0].label", "shows as nothing"},
		{"a tag character in a label", choice("Merge\U000e0041", "Hold"), "options[0].label", "shows as nothing"},
		{"a combining grapheme joiner in a label", choice("Mer\u034fge", "Hold"), "options[0].label", "shows as nothing"},
		{"a Greek capital mu for an M", choice("Merge", "\u039cerge"), "options[1].label", "looks like options[0].label"},
		{"a Cyrillic a for a Latin one", choice("Approve", "\u0410pprove"), "options[1].label", "looks like options[0].label"},
		{"a one for an l", choice("Hold", "Ho1d"), "options[1].label", "looks like options[0].label"},
		{"a capital I for an l", choice("Option l", "Option I"), "options[1].label", "looks like options[0].label"},
		{"a direction override in a description", func(in *inquiry.Inquiry) {
			in.Options[0].Description = "safe \u202e"
		}, "options[0].description", "reorders the text"},
	}
	for _, c := range cases {
		in := pureValid(inquiry.KindChoice)
		c.edit(in)
		err := inquiry.Validate(in, pureNow)
		if inquiry.ErrorCode(err) != inquiry.CodeInvalidInquiry || inquiry.ErrorField(err) != c.field || !strings.Contains(inquiry.ErrorMessage(err), c.says) {
			t.Errorf("%s: Validate = %v (field %q), want invalid_inquiry on %s saying %q", c.name, err, inquiry.ErrorField(err), c.field, c.says)
		}
	}
	// Still accepted: newlines and tabs in prose, labels that merely share letters, and words of
	// any script on their own.
	for _, ok := range []func(in *inquiry.Inquiry){
		func(in *inquiry.Inquiry) { in.Context = "line one\n\tline two" },
		choice("Merge", "Merge later"),
		choice("Μέρος", "Hold"), // Greek on its own
		choice("Yes 👍", "No 👎"),
		choice("Option I", "Option L"), // capitals the eye tells apart
		choice("merge", "Merge later"),
	} {
		in := pureValid(inquiry.KindChoice)
		ok(in)
		if err := inquiry.Validate(in, pureNow); err != nil {
			t.Errorf("%+v: %v", in.Options, err)
		}
	}
}

// Printed shows any character that would rewrite a line or show as nothing as a visible code,
// on every plain-text surface.
func TestPrinted(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text\n\twith layout", "plain text\n\twith layout"},
		{"FAILED\r   passed", "FAILED⟨U+000D⟩   passed"},
		{"abc\u202edcb", "abc⟨U+202E⟩dcb"},
		{"Merge\u200b", "Merge⟨U+200B⟩"},
		{"\x1b[2J", "⟨U+001B⟩[2J"},
		{"bad \xff byte", "bad \ufffd byte"},
		{"a\u2028b", "a⟨U+2028⟩b"},
		{"Μerge é 日本", "Μerge é 日本"},
	}
	for _, c := range cases {
		if got := inquiry.Printed(c.in); got != c.want {
			t.Errorf("Printed(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
