package inquiry

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultAnswerFor is what to assume when nobody answers: the inquiry's default, or a decline
// when it has none. The caller sets Source (SourceDefault or SourceExpired) and AnsweredAt.
func DefaultAnswerFor(in *Inquiry) Answer {
	a := Answer{InquiryID: in.ID}
	switch {
	case !in.HasDefault():
		a.Declined = true
	case in.Kind == KindText:
		a.Text = in.Default.First()
	default:
		a.Value = in.Default
	}
	return a
}

// AnsweredWith is the one reading of "what was answered": the first value, else the text, else
// nothing (ok false) — a decline, or no answer at all.
func AnsweredWith(a *Answer) (string, bool) {
	if a == nil || a.Declined {
		return "", false
	}
	if a.Value.Len() > 0 {
		return a.Value.First(), true
	}
	if a.Text != "" {
		return a.Text, true
	}
	return "", false
}

// IsDeclined reports whether the answer is a decline: nobody could decide. A decline is a
// decision, never an error.
func IsDeclined(a *Answer) bool { return a != nil && a.Declined }

// CapAnswer enforces the one ceiling on a stored answer. Only the prose is cut, on a character
// boundary, and the cut is reported with Truncated. A Value is the decision itself: an over-long
// one passes through whole with Truncated raised, since a shortened value would be a different
// answer. max <= 0 means DefaultAnswerChars.
func CapAnswer(a Answer, max int) Answer {
	if max <= 0 {
		max = DefaultAnswerChars
	}
	text, cut := cutRunes(a.Text, max)
	a.Text, a.Truncated = text, a.Truncated || cut
	for _, v := range a.Value.items {
		if utf8.RuneCountInString(v) > max {
			a.Truncated = true
		}
	}
	return a
}

// StateAnswerOf is what a run's state keeps of an answer: the decision whole, the prose cut to
// StateTextChars. The full answer still goes back to whoever asked.
func StateAnswerOf(a Answer) Answer {
	text, cut := cutRunes(a.Text, StateTextChars)
	a.Text, a.Truncated = text, a.Truncated || cut
	if len(a.Votes) > 0 {
		votes := make([]Vote, len(a.Votes))
		for i, v := range a.Votes {
			v.Text, _ = cutRunes(v.Text, StateTextChars) // each vote's words cut like the answer's
			votes[i] = v
		}
		a.Votes = votes
	}
	return a
}

// cutRunes cuts s to max characters; ok reports whether it cut. Invalid UTF-8 is replaced so
// the result is always valid, cut or not: callers must take the returned string either way.
func cutRunes(s string, max int) (string, bool) {
	if len(s) <= max && utf8.ValidString(s) { // fast path: bytes bound runes
		return s, false
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// Chosen is the one rule for reading typed words as a choice: they choose an option only when
// they ARE that option — its label or its value — ignoring case and surrounding blanks. A longer
// sentence that contains an option chooses nothing.
func Chosen(options []Option, typed string) (Option, bool) {
	t := norm(typed)
	if t == "" {
		return Option{}, false
	}
	for _, o := range options {
		if norm(o.Label) == t {
			return o, true
		}
	}
	for _, o := range options {
		if norm(o.Value) == t {
			return o, true
		}
	}
	return Option{}, false
}

// Reply is an answer as it comes in, from a person or their tool, before it is checked.
type Reply struct {
	Value    Value
	Text     string
	Declined bool
	// Content is an edited version of the inquiry's proposal ("": none), approved with Value.
	Content string
}

// CheckAnswer turns a reply into the answer it stands for, or refuses it with an *Error of code
// invalid_answer saying what is wrong and how to fix it. Values are read with Chosen, so "Merge"
// chooses the option whose value is "merge"; a value that matches no option is refused, never
// shortened. Prose over the ceiling is cut by CapAnswer with Truncated set.
func CheckAnswer(in *Inquiry, r Reply) (Answer, error) {
	a, err := checkReply(in, r)
	if err == nil {
		err = checkEdit(in, r, &a) // content sent with a no is the mistake to name, before its reason
	}
	if err == nil {
		err = checkReason(in, a)
	}
	return a, err
}

// checkReply is CheckAnswer without the inquiry's demand for a reason.
func checkReply(in *Inquiry, r Reply) (Answer, error) {
	a := Answer{InquiryID: in.ID}
	r.Value = r.Value.canon() // a decision is compared; words are kept as they were sent
	if !utf8.ValidString(r.Text) {
		return a, answerErr("text", "text is not valid UTF-8: send it as UTF-8 text")
	}
	r.Text = NormalizeNewlines(r.Text) // a browser's form sends CR LF; no script is handed a CR
	if err := checkWordsShown("text", r.Text); err != nil {
		return a, err
	}
	if c, ok := controlChar(r.Text); ok {
		return a, answerErr("text", "text contains the control character %U: remove it", c)
	}
	text := strings.TrimSpace(r.Text)
	if r.Declined {
		if !r.Value.IsZero() {
			return a, answerErr("declined", "an answer is either declined or a value, not both: drop one")
		}
		a.Declined, a.Text = true, text
		return CapAnswer(a, DefaultAnswerChars), nil
	}
	offered := Offered(in)
	switch in.Kind {
	case KindText:
		if !r.Value.IsZero() && text == "" {
			// A text question answered through "value" still means its words.
			text = strings.TrimSpace(NormalizeNewlines(r.Value.String()))
			if err := checkWordsShown("value", text); err != nil {
				return a, err
			}
			if c, ok := controlChar(text); ok {
				return a, answerErr("value", "value contains the control character %U: remove it", c)
			}
		} else if !r.Value.IsZero() {
			return a, answerErr("value", "a text question is answered with text alone: send {\"text\": \"...\"} without a value")
		}
		if text == "" {
			return a, answerErr("text", "a text question needs an answer in words: send {\"text\": \"...\"}, or {\"declined\": true}")
		}
		a.Text = text
	case KindChoice, KindConfirm:
		if r.Value.IsZero() {
			if text == "" {
				return a, answerErr("value", "%s", noneMsg(in, ""))
			}
			if !in.AllowText {
				// Typed words that ARE an option choose it; anything else is refused.
				o, ok := Chosen(offered, text)
				if !ok {
					return a, answerErr("text", "%s", noneMsg(in, text))
				}
				a.Value = oneOrMany(in, o.Value)
				return CapAnswer(a, DefaultAnswerChars), nil
			}
			if o, ok := Chosen(offered, text); ok {
				a.Value = oneOrMany(in, o.Value)
			} else {
				a.Text = text
			}
			return CapAnswer(a, DefaultAnswerChars), nil
		}
		items := r.Value.Strings()
		if r.Value.IsList() && !in.Multiple && len(items) != 1 {
			return a, answerErr("value", "this question takes one answer, not a list: send one of %s", quoteOptions(offered))
		}
		if len(items) == 0 {
			return a, answerErr("value", "choose at least one of %s", quoteOptions(offered))
		}
		chosen := make([]string, 0, len(items))
		seen := map[string]bool{}
		for _, v := range items {
			o, ok := exactValue(offered, v)
			if !ok {
				o, ok = Chosen(offered, v)
			}
			if !ok {
				return a, answerErr("value", "%s", noneMsg(in, v))
			}
			if !seen[o.Value] {
				seen[o.Value] = true
				chosen = append(chosen, o.Value)
			}
		}
		if in.Multiple {
			a.Value = Many(chosen...)
		} else {
			a.Value = One(chosen[0])
		}
		if text != "" {
			// Words beside the choice are its reason where the inquiry asks for one.
			if !in.AllowText && in.Reason == ReasonNone {
				return a, answerErr("text", "this question does not take words beside the choice: send the value alone")
			}
			a.Text = text
		}
	}
	return CapAnswer(a, DefaultAnswerChars), nil
}

// checkWordsShown refuses an answer's words that would reorder what a reader sees (a
// bidirectional override or isolate, a line separator): the asker's script or a person shows
// them.
func checkWordsShown(field, s string) error {
	for _, r := range s {
		if RewritesLine(r) {
			return answerErr(field, "%s contains %U, which %s: remove it", field, r, whatItDoes(r))
		}
	}
	return nil
}

// controlChar returns the first control character an answer's words may not hold: as in a
// question, none but ProseControls.
func controlChar(s string) (rune, bool) { return ControlChar(s, ProseControls) }

// exactValue finds the option whose value is exactly v: a value sent by a program is matched
// as it is before Chosen reads it as words.
func exactValue(opts []Option, v string) (Option, bool) {
	for _, o := range opts {
		if o.Value == v {
			return o, true
		}
	}
	return Option{}, false
}

func oneOrMany(in *Inquiry, v string) Value {
	if in.Multiple {
		return Many(v)
	}
	return One(v)
}

func answerErr(field, format string, args ...any) *Error {
	return FieldErrorf(CodeInvalidAnswer, field, format, args...)
}

// noneMsg is the sentence for words that are none of the offered answers.
func noneMsg(in *Inquiry, typed string) string {
	offered := quoteOptions(Offered(in))
	typed = OneLine(typed, 81) // 80 characters and the ellipsis: enough to recognise, not a whole essay
	if typed == "" {
		if in.AllowText {
			return fmt.Sprintf("an answer needs a value or words: send one of %s as the value, or your own words as text", offered)
		}
		return fmt.Sprintf("choose one of the offered answers: %s", offered)
	}
	if in.AllowText {
		return fmt.Sprintf("%q is none of the offered answers: send one of %s as the value, or your own words as text", typed, offered)
	}
	return fmt.Sprintf("%q is none of the offered answers and this question takes no answer in other words: choose one of %s", typed, offered)
}

func quoteOptions(opts []Option) string {
	parts := make([]string, len(opts))
	for i, o := range opts {
		if o.Label == o.Value {
			parts[i] = fmt.Sprintf("%q", o.Value)
		} else {
			parts[i] = fmt.Sprintf("%q (%s)", o.Value, o.Label)
		}
	}
	return strings.Join(parts, ", ")
}

// LabelOf returns the label of the option with value v, or v itself.
func LabelOf(in *Inquiry, v string) string {
	for _, o := range Offered(in) {
		if o.Value == v {
			return o.Label
		}
	}
	return v
}

// Render is a one-line label of an inquiry for a log line or a list row.
func Render(in *Inquiry) string {
	// Appended piece by piece (what fmt's %s and %q would write), one buffer for the line: it is
	// part of every create's log line.
	b := make([]byte, 0, 128)
	b = append(append(append(b, in.Kind...), ' '), in.ID...)
	b = strconv.AppendQuote(append(b, ' '), OneLine(in.Question, 81))
	if opts := Offered(in); in.Kind == KindChoice && len(opts) > 0 {
		sep := " | "
		if in.Multiple {
			sep = " + "
		}
		b = append(b, " ["...)
		for i, o := range opts {
			if i > 0 {
				b = append(b, sep...)
			}
			// Quoted, so that a label holding " | " cannot pass for two options in the line.
			b = strconv.AppendQuote(b, o.Label)
		}
		b = append(b, ']')
	}
	if in.HasDefault() {
		b = append(append(b, " default "...), RenderValue(in, in.Default)...)
	}
	if in.ExpiresAt != nil {
		b = in.ExpiresAt.UTC().AppendFormat(append(b, " expires "...), time.RFC3339)
	}
	return string(b)
}

// RenderValue shows a value by its labels.
func RenderValue(in *Inquiry, v Value) string {
	return renderDecision(DecisionOf(in, &Answer{Value: v}))
}

// RenderAnswer is a one-line label of an answer: what was decided (DecisionOf, the one reading
// every edge shows), and by whom or what.
func RenderAnswer(in *Inquiry, a *Answer) string {
	if a == nil {
		return "no answer"
	}
	what := renderDecision(DecisionOf(in, a))
	switch a.Source {
	case SourceDefault:
		return what + " (assumed by policy: nobody was asked)"
	case SourceExpired:
		if a.Declined {
			return "expired: nobody decided"
		}
		return what + " (assumed: nobody answered in time)"
	case SourceCaller:
		if a.AnsweredBy != "" {
			return what + " (handed back by the run's caller " + a.AnsweredBy + ")"
		}
		return what + " (handed back by the run's caller)"
	}
	if a.AnsweredBy != "" {
		return what + " by " + a.AnsweredBy
	}
	return what
}

// renderDecision is d on one line: "declined", the chosen labels with the words in brackets, or
// the words quoted (a Text answer's value is its words: DecisionOf).
func renderDecision(d Decision) string {
	switch {
	case d.Declined:
		return "declined"
	case len(d.Labels) > 0 && d.Words != "":
		return fmt.Sprintf("%s (%q)", d.Chosen(), OneLine(d.Words, 61))
	case len(d.Labels) > 0:
		return d.Chosen()
	}
	return fmt.Sprintf("%q", OneLine(d.Words, 61))
}

// SameDecision reports whether reply, read for in as CheckAnswer reads it, decides what a says:
// both declined, or the same value (and, where neither holds a value, the same words). A resumed
// answer that agrees with a resolved inquiry is no contradiction.
func SameDecision(in *Inquiry, a Answer, r Reply) bool {
	b, err := CheckAnswer(in, r)
	if err != nil {
		return false
	}
	if a.Declined || b.Declined {
		return a.Declined == b.Declined
	}
	if !a.Value.Equal(b.Value) {
		return false
	}
	return !a.Value.IsZero() || a.Text == b.Text
}

// withField files err (an *Error of CheckAnswer) under prefix: "value" becomes
// `answers["merge"].value`.
func withField(err error, prefix string) error {
	e, ok := errors.AsType[*Error](err)
	if !ok {
		return err
	}
	out := *e
	if out.Field != "" {
		out.Field = prefix + "." + out.Field
	} else {
		out.Field = prefix
	}
	return &out
}
