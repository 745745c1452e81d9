package inquiry

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Which characters a text may hold, by the kind of text: the one set of rules that validation,
// answers, the API's decoder and the store all ask, so that they agree. An identifier (an id, a
// run id, a key, a cursor's key) is Printable; a token of another system (a Slack channel, ts or
// user id) has no UnprintableOrBlank; a line (an option's value, label and description, a path or
// query value) has no ControlChar, and prose (a question, a context, an answer's words) none but
// ProseControls; whatever is stored is Storable.

// ProseControls are the control characters prose may hold: tab and newline, which lay out a
// paragraph. Any other (a carriage return, ESC, BEL, backspace, a C1 control) would reach whoever
// reads the text in a terminal (bot ask, bot questions) as an instruction to it: a carriage
// return lets a later line be printed over an earlier one (RewritesLine).
const ProseControls = "\t\n"

// Printable reports whether s is valid UTF-8 of printable characters only: what an identifier
// is, and so what every id, key and cursor the server hands out is. Text that is not can name
// nothing, and is refused before it reaches the store.
func Printable(s string) bool {
	_, bad := Unprintable(s)
	return !bad && utf8.ValidString(s)
}

// Unprintable returns the first character of s that an identifier may not hold: one that is not
// printable (unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space).
// A newline, a tab, a zero-width space or a right-to-left override in an id would make two ids
// look alike, or one look like another. Invalid UTF-8 is not reported here; check it first.
func Unprintable(s string) (rune, bool) {
	return first(s, func(r rune) bool { return !unicode.IsPrint(r) })
}

// UnprintableOrBlank returns the first character of s that a token of another system may not
// hold: one Unprintable reports, or a blank. No Slack id has either, and a blank would make one
// token read as two.
func UnprintableOrBlank(s string) (rune, bool) {
	return first(s, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) })
}

// ControlChar returns the first control character of s (Unicode category Cc: C0, DEL and C1)
// that is not in allowed: "" for a line, ProseControls for prose. Invalid UTF-8 is not reported
// here; check it first.
func ControlChar(s, allowed string) (rune, bool) {
	return first(s, func(r rune) bool { return unicode.IsControl(r) && !strings.ContainsRune(allowed, r) })
}

// Storable reports whether s is text the store can keep as it was sent: valid UTF-8 without NUL.
// PostgreSQL refuses both outright and no rule allows either, so they are refused where text
// comes in (the API's decoder) rather than quietly changed.
func Storable(s string) bool {
	return strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
}

func first(s string, bad func(rune) bool) (rune, bool) {
	for _, r := range s {
		if bad(r) {
			return r, true
		}
	}
	return 0, false
}

// OneLine folds s onto one line (every run of blanks and line breaks becomes one space) and,
// when max > 0, cuts it to at most max characters, the last an ellipsis when it cut: how every
// edge shows someone's text inside a line of its own (a log line, a list row, a sentence, a
// Slack notice), so that a pasted essay or a newline can neither flood nor forge the line.
func OneLine(s string, max int) string {
	if oneLineASCII(s) && (max <= 0 || len(s) <= max) {
		return s // already one line, and short enough: as it is, without a copy
	}
	s = strings.Join(strings.Fields(s), " ")
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	cut, _ := cutRunes(s, max-1)
	return strings.TrimRight(cut, " ") + "…"
}

// oneLineASCII reports whether s is ASCII that OneLine would leave as it is: no blank but single
// spaces between words, none at either end.
func oneLineASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			return false
		case c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' '):
			return false
		}
	}
	return true
}
