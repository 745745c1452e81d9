package inquiry

import (
	"sort"
	"unicode/utf8"
)

//go:generate go run gen_canon.go

// Canon returns s with every U+FEFF (byte order mark, zero width no-break space) removed and the
// rest in Unicode Normalization Form C.
//
// It exists so that text has one reading wherever text is compared: an id, a run id or an option
// value typed as "café" with a precomposed é (U+00E9) is the same as one typed with "e" and a
// combining acute (U+0301), and an option value that arrives with a stray byte order mark in front
// of it is a duplicate of the plain one. Compare Canon(a) == Canon(b), never the raw strings.
//
// The result is exactly what golang.org/x/text/unicode/norm.NFC.String gives for the text with
// its U+FEFF removed, down to norm's stream-safe rule of inserting U+034F after 30 consecutive
// non-starters. It is reproduced here from tables generated out of that package (see
// gen_canon.go and canon_tables.go, and canonUnicodeVersion for the Unicode version) because this
// package imports only the standard library.
//
// Text that is already in that form, ASCII above all, is returned as is without allocating.
// Invalid UTF-8 is never altered: each invalid byte is copied through unchanged and, like norm,
// nothing composes or reorders across it. (Callers reject invalid UTF-8 before it counts.)
func Canon(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return s
	}
	start, ok := canonQuickSpan(s)
	if ok {
		return s
	}
	return canonSlow(s, start)
}

const (
	canonBOM = '\uFEFF'
	canonCGJ = "\u034F" // COMBINING GRAPHEME JOINER, norm's stream-safe separator

	// canonMaxNonStarters is norm's stream-safe limit: after this many non-starters in a row a
	// U+034F is inserted.
	canonMaxNonStarters = 30

	// Bits of canonProp.flags (mirrored in gen_canon.go).
	canonLeadMask   = 0x3    // non-starters norm counts at the start of the code point
	canonTrailShift = 2      // and at its end, in bits 2-3
	canonNotQuick   = 1 << 4 // fails norm's NFC quick check: may change, or change what precedes
	canonDecomposes = 1 << 5 // has an entry in canonDecomps
	canonBackward   = 1 << 6 // is the second part of some pair in canonPairs

	hangulSBase  = 0xAC00
	hangulLBase  = 0x1100
	hangulVBase  = 0x1161
	hangulTBase  = 0x11A7
	hangulLCount = 19
	hangulVCount = 21
	hangulTCount = 28
	hangulNCount = hangulVCount * hangulTCount
	hangulSCount = hangulLCount * hangulNCount
)

// canonProp covers the code points lo..hi, which share a combining class and flags.
type canonProp struct {
	lo, hi rune
	ccc    uint8
	flags  uint8
}

// canonDecomp locates the full canonical decomposition of r in canonDecompText.
type canonDecomp struct {
	r   rune
	off uint16
	n   uint8
}

// canonPair is a primary composite c of a followed by b.
type canonPair struct{ a, b, c rune }

// canonRune is one code point of a segment being normalised.
type canonRune struct {
	r        rune
	ccc      uint8
	backward bool // may compose with the starter before it by the pair table
}

func isHangulSyllable(r rune) bool { return hangulSBase <= r && r < hangulSBase+hangulSCount }

// canonLookup returns the combining class and the flags of r.
func canonLookup(r rune) (ccc, flags uint8) {
	if isHangulSyllable(r) {
		// A starter with one (LV) or two (LVT) jamo after its leading consonant.
		if (r-hangulSBase)%hangulTCount == 0 {
			return 0, 1 << canonTrailShift
		}
		return 0, 2 << canonTrailShift
	}
	if r < canonProps[0].lo {
		return 0, 0
	}
	lo := sort.Search(len(canonProps), func(i int) bool { return canonProps[i].hi >= r })
	if lo < len(canonProps) && canonProps[lo].lo <= r {
		return canonProps[lo].ccc, canonProps[lo].flags
	}
	return 0, 0
}

// canonDecomposition returns the full canonical decomposition of r, which has canonDecomposes.
func canonDecomposition(r rune) string {
	d := canonDecomps[sort.Search(len(canonDecomps), func(i int) bool { return canonDecomps[i].r >= r })]
	return canonDecompText[d.off : int(d.off)+int(d.n)]
}

// canonCombine returns the primary composite of starter a followed by c, or -1 when there is none.
func canonCombine(a rune, c canonRune) rune {
	switch {
	case hangulLBase <= a && a < hangulLBase+hangulLCount &&
		hangulVBase <= c.r && c.r < hangulVBase+hangulVCount:
		return hangulSBase + ((a-hangulLBase)*hangulVCount+(c.r-hangulVBase))*hangulTCount
	case isHangulSyllable(a) && (a-hangulSBase)%hangulTCount == 0 &&
		hangulTBase < c.r && c.r < hangulTBase+hangulTCount:
		return a + (c.r - hangulTBase)
	case !c.backward:
		return -1
	}
	lo := sort.Search(len(canonPairs), func(i int) bool {
		p := canonPairs[i]
		return p.a > a || (p.a == a && p.b >= c.r)
	})
	if lo < len(canonPairs) && canonPairs[lo].a == a && canonPairs[lo].b == c.r {
		return canonPairs[lo].c
	}
	return -1
}

// canonQuickSpan reports whether s is already canonical (no U+FEFF, passes the NFC quick check,
// non-starters in order and within the stream-safe limit), and if not, the start of the segment
// from which normalising must begin: everything before it stays as it is.
func canonQuickSpan(s string) (start int, ok bool) {
	var lastCC uint8
	ss := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			start, lastCC, ss = i, 0, 0
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if size == 1 { // an invalid byte: copied through, a boundary
			start, lastCC, ss = i, 0, 0
			i++
			continue
		}
		if r == canonBOM {
			return start, false
		}
		ccc, flags := canonLookup(r)
		if lead := int(flags & canonLeadMask); lead == 0 {
			start, ss = i, int(flags>>canonTrailShift&canonLeadMask)
		} else {
			if ss += lead; ss > canonMaxNonStarters || lastCC > ccc {
				return start, false
			}
		}
		if flags&canonNotQuick != 0 {
			return start, false
		}
		lastCC = ccc
		i += size
	}
	return len(s), true
}

// canonSlow normalises s from start, which begins a segment; s[:start] is kept as it is.
//
// A segment is a starter (a code point norm counts no leading non-starters for) and the
// non-starters after it. Each code point is decomposed into the segment in canonical order
// (stable by combining class); when the next segment begins, the segment is composed and written.
func canonSlow(s string, start int) string {
	// Short text is built on the stack, so that text which turns out unchanged (it has marks that
	// might have composed, yet did not) costs no allocation.
	var stack [256]byte
	out := append(stack[:0], s[:start]...)
	var buf [canonMaxNonStarters + 8]canonRune
	seg := buf[:0]
	ss := 0
	for i := start; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			// A run of ASCII: only its last byte may compose with what follows.
			out, seg, ss = canonFlush(out, seg), seg[:0], 0
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf {
				j++
			}
			if j == len(s) {
				out = append(out, s[i:j]...)
			} else {
				out = append(out, s[i:j-1]...)
				seg = append(seg, canonRune{r: rune(s[j-1])})
			}
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if size == 1 { // an invalid byte: copied through, a boundary
			out, seg, ss = canonFlush(out, seg), seg[:0], 0
			out = append(out, c)
			i++
			continue
		}
		i += size
		if r == canonBOM {
			continue
		}
		ccc, flags := canonLookup(r)
		if lead := int(flags & canonLeadMask); lead == 0 {
			out, seg = canonFlush(out, seg), seg[:0]
			ss = int(flags >> canonTrailShift & canonLeadMask)
		} else if ss += lead; ss > canonMaxNonStarters {
			// norm's stream-safe rule: end the run of non-starters with U+034F.
			out, seg = canonFlush(out, seg), seg[:0]
			out = append(out, canonCGJ...)
			ss = lead
		}
		switch {
		case isHangulSyllable(r):
			n := r - hangulSBase
			seg = append(seg,
				canonRune{r: hangulLBase + n/hangulNCount},
				canonRune{r: hangulVBase + n%hangulNCount/hangulTCount})
			if t := n % hangulTCount; t != 0 {
				seg = append(seg, canonRune{r: hangulTBase + t})
			}
		case flags&canonDecomposes != 0:
			for _, x := range canonDecomposition(r) {
				xccc, xflags := canonLookup(x)
				seg = canonInsert(seg, canonRune{x, xccc, xflags&canonBackward != 0})
			}
		default:
			seg = canonInsert(seg, canonRune{r, ccc, flags&canonBackward != 0})
		}
	}
	if out = canonFlush(out, seg); string(out) == s {
		return s
	}
	return string(out)
}

// canonInsert adds c to seg in canonical order: after every code point whose combining class is
// not greater (a starter, class 0, stays where it is).
func canonInsert(seg []canonRune, c canonRune) []canonRune {
	seg = append(seg, c)
	if c.ccc == 0 {
		return seg
	}
	j := len(seg) - 1
	for ; j > 0 && seg[j-1].ccc > c.ccc; j-- {
		seg[j] = seg[j-1]
	}
	seg[j] = c
	return seg
}

// canonFlush composes seg canonically and appends it to out.
//
// A code point composes with the last starter before it unless it is blocked: some code point
// between them is a starter or has a combining class not lower than its own. Only primary
// composites are in the pair table, so composition exclusions never come back; Hangul LV and LVT
// syllables are composed algorithmically.
func canonFlush(out []byte, seg []canonRune) []byte {
	if len(seg) > 1 {
		s, k := 0, 1 // the last starter; the code points kept so far
		for i := 1; i < len(seg); i++ {
			c, last := seg[i], seg[k-1]
			if last.ccc == 0 {
				s = k - 1
			}
			if s == k-1 || last.ccc < c.ccc {
				if x := canonCombine(seg[s].r, c); x >= 0 {
					seg[s].r = x
					continue
				}
			}
			seg[k] = c
			k++
		}
		seg = seg[:k]
	}
	for _, c := range seg {
		out = utf8.AppendRune(out, c.r)
	}
	return out
}
