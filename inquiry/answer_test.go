package inquiry_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// pureOptions are the options most answer tests offer: labels that differ from values, so a
// test can tell a match by label from a match by value.
func pureOptions() []inquiry.Option {
	return []inquiry.Option{
		{Value: "merge", Label: "Merge now"},
		{Value: "hold", Label: "Hold"},
		{Value: "close", Label: "Close the PR", Description: "and delete the branch"},
	}
}

func pureChoiceInquiry() *inquiry.Inquiry {
	return &inquiry.Inquiry{
		ID:       "deploy-42:merge",
		RunID:    "deploy-42",
		Kind:     inquiry.KindChoice,
		Question: "Merge now?",
		Options:  pureOptions(),
	}
}

// answerable returns the inquiries the CheckAnswer tests answer: pureChoiceInquiry as it is,
// with allow_text and with multiple; a confirm without and with allow_text; and a text.
func answerable() (choice, choiceText, multiple, confirm, confirmText, text *inquiry.Inquiry) {
	choice, choiceText, multiple = pureChoiceInquiry(), pureChoiceInquiry(), pureChoiceInquiry()
	choiceText.AllowText = true
	multiple.Multiple = true
	confirm = &inquiry.Inquiry{ID: "tag", Kind: inquiry.KindConfirm, Question: "Tag the release?"}
	confirmText = &inquiry.Inquiry{ID: "tag", Kind: inquiry.KindConfirm, Question: "Tag the release?", AllowText: true}
	text = &inquiry.Inquiry{ID: "notes", Kind: inquiry.KindText, Question: "Release notes?"}
	return choice, choiceText, multiple, confirm, confirmText, text
}

// cutCase is an answer cut to a ceiling, and what must come of it.
type cutCase struct {
	name          string
	answer        inquiry.Answer
	max           int // CapAnswer's ceiling: 0 or less means the default one
	wantText      string
	wantValue     inquiry.Value
	wantTruncated bool
}

// runCutCases cuts each answer with cut, which also says the ceiling it cut to, and checks the
// text comes out valid UTF-8 within the ceiling (counted in characters) and as expected, the
// value whole, and truncated said exactly when it should be.
func runCutCases(t *testing.T, tests []cutCase, cut func(a inquiry.Answer, ceiling int) (got inquiry.Answer, limit int)) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, limit := cut(tc.answer, tc.max)
			require.True(t, utf8.ValidString(got.Text), "text must be valid UTF-8")
			require.LessOrEqual(t, utf8.RuneCountInString(got.Text), limit)
			require.Equal(t, utf8.RuneCountInString(tc.wantText), utf8.RuneCountInString(got.Text))
			require.True(t, tc.wantText == got.Text, "text differs from the expected %d characters", utf8.RuneCountInString(tc.wantText))
			require.True(t, tc.wantValue.Equal(got.Value), "got value %q, want %q", got.Value, tc.wantValue)
			require.Equal(t, tc.wantTruncated, got.Truncated)
		})
	}
}

func TestCapAnswer(t *testing.T) {
	t.Parallel()

	long := strings.Repeat("a", 3000)
	runCutCases(t, []cutCase{
		{name: "3,000 characters come back as 2,000", answer: inquiry.Answer{Text: long}, wantText: long[:2000], wantTruncated: true},
		{name: "emoji are cut on a character boundary", answer: inquiry.Answer{Text: strings.Repeat("😀", 2500)}, wantText: strings.Repeat("😀", 2000), wantTruncated: true},
		{name: "CJK is cut on a character boundary", answer: inquiry.Answer{Text: strings.Repeat("漢", 2500)}, wantText: strings.Repeat("漢", 2000), wantTruncated: true},
		{name: "a multi-byte character straddling the ceiling is left out whole", answer: inquiry.Answer{Text: strings.Repeat("a", 1999) + "😀😀"}, wantText: strings.Repeat("a", 1999) + "😀", wantTruncated: true},
		{name: "exactly 2,000 characters are untouched", answer: inquiry.Answer{Text: strings.Repeat("é", 2000)}, wantText: strings.Repeat("é", 2000)},
		{name: "a short answer is untouched", answer: inquiry.Answer{Text: "ship it on Monday"}, wantText: "ship it on Monday"},
		{name: "an empty answer is untouched", answer: inquiry.Answer{}},
		{name: "an over-long value is never shortened but raises truncated", answer: inquiry.Answer{Value: inquiry.One(strings.Repeat("v", 2500))}, wantValue: inquiry.One(strings.Repeat("v", 2500)), wantTruncated: true},
		{name: "an over-long item of a list is never shortened but raises truncated", answer: inquiry.Answer{Value: inquiry.Many("merge", strings.Repeat("v", 2001))}, wantValue: inquiry.Many("merge", strings.Repeat("v", 2001)), wantTruncated: true},
		{name: "a value at the ceiling counted in characters, not bytes, is not truncated", answer: inquiry.Answer{Value: inquiry.One(strings.Repeat("😀", 2000))}, wantValue: inquiry.One(strings.Repeat("😀", 2000))},
		{name: "value and prose: the prose is cut, the value kept", answer: inquiry.Answer{Value: inquiry.One("hold"), Text: long}, wantValue: inquiry.One("hold"), wantText: long[:2000], wantTruncated: true},
		{name: "short invalid UTF-8 comes out valid, and not truncated", answer: inquiry.Answer{Text: "ab\xffc"}, wantText: "ab\uFFFDc"},
		{name: "long invalid UTF-8 comes out valid and cut", answer: inquiry.Answer{Text: strings.Repeat("a", 2500) + "\xff\xfe"}, wantText: strings.Repeat("a", 2000), wantTruncated: true},
		{name: "a given ceiling counts characters", answer: inquiry.Answer{Text: "héllo wörld"}, max: 5, wantText: "héllo", wantTruncated: true},
		{name: "a negative ceiling means the default one", answer: inquiry.Answer{Text: long}, max: -1, wantText: long[:2000], wantTruncated: true},
		{name: "an answer already marked truncated stays truncated", answer: inquiry.Answer{Text: "short", Truncated: true}, wantText: "short", wantTruncated: true},
	}, func(a inquiry.Answer, ceiling int) (inquiry.Answer, int) {
		limit := ceiling
		if limit <= 0 {
			limit = inquiry.DefaultAnswerChars
		}
		return inquiry.CapAnswer(a, ceiling), limit
	})
}

func TestCapAnswerKeepsWhoAndHow(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	in := inquiry.Answer{
		InquiryID:  "deploy-42:notes",
		Text:       strings.Repeat("x", 3000),
		AnsweredBy: "U123",
		Source:     inquiry.SourcePerson,
		AnsweredAt: at,
	}
	got := inquiry.CapAnswer(in, 0)
	require.Equal(t, "deploy-42:notes", got.InquiryID)
	require.Equal(t, "U123", got.AnsweredBy)
	require.Equal(t, inquiry.SourcePerson, got.Source)
	require.Equal(t, at, got.AnsweredAt)
	require.Len(t, in.Text, 3000, "the caller's answer is not modified")

	declined := inquiry.CapAnswer(inquiry.Answer{Declined: true, Text: strings.Repeat("x", 3000)}, 0)
	require.True(t, declined.Declined)
	require.True(t, declined.Truncated)
	require.Len(t, declined.Text, 2000)
}

func TestStateAnswerOf(t *testing.T) {
	t.Parallel()

	runCutCases(t, []cutCase{
		{name: "prose is cut to 200 characters", answer: inquiry.Answer{Text: strings.Repeat("a", 201)}, wantText: strings.Repeat("a", 200), wantTruncated: true},
		{name: "200 characters are kept", answer: inquiry.Answer{Text: strings.Repeat("a", 200)}, wantText: strings.Repeat("a", 200)},
		{name: "emoji are cut on a character boundary", answer: inquiry.Answer{Text: strings.Repeat("😀", 300)}, wantText: strings.Repeat("😀", 200), wantTruncated: true},
		{name: "the decision is kept whole, however long", answer: inquiry.Answer{Value: inquiry.One(strings.Repeat("v", 500))}, wantValue: inquiry.One(strings.Repeat("v", 500))},
		{name: "a list decision is kept whole beside cut prose", answer: inquiry.Answer{Value: inquiry.Many("a", "b", "c"), Text: strings.Repeat("t", 1000)}, wantValue: inquiry.Many("a", "b", "c"), wantText: strings.Repeat("t", 200), wantTruncated: true},
		{name: "invalid UTF-8 comes out valid", answer: inquiry.Answer{Text: "\xffok"}, wantText: "\uFFFDok"},
		{name: "a truncated answer stays truncated", answer: inquiry.Answer{Text: "short", Truncated: true}, wantText: "short", wantTruncated: true},
	}, func(a inquiry.Answer, _ int) (inquiry.Answer, int) {
		return inquiry.StateAnswerOf(a), inquiry.StateTextChars
	})
}

func TestStateAnswerOfCapAnswer(t *testing.T) {
	t.Parallel()
	full := inquiry.CapAnswer(inquiry.Answer{InquiryID: "x", Value: inquiry.One("hold"), Text: strings.Repeat("w", 3000)}, 0)
	state := inquiry.StateAnswerOf(full)

	require.Len(t, full.Text, inquiry.DefaultAnswerChars, "the full answer keeps the ceiling")
	require.Len(t, state.Text, inquiry.StateTextChars)
	require.True(t, state.Truncated)
	require.Equal(t, "hold", state.Value.First())
	require.Equal(t, "x", state.InquiryID)
}

func TestChosen(t *testing.T) {
	t.Parallel()

	opts := []inquiry.Option{
		{Value: "merge", Label: "Merge"},
		{Value: "hold", Label: "Hold for review"},
		{Value: "close-pr", Label: "Close"},
	}
	tests := []struct {
		name    string
		options []inquiry.Option
		typed   string
		want    string // the chosen option's value
		wantOK  bool
	}{
		{"the label, whatever its case and blanks", opts, "  MERGE ", "merge", true},
		{"the label as shown", opts, "Merge", "merge", true},
		{"a label of several words", opts, "hold FOR review", "hold", true},
		{"the value", opts, "close-pr", "close-pr", true},
		{"the value, whatever its case", opts, "CLOSE-PR", "close-pr", true},
		{"tabs and newlines around", opts, "\tmerge\n", "merge", true},
		{"no-break spaces around", opts, "\u00a0Merge\u00a0", "merge", true},
		{"a sentence containing an option chooses nothing", opts, "yes, merge it", "", false},
		{"an option followed by words chooses nothing", opts, "merge it", "", false},
		{"a prefix of an option chooses nothing", opts, "Mer", "", false},
		{"an option with inner blanks changed chooses nothing", opts, "hold  for review", "", false},
		{"an empty string chooses nothing", opts, "", "", false},
		{"blanks choose nothing", opts, "   ", "", false},
		{"no options, nothing chosen", nil, "merge", "", false},
		{"a confirm's yes", inquiry.ConfirmOptions, " Yes ", "yes", true},
		{"a confirm's no", inquiry.ConfirmOptions, "NO", "no", true},
		{"a confirm's y is not yes", inquiry.ConfirmOptions, "y", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := inquiry.Chosen(tc.options, tc.typed)
			require.Equal(t, tc.wantOK, ok)
			require.Equal(t, tc.want, got.Value)
			if !ok {
				require.Equal(t, inquiry.Option{}, got)
				return
			}
			require.Contains(t, tc.options, got, "the chosen option is one of the options, whole")
		})
	}
}

func TestDefaultAnswerFor(t *testing.T) {
	t.Parallel()

	confirm := &inquiry.Inquiry{ID: "tag", Kind: inquiry.KindConfirm, Question: "Tag it?", Default: inquiry.One("no")}
	text := &inquiry.Inquiry{ID: "notes", Kind: inquiry.KindText, Question: "Release notes?", Default: inquiry.One("none this time")}
	choice := pureChoiceInquiry()
	choice.Default = inquiry.One("hold")
	multiple := pureChoiceInquiry()
	multiple.Multiple = true
	multiple.Default = inquiry.Many("merge", "close")
	none := pureChoiceInquiry()
	noneText := &inquiry.Inquiry{ID: "notes", Kind: inquiry.KindText, Question: "Release notes?"}

	tests := []struct {
		name    string
		in      *inquiry.Inquiry
		want    inquiry.Answer
		wantHow string // what AnsweredWith reads from it
		wantOK  bool
	}{
		{"a choice's default is its value", choice, inquiry.Answer{InquiryID: "deploy-42:merge", Value: inquiry.One("hold")}, "hold", true},
		{"a multiple choice's default is its list", multiple, inquiry.Answer{InquiryID: "deploy-42:merge", Value: inquiry.Many("merge", "close")}, "merge", true},
		{"a confirm's default is its value", confirm, inquiry.Answer{InquiryID: "tag", Value: inquiry.One("no")}, "no", true},
		{"a text's default is text", text, inquiry.Answer{InquiryID: "notes", Text: "none this time"}, "none this time", true},
		{"no default is a decline", none, inquiry.Answer{InquiryID: "deploy-42:merge", Declined: true}, "", false},
		{"no default on text is a decline", noneText, inquiry.Answer{InquiryID: "notes", Declined: true}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := inquiry.DefaultAnswerFor(tc.in)
			require.Equal(t, tc.want.InquiryID, got.InquiryID)
			require.True(t, tc.want.Value.Equal(got.Value), "got value %q, want %q", got.Value, tc.want.Value)
			require.Equal(t, tc.want.Text, got.Text)
			require.Equal(t, tc.want.Declined, got.Declined)
			require.Equal(t, tc.want.Declined, inquiry.IsDeclined(&got))
			require.False(t, got.Truncated)
			require.Empty(t, got.Source, "the caller labels the source")
			require.True(t, got.AnsweredAt.IsZero(), "the caller stamps the time")

			how, ok := inquiry.AnsweredWith(&got)
			require.Equal(t, tc.wantOK, ok)
			require.Equal(t, tc.wantHow, how)
		})
	}
}

// A validated inquiry's default always reads back as an answer, and no default as a decline:
// there is no third outcome of "assume the default".
func TestDefaultAnswerForAfterValidate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, def := range []inquiry.Value{{}, inquiry.One(""), inquiry.One("  "), inquiry.Many(), inquiry.One("merge"), inquiry.Many("merge", "hold")} {
		in := pureChoiceInquiry()
		in.Multiple = true
		in.Default = def
		require.NoError(t, inquiry.Validate(in, now))

		a := inquiry.DefaultAnswerFor(in)
		_, ok := inquiry.AnsweredWith(&a)
		require.Equal(t, in.HasDefault(), ok, "default %q", def)
		require.Equal(t, !in.HasDefault(), inquiry.IsDeclined(&a), "default %q", def)
	}
}

// TestAnsweredWith checks what an answer comes to: AnsweredWith's value or words, and whether
// IsDeclined calls it a decline.
func TestAnsweredWith(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		answer   *inquiry.Answer
		want     string
		wantOK   bool
		declined bool
	}{
		{"no answer at all", nil, "", false, false},
		{"an empty answer", &inquiry.Answer{}, "", false, false},
		{"a value", &inquiry.Answer{Value: inquiry.One("merge")}, "merge", true, false},
		{"the first value of a list", &inquiry.Answer{Value: inquiry.Many("close", "merge")}, "close", true, false},
		{"the value before the text", &inquiry.Answer{Value: inquiry.One("hold"), Text: "until Monday"}, "hold", true, false},
		{"else the text", &inquiry.Answer{Text: "rebase first"}, "rebase first", true, false},
		{"an empty list, then the text", &inquiry.Answer{Value: inquiry.Many(), Text: "neither"}, "neither", true, false},
		{"a decline is nothing", &inquiry.Answer{Declined: true}, "", false, true},
		{"a decline with words is nothing", &inquiry.Answer{Declined: true, Text: "not my call"}, "", false, true},
		{"a decline with a value is nothing", &inquiry.Answer{Declined: true, Value: inquiry.One("merge")}, "", false, true},
		{"an expiry with no default is a decline", &inquiry.Answer{Declined: true, Source: inquiry.SourceExpired}, "", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := inquiry.AnsweredWith(tc.answer)
			require.Equal(t, tc.wantOK, ok)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.declined, inquiry.IsDeclined(tc.answer))
		})
	}
}

func TestCheckAnswer(t *testing.T) {
	t.Parallel()

	choice, choiceText, multiple, confirm, confirmText, text := answerable()
	long := strings.Repeat("w", 3000)

	tests := []struct {
		name          string
		in            *inquiry.Inquiry
		reply         inquiry.Reply
		wantValue     inquiry.Value
		wantText      string
		wantDeclined  bool
		wantTruncated bool
	}{
		{name: "a value, exactly", in: choice, reply: inquiry.Reply{Value: inquiry.One("merge")}, wantValue: inquiry.One("merge")},
		{name: "a value by its label", in: choice, reply: inquiry.Reply{Value: inquiry.One("Merge now")}, wantValue: inquiry.One("merge")},
		{name: "a value by its label, whatever its case and blanks", in: choice, reply: inquiry.Reply{Value: inquiry.One("  hold ")}, wantValue: inquiry.One("hold")},
		{name: "a value by its label in capitals", in: choice, reply: inquiry.Reply{Value: inquiry.One("CLOSE THE PR")}, wantValue: inquiry.One("close")},
		{name: "a value whatever its case", in: choice, reply: inquiry.Reply{Value: inquiry.One("MERGE")}, wantValue: inquiry.One("merge")},
		{name: "a list of one on a single choice is that one", in: choice, reply: inquiry.Reply{Value: inquiry.Many("hold")}, wantValue: inquiry.One("hold")},
		{name: "typed words that are an option choose it", in: choice, reply: inquiry.Reply{Text: "merge"}, wantValue: inquiry.One("merge")},
		{name: "typed words that are a label choose it", in: choice, reply: inquiry.Reply{Text: "  close the pr "}, wantValue: inquiry.One("close")},
		{name: "with allow_text, typed words that are an option choose it", in: choiceText, reply: inquiry.Reply{Text: "Hold"}, wantValue: inquiry.One("hold")},
		{name: "with allow_text, other words become text", in: choiceText, reply: inquiry.Reply{Text: "  yes, merge it after CI  "}, wantText: "yes, merge it after CI"},
		{name: "with allow_text, a value and words", in: choiceText, reply: inquiry.Reply{Value: inquiry.One("hold"), Text: "until Monday"}, wantValue: inquiry.One("hold"), wantText: "until Monday"},
		{name: "with allow_text, 3,000 characters are capped", in: choiceText, reply: inquiry.Reply{Text: long}, wantText: long[:2000], wantTruncated: true},
		{name: "a value and blank words on a choice without allow_text", in: choice, reply: inquiry.Reply{Value: inquiry.One("hold"), Text: "  "}, wantValue: inquiry.One("hold")},
		{name: "multiple: a list", in: multiple, reply: inquiry.Reply{Value: inquiry.Many("merge", "Close the PR")}, wantValue: inquiry.Many("merge", "close")},
		{name: "multiple: one string is a list of one", in: multiple, reply: inquiry.Reply{Value: inquiry.One("hold")}, wantValue: inquiry.Many("hold")},
		{name: "multiple: the same option twice counts once", in: multiple, reply: inquiry.Reply{Value: inquiry.Many("hold", "HOLD")}, wantValue: inquiry.Many("hold")},
		{name: "multiple: typed words that are an option", in: multiple, reply: inquiry.Reply{Text: "merge now"}, wantValue: inquiry.Many("merge")},
		{name: "confirm: yes", in: confirm, reply: inquiry.Reply{Value: inquiry.One("yes")}, wantValue: inquiry.One("yes")},
		{name: "confirm: No by its label", in: confirm, reply: inquiry.Reply{Value: inquiry.One("No")}, wantValue: inquiry.One("no")},
		{name: "confirm: typed YES", in: confirm, reply: inquiry.Reply{Text: " YES "}, wantValue: inquiry.One("yes")},
		{name: "confirm with allow_text: other words become text", in: confirmText, reply: inquiry.Reply{Text: "only if CI is green"}, wantText: "only if CI is green"},
		{name: "text: words, trimmed", in: text, reply: inquiry.Reply{Text: "  fixes the login bug \n"}, wantText: "fixes the login bug"},
		{name: "text: words sent as a value", in: text, reply: inquiry.Reply{Value: inquiry.One("fixes the login bug")}, wantText: "fixes the login bug"},
		{name: "text: 3,000 characters are capped", in: text, reply: inquiry.Reply{Text: long}, wantText: long[:2000], wantTruncated: true},
		{name: "text: emoji are capped on a character boundary", in: text, reply: inquiry.Reply{Text: strings.Repeat("😀", 2500)}, wantText: strings.Repeat("😀", 2000), wantTruncated: true},
		{name: "declined", in: choice, reply: inquiry.Reply{Declined: true}, wantDeclined: true},
		{name: "declined with a reason", in: text, reply: inquiry.Reply{Declined: true, Text: " not my call "}, wantDeclined: true, wantText: "not my call"},
		{name: "declined with a long reason is capped", in: confirm, reply: inquiry.Reply{Declined: true, Text: long}, wantDeclined: true, wantText: long[:2000], wantTruncated: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := inquiry.CheckAnswer(tc.in, tc.reply)
			require.NoError(t, err)
			require.Equal(t, tc.in.ID, got.InquiryID)
			require.True(t, tc.wantValue.Equal(got.Value), "got value %#v, want %#v", got.Value.Strings(), tc.wantValue.Strings())
			require.Equal(t, tc.wantValue.IsList(), got.Value.IsList())
			require.Equal(t, tc.wantText, got.Text)
			require.Equal(t, tc.wantDeclined, got.Declined)
			require.Equal(t, tc.wantTruncated, got.Truncated)
			require.Empty(t, got.Source, "the caller labels the source")
		})
	}
}

func TestCheckAnswerRefusals(t *testing.T) {
	t.Parallel()

	choice, choiceText, multiple, confirm, _, text := answerable()
	offered := `"merge" (Merge now), "hold" (Hold), "close" (Close the PR)`

	tests := []struct {
		name      string
		in        *inquiry.Inquiry
		reply     inquiry.Reply
		wantField string
		wantIn    []string // what the sentence must say
	}{
		{"an unknown value", choice, inquiry.Reply{Value: inquiry.One("rebase")}, "value", []string{`"rebase" is none of the offered answers`, "choose one of " + offered}},
		{"an unknown value with allow_text", choiceText, inquiry.Reply{Value: inquiry.One("rebase")}, "value", []string{`"rebase" is none of the offered answers`, offered, "or your own words as text"}},
		{"a sentence containing an option, without allow_text", choice, inquiry.Reply{Text: "yes, merge it"}, "text", []string{`"yes, merge it" is none of the offered answers`, "takes no answer in other words", offered}},
		{"neither value nor text", choice, inquiry.Reply{}, "value", []string{"choose one of the offered answers", offered}},
		{"blank text only", choice, inquiry.Reply{Text: "   "}, "value", []string{"choose one of the offered answers"}},
		{"nothing, with allow_text", choiceText, inquiry.Reply{}, "value", []string{"needs a value or words", offered, "or your own words as text"}},
		{"a list on a single choice", choice, inquiry.Reply{Value: inquiry.Many("merge", "hold")}, "value", []string{"takes one answer, not a list", offered}},
		{"an empty list", multiple, inquiry.Reply{Value: inquiry.Many()}, "value", []string{"choose at least one of", offered}},
		{"a list with an unknown item", multiple, inquiry.Reply{Value: inquiry.Many("merge", "rebase")}, "value", []string{`"rebase" is none of the offered answers`}},
		{"words beside a value without allow_text", choice, inquiry.Reply{Value: inquiry.One("merge"), Text: "after CI"}, "text", []string{"does not take words beside the choice", "send the value alone"}},
		{"confirm: maybe", confirm, inquiry.Reply{Text: "maybe"}, "text", []string{`"maybe" is none of the offered answers`, `"yes" (Yes), "no" (No)`}},
		{"confirm: y", confirm, inquiry.Reply{Value: inquiry.One("y")}, "value", []string{`"y" is none of the offered answers`}},
		{"confirm: both", confirm, inquiry.Reply{Value: inquiry.Many("yes", "no")}, "value", []string{"takes one answer, not a list"}},
		{"text: a value and text", text, inquiry.Reply{Value: inquiry.One("a"), Text: "b"}, "value", []string{"answered with text alone", "without a value"}},
		{"text: nothing", text, inquiry.Reply{Text: " \n "}, "text", []string{"needs an answer in words", `{"declined": true}`}},
		{"declined and a value", choice, inquiry.Reply{Declined: true, Value: inquiry.One("merge")}, "declined", []string{"either declined or a value, not both", "drop one"}},
		{"invalid UTF-8", text, inquiry.Reply{Text: "ok\xff"}, "text", []string{"not valid UTF-8", "send it as UTF-8 text"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := inquiry.CheckAnswer(tc.in, tc.reply)
			require.Error(t, err)
			var e *inquiry.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, inquiry.CodeInvalidAnswer, e.Code)
			require.Equal(t, inquiry.CodeInvalidAnswer, inquiry.ErrorCode(err))
			require.Equal(t, tc.wantField, e.Field)
			require.False(t, inquiry.Fatal(err), "a wrong answer is not fatal")
			msg := inquiry.ErrorMessage(err)
			pureRequireOneSentence(t, msg)
			for _, want := range tc.wantIn {
				require.Contains(t, msg, want)
			}
		})
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	exp := time.Date(2026, 12, 1, 14, 0, 0, 0, time.FixedZone("CET", 3600))

	choice := pureChoiceInquiry()
	choice.Default = inquiry.One("hold")
	choice.ExpiresAt = &exp
	multiple := pureChoiceInquiry()
	multiple.Multiple = true
	multiple.Default = inquiry.Many("merge", "close")

	tests := []struct {
		name string
		in   *inquiry.Inquiry
		want string
	}{
		{"a choice with a default and an expiry, in UTC", choice, `choice deploy-42:merge "Merge now?" ["Merge now" | "Hold" | "Close the PR"] default Hold expires 2026-12-01T13:00:00Z`},
		{"a label holding the separator stays one option", func() *inquiry.Inquiry {
			in := pureChoiceInquiry()
			in.Options = []inquiry.Option{{Value: "m", Label: "Merge | Deploy anyway"}, {Value: "h", Label: "Hold"}}
			return in
		}(), `choice deploy-42:merge "Merge now?" ["Merge | Deploy anyway" | "Hold"]`},
		{"a multiple choice, defaults by label", multiple, `choice deploy-42:merge "Merge now?" ["Merge now" + "Hold" + "Close the PR"] default Merge now, Close the PR`},
		{"a confirm shows no options, its default by label", &inquiry.Inquiry{ID: "tag", Kind: inquiry.KindConfirm, Question: "Tag it?", Default: inquiry.One("yes")}, `confirm tag "Tag it?" default Yes`},
		{"a text with a default", &inquiry.Inquiry{ID: "notes", Kind: inquiry.KindText, Question: "Notes?", Default: inquiry.One("none")}, `text notes "Notes?" default "none"`},
		{"a question on several lines is one line", &inquiry.Inquiry{ID: "q", Kind: inquiry.KindText, Question: "First line\n\n  second\tline"}, `text q "First line second line"`},
		{"a question is quoted as Go quotes it", &inquiry.Inquiry{ID: "q", Kind: inquiry.KindText, Question: "Say \"hi\" \\ \u00e9\u200b?"}, `text q "Say \"hi\" \\ é\u200b?"`},
		{"a long question is cut at 80 characters", &inquiry.Inquiry{ID: "q", Kind: inquiry.KindText, Question: strings.Repeat("漢", 100)}, `text q "` + strings.Repeat("漢", 80) + `…"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := inquiry.Render(tc.in)
			require.Equal(t, tc.want, got)
			require.NotContains(t, got, "\n")
		})
	}
}

func TestRenderAnswer(t *testing.T) {
	t.Parallel()
	choice := pureChoiceInquiry()
	text := &inquiry.Inquiry{ID: "notes", Kind: inquiry.KindText, Question: "Notes?"}

	tests := []struct {
		name   string
		in     *inquiry.Inquiry
		answer *inquiry.Answer
		want   string
	}{
		{"no answer", choice, nil, "no answer"},
		{"a person's choice, by its label", choice, &inquiry.Answer{Value: inquiry.One("merge"), Source: inquiry.SourcePerson, AnsweredBy: "U123"}, "Merge now by U123"},
		{"a choice with words", choice, &inquiry.Answer{Value: inquiry.One("hold"), Text: "until\nMonday", Source: inquiry.SourcePerson}, `Hold ("until Monday")`},
		{"words", text, &inquiry.Answer{Text: "fixes login", Source: inquiry.SourcePerson, AnsweredBy: "ci-token"}, `"fixes login" by ci-token`},
		{"a decline", choice, &inquiry.Answer{Declined: true, Source: inquiry.SourcePerson, AnsweredBy: "U1"}, "declined by U1"},
		{"assumed by policy", choice, &inquiry.Answer{Value: inquiry.One("hold"), Source: inquiry.SourceDefault}, "Hold (assumed by policy: nobody was asked)"},
		{"expired with a default", choice, &inquiry.Answer{Value: inquiry.One("hold"), Source: inquiry.SourceExpired}, "Hold (assumed: nobody answered in time)"},
		{"expired with none", choice, &inquiry.Answer{Declined: true, Source: inquiry.SourceExpired}, "expired: nobody decided"},
		{"a value no option has shows as itself", choice, &inquiry.Answer{Value: inquiry.One("gone")}, "gone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, inquiry.RenderAnswer(tc.in, tc.answer))
		})
	}
}

func TestLabelOf(t *testing.T) {
	t.Parallel()
	choice := pureChoiceInquiry()
	confirm := &inquiry.Inquiry{Kind: inquiry.KindConfirm}
	require.Equal(t, "Close the PR", inquiry.LabelOf(choice, "close"))
	require.Equal(t, "unknown", inquiry.LabelOf(choice, "unknown"))
	require.Equal(t, "Yes", inquiry.LabelOf(confirm, "yes"))
	require.Equal(t, "x", inquiry.LabelOf(&inquiry.Inquiry{Kind: inquiry.KindText}, "x"))
}

// pureRequireOneSentence checks a message is one sentence on one line, as every refusal must be.
func pureRequireOneSentence(t *testing.T, msg string) {
	t.Helper()
	require.NotEmpty(t, msg)
	require.NotContains(t, msg, "\n", "a refusal is one line")
	require.NotContains(t, msg, ". ", "a refusal is one sentence")
	require.Equal(t, strings.TrimSpace(msg), msg)
}

func FuzzCapAnswer(f *testing.F) {
	f.Add("ship it", "merge", 0)
	f.Add(strings.Repeat("😀", 2500), "", 0)
	f.Add(strings.Repeat("漢", 2001), strings.Repeat("v", 2001), 0)
	f.Add("ab\xffc\xfe", "\xff", 3)
	f.Add(strings.Repeat("a", 1999)+"😀😀", "", -7)
	f.Add("héllo wörld", "x", 5)

	f.Fuzz(func(t *testing.T, text, value string, max int) {
		max %= 5000 // keep the ceilings small enough to be reached
		limit := max
		if limit <= 0 {
			limit = inquiry.DefaultAnswerChars
		}
		var v inquiry.Value
		if value != "" {
			v = inquiry.One(value)
		}
		got := inquiry.CapAnswer(inquiry.Answer{InquiryID: "x", Text: text, Value: v}, max)

		if !utf8.ValidString(got.Text) {
			t.Fatalf("CapAnswer(%q) = %q: not valid UTF-8", text, got.Text)
		}
		if n := utf8.RuneCountInString(got.Text); n > limit {
			t.Fatalf("CapAnswer kept %d characters, ceiling %d", n, limit)
		}
		if !got.Value.Equal(v) {
			t.Fatalf("CapAnswer changed the value %q to %q", v, got.Value)
		}
		repaired := strings.ToValidUTF8(text, "\uFFFD")
		if !strings.HasPrefix(repaired, got.Text) {
			t.Fatalf("CapAnswer(%q) = %q: not a prefix of the answer", text, got.Text)
		}
		wantTruncated := utf8.RuneCountInString(repaired) > limit || utf8.RuneCountInString(value) > limit
		if got.Truncated != wantTruncated {
			t.Fatalf("CapAnswer(%q, value %q, %d).Truncated = %v, want %v", text, value, max, got.Truncated, wantTruncated)
		}
		if max <= 0 && utf8.RuneCountInString(got.Text) > inquiry.DefaultAnswerChars {
			t.Fatal("the default ceiling is exceeded")
		}

		state := inquiry.StateAnswerOf(got)
		if !utf8.ValidString(state.Text) || utf8.RuneCountInString(state.Text) > inquiry.StateTextChars {
			t.Fatalf("StateAnswerOf kept %q", state.Text)
		}
		if !state.Value.Equal(v) {
			t.Fatal("StateAnswerOf changed the value")
		}
	})
}

func FuzzChosen(f *testing.F) {
	f.Add("merge|hold|close-pr", "Merge|Hold for review|Close", "  MERGE ")
	f.Add("merge|hold", "Merge|Hold", "yes, merge it")
	f.Add("merge|hold", "Merge|Hold", "")
	f.Add("a|b", "b|a", "A")
	f.Add("\xff|x", "\xfe|y", "\xff")
	f.Add("yes|no", "Yes|No", " no\t")

	f.Fuzz(func(t *testing.T, values, labels, typed string) {
		vs, ls := strings.Split(values, "|"), strings.Split(labels, "|")
		opts := make([]inquiry.Option, len(vs))
		for i, v := range vs {
			opts[i] = inquiry.Option{Value: v, Label: v}
			if i < len(ls) {
				opts[i].Label = ls[i]
			}
		}
		got, ok := inquiry.Chosen(opts, typed)
		norm := func(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
		if !ok {
			if got != (inquiry.Option{}) {
				t.Fatalf("Chosen chose nothing but returned %+v", got)
			}
			if norm(typed) == "" {
				return
			}
			for _, o := range opts {
				if norm(o.Label) == norm(typed) || norm(o.Value) == norm(typed) {
					t.Fatalf("Chosen(%q) missed option %+v", typed, o)
				}
			}
			return
		}
		found := false
		for _, o := range opts {
			if o == got {
				found = true
			}
		}
		if !found {
			t.Fatalf("Chosen(%q) = %+v, which is none of the options", typed, got)
		}
		if norm(typed) == "" {
			t.Fatalf("blank words chose %+v", got)
		}
		if norm(got.Label) != norm(typed) && norm(got.Value) != norm(typed) {
			t.Fatalf("Chosen(%q) = %+v, which it is not", typed, got)
		}
	})
}
