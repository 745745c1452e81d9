package inquiry_test

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/inquiry-bot/bot/inquiry"
)

// Only the prose is ever cut, on a character boundary, and the cut is reported. A value is the
// decision itself: an over-long one passes through whole, with truncated raised.
func ExampleCapAnswer() {
	long := inquiry.CapAnswer(inquiry.Answer{Text: strings.Repeat("漢", 2500)}, 0)
	fmt.Println(utf8.RuneCountInString(long.Text), long.Truncated)

	short := inquiry.CapAnswer(inquiry.Answer{Text: "ship it on Monday"}, 0)
	fmt.Println(short.Text, short.Truncated)

	value := inquiry.CapAnswer(inquiry.Answer{Value: inquiry.One(strings.Repeat("v", 2500))}, 0)
	fmt.Println(len(value.Value.First()), value.Truncated)
	// Output:
	// 2000 true
	// ship it on Monday false
	// 2500 true
}

// A run's state keeps the decision whole and at most 200 characters of prose; the full answer
// still goes back to whoever asked.
func ExampleStateAnswerOf() {
	full := inquiry.CapAnswer(inquiry.Answer{
		InquiryID: "deploy-42:merge",
		Value:     inquiry.One("hold"),
		Text:      strings.Repeat("Wait for the security review. ", 20),
	}, 0)
	state := inquiry.StateAnswerOf(full)

	fmt.Println(full.Value, utf8.RuneCountInString(full.Text), full.Truncated)
	fmt.Println(state.Value, utf8.RuneCountInString(state.Text), state.Truncated)
	// Output:
	// hold 600 false
	// hold 200 true
}

// Typed words choose an option only when they are that option, whatever their case and the
// blanks around them; a sentence that contains an option chooses nothing.
func ExampleChosen() {
	options := []inquiry.Option{
		{Value: "merge", Label: "Merge"},
		{Value: "hold", Label: "Hold for review"},
	}
	for _, typed := range []string{"  MERGE ", "hold", "hold for review", "yes, merge it", ""} {
		o, ok := inquiry.Chosen(options, typed)
		fmt.Printf("%q -> %q %v\n", typed, o.Value, ok)
	}
	// Output:
	// "  MERGE " -> "merge" true
	// "hold" -> "hold" true
	// "hold for review" -> "hold" true
	// "yes, merge it" -> "" false
	// "" -> "" false
}

// What to assume when nobody answers: the default, or a decline when there is none.
func ExampleDefaultAnswerFor() {
	merge := &inquiry.Inquiry{
		ID: "deploy-42:merge", Kind: inquiry.KindChoice, Question: "Merge now?",
		Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}},
		Default: inquiry.One("hold"),
	}
	notes := &inquiry.Inquiry{ID: "deploy-42:notes", Kind: inquiry.KindText, Question: "Release notes?", Default: inquiry.One("none")}
	tag := &inquiry.Inquiry{ID: "deploy-42:tag", Kind: inquiry.KindConfirm, Question: "Tag the release?"}

	for _, in := range []*inquiry.Inquiry{merge, notes, tag} {
		a := inquiry.DefaultAnswerFor(in)
		fmt.Printf("%s: value=%q text=%q declined=%v\n", a.InquiryID, a.Value, a.Text, a.Declined)
	}
	// Output:
	// deploy-42:merge: value="hold" text="" declined=false
	// deploy-42:notes: value="" text="none" declined=false
	// deploy-42:tag: value="" text="" declined=true
}

// The one reading of "what was answered": the first value, else the text, else nothing.
func ExampleAnsweredWith() {
	for _, a := range []*inquiry.Answer{
		{Value: inquiry.Many("close", "merge")},
		{Value: inquiry.One("hold"), Text: "until Monday"},
		{Text: "rebase onto main first"},
		{Declined: true, Text: "not my call"},
		nil,
	} {
		what, ok := inquiry.AnsweredWith(a)
		fmt.Printf("%q %v\n", what, ok)
	}
	// Output:
	// "close" true
	// "hold" true
	// "rebase onto main first" true
	// "" false
	// "" false
}

// A one-line label of an inquiry, for a log line or a list row.
func ExampleRender() {
	expires := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	merge := &inquiry.Inquiry{
		ID: "deploy-42:merge", Kind: inquiry.KindChoice, Question: "Merge now?",
		Options:   []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}},
		Default:   inquiry.One("hold"),
		ExpiresAt: &expires,
	}
	tag := &inquiry.Inquiry{ID: "deploy-42:tag", Kind: inquiry.KindConfirm, Question: "Tag the\nrelease?", Default: inquiry.One("yes")}

	fmt.Println(inquiry.Render(merge))
	fmt.Println(inquiry.Render(tag))
	// Output:
	// choice deploy-42:merge "Merge now?" ["Merge" | "Hold"] default Hold expires 2026-12-01T14:00:00Z
	// confirm deploy-42:tag "Tag the release?" default Yes
}

// A reply is read with Chosen: words that are an option choose it; other words are refused
// with a sentence that says what would do, unless the question allows an answer in words.
func ExampleCheckAnswer() {
	in := &inquiry.Inquiry{
		ID: "deploy-42:merge", Kind: inquiry.KindChoice, Question: "Merge now?",
		Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}},
	}

	a, err := inquiry.CheckAnswer(in, inquiry.Reply{Text: "  MERGE "})
	fmt.Println(a.Value, err)

	_, err = inquiry.CheckAnswer(in, inquiry.Reply{Text: "yes, merge it"})
	fmt.Println(inquiry.ErrorCode(err), inquiry.ErrorField(err))
	fmt.Println(inquiry.ErrorMessage(err))

	in.AllowText = true
	a, err = inquiry.CheckAnswer(in, inquiry.Reply{Text: "yes, merge it"})
	fmt.Printf("%q %v\n", a.Text, err)
	// Output:
	// merge <nil>
	// invalid_answer text
	// "yes, merge it" is none of the offered answers and this question takes no answer in other words: choose one of "merge" (Merge), "hold" (Hold)
	// "yes, merge it" <nil>
}

// Validate refuses the first broken rule with one sentence naming the rule and the fix, and
// normalises what it may.
func ExampleValidate() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	in := &inquiry.Inquiry{
		ID: "deploy-42:merge", Kind: inquiry.KindChoice, Question: "Merge now?",
		Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "MERGE ", Label: "Merge it"}},
	}
	err := inquiry.Validate(in, now)
	fmt.Println(inquiry.ErrorCode(err), inquiry.ErrorField(err))
	fmt.Println(inquiry.ErrorMessage(err))

	tag := &inquiry.Inquiry{ID: "deploy-42:tag", Kind: inquiry.KindConfirm, Question: "Tag it?", Default: inquiry.One(" YES ")}
	fmt.Println(inquiry.Validate(tag, now), tag.Default)
	// Output:
	// invalid_inquiry options[1].value
	// options[1].value "MERGE " repeats options[0].value "merge" (values must differ whatever their case and surrounding blanks): change one
	// <nil> yes
}

// A transport nobody seated is unavailable at once, and fatal: retry loops stop.
func ExampleRegistry_Lookup() {
	r := inquiry.NewRegistry()
	_, err := r.Lookup(inquiry.TransportInbox)
	fmt.Println(err)

	_, err = r.Lookup(inquiry.TransportSlack)
	fmt.Println(inquiry.ErrorCode(err), inquiry.Fatal(err))
	// Output:
	// <nil>
	// inquiry_unavailable true
}
