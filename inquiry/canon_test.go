package inquiry_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"

	"github.com/inquiry-bot/bot/inquiry"
)

// wantCanon is the definition Canon reproduces: U+FEFF removed, then x/text's NFC.
func wantCanon(s string) string {
	return norm.NFC.String(strings.ReplaceAll(s, "\uFEFF", ""))
}

func checkCanon(t *testing.T, s string) bool {
	t.Helper()
	if got, want := inquiry.Canon(s), wantCanon(s); got != want {
		t.Errorf("Canon(%+q) = %+q, want %+q", s, got, want)
		return false
	}
	return true
}

func everyRune(yield func(r rune) bool) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		if !yield(r) {
			return
		}
	}
}

// inert reports whether norm says r never interacts with its neighbours: a starter that neither
// composes nor decomposes nor counts towards the stream-safe limit. Inert code points (all but
// some twenty thousand) get the cheaper checks.
func inert(r rune) bool {
	p := norm.NFC.PropertiesString(string(r))
	return p.BoundaryBefore() && p.BoundaryAfter()
}

// marks composing with much (and little), of assorted classes, plus starters that compose
// backward, jamo, the joiner and the byte order mark.
var canonMarks = []string{
	"\u0300", "\u0301", "\u0302", "\u0303", "\u0304", "\u0306", "\u0307", "\u0308", "\u030A",
	"\u030C", "\u0313", "\u0314", "\u031B", "\u0323", "\u0327", "\u0328", "\u0331", "\u0338",
	"\u0342", "\u0345", "\u0305", "\u0316", "\u0334", "\u0344", "\u093C", "\u3099", "\u309A",
	"\u05B0", "\u0F72", "\u0CD5", "\u0DCA", "\u0DCF", "\u0B3E", "\u1161", "\u11A8", "\u11A7",
	"\u11C2", "\u034F", "\uFEFF", "\U0001D165",
}

// TestCanonEveryRune checks every code point on its own, after each mark of canonMarks, and for
// the stream-safe counts: how many non-starters it adds at its start (after 27 to 30 neutral
// marks) and at its end (before 30 of them). Inert code points, which cannot interact, are checked
// in batches of 64 and with fewer marks, and skipped with -short.
func TestCanonEveryRune(t *testing.T) {
	t.Parallel()
	neutral := strings.Repeat("\u0316", 30) // ccc 220, composes with nothing
	var batch []rune
	var b strings.Builder
	bad := 0
	flush := func() {
		var alone, counted, marked strings.Builder
		counted.WriteString("a")
		for _, r := range batch {
			alone.WriteRune(r)
			counted.WriteString(neutral)
			counted.WriteRune(r)
			for _, m := range []string{"\u0301", "\u1161", "\uFEFF\u0323\u0301"} {
				marked.WriteRune(r)
				marked.WriteString(m)
			}
		}
		counted.WriteString(neutral)
		for _, s := range []string{alone.String(), counted.String(), marked.String()} {
			if !checkCanon(t, s) {
				bad++
			}
		}
		batch = batch[:0]
	}
	for r := range everyRune {
		if inert(r) {
			if testing.Short() {
				continue
			}
			if batch = append(batch, r); len(batch) == 64 {
				flush()
			}
			continue
		}
		s := string(r)
		if !checkCanon(t, s) {
			bad++
		}
		for k := 27; k <= 30; k++ {
			if !checkCanon(t, "a"+neutral[:2*k]+s+"\u0301") {
				bad++
			}
		}
		if !checkCanon(t, s+neutral+"\u0301") {
			bad++
		}
		for _, m := range canonMarks {
			b.Reset()
			b.WriteRune(r)
			b.WriteString(m)
			if !checkCanon(t, b.String()) {
				bad++
			}
		}
		if bad > 20 {
			t.Fatal("too many failures")
		}
	}
	flush()
}

// TestCanonConformance holds NormalizationTest-style cases: source and its NFC.
func TestCanonConformance(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"\u1E0A", "\u1E0A"},
		{"D\u0307", "\u1E0A"},
		{"\u1E0C", "\u1E0C"},
		{"D\u0323", "\u1E0C"},
		{"\u1E0A\u0323", "\u1E0C\u0307"},
		{"\u1E0C\u0307", "\u1E0C\u0307"},
		{"D\u0307\u0323", "\u1E0C\u0307"},
		{"D\u0323\u0307", "\u1E0C\u0307"},
		{"\u1E0A\u031B\u0323", "\u1E0C\u031B\u0307"},
		{"D\u031B\u0323\u0307", "\u1E0C\u031B\u0307"},
		{"\u1E14", "\u1E14"},
		{"\u0112\u0300", "\u1E14"},
		{"E\u0304\u0300", "\u1E14"},
		{"\u00C8\u0304", "\u00C8\u0304"},
		{"\u212B", "\u00C5"},             // singleton
		{"A\u030A", "\u00C5"},            //
		{"\u2126", "\u03A9"},             // singleton
		{"\u0958", "\u0915\u093C"},       // composition exclusion
		{"\u0915\u093C", "\u0915\u093C"}, // stays apart
		{"\u2ADC", "\u2ADD\u0338"},       // exclusion
		{"\U0001D15E", "\U0001D157\U0001D165"},
		{"\u0344", "\u0308\u0301"}, // non-starter decomposition
		{"\u0F73", "\u0F71\u0F72"},
		{"\u0340", "\u0300"},
		{"e\u0301\u0301", "\u00E9\u0301"},
		{"a\u0301\u0328", "\u0105\u0301"}, // reordered: ogonek (202) before acute (230)
		{"\u00E1\u0328", "\u0105\u0301"},
		{"s\u0307\u0323", "\u1E69"},
		{"\u1E61\u0323", "\u1E69"},
		{"u\u0308\u0304", "\u01D6"},
		{"a\u034F\u0301", "a\u034F\u0301"}, // the joiner is a starter: blocks
		{"\u0CC6\u0CC2\u0CD5", "\u0CCB"},   // starters composing with starters
		{"\u0DD9\u0DCF\u0DCA", "\u0DDD"},
		{"\u304B\u3099", "\u304C"},
		{"\u304B\u309A", "\u304B\u309A"},
		{"\u1100\u1161", "\uAC00"},
		{"\u1100\u1161\u11A8", "\uAC01"},
		{"\uAC00\u11A8", "\uAC01"},
		{"\uAC01\u11A8", "\uAC01\u11A8"},
		{"\u1100\uAC00\u11A8", "\u1100\uAC01"},
		{"\u1100\uAC00\u11A8\u11A8", "\u1100\uAC01\u11A8"},
		{"\uAC00\u11A7", "\uAC00\u11A7"}, // U+11A7 is no trailing consonant
		{"\u1100\u0301\u1161", "\u1100\u0301\u1161"},
		{"\u1113\u1161", "\u1113\u1161"}, // old jamo do not compose
		{"\u05B8\u05B9\u05B1\u0591\u05C3\u05B0\u05AC\u059F", "\u05B1\u05B8\u05B9\u0591\u05C3\u05B0\u05AC\u059F"},
		// norm's stream-safe rule: U+034F after 30 non-starters.
		{"a" + strings.Repeat("\u0301", 40), "\u00E1" + strings.Repeat("\u0301", 29) + "\u034F" + strings.Repeat("\u0301", 10)},
		{"\u01D6" + strings.Repeat("\u0305", 30), "\u01D6" + strings.Repeat("\u0305", 28) + "\u034F\u0305\u0305"},
	}
	for _, c := range cases {
		if got := inquiry.Canon(c.in); got != c.want {
			t.Errorf("Canon(%+q) = %+q, want %+q", c.in, got, c.want)
		}
		checkCanon(t, c.in)
	}

	// Every decomposable code point: it, its decomposition and its decomposition with the marks
	// reversed (out of order) all canon as NFC does.
	for r := range everyRune {
		s := string(r)
		d := norm.NFD.String(s)
		if d == s {
			continue
		}
		rs := []rune(d)
		rev := string(rs[:1])
		for i := len(rs) - 1; i > 0; i-- {
			rev += string(rs[i])
		}
		if got := inquiry.Canon(d); got != norm.NFC.String(s) {
			t.Errorf("Canon(NFD(%U)) = %+q, want %+q", r, got, norm.NFC.String(s))
		}
		checkCanon(t, rev)
		checkCanon(t, "\u0323"+s+"\u0301\u0316")
	}
}

func TestCanonRandom(t *testing.T) {
	pieces := []string{
		"a", "e", "o", "u", "s", "A", "D", "E", "z", " ", "<", "=", ">",
		"\u00E9", "\u00C5", "\u01D6", "\u1E69", "\u1E0A", "\u0105", "\u03B1", "\u1F00", "\u1F85",
		"\u0391", "\u03C9", "\u0415", "\u0418", "\u2126", "\u212B", "\u0958", "\u0915", "\u0B47",
		"\u0CC6", "\u0CCA", "\u0DD9", "\u0DDC", "\u304B", "\u30CF", "\uFF76", "\uFF9E", "\u00A8",
		"\U0001D157", "\U0001D15F", "\U0001D160", "\u2ADC", "\u0F40", "\u0F73", "\u0F77",
		"\u0340", "\u0341", "\u0343", "\u0344", "\u0374", "\u037E", "\u0387", "\uFB2C", "\u1100",
		"\u1112", "\u1113", "\u115F", "\u1160", "\u1175", "\u1176", "\u11A7", "\u11C3", "\u11FF",
		"\uAC00", "\uAC01", "\uD7A3", "\uD788", "\u3131", "\u00DF", "\u6F22",
	}
	pieces = append(pieces, canonMarks...)
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	bad := 0
	for n := 0; n < 300000; n++ {
		b.Reset()
		for k := 1 + rng.IntN(16); k > 0; k-- {
			switch x := rng.IntN(100); {
			case x < 3: // a long run of marks, past the stream-safe limit
				for m := 25 + rng.IntN(20); m > 0; m-- {
					b.WriteString(canonMarks[rng.IntN(21)])
				}
			case x < 6: // any code point at all
				r := rune(rng.IntN(utf8.MaxRune + 1))
				if utf8.ValidRune(r) {
					b.WriteRune(r)
				}
			case x < 10: // a Hangul syllable or jamo
				switch rng.IntN(3) {
				case 0:
					b.WriteRune(rune(0xAC00 + rng.IntN(11172)))
				case 1:
					b.WriteRune(rune(0x1100 + rng.IntN(0x100)))
				default:
					b.WriteRune(rune(0x1161 + rng.IntN(0x70)))
				}
			default:
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		if !checkCanon(t, b.String()) {
			bad++
		}
		if bad > 20 {
			t.Fatal("too many failures")
		}
	}
}

func TestCanonInvalidUTF8(t *testing.T) {
	for _, s := range []string{
		"\xff", "a\xffb", "\xc3", "caf\xc3", "\xe2\x82", "\xed\xa0\x80", "\xc0\x80", "\xf4\x90\x80\x80",
		"e\xff\u0301", "\xffe\u0301", "\u0301\xff\u0301", "\xc3\u0301\xa9",
	} {
		got := inquiry.Canon(s)
		if want := norm.NFC.String(s); got != want {
			t.Errorf("Canon(%+q) = %+q, want %+q (as norm)", s, got, want)
		}
		// Every invalid byte is still there, in order.
		if bytesOf(got) != bytesOf(s) {
			t.Errorf("Canon(%+q) = %+q: invalid bytes changed", s, got)
		}
	}
	if got := inquiry.Canon("e\xff\u0301"); got != "e\xff\u0301" {
		t.Errorf("composed across an invalid byte: %+q", got)
	}

	// Random bytes: whatever is invalid passes through as norm passes it.
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"\x80", "\xbf", "\xc3", "\xcc", "\xe1", "\xe1\x84", "\xea\xb0", "\xed", "\xf0\x9d", "\xff", "e", "\u0301", "\u0323", "\u1161", "\u11A8", "\uAC00"}
	bad := 0
	for n := 0; n < 100000; n++ {
		var b strings.Builder
		for k := 1 + rng.IntN(12); k > 0; k-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := inquiry.Canon(s), norm.NFC.String(s); got != want {
			t.Errorf("Canon(%+q) = %+q, want %+q (as norm)", s, got, want)
			if bad++; bad > 20 {
				t.Fatal("too many failures")
			}
		}
	}
}

// bytesOf lists the invalid bytes of s.
func bytesOf(s string) string {
	var b []byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[i])
		}
		i += size
	}
	return string(b)
}

func TestCanonTable(t *testing.T) {
	composed, decomposed := "caf\u00E9", "cafe\u0301"
	cases := []struct{ name, in, want string }{
		{"composed café", composed, composed},
		{"decomposed café", decomposed, composed},
		{"leading BOM", "\uFEFFmerge", "merge"},
		{"BOMs anywhere", "me\uFEFFr\uFEFFge\uFEFF", "merge"},
		{"only a BOM", "\uFEFF", ""},
		{"BOM between base and mark", "e\uFEFF\u0301", "\u00E9"},
		{"ASCII", "deploy-42", "deploy-42"},
		{"empty", "", ""},
		{"already NFC", "Zürich 漢字 한국어", "Zürich 漢字 한국어"},
		{"invalid UTF-8", "bad\xff\xfe", "bad\xff\xfe"},
	}
	for _, c := range cases {
		if got := inquiry.Canon(c.in); got != c.want {
			t.Errorf("%s: Canon(%+q) = %+q, want %+q", c.name, c.in, got, c.want)
		}
	}
	if inquiry.Canon(composed) != inquiry.Canon(decomposed) {
		t.Error("composed and decomposed café differ")
	}
	if inquiry.Canon("\uFEFFmerge") != inquiry.Canon("merge") {
		t.Error("a BOM-prefixed value is not a duplicate of the plain one")
	}
}

func TestCanonNoAllocation(t *testing.T) {
	for _, s := range []string{"deploy-42", "caf\u00E9 Zürich 漢字 한국어", "\u1EA1\u0301", "\xff"} {
		if got := inquiry.Canon(s); got != s {
			t.Fatalf("Canon(%+q) = %+q", s, got)
		}
		if n := testing.AllocsPerRun(100, func() { _ = inquiry.Canon(s) }); n != 0 {
			t.Errorf("Canon(%+q): %v allocations, want 0", s, n)
		}
	}
	// An unchanged string comes back as the very same string, not a copy.
	for _, s := range []string{strings.Repeat("x", 64), "Zürich"} {
		if got := inquiry.Canon(s); unsafe.StringData(got) != unsafe.StringData(s) {
			t.Errorf("Canon(%+q) copied its input", s)
		}
	}
}

func TestCanonIdempotent(t *testing.T) {
	for _, s := range []string{"cafe\u0301", "\uFEFFmerge", "\u1100\u1161\u11A8", "a" + strings.Repeat("\u0301", 70), "\u0958\u0344"} {
		once := inquiry.Canon(s)
		if twice := inquiry.Canon(once); twice != once {
			t.Errorf("Canon(Canon(%+q)) = %+q, want %+q", s, twice, once)
		}
	}
}

func FuzzCanon(f *testing.F) {
	for _, s := range []string{"", "merge", "\uFEFFmerge", "cafe\u0301", "\u1100\u1161\u11A8", "a\u0301\u0328", "e\xff\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := inquiry.Canon(s)
		if bytesOf(got) != bytesOf(s) {
			t.Fatalf("Canon(%+q) = %+q: invalid bytes changed", s, got)
		}
		if !utf8.ValidString(s) {
			return
		}
		if want := wantCanon(s); got != want {
			t.Fatalf("Canon(%+q) = %+q, want %+q", s, got, want)
		}
		if again := inquiry.Canon(got); again != got {
			t.Fatalf("Canon is not idempotent on %+q", s)
		}
	})
}

func BenchmarkCanon(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"ASCII", "deploy-production-eu-west-1"},
		{"NFC", "déploiement-en-production-à-Zürich"},
		{"decomposed", "de\u0301ploiement-en-production-a\u0300-Zu\u0308rich"},
		{"BOM", "\uFEFFdeploy-production-eu-west-1"},
		{"Hangul jamo", "\u1100\u1161\u11A8\u1102\u1161\u11AB"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = inquiry.Canon(bc.in)
			}
		})
		b.Run(bc.name+"/norm", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = wantCanon(bc.in)
			}
		})
	}
}

// The same id in composed and decomposed form, and a value with a byte order mark in front, canon
// to one string.
func ExampleCanon() {
	composed, decomposed := "caf\u00E9", "cafe\u0301"
	fmt.Println(composed == decomposed, inquiry.Canon(composed) == inquiry.Canon(decomposed))
	fmt.Println(len(decomposed), len(inquiry.Canon(decomposed)))
	fmt.Printf("%q\n", inquiry.Canon("\uFEFFmerge"))
	// Output:
	// false true
	// 6 5
	// "merge"
}
