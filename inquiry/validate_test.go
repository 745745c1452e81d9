package inquiry_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

var pureNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// pureValid returns a valid inquiry of the kind, for a test to break one rule of.
func pureValid(kind inquiry.Kind) *inquiry.Inquiry {
	in := &inquiry.Inquiry{
		ID:       "deploy-42:merge",
		RunID:    "deploy-42",
		Kind:     kind,
		Question: "Merge now?",
		Context:  "CI is green; the release is on Monday.",
	}
	if kind == inquiry.KindChoice {
		in.Options = []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}}
	}
	return in
}

// pureOptionsN returns n distinct options.
func pureOptionsN(n int) []inquiry.Option {
	opts := make([]inquiry.Option, n)
	for i := range opts {
		opts[i] = inquiry.Option{Value: fmt.Sprintf("opt-%d", i+1), Label: fmt.Sprintf("Option %d", i+1)}
	}
	return opts
}

func pureAt(d time.Duration) *time.Time {
	t := pureNow.Add(d)
	return &t
}

func TestValidateRefuses(t *testing.T) {
	t.Parallel()

	choice, text, confirm := inquiry.KindChoice, inquiry.KindText, inquiry.KindConfirm
	tests := []struct {
		name  string
		kind  inquiry.Kind
		edit  func(in *inquiry.Inquiry)
		rule  string // rows with the same rule share a message shape; different rules must not
		field string
		says  string // the broken rule, in the message
		fix   string // the fix, in the message
	}{
		{"empty id", choice, func(in *inquiry.Inquiry) { in.ID = "" }, "id-required", "id", "id is required", "stable id"},
		{"too-long id", choice, func(in *inquiry.Inquiry) { in.ID = strings.Repeat("i", 201) }, "id-long", "id", "201 characters long but may have at most 200", "stable id"},
		{"too-long id in characters", choice, func(in *inquiry.Inquiry) { in.ID = strings.Repeat("漢", 201) }, "id-long", "id", "201 characters long but may have at most 200", "stable id"},
		{"unprintable id", choice, func(in *inquiry.Inquiry) { in.ID = "deploy\x00" }, "id-unprintable", "id", "unprintable character U+0000", "printable characters only"},
		{"id with a newline", choice, func(in *inquiry.Inquiry) { in.ID = "deploy\n42" }, "id-unprintable", "id", "unprintable character U+000A", "printable characters only"},
		{"id of blank Braille patterns", choice, func(in *inquiry.Inquiry) { in.ID = "\u2800\u2800" }, "id-blank", "id", "only blanks or characters that show as nothing", "stable id"},
		{"id of Hangul fillers", choice, func(in *inquiry.Inquiry) { in.ID = "\u115f\u3164" }, "id-blank", "id", "only blanks or characters that show as nothing", "stable id"},
		{"run_id of blanks", choice, func(in *inquiry.Inquiry) { in.RunID = " \u2800 " }, "run-blank", "run_id", "only blanks or characters that show as nothing", "leave run_id out"},
		{"requested_by entry that looks blank", confirm, func(in *inquiry.Inquiry) { in.RequestedBy = []string{"U1", "\u115f"} }, "requested-blank", "requested_by[1]", "only blanks or characters that show as nothing", "token's name"},
		{"id of invalid UTF-8", choice, func(in *inquiry.Inquiry) { in.ID = "deploy\xff" }, "id-utf8", "id", "id is not valid UTF-8", "stable id"},
		{"too-long run_id", choice, func(in *inquiry.Inquiry) { in.RunID = strings.Repeat("r", 201) }, "run-long", "run_id", "run_id is 201 characters long but may have at most 200", "leave run_id out"},
		{"unprintable run_id", choice, func(in *inquiry.Inquiry) { in.RunID = "run\x7f" }, "run-unprintable", "run_id", "unprintable character U+007F", "printable characters only"},
		{"run_id of invalid UTF-8", choice, func(in *inquiry.Inquiry) { in.RunID = "\xc3" }, "run-utf8", "run_id", "run_id is not valid UTF-8", "leave run_id out"},
		{"missing kind", "", nil, "kind-required", "kind", "kind is required", `use "choice" to offer options`},
		{"unknown kind", "poll", nil, "kind-unknown", "kind", `kind "poll" is not one of choice, text or confirm`, "use one of them"},
		{"kind in capitals", "Choice", nil, "kind-unknown", "kind", `kind "Choice" is not one of`, "use one of them"},
		{"empty question", text, func(in *inquiry.Inquiry) { in.Question = "" }, "question-required", "question", "question is required", "plain words"},
		{"blank question", text, func(in *inquiry.Inquiry) { in.Question = " \n\t " }, "question-required", "question", "question is required", "plain words"},
		{"2,001-character question", text, func(in *inquiry.Inquiry) { in.Question = strings.Repeat("q", 2001) }, "question-long", "question", "question is 2001 characters long but may have at most 2000", "put the background in context"},
		{"2,001-character question counted in characters", text, func(in *inquiry.Inquiry) { in.Question = strings.Repeat("é", 2001) }, "question-long", "question", "question is 2001 characters long", "put the background in context"},
		{"a control character in the question", text, func(in *inquiry.Inquiry) { in.Question = "Merge\a now?" }, "question-control", "question", "question contains the control character U+0007", "remove it"},
		{"an escape sequence in the question", text, func(in *inquiry.Inquiry) { in.Question = "\x1b[31mMerge now?" }, "question-control", "question", "control character U+001B", "remove it"},
		{"a C1 control in the question", text, func(in *inquiry.Inquiry) { in.Question = "Merge\u0085now?" }, "question-control", "question", "control character U+0085", "remove it"},
		{"invalid UTF-8 in the question", text, func(in *inquiry.Inquiry) { in.Question = "Merge \xff now?" }, "question-utf8", "question", "question is not valid UTF-8", "send it as UTF-8 text"},
		{"2,001-character context", text, func(in *inquiry.Inquiry) { in.Context = strings.Repeat("c", 2001) }, "context-long", "context", "context is 2001 characters long but may have at most 2000", "a sentence or two of background"},
		{"a control character in the context", text, func(in *inquiry.Inquiry) { in.Context = "see\x00here" }, "context-control", "context", "context contains the control character U+0000", "remove it"},
		{"invalid UTF-8 in the context", text, func(in *inquiry.Inquiry) { in.Context = "\xfe" }, "context-utf8", "context", "context is not valid UTF-8", "send it as UTF-8 text"},
		{"a choice with no options", choice, func(in *inquiry.Inquiry) { in.Options = nil }, "options-none", "options", "a choice needs options", `offer 2 to 12 answers, or make it kind "text"`},
		{"a choice with 1 option", choice, func(in *inquiry.Inquiry) { in.Options = pureOptionsN(1) }, "options-few", "options", "needs at least 2 options but has 1", "add another"},
		{"a choice with 13 options", choice, func(in *inquiry.Inquiry) { in.Options = pureOptionsN(13) }, "options-many", "options", "offers at most 12 options but has 13", "keep the 12 that matter"},
		{"a text with options", text, func(in *inquiry.Inquiry) { in.Options = pureOptionsN(2) }, "options-kind", "options", "options are only for a choice, not a text", "remove them"},
		{"a confirm with options", confirm, func(in *inquiry.Inquiry) { in.Options = pureOptionsN(2) }, "options-kind", "options", "options are only for a choice, not a confirm", "remove them"},
		{"multiple on a text", text, func(in *inquiry.Inquiry) { in.Multiple = true }, "multiple-kind", "multiple", "multiple is only for a choice, not a text", "remove it"},
		{"multiple on a confirm", confirm, func(in *inquiry.Inquiry) { in.Multiple = true }, "multiple-kind", "multiple", "multiple is only for a choice, not a confirm", "remove it"},
		{"allow_text on a text", text, func(in *inquiry.Inquiry) { in.AllowText = true }, "allow-text-kind", "allow_text", "allow_text is only for a choice or a confirm", "remove it"},
		{"values that differ only by case", choice, func(in *inquiry.Inquiry) {
			in.Options = []inquiry.Option{{Value: "Merge", Label: "Merge"}, {Value: "merge", Label: "Merge it"}}
		}, "dup-value", "options[1].value", `options[1].value "merge" repeats options[0].value "Merge"`, "change one"},
		{"values that differ only by surrounding blanks", choice, func(in *inquiry.Inquiry) {
			in.Options = []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: " merge ", Label: "Merge it"}}
		}, "dup-value", "options[1].value", "values must differ whatever their case and surrounding blanks", "change one"},
		{"a value repeated further down", choice, func(in *inquiry.Inquiry) {
			in.Options = append(pureOptionsN(2), inquiry.Option{Value: "OPT-1 ", Label: "Again"})
		}, "dup-value", "options[2].value", `repeats options[0].value "opt-1"`, "change one"},
		{"labels that differ only by case", choice, func(in *inquiry.Inquiry) {
			in.Options = []inquiry.Option{{Value: "a", Label: "Merge"}, {Value: "b", Label: "MERGE"}}
		}, "dup-label", "options[1].label", `options[1].label "MERGE" repeats options[0].label "Merge"`, "rename one"},
		{"labels that differ only by surrounding blanks", choice, func(in *inquiry.Inquiry) {
			in.Options = []inquiry.Option{{Value: "a", Label: "Merge"}, {Value: "b", Label: "  merge\u00a0"}}
		}, "dup-label", "options[1].label", "labels must differ whatever their case and surrounding blanks", "rename one"},
		{"a 76-character label", choice, func(in *inquiry.Inquiry) { in.Options[0].Label = strings.Repeat("l", 76) }, "label-long", "options[0].label", "options[0].label is 76 characters long but may have at most 75", "shorten it"},
		{"a 151-character value", choice, func(in *inquiry.Inquiry) { in.Options[1].Value = strings.Repeat("v", 151) }, "value-long", "options[1].value", "options[1].value is 151 characters long but may have at most 150", "shorten it"},
		{"a 76-character description", choice, func(in *inquiry.Inquiry) { in.Options[0].Description = strings.Repeat("d", 76) }, "description-long", "options[0].description", "options[0].description is 76 characters long but may have at most 75", "shorten it"},
		{"an empty value", choice, func(in *inquiry.Inquiry) { in.Options[1].Value = "" }, "value-empty", "options[1].value", "options[1].value is empty", "give every option a few words"},
		{"a blank label", choice, func(in *inquiry.Inquiry) { in.Options[0].Label = "   " }, "label-empty", "options[0].label", "options[0].label is empty", "give every option a few words"},
		{"a label on two lines", choice, func(in *inquiry.Inquiry) { in.Options[0].Label = "Merge\nnow" }, "label-control", "options[0].label", "control character U+000A", "keep an option on one line"},
		{"a tab in a value", choice, func(in *inquiry.Inquiry) { in.Options[0].Value = "me\trge" }, "value-control", "options[0].value", "control character U+0009", "keep an option on one line"},
		{"invalid UTF-8 in a description", choice, func(in *inquiry.Inquiry) { in.Options[1].Description = "\xff" }, "description-utf8", "options[1].description", "options[1].description is not valid UTF-8", "send it as UTF-8 text"},
		{"a default that is not an option value", choice, func(in *inquiry.Inquiry) { in.Default = inquiry.One("rebase") }, "default-unknown", "default", `default "rebase" is not one of the option values (merge, hold)`, "use one of them exactly, or leave default out"},
		{"a default that is an option's label, not its value", choice, func(in *inquiry.Inquiry) { in.Default = inquiry.One("Merge") }, "default-unknown", "default", `default "Merge" is not one of the option values`, "use one of them exactly"},
		{"a list default on a single choice", choice, func(in *inquiry.Inquiry) { in.Default = inquiry.Many("merge", "hold") }, "default-list-single", "default", "default is a list but this choice takes one answer", "give one option value, or set multiple"},
		{"a multiple default with an unknown item", choice, func(in *inquiry.Inquiry) { in.Multiple = true; in.Default = inquiry.Many("merge", "rebase") }, "default-unknown", "default", `default "rebase" is not one of the option values`, "use one of them exactly"},
		{"a multiple default naming an option twice", choice, func(in *inquiry.Inquiry) { in.Multiple = true; in.Default = inquiry.Many("merge", "merge") }, "default-twice", "default", `default names "merge" twice`, "name each option once"},
		{"a confirm default other than yes or no", confirm, func(in *inquiry.Inquiry) { in.Default = inquiry.One("maybe") }, "default-confirm", "default", `default "maybe" of a confirm is neither "yes" nor "no"`, "give one of them, or leave default out"},
		{"a confirm default of y", confirm, func(in *inquiry.Inquiry) { in.Default = inquiry.One("y") }, "default-confirm", "default", `neither "yes" nor "no"`, "give one of them"},
		{"a confirm default list", confirm, func(in *inquiry.Inquiry) { in.Default = inquiry.Many("yes") }, "default-confirm-list", "default", "default of a confirm is \"yes\" or \"no\", not a list", "give one of them"},
		{"a text default list", text, func(in *inquiry.Inquiry) { in.Default = inquiry.Many("a", "b") }, "default-text-list", "default", "default of a text question is text, not a list", "give one string"},
		{"a text default over the ceiling", text, func(in *inquiry.Inquiry) { in.Default = inquiry.One(strings.Repeat("d", 2001)) }, "default-text-long", "default", "default is 2001 characters long but may have at most 2000", "shorten it"},
		{"a control character in a text default", text, func(in *inquiry.Inquiry) { in.Default = inquiry.One("ship\x00it") }, "default-text-control", "default", "default contains the control character U+0000", "remove it"},
		{"an expiry in the past", choice, func(in *inquiry.Inquiry) { in.ExpiresAt = pureAt(-time.Minute) }, "expiry", "expires_at", "expires_at 2026-11-30T11:59:00Z is not in the future", `expires_in such as "2h"`},
		{"an expiry of exactly now", choice, func(in *inquiry.Inquiry) { in.ExpiresAt = pureAt(0) }, "expiry", "expires_at", "expires_at 2026-11-30T12:00:00Z is not in the future", "give a later time"},
		{"a zero expiry", choice, func(in *inquiry.Inquiry) { in.ExpiresAt = &time.Time{} }, "expiry", "expires_at", "is not in the future", "give a later time"},
		{"the first broken rule is the one reported", choice, func(in *inquiry.Inquiry) { in.ID = ""; in.Question = ""; in.Options = nil }, "id-required", "id", "id is required", "stable id"},
	}

	shapes := map[string]string{} // rule -> message shape
	rules := map[string]string{}  // message shape -> rule
	for _, tc := range tests {
		in := pureValid(tc.kind)
		if tc.edit != nil {
			tc.edit(in)
		}
		err := inquiry.Validate(in, pureNow)
		require.Error(t, err, tc.name)

		var e *inquiry.Error
		require.ErrorAs(t, err, &e, tc.name)
		require.Equal(t, inquiry.CodeInvalidInquiry, e.Code, tc.name)
		require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err), tc.name)
		require.Equal(t, tc.field, e.Field, tc.name)
		require.Equal(t, tc.field, inquiry.ErrorField(err), tc.name)
		require.False(t, inquiry.Fatal(err), tc.name)

		msg := inquiry.ErrorMessage(err)
		require.Equal(t, e.Message, msg, tc.name)
		require.Contains(t, msg, tc.says, tc.name)
		require.Contains(t, msg, tc.fix, tc.name)
		require.Contains(t, msg, ": ", "%s: the rule, then how to fix it", tc.name)
		require.NotContains(t, msg, "\n", tc.name)
		require.NotContains(t, msg, ". ", "%s: one sentence", tc.name)

		// The shape of a message is what is left when the caller's words and the numbers are
		// taken out; two different rules must not read the same.
		shape := pureShape(msg)
		if other, ok := rules[shape]; ok && other != tc.rule {
			t.Errorf("%s: rules %q and %q are refused with the same sentence %q", tc.name, other, tc.rule, shape)
		}
		rules[shape] = tc.rule
		shapes[tc.rule] = shape
	}
	require.Greater(t, len(shapes), 40, "every rule has its own sentence")
}

var (
	pureQuoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	pureDigits = regexp.MustCompile(`[0-9]+`)
)

func pureShape(msg string) string {
	return pureDigits.ReplaceAllString(pureQuoted.ReplaceAllString(msg, `"…"`), "N")
}

func TestValidateAccepts(t *testing.T) {
	t.Parallel()

	choice, text, confirm := inquiry.KindChoice, inquiry.KindText, inquiry.KindConfirm
	tests := []struct {
		name        string
		kind        inquiry.Kind
		edit        func(in *inquiry.Inquiry)
		wantDefault inquiry.Value // after normalisation
	}{
		{"a choice", choice, nil, inquiry.Value{}},
		{"a text", text, nil, inquiry.Value{}},
		{"a confirm", confirm, nil, inquiry.Value{}},
		{"12 options", choice, func(in *inquiry.Inquiry) { in.Options = pureOptionsN(12) }, inquiry.Value{}},
		{"2 options", choice, func(in *inquiry.Inquiry) { in.Options = pureOptionsN(2) }, inquiry.Value{}},
		{"150-character values, 75-character labels and descriptions", choice, func(in *inquiry.Inquiry) {
			in.Options = []inquiry.Option{
				{Value: strings.Repeat("a", 150), Label: strings.Repeat("A", 75), Description: strings.Repeat("d", 75)},
				{Value: strings.Repeat("漢", 150), Label: strings.Repeat("字", 75), Description: strings.Repeat("😀", 75)},
			}
		}, inquiry.Value{}},
		{"options that differ inside", choice, func(in *inquiry.Inquiry) {
			in.Options = []inquiry.Option{{Value: "merge now", Label: "Merge now"}, {Value: "merge-now", Label: "Merge  now"}}
		}, inquiry.Value{}},
		{"a 200-character id and run_id", choice, func(in *inquiry.Inquiry) {
			in.ID, in.RunID = strings.Repeat("i", 200), strings.Repeat("漢", 200)
		}, inquiry.Value{}},
		{"an id with spaces and punctuation", choice, func(in *inquiry.Inquiry) { in.ID = "deploy 42: merge/tone #3" }, inquiry.Value{}},
		{"no run_id", choice, func(in *inquiry.Inquiry) { in.RunID = "" }, inquiry.Value{}},
		{"a 2,000-character question and context", text, func(in *inquiry.Inquiry) {
			in.Question, in.Context = strings.Repeat("漢", 2000), strings.Repeat("c", 2000)
		}, inquiry.Value{}},
		{"a question on several lines, with tabs", text, func(in *inquiry.Inquiry) { in.Question = "Which one?\n\t- a\n\t- b" }, inquiry.Value{}},
		{"no context", text, func(in *inquiry.Inquiry) { in.Context = "" }, inquiry.Value{}},
		{"allow_text on a choice", choice, func(in *inquiry.Inquiry) { in.AllowText = true }, inquiry.Value{}},
		{"allow_text on a confirm", confirm, func(in *inquiry.Inquiry) { in.AllowText = true }, inquiry.Value{}},
		{"a choice default", choice, func(in *inquiry.Inquiry) { in.Default = inquiry.One("hold") }, inquiry.One("hold")},
		{"multiple with a list default", choice, func(in *inquiry.Inquiry) {
			in.Options, in.Multiple, in.Default = pureOptionsN(4), true, inquiry.Many("opt-3", "opt-1")
		}, inquiry.Many("opt-3", "opt-1")},
		{"multiple with a single default takes it as a list", choice, func(in *inquiry.Inquiry) {
			in.Multiple, in.Default = true, inquiry.One("merge")
		}, inquiry.Many("merge")},
		{"a single choice with a list of one takes it as one", choice, func(in *inquiry.Inquiry) { in.Default = inquiry.Many("hold") }, inquiry.One("hold")},
		{"a confirm default YES in capitals and blanks is yes", confirm, func(in *inquiry.Inquiry) { in.Default = inquiry.One(" YES ") }, inquiry.One("yes")},
		{"a confirm default No is no", confirm, func(in *inquiry.Inquiry) { in.Default = inquiry.One("No") }, inquiry.One("no")},
		{"a text default is kept as written", text, func(in *inquiry.Inquiry) { in.Default = inquiry.One("  none this time\n") }, inquiry.One("  none this time\n")},
		{"a 2,000-character text default", text, func(in *inquiry.Inquiry) { in.Default = inquiry.One(strings.Repeat("😀", 2000)) }, inquiry.One(strings.Repeat("😀", 2000))},
		{"an empty default is none", choice, func(in *inquiry.Inquiry) { in.Default = inquiry.One("") }, inquiry.Value{}},
		{"a blank default is none", confirm, func(in *inquiry.Inquiry) { in.Default = inquiry.One("  ") }, inquiry.Value{}},
		{"a blank text default is none", text, func(in *inquiry.Inquiry) { in.Default = inquiry.One(" \n ") }, inquiry.Value{}},
		{"an empty list default is none", choice, func(in *inquiry.Inquiry) { in.Multiple, in.Default = true, inquiry.Many() }, inquiry.Value{}},
		{"an empty list default on a single choice is none", choice, func(in *inquiry.Inquiry) { in.Default = inquiry.Many() }, inquiry.Value{}},
		{"an empty list default on a confirm is none", confirm, func(in *inquiry.Inquiry) { in.Default = inquiry.Many() }, inquiry.Value{}},
		{"an expiry a second from now", choice, func(in *inquiry.Inquiry) { in.ExpiresAt = pureAt(time.Second) }, inquiry.Value{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := pureValid(tc.kind)
			if tc.edit != nil {
				tc.edit(in)
			}
			require.NoError(t, inquiry.Validate(in, pureNow))
			require.True(t, tc.wantDefault.Equal(in.Default), "default is %#v (list %v), want %#v (list %v)",
				in.Default.Strings(), in.Default.IsList(), tc.wantDefault.Strings(), tc.wantDefault.IsList())
			require.Equal(t, !tc.wantDefault.IsZero(), in.HasDefault())

			// Validating what Validate normalised changes nothing more.
			again := *in
			require.NoError(t, inquiry.Validate(&again, pureNow))
			require.True(t, inquiry.SameContent(in, &again))
		})
	}
}

func FuzzValidate(f *testing.F) {
	f.Add("deploy-42:merge", "deploy-42", "choice", "Merge now?", "", "merge|hold", "hold", false, false, false, int64(3600))
	f.Add("x", "", "choice", "Pick", "ctx", "a|A| a ", "a", true, false, true, int64(0))
	f.Add("x", "", "confirm", "Tag it?", "", "", " YES ", false, true, false, int64(-1))
	f.Add("x", "r", "text", "Notes?", "", "", "", false, false, true, int64(60))
	f.Add("", "\x00", "poll", "", "\xff", "|||||||||||||", "a,b", true, true, true, int64(1))
	f.Add("id", "", "choice", "q", "", "a|b|c", "a,c", true, false, true, int64(10))
	f.Add("id", "", "text", "q\a", "", "", "d", true, true, false, int64(10))

	f.Fuzz(func(t *testing.T, id, runID, kind, question, context, options, def string, multiple, allowText, defList bool, expiresIn int64) {
		in := &inquiry.Inquiry{
			ID: id, RunID: runID, Kind: inquiry.Kind(kind), Question: question, Context: context,
			Multiple: multiple, AllowText: allowText,
		}
		if options != "" {
			for _, v := range strings.Split(options, "|") {
				in.Options = append(in.Options, inquiry.Option{Value: v, Label: strings.ToUpper(v)})
			}
		}
		switch {
		case defList && def == "":
			in.Default = inquiry.Many()
		case defList:
			in.Default = inquiry.Many(strings.Split(def, ",")...)
		default:
			in.Default = inquiry.One(def)
		}
		if expiresIn != 0 {
			in.ExpiresAt = pureAt(time.Duration(expiresIn) * time.Second)
		}

		err := inquiry.Validate(in, pureNow)
		if err != nil {
			var e *inquiry.Error
			if !errors.As(err, &e) || e.Code != inquiry.CodeInvalidInquiry || e.Field == "" {
				t.Fatalf("Validate refused with %#v, not an invalid_inquiry naming its field", err)
			}
			if e.Message == "" || strings.Contains(e.Message, "\n") || !strings.Contains(e.Message, ": ") {
				t.Fatalf("Validate refused with %q, not one sentence with a fix", e.Message)
			}
			return
		}

		// A valid inquiry is valid again, unchanged.
		again := *in
		if err := inquiry.Validate(&again, pureNow); err != nil || !inquiry.SameContent(in, &again) {
			t.Fatalf("Validate is not idempotent: %v", err)
		}
		// Its default reads back as an answer, and no default as a decline.
		a := inquiry.DefaultAnswerFor(in)
		if _, ok := inquiry.AnsweredWith(&a); ok != in.HasDefault() || inquiry.IsDeclined(&a) == in.HasDefault() {
			t.Fatalf("default %#v reads back as %+v", in.Default.Strings(), a)
		}
		// A default is an answer CheckAnswer takes.
		if in.HasDefault() && in.Kind != inquiry.KindText {
			if _, err := inquiry.CheckAnswer(in, inquiry.Reply{Value: in.Default}); err != nil {
				t.Fatalf("the default %#v is refused as an answer: %v", in.Default.Strings(), err)
			}
		}
		if in.Kind == inquiry.KindChoice {
			if n := len(in.Options); n < inquiry.MinOptions || n > inquiry.MaxOptions {
				t.Fatalf("a choice with %d options passed", n)
			}
		}
		_ = inquiry.Render(in)
	})
}

// TestParseListLimit: a list's limit is a whole number from 1 to MaxListLimit, the default when
// left out, and anything else is refused with one sentence naming the range and the default.
func TestParseListLimit(t *testing.T) {
	for raw, want := range map[string]int{"": inquiry.DefaultListLimit, "1": 1, "500": inquiry.MaxListLimit, "37": 37} {
		n, err := inquiry.ParseListLimit(raw)
		require.NoError(t, err, raw)
		require.Equal(t, want, n, raw)
	}
	for _, raw := range []string{"0", "-1", "501", "ten", "1.5", " 5", "99999999999999999999"} {
		_, err := inquiry.ParseListLimit(raw)
		require.Equal(t, inquiry.CodeBadRequest, inquiry.ErrorCode(err), raw)
		require.Equal(t, fmt.Sprintf("limit %q is not a whole number from 1 to 500: use one, or leave it out for 50", raw), inquiry.ErrorMessage(err))
	}
}
