package inquiry

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Validate checks an inquiry against every rule and returns the first broken one as an *Error
// with code invalid_inquiry, the field, and one sentence that says which rule broke and how to
// fix it. now is the time against which an expiry must lie in the future. Validate also
// normalises what it may: a Choice with multiple takes a single default as a list of one.
func Validate(in *Inquiry, now time.Time) error {
	canonInquiry(in)
	if err := checkID("id", in.ID, "give the inquiry a stable id such as \"deploy-42:merge\", the same every time this step runs"); err != nil {
		return err
	}
	if in.RunID != "" {
		if err := checkID("run_id", in.RunID, "use the id of the run this question belongs to, or leave run_id out"); err != nil {
			return err
		}
	}
	if !in.Kind.Valid() {
		if in.Kind == "" {
			return invalid("kind", "kind is required: use \"choice\" to offer options, \"text\" for an answer in words, or \"confirm\" for yes or no")
		}
		return invalid("kind", "kind %q is not one of choice, text or confirm: use one of them", string(in.Kind))
	}
	if err := checkProse("question", in.Question, MaxQuestionChars, true, "shorten it and put the background in context"); err != nil {
		return err
	}
	if err := checkProse("context", in.Context, MaxContextChars, false, "keep it to a sentence or two of background"); err != nil {
		return err
	}
	switch in.Kind {
	case KindChoice:
		if err := checkOptions(in.Options); err != nil {
			return err
		}
	default:
		if len(in.Options) > 0 {
			return invalid("options", "options are only for a choice, not a %s: remove them, or make it kind \"choice\"", in.Kind)
		}
		if in.Multiple {
			return invalid("multiple", "multiple is only for a choice, not a %s: remove it, or make it kind \"choice\"", in.Kind)
		}
		if in.Kind == KindText && in.AllowText {
			return invalid("allow_text", "allow_text is only for a choice or a confirm (a text question is already answered in words): remove it")
		}
	}
	if err := checkDefault(in); err != nil {
		return err
	}
	if err := checkApproval(in); err != nil {
		return err
	}
	if err := checkProposal(in); err != nil {
		return err
	}
	if in.ExpiresAt != nil && !in.ExpiresAt.After(now) {
		return invalid("expires_at", "expires_at %s is not in the future: give a later time, or expires_in such as \"2h\"", in.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return checkDeadlines(in, now)
}

func invalid(field, format string, args ...any) *Error {
	return FieldErrorf(CodeInvalidInquiry, field, format, args...)
}

// checkID enforces 1..MaxIDChars printable characters, not all of which look blank (LooksBlank):
// an id that shows as nothing names nothing anyone can read.
func checkID(field, s, fix string) error {
	switch n := utf8.RuneCountInString(s); {
	case s == "":
		return invalid(field, "%s is required: %s", field, fix)
	case strings.TrimFunc(s, LooksBlank) == "":
		return invalid(field, "%s is only blanks or characters that show as nothing (such as U+2800 or U+115F): %s", field, fix)
	case !utf8.ValidString(s):
		return invalid(field, "%s is not valid UTF-8: %s", field, fix)
	case n > MaxIDChars:
		return invalid(field, "%s is %d characters long but may have at most %d: %s", field, n, MaxIDChars, fix)
	}
	if r, bad := Unprintable(s); bad {
		return invalid(field, "%s contains the unprintable character %U: use printable characters only", field, r)
	}
	return nil
}

// checkProse enforces valid UTF-8, a length in characters, and no control characters but
// newlines and tabs. shorten is the fix offered for a text over max.
func checkProse(field, s string, max int, required bool, shorten string) error {
	if !utf8.ValidString(s) {
		return invalid(field, "%s is not valid UTF-8: send it as UTF-8 text", field)
	}
	if required && strings.TrimSpace(s) == "" {
		return invalid(field, "%s is required: write the one question, in plain words, that a person should answer", field)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return invalid(field, "%s is %d characters long but may have at most %d: %s", field, n, max, shorten)
	}
	if err := checkShown(field, s, false); err != nil {
		return err
	}
	if r, bad := ControlChar(s, ProseControls); bad {
		return invalid(field, "%s contains the control character %U: remove it", field, r)
	}
	return nil
}

// norm is the comparison form of an option's words: case and surrounding blanks ignored.
// norm is the key by which texts that people would call the same are compared: canonical
// (Canon: NFC, no byte order mark), without surrounding blanks, in lower case.
func norm(s string) string { return strings.ToLower(strings.TrimSpace(Canon(s))) }

// canonInquiry puts every text of the inquiry that is compared in its canonical form (Canon), so
// that what is stored, compared and matched has one reading: the same id typed composed or
// decomposed is one id, and an option value with a stray byte order mark repeats the plain one.
// Prose (the question, the context, a description) is kept as it was sent.
func canonInquiry(in *Inquiry) {
	in.ID, in.RunID = Canon(in.ID), Canon(in.RunID)
	if in.Options != nil {
		opts := make([]Option, len(in.Options)) // the caller's slice is left as it was
		for i, o := range in.Options {
			opts[i] = Option{Value: Canon(o.Value), Label: Canon(o.Label), Description: o.Description}
		}
		in.Options = opts
	}
	if in.Kind != KindText {
		in.Default = in.Default.canon() // a text question's default is words, kept as sent
	}
	in.Proposal = canonProposal(in.Proposal)
}

func checkOptions(opts []Option) error {
	switch n := len(opts); {
	case n == 0:
		return invalid("options", "a choice needs options: offer %d to %d answers, or make it kind \"text\"", MinOptions, MaxOptions)
	case n < MinOptions:
		return invalid("options", "a choice needs at least %d options but has %d: add another, or make it kind \"confirm\" or \"text\"", MinOptions, n)
	case n > MaxOptions:
		return invalid("options", "a choice offers at most %d options but has %d: keep the %d that matter, or ask a text question instead", MaxOptions, n, MaxOptions)
	}
	for i, o := range opts {
		// The field's name is made only for a refusal: every create checks every option.
		f := func() string { return "options[" + strconv.Itoa(i) + "]" }
		for _, part := range [...]struct {
			name, s  string
			max      int
			required bool
		}{
			{"value", o.Value, MaxOptionValueChars, true},
			{"label", o.Label, MaxOptionLabelChars, true},
			{"description", o.Description, MaxOptionDescriptionChars, false},
		} {
			field := func() string { return f() + "." + part.name }
			if !utf8.ValidString(part.s) {
				return invalid(field(), "%s is not valid UTF-8: send it as UTF-8 text", field())
			}
			if part.required && strings.TrimSpace(part.s) == "" {
				return invalid(field(), "%s is empty: give every option a few words", field())
			}
			if n := utf8.RuneCountInString(part.s); n > part.max {
				return invalid(field(), "%s is %d characters long but may have at most %d: shorten it", field(), n, part.max)
			}
			if err := checkShown(field(), part.s, part.name != "description"); err != nil {
				return err
			}
			if r, bad := ControlChar(part.s, ""); bad {
				return invalid(field(), "%s contains the control character %U: keep an option on one line", field(), r)
			}
		}
		for j := 0; j < i; j++ {
			if norm(opts[j].Value) == norm(o.Value) {
				return invalid(f()+".value", "%s.value %q repeats options[%d].value %q (values must differ whatever their case and surrounding blanks): change one", f(), o.Value, j, opts[j].Value)
			}
			if norm(opts[j].Label) == norm(o.Label) {
				return invalid(f()+".label", "%s.label %q repeats options[%d].label %q (labels must differ whatever their case and surrounding blanks): rename one", f(), o.Label, j, opts[j].Label)
			}
			if LookAlike(opts[j].Label) == LookAlike(o.Label) {
				return invalid(f()+".label", "%s.label %q looks like options[%d].label %q (their letters are confusable, such as a Greek or Cyrillic letter for a Latin one): a person could not tell them apart, so rename one", f(), o.Label, j, opts[j].Label)
			}
		}
	}
	return nil
}

func optionValues(opts []Option) string {
	vs := make([]string, len(opts))
	for i, o := range opts {
		vs[i] = o.Value
	}
	return strings.Join(vs, ", ")
}

func checkDefault(in *Inquiry) error {
	if in.Default.Len() == 0 || (!in.Default.IsList() && strings.TrimSpace(in.Default.First()) == "") {
		in.Default = Value{} // an empty default (a blank string or an empty list) is no default
	}
	if in.Default.IsZero() {
		return nil
	}
	switch in.Kind {
	case KindChoice:
		if in.Default.IsList() && !in.Multiple {
			if in.Default.Len() != 1 {
				return invalid("default", "default is a list but this choice takes one answer: give one option value, or set multiple")
			}
			in.Default = One(in.Default.First())
		}
		if in.Multiple && !in.Default.IsList() {
			in.Default = Many(in.Default.First())
		}
		seen := map[string]bool{}
		for _, v := range in.Default.Strings() {
			if !hasValue(in.Options, v) {
				return invalid("default", "default %q is not one of the option values (%s): use one of them exactly, or leave default out", v, optionValues(in.Options))
			}
			if seen[v] {
				return invalid("default", "default names %q twice: name each option once", v)
			}
			seen[v] = true
		}
	case KindConfirm:
		if in.Default.IsList() {
			return invalid("default", "default of a confirm is \"yes\" or \"no\", not a list: give one of them")
		}
		switch d := norm(in.Default.First()); d {
		case "yes", "no":
			in.Default = One(d)
		default:
			return invalid("default", "default %q of a confirm is neither \"yes\" nor \"no\": give one of them, or leave default out", in.Default.First())
		}
	case KindText:
		if in.Default.IsList() {
			return invalid("default", "default of a text question is text, not a list: give one string")
		}
		d := in.Default.First()
		if err := checkProse("default", d, DefaultAnswerChars, false, "shorten it"); err != nil {
			return err
		}
	}
	return nil
}

func hasValue(opts []Option, v string) bool {
	for _, o := range opts {
		if o.Value == v {
			return true
		}
	}
	return false
}

// checkName refuses a name of another system (a Slack id, an email address) that no such name
// can be: invalid UTF-8, longer than max characters, or holding a character Unprintable reports
// or a blank. what names the kind of name in the sentence ("Slack id"); fix says what to give.
func checkName(field, s string, max int, what, fix string) error {
	if !utf8.ValidString(s) {
		return invalid(field, "%s is not valid UTF-8: %s", field, fix)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return invalid(field, "%s is %d characters long but may have at most %d: %s", field, n, max, fix)
	}
	if r, bad := UnprintableOrBlank(s); bad {
		return invalid(field, "%s %q contains the character %U, which no %s has: %s", field, s, r, what, fix)
	}
	return nil
}

// MaxSlackRefChars bounds a Slack channel, thread ts or answerer as the asker gives it: Slack's
// ids and names are far shorter.
const MaxSlackRefChars = 255

// ValidateSlack checks where in Slack an inquiry is asked and who may answer it, as the asker
// gives them: each is printable text without blanks (a channel id or name, a message ts, a user
// or user group id), at most MaxSlackRefChars characters; an answerer may not be empty; at most
// MaxSlackAnswerers answerers, MaxSlackGroups of them user groups (broadcast.go). It
// returns the first broken rule as an invalid_inquiry *Error naming the field (slack.channel,
// slack.thread_ts, slack.answerers[2]).
func ValidateSlack(ref SlackRef) error {
	check := func(field, s, fix string) error { return checkName(field, s, MaxSlackRefChars, "Slack id", fix) }
	if err := check("slack.channel", ref.Channel, "give a channel id such as \"C0123456789\", or leave it out for the server's default channel"); err != nil {
		return err
	}
	if err := check("slack.thread_ts", ref.ThreadTS, "give the ts of the message to answer in the thread of, such as \"1700000000.000100\""); err != nil {
		return err
	}
	if err := checkAnswererCaps("slack.answerers", "slack.answerers", len(ref.Answerers), ref.Answerers); err != nil {
		return err
	}
	for i, id := range ref.Answerers {
		field := fmt.Sprintf("slack.answerers[%d]", i)
		if id == "" {
			return invalid(field, "%s is empty: give a Slack user id (U…, W…) or user group id (S…), or drop it", field)
		}
		if err := check(field, id, "give a Slack user id (U…, W…) or user group id (S…)"); err != nil {
			return err
		}
	}
	return nil
}
