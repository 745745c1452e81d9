package slackapp

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// A saying is what the bot tells one person in Slack (an ephemeral, the slash command's answer):
// its own words, and quoted among them text of the asker's or of a person's — a label, an
// answer's words, a question, a name that is no Slack id, a sentence of the service that quotes
// them. mrkdwn has no escape for * _ ~ and backticks, so such text never goes into mrkdwn, where
// it would format the bot's own sentence: it is a plain_text object of its own (emoji codes off,
// as inquiry.Printed shows it), and the bot's words around it are mrkdwn, where mentions, dates
// and links stay live.
//
// A saying is rows, each one block: a row of the bot's words alone is a section; a row that
// quotes anything is a context block whose elements alternate between the two. Its notification
// text (Slack's `text`, which it shows in notifications when blocks are present) is the same
// sentence with the quoted text escaped (blockkit.Escape), a line for each row.
type saying struct {
	rows [][]piece
	// button, when set, is a link button in an actions block after the rows: a link given to
	// the one person the saying is for (a personal link).
	button *slack.ButtonBlockElement
}

// piece is part of a row: the bot's mrkdwn, or quoted text (as stored, printed when shown).
type piece struct {
	s      string
	quoted bool
}

// say is a saying of the bot's own words (mrkdwn, anything quoted in it already escaped).
func say(mrkdwn string) saying {
	var s saying
	s.ours(mrkdwn)
	return s
}

// quoted is a saying of quoted text alone: a sentence of the service's, which may quote a
// label, a name or an answer.
func quoted(text string) saying {
	var s saying
	s.theirs(text)
	return s
}

func (s *saying) add(p piece) {
	if p.s == "" {
		return
	}
	if len(s.rows) == 0 {
		s.rows = append(s.rows, nil)
	}
	last := len(s.rows) - 1
	s.rows[last] = append(s.rows[last], p)
}

// ours adds the bot's own mrkdwn to the current row.
func (s *saying) ours(mrkdwn string) { s.add(piece{s: mrkdwn}) }

// theirs adds quoted text to the current row.
func (s *saying) theirs(text string) { s.add(piece{s: text, quoted: true}) }

// who adds a person who answered: a mention for a Slack user id, else their name quoted (a
// token's name, "link:…"); a group id is not a person and never becomes a group mention.
func (s *saying) who(id string) {
	if blockkit.IsUserID(id) {
		s.ours("<@" + id + ">")
		return
	}
	s.theirs("“" + inquiry.OneLine(id, 100) + "”")
}

// row starts a new row: what follows is a block of its own.
func (s *saying) row() {
	if len(s.rows) > 0 && len(s.rows[len(s.rows)-1]) > 0 {
		s.rows = append(s.rows, nil)
	}
}

// and is s followed by o, o's rows blocks of their own (lines of their own in the notification
// text).
func (s saying) and(o saying) saying {
	out := saying{rows: append([][]piece(nil), s.rows...)}
	for _, r := range o.rows {
		if len(r) > 0 {
			out.rows = append(out.rows, r)
		}
	}
	return out
}

// empty reports whether s says nothing.
func (s saying) empty() bool {
	for _, r := range s.rows {
		if len(r) > 0 {
			return false
		}
	}
	return true
}

// is reports whether s is the bot's sentence m and nothing else.
func (s saying) is(m string) bool {
	return len(s.rows) == 1 && len(s.rows[0]) == 1 && !s.rows[0][0].quoted && s.rows[0][0].s == m
}

// text is the notification text: the bot's mrkdwn as it is, quoted text escaped.
func (s saying) text() string {
	var b strings.Builder
	for _, r := range s.rows {
		if len(r) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n') // a row is a block of its own
		}
		for _, p := range r {
			if p.quoted {
				b.WriteString(blockkit.Escape(p.s))
			} else {
				b.WriteString(p.s)
			}
		}
	}
	return b.String()
}

// Slack's limits that a saying's blocks keep.
const (
	sayTextMax  = 3000 // a text object's text
	sayElements = 10   // a context block's elements
	sayBlocks   = 50   // a message's blocks
	sayEllipsis = "…"
)

// blocks renders s: a section for a row of the bot's words alone, a context block for a row that
// quotes anything.
func (s saying) blocks() []slack.Block {
	var out []slack.Block
	for _, r := range s.rows {
		if len(out) == sayBlocks {
			break
		}
		if b := rowBlock(r); b != nil {
			out = append(out, b)
		}
	}
	if s.button != nil {
		if len(out) == sayBlocks {
			out = out[:sayBlocks-1]
		}
		out = append(out, slack.NewActionBlock("", s.button))
	}
	return out
}

func rowBlock(r []piece) slack.Block {
	quotes := false
	for _, p := range r {
		quotes = quotes || p.quoted
	}
	if !quotes {
		var b strings.Builder
		for _, p := range r {
			b.WriteString(p.s)
		}
		text := strings.TrimSpace(b.String())
		if text == "" {
			return nil
		}
		return slack.NewSectionBlock(mrkdwnText(text), nil, nil)
	}
	var els []slack.MixedElement
	var over []string // what did not fit in the elements, shown as plain text in the last one
	put := func(t *slack.TextBlockObject) {
		if len(els) < sayElements-1 && len(over) == 0 {
			els = append(els, t)
			return
		}
		over = append(over, t.Text)
	}
	for i := 0; i < len(r); {
		if r[i].quoted {
			if t := strings.TrimSpace(inquiry.Printed(r[i].s)); t != "" {
				put(plainText(t))
			}
			i++
			continue
		}
		// A run of the bot's words is one element. Bare punctuation after a quote (the
		// sentence's full stop) is left out: the element's edge ends the quote already, and a
		// lone "." between elements reads as a stray mark.
		var b strings.Builder
		for ; i < len(r) && !r[i].quoted; i++ {
			b.WriteString(r[i].s)
		}
		if t := strings.TrimSpace(b.String()); !onlyPunct(t) {
			put(mrkdwnText(t))
		}
	}
	if len(over) > 0 {
		els = append(els, plainText(strings.Join(over, " ")))
	}
	if len(els) == 0 {
		return nil
	}
	return slack.NewContextBlock("", els...)
}

// onlyPunct reports whether s has nothing but punctuation and blanks (or nothing).
func onlyPunct(s string) bool {
	for _, r := range s {
		if !unicode.IsPunct(r) && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// mrkdwnText is the bot's words: verbatim, so nothing but the bot's own <…> tokens links.
func mrkdwnText(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, clipText(s), false, true)
}

// plainText is quoted text, shown as it is: no formatting, no emoji codes, no mention.
func plainText(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, clipText(s), false, false)
}

// clipText keeps a text object within Slack's limit, ending with an ellipsis when it cut: the
// sentences are short by construction, and a refused block would lose the whole ephemeral.
func clipText(s string) string {
	if utf8.RuneCountInString(s) <= sayTextMax {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:sayTextMax-1]), " ") + sayEllipsis
}

// msgOptions are the options of chat.postEphemeral for s: its blocks and its notification text.
func (s saying) msgOptions() []slack.MsgOption {
	return []slack.MsgOption{slack.MsgOptionText(s.text(), false), slack.MsgOptionBlocks(s.blocks()...)}
}
