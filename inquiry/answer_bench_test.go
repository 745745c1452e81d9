package inquiry_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/inquiry-bot/bot/inquiry"
)

// sink keeps the compiler from discarding a benchmark's work.
var sink int

// BenchmarkCapAnswer caps a 2,000-character answer (exactly the ceiling): in ASCII (the fast
// path: its bytes bound its characters), and in two-byte characters (every character counted).
// "over" is 2,500 two-byte characters cut to 2,000. "floor" is one utf8.RuneCountInString over
// the two-byte text: no cap can check the length for less. cmd/benchmark runs it; it is never
// part of a plain go test run.
func BenchmarkCapAnswer(b *testing.B) {
	cases := []struct {
		name string
		text string
	}{
		{"ascii-2000", strings.Repeat("a", inquiry.DefaultAnswerChars)},
		{"2byte-2000", strings.Repeat("é", inquiry.DefaultAnswerChars)},
		{"2byte-2500-cut", strings.Repeat("é", inquiry.DefaultAnswerChars+500)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			a := inquiry.Answer{InquiryID: "deploy-42:merge", Text: c.text}
			b.ReportAllocs()
			for b.Loop() {
				out := inquiry.CapAnswer(a, 0)
				sink += len(out.Text)
			}
		})
	}
	b.Run("floor-runecount-2byte-2000", func(b *testing.B) {
		text := strings.Repeat("é", inquiry.DefaultAnswerChars)
		b.ReportAllocs()
		for b.Loop() {
			sink += utf8.RuneCountInString(text)
		}
	})
}
