package inquiry

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
)

// What a person sees is what they decide: the one rule for text a person reads. The asker's text
// is often a model's, and a model can be steered by what it read, so text that could show a
// person something other than what is decided is refused where it comes in, and every surface
// shows what is stored through the same function:
//
//   - refused in every text field of an inquiry (RewritesLine): a carriage return and the other
//     characters that move the cursor or break a line where a reader does not expect it (vertical
//     tab, form feed, the line and paragraph separators), and the bidirectional overrides and
//     isolates (U+202A–U+202E, U+2066–U+2069), which reorder what follows them;
//   - refused in option labels and values (Invisible): characters that show as nothing — format
//     characters (Unicode category Cf: zero-width spaces and joiners, direction marks, tags),
//     variation selectors, the Hangul fillers, U+034F, the blank Braille pattern U+2800 — so that
//     "Merge" and "Merge\u200b" cannot stand side by side;
//   - two option labels whose confusable skeletons (UTS #39) are equal are refused, so that
//     "Merge" and "Μerge" (a Greek capital mu) cannot stand side by side (LookAlike);
//   - every plain-text surface (the CLI, the picker, e-mail's text part, a log line) prints stored
//     text through Printed, which shows any such character as a visible code instead of obeying
//     it (text stored before the rule, or an answer's words, can still hold one); HTML surfaces
//     escape with html/template and Slack with blockkit.Escape, after Printed.
//
// Every surface marks where the asker's text begins and ends (a quoted block, an indented
// paragraph under a label), so that text which imitates the bot's own words reads as quoted.

// RewritesLine reports whether r rewrites what a reader sees of the line it is in or the lines
// around it: a control that moves the cursor or breaks a line unexpectedly, or a bidirectional
// override or isolate.
func RewritesLine(r rune) bool {
	switch r {
	case '\r', '\v', '\f', '\u2028', '\u2029':
		return true
	}
	return IsBidiControl(r)
}

// IsBidiControl reports whether r is a bidirectional embedding, override or isolate
// (U+202A–U+202E, U+2066–U+2069): it reorders the characters after it.
func IsBidiControl(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}

// Invisible reports whether r shows as nothing where an option's words are shown: a format
// character (Cf), a variation selector, a default-ignorable filler (U+115F, U+1160, U+3164,
// U+FFA0, U+034F, …) or the blank Braille pattern U+2800.
func Invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || r == '\u2800'
}

// checkShown refuses text of field holding a character that rewrites what a reader sees
// (RewritesLine), and for a label or value (strict) one that shows as nothing (Invisible).
func checkShown(field, s string, strict bool) error {
	for _, r := range s {
		switch {
		case r == '\r':
			return invalid(field, "%s contains a carriage return (U+000D), which can make a terminal show one line over another: end lines with \\n alone", field)
		case RewritesLine(r):
			return invalid(field, "%s contains %U, which %s: remove it", field, r, whatItDoes(r))
		case strict && Invisible(r):
			return invalid(field, "%s contains %U, which shows as nothing, so two options could look the same: remove it", field, r)
		}
	}
	return nil
}

func whatItDoes(r rune) string {
	if IsBidiControl(r) {
		return "reorders the text after it (a bidirectional override or isolate) so that it reads otherwise than it is"
	}
	return "breaks or moves the line where a reader does not expect it"
}

// LookAlike is the form in which two option labels are compared for looking alike: the UTS #39
// confusable skeleton of the trimmed label, so that "Merge" and "Μerge" (with a Greek capital mu)
// are one, and so are "Hold" and "Ho1d". The skeleton keeps case, as the eye does ("L" and "I"
// differ); labels that differ in case alone are refused already as the same words.
func LookAlike(label string) string {
	return confusables.Skeleton(strings.TrimSpace(Canon(label)))
}

// Printed is s as a plain-text surface shows it: every character that would rewrite the line
// (RewritesLine), any other control but a newline or a tab, and any character that shows as
// nothing (Invisible) appear as a visible code such as ⟨U+202E⟩, never obeyed. Invalid UTF-8 is
// shown as U+FFFD. Text without such characters is returned as it is.
func Printed(s string) string {
	if !needsPrinting(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !validAt(s, i):
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case RewritesLine(r) || unicode.IsControl(r) || Invisible(r):
			fmt.Fprintf(&b, "⟨%U⟩", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsPrinting(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && (RewritesLine(r) || unicode.IsControl(r) || Invisible(r)) {
			return true
		}
	}
	return false
}

func validAt(s string, i int) bool {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n > 1 // U+FFFD itself, spelt out
}

// NormalizeNewlines turns CR LF and a lone CR into LF: what a person's answer means when a form
// (a browser's textarea sends CR LF) or a terminal typed it, so that no stored answer carries a
// carriage return to a script that prints it.
func NormalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
