package main

// The model of bot questions -i, the terminal picker: keys → state → screen, pure, with no
// terminal I/O (picker.go drives it). Its states:
//
//	browse ──digit (single)──────────────▶ confirm ──y──▶ sending ──ok──▶ browse (said what was recorded)
//	  │  ──digit (multiple) toggles; Enter ─▶ confirm ──n/Esc──▶ browse ("taken back": nothing sent)
//	  │  ──d─────────────────────────────────▶ confirm (decline)
//	  │  ──r──▶ words ──Enter──▶ confirm          sending ──refused──▶ browse (the server's sentence)
//	  │         └──Esc──▶ browse                  sending ──refused for want of a reason──▶ reason
//	  └──q/Ctrl-C──▶ quit                         reason ──Enter──▶ confirm; Esc──▶ browse
//
// Nothing is sent without a y on the bottom line: a digit alone never answers (the seed ADR's
// two keys, so that one slip sends nothing).

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// keyKind is what a key press is beyond its rune.
type keyKind int

const (
	keyRune keyKind = iota // a printable character, in key.r
	keyUp
	keyDown
	keyEnter
	keyEsc
	keyBackspace
	keyCtrlC
	keyCtrlU // clears the line being written
)

// key is one key press.
type key struct {
	kind keyKind
	r    rune
}

// decodeKeys reads the key presses in what one read of a raw terminal returned: printable
// characters (UTF-8), Enter, Backspace, Ctrl-C, Ctrl-U, the up and down arrows (both the normal
// and the application cursor sequences), and Esc when it stands alone or starts a sequence the
// picker does not use. Other control bytes are dropped, so that nothing typed reaches the screen
// unread.
func decodeKeys(b []byte) []key {
	var keys []key
	for len(b) > 0 {
		c := b[0]
		switch {
		case c == 0x1b:
			if len(b) >= 3 && (b[1] == '[' || b[1] == 'O') {
				switch b[2] {
				case 'A':
					keys = append(keys, key{kind: keyUp})
				case 'B':
					keys = append(keys, key{kind: keyDown})
				}
				// Skip the whole CSI sequence (parameters, then a final byte 0x40..0x7e).
				n := 2
				for n < len(b) && (b[n] < 0x40 || b[n] > 0x7e) {
					n++
				}
				b = b[min(n+1, len(b)):]
				continue
			}
			keys = append(keys, key{kind: keyEsc})
			b = b[1:]
			continue
		case c == '\r' || c == '\n':
			keys = append(keys, key{kind: keyEnter})
		case c == 0x7f || c == 0x08:
			keys = append(keys, key{kind: keyBackspace})
		case c == 0x03:
			keys = append(keys, key{kind: keyCtrlC})
		case c == 0x15:
			keys = append(keys, key{kind: keyCtrlU})
		case c < 0x20:
			// another control byte: not a key the picker uses
		default:
			r, n := utf8.DecodeRune(b)
			if r != utf8.RuneError && !unicode.IsControl(r) {
				keys = append(keys, key{kind: keyRune, r: r})
			}
			b = b[n:]
			continue
		}
		b = b[1:]
	}
	return keys
}

// pickMode is the state of the picker (the diagram above).
type pickMode int

const (
	modeBrowse  pickMode = iota
	modeConfirm          // the bottom line asks whether to send p.reply: y/n
	modeWords            // the bottom line is a line editor for own words
	modeReason           // the bottom line is a line editor for the reason the server asked for
	modeSending          // a y was pressed: the answer is on its way
)

// sendRequest is an answer the person confirmed: the I/O loop sends it with bot answer's path
// (client.Answer) and hands the outcome to picker.sent.
type sendRequest struct {
	key   string
	reply client.Reply
}

// picker is the state of the interactive picker.
type picker struct {
	qs     []*inquiry.Record // pending, oldest first: the numbers of bot questions
	sel    int               // index in qs of the selected question
	loaded bool              // a first listing arrived
	mode   pickMode

	chosen []int // option indexes toggled so far, for a multiple choice (browse)

	// What the bottom line offers to send (confirm, sending), for which question.
	target *inquiry.Record
	reply  client.Reply
	what   string // the reply as the confirmation says it

	line   []rune // the line being written (words, reason)
	status string // the bottom line in browse mode: what just happened, or a refusal

	context bool   // the selected question's context is shown (c shows and hides it)
	whole   string // the key of the question the last screen drawn showed whole, "" for none
	cols    int    // the width of the last screen drawn

	done []string // what was recorded, one block per answer, printed when the picker ends
}

// setQuestions takes a new listing. The selection stays on the same question while it is
// listed; a question being confirmed or answered that left the listing (answered elsewhere,
// expired, cancelled) ends the confirmation, and nothing is sent.
func (p *picker) setQuestions(qs []*inquiry.Record) {
	var selKey string
	if p.sel < len(p.qs) {
		selKey = p.qs[p.sel].Key
	}
	p.qs, p.loaded = qs, true
	if i := p.index(selKey); i >= 0 {
		p.sel = i
	} else {
		p.chosen = nil
		p.sel = min(p.sel, max(len(qs)-1, 0))
	}
	if p.target != nil && p.mode != modeSending && p.mode != modeBrowse {
		if p.index(p.target.Key) < 0 {
			p.status = fmt.Sprintf("The question you were answering (%s) is no longer waiting (answered elsewhere, expired or cancelled): nothing was sent.", p.target.Key)
			p.reset()
		}
	}
}

func (p *picker) index(key string) int {
	if key == "" {
		return -1
	}
	return slices.IndexFunc(p.qs, func(r *inquiry.Record) bool { return r.Key == key })
}

// reset goes back to browsing, forgetting what was about to be sent.
func (p *picker) reset() {
	p.mode, p.target, p.reply, p.what, p.line, p.chosen = modeBrowse, nil, client.Reply{}, "", nil, nil
}

// selected is the selected question, or nil when none is waiting.
func (p *picker) selected() *inquiry.Record {
	if p.sel < len(p.qs) {
		return p.qs[p.sel]
	}
	return nil
}

// press handles one key: it returns an answer to send once the person confirmed one, and
// whether the picker ends.
func (p *picker) press(k key) (send *sendRequest, quit bool) {
	if k.kind == keyCtrlC {
		return nil, true
	}
	switch p.mode {
	case modeConfirm:
		switch {
		case k.kind == keyRune && (k.r == 'y' || k.r == 'Y'):
			p.mode = modeSending
			return &sendRequest{key: p.target.Key, reply: p.reply}, false
		case k.kind == keyRune && (k.r == 'n' || k.r == 'N'), k.kind == keyEsc:
			p.reset()
			p.status = "Taken back: nothing was sent."
		}
	case modeWords, modeReason:
		p.edit(k)
	case modeSending:
		// keys wait for the answer to come back
	default:
		return nil, p.browse(k)
	}
	return nil, false
}

// browse handles a key while browsing; it reports whether the picker ends.
func (p *picker) browse(k key) bool {
	r := p.selected()
	switch {
	case k.kind == keyUp || k.kind == keyRune && k.r == 'k':
		p.move(-1)
	case k.kind == keyDown || k.kind == keyRune && k.r == 'j':
		p.move(1)
	case k.kind == keyRune && (k.r == 'q' || k.r == 'Q'):
		return true
	case r == nil:
		if k.kind == keyRune || k.kind == keyEnter {
			p.status = "No questions are waiting for you: q quits, and new ones show up here as they arrive."
		}
	case k.kind == keyRune && (k.r == 'c' || k.r == 'C'):
		p.context, p.status = !p.context, ""
	case (k.kind == keyRune && strings.ContainsRune("123456789rRdD", k.r) || k.kind == keyEnter && len(p.chosen) > 0) && !p.readable(r):
		// Nobody answers a question they could not read whole.
		hide := ""
		if p.context {
			hide = " or hide its context (c)"
		}
		p.status = fmt.Sprintf("Question %d is taller than the window, so it is not answered here: make the window taller%s, or answer it with bot questions and bot answer.", p.sel+1, hide)
	case k.kind == keyRune && k.r >= '1' && k.r <= '9':
		p.pick(r, int(k.r-'1'))
	case k.kind == keyEnter && len(p.chosen) > 0:
		var values []string
		for _, i := range p.chosen {
			values = append(values, inquiry.Offered(&r.Inquiry)[i].Value)
		}
		p.ask(r, client.Reply{Value: inquiry.Many(values...)})
	case k.kind == keyRune && (k.r == 'r' || k.r == 'R'):
		p.mode, p.target, p.line, p.status = modeWords, r, nil, ""
	case k.kind == keyRune && (k.r == 'd' || k.r == 'D'):
		p.mode, p.target, p.reply, p.status = modeConfirm, r, client.Reply{Declined: true}, ""
		p.what = "decline"
	case k.kind == keyEsc:
		p.chosen, p.status = nil, ""
	}
	return false
}

// readable reports whether the last screen drawn showed r whole: its question, its answers and
// (when shown) its context.
func (p *picker) readable(r *inquiry.Record) bool {
	return p.whole != "" && p.whole == r.Key
}

func (p *picker) move(d int) {
	if len(p.qs) == 0 {
		return
	}
	n := min(max(p.sel+d, 0), len(p.qs)-1)
	if n != p.sel {
		p.sel, p.chosen, p.status = n, nil, ""
	}
}

// pick handles the digit of option i of r: it asks to send it, or for a multiple choice adds or
// removes it from what Enter will send.
func (p *picker) pick(r *inquiry.Record, i int) {
	in := &r.Inquiry
	offered := inquiry.Offered(in)
	switch {
	case len(offered) == 0:
		p.status = "This question takes words: press r to write your answer."
		return
	case i >= len(offered):
		p.status = fmt.Sprintf("There is no answer %d: this question offers 1 to %d (r writes your own words).", i+1, len(offered))
		return
	case in.Multiple:
		if j := slices.Index(p.chosen, i); j >= 0 {
			p.chosen = slices.Delete(p.chosen, j, j+1)
		} else {
			p.chosen = append(p.chosen, i)
			slices.Sort(p.chosen)
		}
		p.status = ""
		return
	}
	p.ask(r, client.Reply{Value: inquiry.One(offered[i].Value)})
}

// ask puts reply on the bottom line for a y or an n.
func (p *picker) ask(r *inquiry.Record, reply client.Reply) {
	p.mode, p.target, p.reply, p.status = modeConfirm, r, reply, ""
	p.what = inquiry.RenderAnswer(&r.Inquiry, &inquiry.Answer{Value: reply.Value, Text: reply.Text, Declined: reply.Declined})
}

// edit handles a key of the line editor (own words, or a reason).
func (p *picker) edit(k key) {
	switch k.kind {
	case keyRune:
		if len(p.line) < inquiry.DefaultAnswerChars { // the one ceiling: more could not be kept
			p.line = append(p.line, k.r)
		}
	case keyBackspace:
		if len(p.line) > 0 {
			p.line = p.line[:len(p.line)-1]
		}
	case keyCtrlU:
		p.line = nil
	case keyEsc:
		p.reset()
		p.status = "Nothing was sent."
	case keyEnter:
		words := strings.TrimSpace(string(p.line))
		if words == "" {
			return // nothing typed yet: Enter waits for words, Esc cancels
		}
		if p.mode == modeReason {
			reply := p.reply
			reply.Text = words
			p.ask(p.target, reply)
			return
		}
		// The same reading of typed words as bot answer: a number or an offered answer's words
		// pick it, other words are own words where the question allows them.
		reply, _, err := readReply(&p.target.Inquiry, words, false)
		if err != nil {
			target := p.target
			p.reset()
			p.status = errMessage(err)
			p.sel = max(p.index(target.Key), 0)
			return
		}
		p.ask(p.target, reply)
	}
}

// sent takes the outcome of sending what was confirmed. A refusal is the server's sentence on
// the bottom line; one for want of a reason opens the reason editor, as the question asks for one.
func (p *picker) sent(rec *inquiry.Record, err error) {
	target, reply := p.target, p.reply
	if err != nil {
		if inquiry.ErrorCode(err) == inquiry.CodeInvalidAnswer && inquiry.ErrorField(err) == "text" && reply.Text == "" {
			p.mode, p.line = modeReason, nil
			p.status = errMessage(err)
			return
		}
		p.reset()
		p.status = errMessage(err) + " Nothing was recorded."
		return
	}
	p.reset()
	p.status = recorded(rec, reply)
	var b strings.Builder
	writeRecorded(&b, rec, reply, cmp.Or(p.cols, defaultWidth))
	p.done = append(p.done, b.String())
	// The answered question leaves the list now rather than at the next listing.
	if rec.Status != inquiry.StatusPending {
		if i := p.index(target.Key); i >= 0 {
			p.qs = slices.Delete(slices.Clone(p.qs), i, i+1)
			p.sel = min(p.sel, max(len(p.qs)-1, 0))
		}
	}
}

// bottom is the bottom line: the confirmation, the line being written, or what just happened.
func (p *picker) bottom() string {
	switch p.mode {
	case modeConfirm:
		// The answer whole, and the question by its number: the screen above shows it whole.
		q := "the question"
		if i := p.index(p.target.Key); i >= 0 {
			q = fmt.Sprintf("question %d", i+1)
		}
		if p.reply.Declined && p.reply.Text == "" {
			return fmt.Sprintf("Decline %s? y/n", q)
		}
		what := p.what
		if !strings.HasPrefix(what, `"`) { // own words come quoted already
			what = `"` + what + `"`
		}
		return fmt.Sprintf("Send %s to %s? y/n", what, q)
	case modeSending:
		return "Sending…"
	case modeWords:
		return "Your answer (Enter, then y/n; Esc cancels): " + string(p.line) + "▏"
	case modeReason:
		return p.status + " Reason (Enter; Esc cancels): " + string(p.line) + "▏"
	}
	if p.status != "" {
		return p.status
	}
	if len(p.chosen) > 0 {
		r := p.selected()
		var labels []string
		for _, i := range p.chosen {
			labels = append(labels, inquiry.Offered(&r.Inquiry)[i].Label)
		}
		return "Chosen: " + strings.Join(labels, ", ") + " — Enter to send, a digit adds or removes one, Esc clears"
	}
	if len(p.qs) == 0 {
		return "q quits"
	}
	return "1-9 picks an answer · r own words · d declines · c context · ↑↓ or j/k move · q quits"
}

// view draws the screen of width × height cells: a title, the questions numbered, each whole
// and wrapped (the selected one with its answers), and the bottom line, wrapped, on the last
// rows. Every line is printed (inquiry.Printed), so that text from an asker cannot move the
// cursor or restyle the terminal, and the asker's words stand behind the gutter. It records
// whether the selected question was shown whole: only then do the keys answer it.
func (p *picker) view(now time.Time, width, height int) []string {
	width, height = max(width, 20), max(height, 3)
	p.cols = width
	title := "Questions waiting for you"
	switch {
	case !p.loaded:
		title += ": reading…"
	case len(p.qs) > 0:
		title += fmt.Sprintf(" (%d)", len(p.qs))
	}
	var bottom []string
	if p.mode == modeWords || p.mode == modeReason {
		// A line being written shows its end, so that the cursor stays in sight.
		bottom = []string{fit(inquiry.Printed(p.bottom()), width, true)}
	} else {
		bottom = wrap(inquiry.Printed(p.bottom()), width)
	}
	bottom = bottom[max(len(bottom)-(height-2), 0):]

	var body []string
	selStart, selEnd := 0, 0
	if p.loaded && len(p.qs) == 0 {
		body = append(body, "", "No questions are waiting for an answer. They show up here as they arrive.")
	}
	for i, r := range p.qs {
		var b bytes.Buffer
		if i != p.sel {
			num := fmt.Sprintf("  %d. ", i+1)
			writeQuoted(&b, num, strings.Repeat(" ", len(num)), r.Inquiry.Question, width)
			body = append(body, strings.Split(strings.TrimRight(b.String(), "\n"), "\n")...)
			continue
		}
		selStart = len(body)
		writeQuestion(&b, i+1, r, now, shown{width: width - 2, context: p.context, hint: "c", proposalLines: pickedProposalLines})
		for j, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			if j == 0 {
				line = "> " + line
			} else {
				line = "  " + line
			}
			body = append(body, line)
		}
		selEnd = len(body)
	}
	// Scroll so that the selected question is in sight, its first line first if it fits. One
	// taller than the window is shown as far as it goes, and says so.
	bodyRows := max(height-1-len(bottom), 1)
	p.whole = ""
	if sel := p.selected(); sel != nil {
		if selEnd-selStart <= bodyRows {
			p.whole = sel.Key
		} else {
			more := selEnd - selStart - (bodyRows - 1)
			body = append(body[:selStart+bodyRows-1], fmt.Sprintf("  ↓ %d more %s: make the window taller", more, plural(more, "line", "lines")))
			selEnd = len(body)
		}
	}
	off := 0
	if selEnd > bodyRows {
		off = min(selStart, selEnd-bodyRows)
	}
	if off > 0 {
		body = body[off:]
	}
	lines := make([]string, 0, height)
	lines = append(lines, title)
	for i := 0; i < bodyRows; i++ {
		if i < len(body) {
			lines = append(lines, body[i])
		} else {
			lines = append(lines, "")
		}
	}
	lines = append(lines, bottom...)
	for i, l := range lines {
		// Lines are wrapped to the width already; fit is the guard for a line that is not.
		lines[i] = fit(inquiry.Printed(l), width, false)
	}
	return lines
}

// fit cuts s to width characters: its end ("…" where it was cut), or for a line being written
// its tail, so that the cursor stays in sight.
func fit(s string, width int, tail bool) string {
	rs := []rune(s)
	if len(rs) <= width {
		return s
	}
	if tail {
		return "…" + string(rs[len(rs)-width+1:])
	}
	return string(rs[:width-1]) + "…"
}
