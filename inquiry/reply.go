package inquiry

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ReplyOf is the one reading of words typed as an answer to in: a reply in a question's thread,
// the words of the answer page, the words of bot answer. Words that ARE an offered answer
// (Chosen) choose it; for a multiple choice, answers separated by commas choose each of them;
// when in asks for a reason, an answer followed by a break and more words ("no: the tests
// fail") chooses that answer with the rest as its reason. numbered says the offered answers were
// shown numbered from 1, so that a number names one. Anything else is the reply's text, for
// CheckAnswer to take as own words or refuse; miss is then the words that name no offered
// answer (for a list, the first such part).
func ReplyOf(in *Inquiry, typed string, numbered bool) (r Reply, miss string) {
	if in.Kind == KindText {
		return Reply{Text: typed}, ""
	}
	offered := Offered(in)
	pick := func(s string) (Option, bool) {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); numbered && err == nil && n >= 1 && n <= len(offered) {
			return offered[n-1], true
		}
		return Chosen(offered, s)
	}
	if o, ok := pick(typed); ok { // whole, so that a label holding a comma is one answer
		if in.Multiple {
			return Reply{Value: Many(o.Value)}, ""
		}
		return Reply{Value: One(o.Value)}, ""
	}
	if in.Multiple {
		var values []string
		for part := range strings.SplitSeq(typed, ",") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			o, ok := pick(part)
			if !ok {
				return Reply{Text: typed}, strings.TrimSpace(part)
			}
			if !slices.Contains(values, o.Value) {
				values = append(values, o.Value)
			}
		}
		if len(values) > 0 {
			return Reply{Value: Many(values...)}, ""
		}
	} else if in.Reason != ReasonNone {
		if o, why, ok := answerAndReason(offered, typed); ok {
			return Reply{Value: One(o.Value), Text: why}, ""
		}
	}
	return Reply{Text: typed}, strings.TrimSpace(typed)
}

// reasonBreaks are what may stand between an answer and its reason, besides blanks.
const reasonBreaks = ":,;.-–—"

// answerAndReason reads words that start with an offered answer and go on after a break —
// "no: the tests fail", "Hold, the freeze is on", "yes\nafter the backup" — as that answer and
// its reason. The longest answer that fits wins, so "Prod EU" is not read as "Prod"; "Holdings"
// does not start with "Hold".
func answerAndReason(offered []Option, typed string) (chosen Option, why string, ok bool) {
	words := strings.TrimSpace(Canon(typed))
	best := ""
	isBreak := func(c rune) bool { return unicode.IsSpace(c) || strings.ContainsRune(reasonBreaks, c) }
	for _, o := range offered {
		for _, name := range []string{o.Label, o.Value} {
			name = strings.TrimSpace(Canon(name))
			if name == "" || len(name) <= len(best) || len(words) <= len(name) || !strings.EqualFold(words[:len(name)], name) {
				continue
			}
			after := words[len(name):]
			if sep, _ := utf8.DecodeRuneInString(after); !isBreak(sep) {
				continue
			}
			rest := strings.TrimLeftFunc(after, isBreak)
			if strings.TrimSpace(rest) == "" {
				continue
			}
			best, chosen, why = name, o, rest
		}
	}
	return chosen, why, best != ""
}
