package email

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/inquiry-bot/bot/inquiry"
)

// A message shows the first lines of a proposal, at most this many and this many bytes of its
// content: enough to recognise it, short enough for any mail client. The answer page shows it
// whole, and the message says so whenever it shows less.
const (
	excerptLines = 40
	excerptBytes = 4 << 10
)

// shownProposal is a proposal as a message shows it. Every string is the asker's, as
// inquiry.Printed shows it.
type shownProposal struct {
	Title, Format string
	Excerpt       string // the first lines, without a final line break
	// Cut says the excerpt is not the whole; Of says how much is shown of how much.
	Cut bool
	Of  string
}

// showProposal is p as a message shows it, nil for none.
func showProposal(p *inquiry.Proposal) *shownProposal {
	if p == nil {
		return nil
	}
	format := p.Format
	if format == "" {
		format = inquiry.FormatText
	}
	content := strings.ReplaceAll(p.Content, "\r\n", "\n")
	shown, n := excerpt(content)
	s := &shownProposal{Title: inquiry.Printed(p.Title), Format: string(format),
		Excerpt: inquiry.Printed(strings.TrimSuffix(content[:len(shown)], "\n")), Cut: len(shown) < len(content)}
	if s.Cut {
		total := strings.Count(strings.TrimSuffix(content, "\n"), "\n") + 1
		s.Of = fmt.Sprintf("the first %d of its %d lines", n, total)
		if n == 0 { // one line longer than the excerpt: a part of it
			s.Of = fmt.Sprintf("the first %d of its %d bytes", len(shown), len(content))
		}
	}
	return s
}

// excerpt is the longest prefix of s made of whole lines within excerptLines and excerptBytes,
// and how many lines it holds; when even the first line is longer, its first excerptBytes at a
// character's boundary, and 0.
func excerpt(s string) (string, int) {
	end, n := 0, 0
	for n < excerptLines && end < len(s) {
		next := len(s)
		if i := strings.IndexByte(s[end:], '\n'); i >= 0 {
			next = end + i + 1
		}
		if next > excerptBytes {
			break
		}
		end, n = next, n+1
	}
	if n == 0 && len(s) > 0 {
		end = excerptBytes
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
	}
	return s[:end], n
}
