package main

// What the CLI shows of an asker's text: all of it, printed through inquiry.Printed (a control
// or an invisible character shows as a visible code, never obeyed), wrapped to the terminal's
// width rather than cut, and behind a gutter ("│ ") so that text which imitates the bot's own
// lines (a facts line, a second numbered question) reads as quoted.

import (
	"io"
	"os"
	"strings"
	"unicode"

	"golang.org/x/term"
	"golang.org/x/text/width"

	"github.com/inquiry-bot/bot/inquiry"
)

// gutter marks a line of the asker's text; the bot's own lines never start with it.
const gutter = "│ "

// defaultWidth is the width the CLI wraps to when its output is not a terminal (a pipe, a file,
// a script): the width of the terminals it was written for.
const defaultWidth = 80

// outputWidth is the width of the terminal w writes to, or defaultWidth when it is none.
func outputWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return defaultWidth
}

// cells is how many columns r takes on a terminal: two for a wide East Asian character, none for
// a combining mark, one for the rest.
func cells(r rune) int {
	if unicode.In(r, unicode.Mn, unicode.Me) {
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// cellsOf is how many columns s takes on a terminal.
func cellsOf(s string) int {
	n := 0
	for _, r := range s {
		n += cells(r)
	}
	return n
}

// wrap breaks s (already printed: no control but \n and \t) into lines of at most cols columns:
// at its newlines, then at spaces, a word longer than a line cut where the line ends. Nothing of
// s is dropped but the spaces a break replaces and the blanks that end a line; a tab is four
// spaces, so that a line's width is what the terminal shows.
func wrap(s string, cols int) []string {
	cols = max(cols, 8)
	var lines []string
	for _, para := range strings.Split(strings.ReplaceAll(s, "\t", "    "), "\n") {
		para = strings.TrimRight(para, " ")
		if para == "" {
			lines = append(lines, "")
			continue
		}
		var line strings.Builder
		n := 0 // columns in line
		flush := func() {
			lines = append(lines, strings.TrimRight(line.String(), " "))
			line.Reset()
			n = 0
		}
		for para != "" {
			// The next token: a run of spaces, or a word up to the next space.
			end := strings.IndexByte(para, ' ')
			if para[0] == ' ' {
				end = len(para) - len(strings.TrimLeft(para, " "))
			} else if end < 0 {
				end = len(para)
			}
			tok := para[:end]
			para = para[end:]
			w := cellsOf(tok)
			switch {
			case tok[0] == ' ':
				if n > 0 && n+w >= cols {
					flush() // a break: the spaces go
					continue
				}
				if n+w > cols {
					w = cols - n
					tok = tok[:w]
				}
				line.WriteString(tok)
				n += w
			case n+w <= cols:
				line.WriteString(tok)
				n += w
			case w <= cols && n > 0:
				flush()
				line.WriteString(tok)
				n = w
			default:
				// A word longer than a line: as much as fits here, the rest on the next lines.
				for _, r := range tok {
					if c := cells(r); n+c > cols && n > 0 {
						flush()
					}
					line.WriteRune(r)
					n += cells(r)
				}
			}
		}
		flush()
	}
	return lines
}

// writeWrapped writes s, wrapped to width, each line after indent (the bot's own lines: no
// gutter).
func writeWrapped(w io.Writer, indent, s string, width int) {
	for _, line := range wrap(s, width-cellsOf(indent)) {
		io.WriteString(w, strings.TrimRight(indent+line, " ")+"\n")
	}
}

// writeQuoted writes the asker's text s, printed and wrapped to width, every line behind
// first (the first line) or indent and the gutter: whatever it says, it reads as quoted.
func writeQuoted(w io.Writer, first, indent, s string, width int) {
	lines := wrap(inquiry.Printed(strings.TrimSpace(s)), width-cellsOf(indent+gutter))
	for i, line := range lines {
		lead := indent
		if i == 0 {
			lead = first
		}
		io.WriteString(w, strings.TrimRight(lead+gutter+line, " ")+"\n")
	}
}
