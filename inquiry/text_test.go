package inquiry_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestTextRules: which characters each kind of text may hold, one row a text.
func TestTextRules(t *testing.T) {
	const none = rune(-1)
	for _, c := range []struct {
		s                         string
		printable, storable       bool
		unprintable, orBlank      rune // the first reported, or none
		lineControl, proseControl rune
	}{
		{"deploy-42:merge", true, true, none, none, none, none},
		{"ünï-😀 e\u0301", true, true, none, ' ', none, none},
		{"a b", true, true, none, ' ', none, none},
		{"a\u00a0b", false, true, '\u00a0', '\u00a0', none, none}, // a no-break space: a blank, not printable
		{"a\tb", false, true, '\t', '\t', '\t', none},
		{"a\nb\r", false, true, '\n', '\n', '\n', '\r'}, // a carriage return rewrites a line: no prose holds one
		{"a\x1b[2J", false, true, 0x1b, 0x1b, 0x1b, 0x1b},
		{"bell\a", false, true, '\a', '\a', '\a', '\a'},
		{"del\x7f", false, true, 0x7f, 0x7f, 0x7f, 0x7f},
		{"c1\u0085", false, true, 0x85, 0x85, 0x85, 0x85},
		{"zero\u200bwidth", false, true, 0x200b, 0x200b, none, none}, // a format character, not a control
		{"rtl\u202e", false, true, 0x202e, 0x202e, none, none},
		{"nul\x00", false, false, 0, 0, 0, 0},
		{"bad\xff", false, false, none, none, none, none}, // invalid UTF-8: the callers check it first
		{"", true, true, none, none, none, none},
	} {
		first := func(r rune, ok bool) rune {
			if !ok {
				return none
			}
			return r
		}
		require.Equal(t, c.printable, inquiry.Printable(c.s), "Printable(%q)", c.s)
		require.Equal(t, c.storable, inquiry.Storable(c.s), "Storable(%q)", c.s)
		require.Equal(t, c.unprintable, first(inquiry.Unprintable(c.s)), "Unprintable(%q)", c.s)
		require.Equal(t, c.orBlank, first(inquiry.UnprintableOrBlank(c.s)), "UnprintableOrBlank(%q)", c.s)
		require.Equal(t, c.lineControl, first(inquiry.ControlChar(c.s, "")), "ControlChar(%q, \"\")", c.s)
		require.Equal(t, c.proseControl, first(inquiry.ControlChar(c.s, inquiry.ProseControls)), "ControlChar(%q, ProseControls)", c.s)
	}
}

// TestOneLine: text already on one line comes back as it is (its fast path); any other is
// folded and cut as the slow path folds and cuts, at every limit.
func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"POST", 200, "POST"},
		{"/v1/inquiries", 0, "/v1/inquiries"},
		{"a b c", 5, "a b c"},
		{"a b c", 4, "a b…"},
		{"a  b", 0, "a b"},
		{" a", 0, "a"},
		{"a ", 0, "a"},
		{"a\tb\nc\r\vd\fe", 0, "a b c d e"},
		{"a\u00a0b", 0, "a b"},       // a no-break space is a blank too (unicode.IsSpace)
		{"a\u0085b", 0, "a b"},       // and NEL
		{"héllo wörld", 7, "héllo…"}, // characters, not bytes
		{"", 3, ""},
		{"abcdef", 3, "ab…"},
	} {
		require.Equal(t, c.want, inquiry.OneLine(c.s, c.max), "%q, %d", c.s, c.max)
	}
}
