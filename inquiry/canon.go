package inquiry

import (
	"strings"

	unorm "golang.org/x/text/unicode/norm"
)

// Canon returns s with every U+FEFF (byte order mark, zero width no-break space) removed and the
// rest in Unicode Normalization Form C (golang.org/x/text/unicode/norm).
//
// It exists so that text has one reading wherever text is compared: an id, a run id or an option
// value typed as "café" with a precomposed é (U+00E9) is the same as one typed with "e" and a
// combining acute (U+0301), and an option value that arrives with a stray byte order mark in front
// of it is a duplicate of the plain one. Compare Canon(a) == Canon(b), never the raw strings.
//
// Text that is already in that form, ASCII above all, is returned as is without allocating.
// Invalid UTF-8 is copied through as norm copies it. (Callers reject invalid UTF-8 before it
// counts.)
func Canon(s string) string {
	if isASCII(s) {
		return s
	}
	if strings.ContainsRune(s, '\uFEFF') {
		s = strings.ReplaceAll(s, "\uFEFF", "")
	}
	return unorm.NFC.String(s)
}
