package inquiry_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"

	"github.com/inquiry-bot/bot/inquiry"
)

// wantCanon is Canon's definition, spelt out: U+FEFF removed, then x/text's NFC.
func wantCanon(s string) string {
	return norm.NFC.String(strings.ReplaceAll(s, "\uFEFF", ""))
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
	for _, s := range []string{"deploy-42", "caf\u00E9 Zürich 漢字 한국어", "\xff"} {
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
