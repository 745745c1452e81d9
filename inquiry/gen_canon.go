//go:build ignore

// gen_canon writes canon_tables.go: the Unicode data Canon needs, read out of
// golang.org/x/text/unicode/norm so that Canon reproduces norm.NFC exactly while package inquiry
// itself imports only the standard library.
//
// Run it from this directory:
//
//	go run gen_canon.go
//
// Everything is derived through norm's public API and checked against it before the file is
// written: the canonical decompositions (norm.NFD of each code point), the combining classes
// (Properties.CCC), the quick-check answer (QuickSpanString), the primary composites (code points
// that decompose yet are their own NFC; their last decomposed rune is the one composed last), and
// the stream-safe counts norm uses to insert U+034F after 30 non-starters, which are measured by
// normalising probe strings rather than by re-deriving norm's internal rules.
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"log"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// These mirror the constants in canon.go.
const (
	flagLeadShift  = 0
	flagTrailShift = 2
	flagNotQuick   = 1 << 4
	flagDecomposes = 1 << 5
	flagBackward   = 1 << 6

	hangulBase  = 0xAC00
	hangulCount = 19 * 21 * 28
	jamoTCount  = 28

	cgj = "\u034F"
	// probe is a combining mark (ccc 230) that composes with nothing and decomposes to itself:
	// a neutral counter for the stream-safe probes.
	probe = "\u0305"
)

type prop struct {
	ccc   uint8
	flags uint8
}

type pair struct{ a, b, c rune }

func isHangul(r rune) bool { return hangulBase <= r && r < hangulBase+hangulCount }

func valid(r rune) bool { return r < 0xD800 || r > 0xDFFF }

// trailing measures how many non-starters norm counts at the end of r: after "a"+r, norm inserts
// U+034F before the probe mark that would make the count exceed 30.
func trailing(r rune) int {
	out := norm.NFC.String("a" + string(r) + strings.Repeat(probe, 40))
	i := strings.LastIndex(out, cgj)
	if i < 0 || strings.Count(out, cgj) != strings.Count(string(r), cgj)+1 {
		log.Fatalf("%U: trailing probe found no joiner: %+q", r, out)
	}
	return 30 - strings.Count(out[:i], probe) + strings.Count(norm.NFD.String(string(r)), probe)
}

// leading measures how many non-starters norm counts at the start of r: after 30-t probe marks,
// r overflows the count (a joiner appears) exactly when its leading count exceeds t.
func leading(r rune) int {
	n := 0
	for t := 0; t < 4; t++ {
		s := "a" + strings.Repeat(probe, 30-t) + string(r)
		if strings.Count(norm.NFC.String(s), cgj) == strings.Count(s, cgj) {
			break
		}
		n++
	}
	return n
}

// writeEntries writes the entries of a table literal, per of them to a line, each followed by a
// comma; entry writes one.
func writeEntries[T any](b *bytes.Buffer, items []T, per int, entry func(T) string) {
	for i, it := range items {
		sep := " "
		if i%per == per-1 || i == len(items)-1 {
			sep = "\n"
		}
		fmt.Fprintf(b, "%s,%s", entry(it), sep)
	}
}

func main() {
	if p := norm.NFD.PropertiesString(probe); p.CCC() != 230 || norm.NFD.String(probe) != probe {
		log.Fatal("probe mark changed")
	}

	props := make([]prop, utf8.MaxRune+1)
	decomp := map[rune]string{}
	var pairs []pair
	backward := map[rune]bool{}

	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !valid(r) {
			continue
		}
		s := string(r)
		ccc := norm.NFD.PropertiesString(s).CCC()
		lead, trail := leading(r), trailing(r)
		if lead > 3 || trail > 3 || (lead != 0 && lead != trail) {
			log.Fatalf("%U: unexpected stream-safe counts lead %d trail %d", r, lead, trail)
		}
		if isHangul(r) {
			want := 2
			if (r-hangulBase)%jamoTCount == 0 {
				want = 1
			}
			if ccc != 0 || lead != 0 || trail != want || norm.NFC.QuickSpanString(s) != len(s) {
				log.Fatalf("%U: Hangul syllable is not what canon.go assumes", r)
			}
			continue // decomposed and counted algorithmically
		}
		var flags uint8
		flags |= uint8(lead) << flagLeadShift
		flags |= uint8(trail) << flagTrailShift
		if norm.NFC.QuickSpanString(s) != len(s) {
			flags |= flagNotQuick
		}
		if d := norm.NFD.String(s); d != s {
			flags |= flagDecomposes
			decomp[r] = d
			if norm.NFC.String(s) == s { // a primary composite
				ds := []rune(d)
				last := ds[len(ds)-1]
				first := norm.NFC.String(string(ds[:len(ds)-1]))
				if utf8.RuneCountInString(first) != 1 || norm.NFC.String(first+string(last)) != s {
					log.Fatalf("%U: cannot split composite %+q", r, d)
				}
				a, _ := utf8.DecodeRuneInString(first)
				pairs = append(pairs, pair{a, last, r})
			}
		}
		props[r] = prop{ccc, flags}
	}

	// Which runes compose with what precedes them, and checks of what canon.go relies on.
	for _, p := range pairs {
		backward[p.b] = true
		if norm.NFD.PropertiesString(string(p.a)).CCC() != 0 {
			log.Fatalf("%U: composite starting with a non-starter", p.c)
		}
		if _, ok := decomp[p.b]; ok {
			log.Fatalf("%U: second rune of a composite decomposes", p.c)
		}
	}
	for r := rune(0); r < utf8.RuneSelf; r++ {
		if props[r] != (prop{}) {
			log.Fatalf("%U: ASCII is not inert", r)
		}
	}
	if backward[[]rune(probe)[0]] {
		log.Fatal("probe mark composes")
	}
	for r := range backward {
		props[r].flags |= flagBackward
		if props[r].flags&flagNotQuick == 0 {
			log.Fatalf("%U: composes backward yet passes the quick check", r)
		}
	}
	for r, d := range decomp {
		for _, x := range d {
			if props[x].flags&flagDecomposes != 0 || isHangul(x) {
				log.Fatalf("%U: decomposition not full", r)
			}
		}
	}
	slices.SortFunc(pairs, func(x, y pair) int {
		if x.a != y.a {
			return int(x.a - y.a)
		}
		return int(x.b - y.b)
	})

	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by gen_canon.go; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "// The tables behind Canon, read out of golang.org/x/text/unicode/norm for Unicode %s\n", norm.Version)
	fmt.Fprintf(&b, "// (norm.Version). Regenerate with `go run gen_canon.go` in this directory.\n\n")
	fmt.Fprintf(&b, "package inquiry\n\n")
	fmt.Fprintf(&b, "// canonUnicodeVersion is the Unicode version the tables were generated from (norm.Version).\n")
	fmt.Fprintf(&b, "const canonUnicodeVersion = %q\n\n", norm.Version)

	// Properties as ranges of equal values; code points not covered are inert starters.
	type span struct {
		lo, hi rune
		p      prop
	}
	var spans []span
	for r := rune(0); r <= utf8.MaxRune; r++ {
		p := props[r]
		if p == (prop{}) {
			continue
		}
		if n := len(spans); n > 0 && spans[n-1].hi == r-1 && spans[n-1].p == p {
			spans[n-1].hi = r
			continue
		}
		spans = append(spans, span{r, r, p})
	}
	fmt.Fprintf(&b, "// canonProps holds, by ranges sorted by code point, every code point (Hangul syllables\n")
	fmt.Fprintf(&b, "// apart) that is not an inert starter: {lo, hi, combining class, canonFlag bits}.\n")
	fmt.Fprintf(&b, "// %d ranges.\n", len(spans))
	fmt.Fprintf(&b, "var canonProps = [...]canonProp{\n")
	writeEntries(&b, spans, 4, func(s span) string {
		return fmt.Sprintf("{0x%04X, 0x%04X, %d, 0x%02X}", s.lo, s.hi, s.p.ccc, s.p.flags)
	})
	fmt.Fprintf(&b, "}\n\n")

	// Decompositions: an index into one string.
	keys := make([]rune, 0, len(decomp))
	for r := range decomp {
		keys = append(keys, r)
	}
	slices.Sort(keys)
	var text strings.Builder
	fmt.Fprintf(&b, "// canonDecomps lists, sorted by code point, every code point (Hangul syllables apart)\n")
	fmt.Fprintf(&b, "// whose full canonical decomposition differs from itself: {code point, offset, length}\n")
	fmt.Fprintf(&b, "// of that decomposition, in canonical order, within canonDecompText. %d entries.\n", len(keys))
	fmt.Fprintf(&b, "var canonDecomps = [...]canonDecomp{\n")
	writeEntries(&b, keys, 6, func(r rune) string {
		d := decomp[r]
		if text.Len()+len(d) > 0xFFFF || len(d) > 0xFF {
			log.Fatal("decomposition text too long for the index")
		}
		entry := fmt.Sprintf("{0x%04X, %d, %d}", r, text.Len(), len(d))
		text.WriteString(d)
		return entry
	})
	fmt.Fprintf(&b, "}\n\n")
	fmt.Fprintf(&b, "// canonDecompText holds the decompositions canonDecomps points into (%d bytes).\n", text.Len())
	fmt.Fprintf(&b, "const canonDecompText = \"\" +\n")
	var line strings.Builder
	for i, r := range keys {
		line.WriteString(decomp[r])
		if (i+1)%8 == 0 || i == len(keys)-1 {
			sep := " +\n"
			if i == len(keys)-1 {
				sep = "\n\n"
			}
			fmt.Fprintf(&b, "\t%s%s", strconv.QuoteToASCII(line.String()), sep)
			line.Reset()
		}
	}

	fmt.Fprintf(&b, "// canonPairs lists the primary composites, sorted by their two parts: {first, second,\n")
	fmt.Fprintf(&b, "// composite}. Composition exclusions, singletons and non-starter decompositions are\n")
	fmt.Fprintf(&b, "// absent, so they are never produced. Hangul is composed algorithmically. %d pairs.\n", len(pairs))
	fmt.Fprintf(&b, "var canonPairs = [...]canonPair{\n")
	writeEntries(&b, pairs, 4, func(p pair) string { return fmt.Sprintf("{0x%04X, 0x%04X, 0x%04X}", p.a, p.b, p.c) })
	fmt.Fprintf(&b, "}\n")

	src, err := format.Source(b.Bytes())
	if err != nil {
		os.WriteFile("canon_tables.go", b.Bytes(), 0o644)
		log.Fatalf("gofmt: %v", err)
	}
	if err := os.WriteFile("canon_tables.go", src, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("canon_tables.go: Unicode %s, %d property ranges, %d decompositions (%d bytes), %d pairs\n",
		norm.Version, len(spans), len(keys), text.Len(), len(pairs))
}
