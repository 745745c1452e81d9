package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// ---- the picker's model: keys → state → screen, without a terminal ----

func pickRecord(key, question string, kind inquiry.Kind, opts ...string) *inquiry.Record {
	r := &inquiry.Record{Key: key, Status: inquiry.StatusPending}
	r.Inquiry.Question, r.Inquiry.Kind = question, kind
	for _, o := range opts {
		r.Inquiry.Options = append(r.Inquiry.Options, inquiry.Option{Value: strings.ToLower(o), Label: o})
	}
	return r
}

func runes(s string) []key {
	var ks []key
	for _, r := range s {
		ks = append(ks, key{kind: keyRune, r: r})
	}
	return ks
}

// pressAll presses keys, each on a screen drawn of 100×30 as the picker's loop draws it, and
// returns the last answer to send and whether the picker ended.
func pressAll(p *picker, keys ...key) (send *sendRequest, quit bool) {
	for _, k := range keys {
		p.view(time.Time{}, 100, 30) // the picker draws before it reads a key
		s, q := p.press(k)
		if s != nil {
			send = s
		}
		if q {
			return send, true
		}
	}
	return send, false
}

func newPicker(qs ...*inquiry.Record) *picker {
	p := &picker{}
	p.setQuestions(qs)
	return p
}

func TestPickerDigitAsksThenYesSends(t *testing.T) {
	merge := pickRecord("inq_1", "Merge the PR?", inquiry.KindChoice, "Merge", "Hold")
	p := newPicker(merge)
	if send, _ := pressAll(p, runes("2")...); send != nil {
		t.Fatalf("a digit alone sent %+v", send)
	}
	if got, want := p.bottom(), `Send "Hold" to question 1? y/n`; got != want {
		t.Fatalf("bottom line = %q, want %q", got, want)
	}
	send, _ := pressAll(p, runes("y")...)
	if send == nil || send.key != "inq_1" || send.reply.Value.String() != "hold" || p.mode != modeSending {
		t.Fatalf("y sent %+v (mode %v)", send, p.mode)
	}
	answered := *merge
	answered.Status = inquiry.StatusAnswered
	answered.Answer = &inquiry.Answer{Value: inquiry.One("hold"), AnsweredBy: "admin", Source: inquiry.SourcePerson}
	p.sent(&answered, nil)
	if p.mode != modeBrowse || len(p.qs) != 0 || !strings.Contains(p.bottom(), "Recorded for") || len(p.done) != 1 {
		t.Fatalf("after the answer: mode %v, %d questions, bottom %q, done %q", p.mode, len(p.qs), p.bottom(), p.done)
	}
}

func TestPickerNoAndEscTakeBack(t *testing.T) {
	p := newPicker(pickRecord("inq_1", "Deploy?", inquiry.KindConfirm))
	for _, back := range []key{{kind: keyRune, r: 'n'}, {kind: keyEsc}} {
		pressAll(p, runes("1")...)
		if p.mode != modeConfirm {
			t.Fatalf("1 on a confirm: mode %v, bottom %q", p.mode, p.bottom())
		}
		if send, _ := pressAll(p, back); send != nil || p.mode != modeBrowse || p.bottom() != "Taken back: nothing was sent." {
			t.Fatalf("%+v: sent %+v, mode %v, bottom %q", back, send, p.mode, p.bottom())
		}
	}
	// Other keys on the confirmation neither send nor take back.
	pressAll(p, runes("1")...)
	if send, quit := pressAll(p, append(runes("1jkr"), key{kind: keyEnter})...); send != nil || quit || p.mode != modeConfirm {
		t.Fatalf("other keys on the confirmation: sent %+v, quit %v, mode %v", send, quit, p.mode)
	}
}

func TestPickerOwnWords(t *testing.T) {
	text := pickRecord("inq_t", "Release notes?", inquiry.KindText)
	p := newPicker(text)
	pressAll(p, runes("1")...)
	if p.mode != modeBrowse || !strings.Contains(p.bottom(), "press r") {
		t.Fatalf("a digit on a text question: mode %v, bottom %q", p.mode, p.bottom())
	}
	pressAll(p, runes("rship itt")...)
	pressAll(p, key{kind: keyBackspace}, key{kind: keyEnter})
	if got, want := p.bottom(), `Send "ship it" to question 1? y/n`; got != want {
		t.Fatalf("bottom = %q, want %q", got, want)
	}
	send, _ := pressAll(p, runes("y")...)
	if send == nil || send.reply.Text != "ship it" {
		t.Fatalf("sent %+v", send)
	}

	// Esc cancels the editor; typed words that are an offered answer pick it.
	choice := pickRecord("inq_c", "Merge?", inquiry.KindChoice, "Merge", "Hold")
	p = newPicker(choice)
	pressAll(p, runes("rhold")...)
	if pressAll(p, key{kind: keyEsc}); p.mode != modeBrowse || p.bottom() != "Nothing was sent." {
		t.Fatalf("Esc in the editor: mode %v, bottom %q", p.mode, p.bottom())
	}
	pressAll(p, runes("r HOLD ")...)
	pressAll(p, key{kind: keyEnter})
	if p.mode != modeConfirm || p.reply.Value.String() != "hold" {
		t.Fatalf("own words that are an option: mode %v reply %+v", p.mode, p.reply)
	}
	// Words that are none of the answers of a question that takes no others: refused, and the
	// sentence is on the bottom line.
	pressAll(p, runes("n")...)
	pressAll(p, runes("rbanana")...)
	pressAll(p, key{kind: keyEnter})
	if p.mode != modeBrowse || !strings.Contains(p.bottom(), `"banana" is none of the offered answers`) {
		t.Fatalf("words that are no answer: mode %v bottom %q", p.mode, p.bottom())
	}
}

func TestPickerServerRefusalAndReason(t *testing.T) {
	r := pickRecord("inq_1", "Deploy?", inquiry.KindConfirm)
	p := newPicker(r)
	pressAll(p, runes("2y")...)
	refusal := inquiry.Errorf(inquiry.CodeInvalidAnswer, "a no needs a reason: say why in the answer's text.")
	refusal.Field = "text"
	p.sent(nil, refusal)
	if p.mode != modeReason || !strings.HasPrefix(p.bottom(), "a no needs a reason") {
		t.Fatalf("after a refusal for want of a reason: mode %v bottom %q", p.mode, p.bottom())
	}
	pressAll(p, runes("not on a Friday")...)
	pressAll(p, key{kind: keyEnter})
	if p.mode != modeConfirm || !strings.Contains(p.bottom(), "y/n") {
		t.Fatalf("after the reason: mode %v bottom %q", p.mode, p.bottom())
	}
	send, _ := pressAll(p, runes("y")...)
	if send == nil || send.reply.Text != "not on a Friday" || send.reply.Value.String() != "no" {
		t.Fatalf("sent %+v", send)
	}
	p.sent(nil, inquiry.Errorf(inquiry.CodeAlreadyResolved, "This question was already answered by U1."))
	if p.mode != modeBrowse || !strings.HasPrefix(p.bottom(), "This question was already answered by U1.") {
		t.Fatalf("after another refusal: mode %v bottom %q", p.mode, p.bottom())
	}
}

func TestPickerMultipleChoice(t *testing.T) {
	p := newPicker(pickRecord("inq_m", "Which?", inquiry.KindChoice, "A", "B", "C"))
	p.qs[0].Inquiry.Multiple = true
	pressAll(p, runes("313")...)
	if p.mode != modeBrowse || p.bottom() != "Chosen: A — Enter to send, a digit adds or removes one, Esc clears" {
		t.Fatalf("digits on a multiple choice: mode %v bottom %q", p.mode, p.bottom())
	}
	pressAll(p, runes("2")...)
	send, _ := pressAll(p, key{kind: keyEnter}, key{kind: keyRune, r: 'y'})
	if send == nil || !slices.Equal(send.reply.Value.Strings(), []string{"a", "b"}) {
		t.Fatalf("sent %+v", send)
	}
}

func TestPickerMovesAndFollowsTheListing(t *testing.T) {
	a := pickRecord("inq_a", "A?", inquiry.KindConfirm)
	b := pickRecord("inq_b", "B?", inquiry.KindConfirm)
	c := pickRecord("inq_c", "C?", inquiry.KindConfirm)
	p := newPicker(a, b)
	pressAll(p, key{kind: keyDown}, key{kind: keyDown})
	if p.sel != 1 {
		t.Fatalf("down twice on two questions: sel %d", p.sel)
	}
	pressAll(p, runes("k")...)
	pressAll(p, runes("j")...)
	// A question arriving keeps the selection on B; A leaving too.
	p.setQuestions([]*inquiry.Record{a, b, c})
	if p.selected() != b {
		t.Fatalf("selected %v after an arrival", p.selected().Key)
	}
	p.setQuestions([]*inquiry.Record{b, c})
	if p.selected() != b {
		t.Fatalf("selected %v after A left", p.selected().Key)
	}
	// B answered elsewhere while its answer waits for y: the confirmation ends, nothing is sent.
	pressAll(p, runes("1")...)
	p.setQuestions([]*inquiry.Record{c})
	if send, _ := pressAll(p, runes("y")...); send != nil || p.mode != modeBrowse || !strings.Contains(p.bottom(), "nothing was sent") {
		t.Fatalf("y after the question left: sent %+v mode %v bottom %q", send, p.mode, p.bottom())
	}
	if _, quit := pressAll(p, runes("q")...); !quit {
		t.Fatal("q did not quit")
	}
	if _, quit := pressAll(newPicker(a), runes("r")[0], key{kind: keyCtrlC}); !quit {
		t.Fatal("Ctrl-C in the editor did not quit")
	}
}

func TestPickerView(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := pickRecord("inq_a", "Deploy \x1b[2Jnow?", inquiry.KindConfirm)
	b := pickRecord("inq_b", "Merge the PR?", inquiry.KindChoice, "Merge", "Hold")
	b.Inquiry.Context = "line one\x1b]0;title\x07\nline two"
	p := newPicker(a, b)
	pressAll(p, key{kind: keyDown})
	lines := p.view(now, 60, 12)
	if len(lines) != 12 {
		t.Fatalf("%d lines for a height of 12", len(lines))
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{"Questions waiting for you (2)", "  1. │ Deploy ⟨U+001B⟩[2Jnow?", "> 2. │ Merge the PR?", "1 │ Merge", "2 │ Hold", "key inq_b", "1-9 picks"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("screen carries control characters of the asker's text:\n%q", got)
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > 60 {
			t.Errorf("line of %d characters for a width of 60: %q", n, l)
		}
	}
	if bottom := wrap(p.bottom(), 60); !slices.Equal(lines[len(lines)-len(bottom):], bottom) {
		t.Errorf("the last rows are %q, not the bottom line %q", lines[len(lines)-len(bottom):], bottom)
	}
	// On a short screen the selected question is still in sight.
	var many []*inquiry.Record
	for i := range 30 {
		many = append(many, pickRecord("inq_"+string(rune('a'+i)), "Question "+string(rune('a'+i))+"?", inquiry.KindConfirm))
	}
	p = newPicker(many...)
	for range 25 {
		pressAll(p, key{kind: keyDown})
	}
	if got := strings.Join(p.view(now, 60, 10), "\n"); !strings.Contains(got, "> 26. │ Question z?") {
		t.Errorf("the selected question is out of sight:\n%s", got)
	}
	// A line being written shows its end.
	p = newPicker(b)
	pressAll(p, runes("r"+strings.Repeat("x", 100)+"END")...)
	if last := p.view(now, 40, 5)[4]; !strings.HasSuffix(last, "END▏") {
		t.Errorf("the editor line does not show its end: %q", last)
	}
}

func TestDecodeKeys(t *testing.T) {
	got := decodeKeys([]byte("1y\x1b[A\x1bOB\x1b[1;5C\r\x7f\x03\x15é\x1b\x01"))
	want := []key{
		{kind: keyRune, r: '1'}, {kind: keyRune, r: 'y'}, {kind: keyUp}, {kind: keyDown},
		{kind: keyEnter}, {kind: keyBackspace}, {kind: keyCtrlC}, {kind: keyCtrlU},
		{kind: keyRune, r: 'é'}, {kind: keyEsc},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("decodeKeys = %+v\nwant %+v", got, want)
	}
}

// Answers past 9 are picked with r and their number, read as bot answer reads it.
func TestPickerAnswerPastNine(t *testing.T) {
	labels := []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L"}
	p := newPicker(pickRecord("inq_12", "Which?", inquiry.KindChoice, labels...))
	pressAll(p, runes("r10")...)
	pressAll(p, key{kind: keyEnter})
	if p.mode != modeConfirm || p.reply.Value.String() != "j" {
		t.Fatalf("r 10: mode %v reply %+v bottom %q", p.mode, p.reply, p.bottom())
	}
}

// The confirmation names the whole answer, wrapped on the bottom rows, and the selected question
// is on the screen whole above it (it used to be cut to the width: a long label lost its end).
func TestPickerConfirmsTheWholeAnswer(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	label := "Merge it now, skip the staging soak, and page the on-call only if it fails"
	r := pickRecord("inq_1", longQuestion, inquiry.KindChoice, label, "Hold")
	p := newPicker(r)
	pressAll(p, runes("1")...)
	lines := p.view(now, 60, 24)
	screen := strings.Join(lines, "\n")
	if !strings.Contains(flat(screen), `Send "`+label+`" to question 1? y/n`) {
		t.Errorf("the confirmation does not name the whole answer:\n%s", screen)
	}
	if got := unquoted(screen); !strings.Contains(got, "and delete the production database backups?") {
		t.Errorf("the screen does not show the question whole:\n%s", screen)
	}
	for _, l := range lines {
		if strings.ContainsRune(l, '…') || len([]rune(l)) > 60 {
			t.Errorf("a row cut or wider than 60: %q", l)
		}
	}
}

// A question taller than the window is not answered there: the keys that answer say why, and
// the same key answers once the window shows it whole. c shows and hides the context.
func TestPickerAnswersOnlyWhatItShowedWhole(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := pickRecord("inq_1", longQuestion, inquiry.KindChoice, "Merge", "Hold")
	r.Inquiry.Context = "CI: FAILED\r   CI: passed \u202eon\nline two"
	p := newPicker(r)
	if screen := strings.Join(p.view(now, 60, 24), "\n"); strings.Contains(screen, "FAILED") || !strings.Contains(screen, "context: 2 lines, not shown (c shows it)") {
		t.Errorf("the context is shown before c, or not said to be there:\n%s", screen)
	}
	p.press(runes("c")[0])
	screen := strings.Join(p.view(now, 60, 24), "\n")
	if !strings.Contains(screen, "   │ CI: FAILED⟨U+000D⟩   CI: passed ⟨U+202E⟩on") || strings.ContainsAny(screen, "\r\u202e") {
		t.Errorf("c does not show the context as printed, behind the gutter:\n%q", screen)
	}
	for _, k := range []string{"1", "r", "d"} {
		p.view(now, 60, 8) // a window too short for the question
		if send, _ := p.press(runes(k)[0]); send != nil || p.mode != modeBrowse || !strings.Contains(p.bottom(), "taller than the window") {
			t.Errorf("%s on a question taller than the window: mode %v, bottom %q", k, p.mode, p.bottom())
		}
	}
	if last := p.view(now, 60, 8); !strings.Contains(strings.Join(last, "\n"), "↓ 7 more lines: make the window taller") {
		t.Errorf("a question cut by the window does not say so:\n%s", strings.Join(last, "\n"))
	}
	p.view(now, 60, 40)
	if p.press(runes("1")[0]); p.mode != modeConfirm {
		t.Errorf("1 on a question shown whole: mode %v, bottom %q", p.mode, p.bottom())
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in   string
		cols int
		want []string
	}{
		{"one two three", 8, []string{"one two", "three"}},
		{"one two three", 13, []string{"one two three"}},
		{"a\n\nb  ", 8, []string{"a", "", "b"}},
		{"  indented words here", 10, []string{"  indented", "words here"}},
		{"abcdefghijklmnopqrst", 8, []string{"abcdefgh", "ijklmnop", "qrst"}},
		{"go 漢字漢字漢字", 8, []string{"go 漢字", "漢字漢字"}}, // two columns each
		{"tab\there", 10, []string{"tab", "here"}},
	} {
		if got := wrap(tc.in, tc.cols); !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.in, tc.cols, got, tc.want)
		}
	}
}
