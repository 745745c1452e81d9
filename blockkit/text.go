package blockkit

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/inquiry-bot/bot/inquiry"
)

// wordJoiner is invisible and keeps "@here" from reading as "@here" to a parser.
const wordJoiner = "\u2060"

// broadcasts are the words that notify a whole channel when written after an @ and parsed.
var broadcasts = []string{"channel", "here", "everyone"}

// Escape makes s safe to put in mrkdwn: first as every surface prints stored text
// (inquiry.Printed: a character that would rewrite the line or show as nothing becomes a visible
// code, invalid UTF-8 U+FFFD), then the three control characters & < > become entities (Slack's
// own rule), so no mention, broadcast or link can form, and a bare @channel, @here or @everyone
// gets an invisible word joiner after the @ in case the text is ever parsed with link_names.
//
// mrkdwn has no escape for its formatting characters (* _ ~ `), so Escape is for the
// notification text and the bot's own words only: text of the asker or of whoever answered goes
// into a plain_text object (literal), which Slack shows as it is.
func Escape(s string) string {
	s = inquiry.Printed(s)
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '@':
			b.WriteByte(c)
			for _, w := range broadcasts {
				if len(s)-i-1 >= len(w) && strings.EqualFold(s[i+1:i+1+len(w)], w) {
					b.WriteString(wordJoiner)
					break
				}
			}
		default:
			b.WriteByte(c) // multi-byte runes pass byte by byte: none of their bytes is ASCII
		}
	}
	return b.String()
}

var (
	// Slack ids are upper-case letters and digits after a one-letter type; a real one always has
	// a digit, which keeps a token named "UBUNTU" from being taken for a user.
	userIDRe  = regexp.MustCompile(`^[UW][A-Z0-9]{2,30}$`)
	groupIDRe = regexp.MustCompile(`^S[A-Z0-9]{2,30}$`)
)

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// IsUserID reports whether s looks like a Slack user id (U… or W…).
func IsUserID(s string) bool { return userIDRe.MatchString(s) && hasDigit(s) }

// IsGroupID reports whether s looks like a Slack user group id (S…).
func IsGroupID(s string) bool { return groupIDRe.MatchString(s) && hasDigit(s) }

// Mention renders who as a live mention when it looks like a Slack user id (<@U…>) or user
// group id (<!subteam^S…>), and as escaped text otherwise: a token name, or anything a caller
// typed, never pings anybody.
func Mention(who string) string {
	switch {
	case IsUserID(who):
		return "<@" + who + ">"
	case IsGroupID(who):
		return "<!subteam^" + who + ">"
	}
	return Escape(who)
}

// Who renders who answered (an answer's answered_by) for mrkdwn: a user mention for a Slack user
// id, else the escaped name, cut to a sensible length, in a code span — a token's name or a link's
// recipient ("link:a_b@example.com") may hold *, _ or ~, which mrkdwn has no escape for and does
// not read inside code (a backtick of the name's own shows as a prime). A group id is not a
// person: it never becomes a group mention.
func Who(who string) string {
	if IsUserID(who) {
		return "<@" + who + ">"
	}
	return "`" + strings.ReplaceAll(short(who, 100), "`", "ʹ") + "`"
}

// short is s on one line, escaped, and cut so that the escaped form has at most max characters
// (an ellipsis included): for notification texts and one-liners, where escaping must not blow
// the length up fivefold. The cut falls between characters, never inside an entity.
func short(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if e := Escape(s); runes(e) <= max {
		return e
	}
	r := []rune(s)
	n, k := 0, 0
	for ; k < len(r); k++ {
		cost := 1
		switch r[k] {
		case '&':
			cost = len("&amp;")
		case '<', '>':
			cost = len("&lt;")
		case '@':
			cost = 2 // room for a word joiner
		}
		if n+cost > max-1 {
			break
		}
		n += cost
	}
	return Escape(strings.TrimRight(string(r[:k]), " ")) + "…"
}

// runes counts characters, the unit of every Slack limit.
func runes(s string) int { return utf8.RuneCountInString(s) }

// clip cuts s to max characters, ending with an ellipsis when it cut. It guards plain_text
// fields whose Slack limit equals the inquiry's own limit: a valid record never gets clipped.
func clip(s string, max int) string {
	if runes(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max-1]), " ") + "…"
}

// nonEmpty returns s, or alt when s has nothing to show: Slack refuses an empty text.
func nonEmpty(s, alt string) string {
	if strings.TrimSpace(s) == "" {
		return alt
	}
	return s
}

func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, true, false)
}

// literal is a text object for text of the asker's or of whoever answered (a question, a label,
// a run id, an answer's words): plain_text, which Slack neither formats nor parses for mentions
// or links, as inquiry.Printed shows it, with emoji codes off so that ":white_check_mark:" in a
// question cannot pass for the bot's own outcome line. Slack refuses an empty text: "" shows as
// alt.
func literal(s, alt string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, printed(nonEmpty(s, alt)), false, false)
}

// printed is s as a plain_text object shows it: inquiry.Printed.
func printed(s string) string { return inquiry.Printed(s) }

// mrkdwn is a verbatim mrkdwn object: Slack renders the formatting but does not auto-link URLs
// or channel names, nor parse mentions, in it.
func mrkdwn(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, s, false, true)
}

// chunk splits mrkdwn text into pieces of at most first characters (the first piece) and limit
// characters (the others), so text that escaping has grown past a section's limit is split
// across sections rather than cut: nothing is lost. It cuts after a line break or a space when
// one lies in the second half of the window, and never inside an entity (&amp;) or inside one of
// our own <…> tokens (user text has no bare '<' left after Escape). Pieces of nothing but
// blanks are dropped.
func chunk(s string, first, limit int) []string {
	var out []string
	max := first
	for s != "" {
		if runes(s) <= max {
			out = appendNonBlank(out, s)
			break
		}
		cut := cutPoint(s, max)
		out = appendNonBlank(out, s[:cut])
		s = s[cut:]
		max = limit
	}
	return out
}

func appendNonBlank(out []string, s string) []string {
	if strings.TrimSpace(s) == "" {
		return out
	}
	return append(out, s)
}

// cutPoint is the byte offset at which to cut s so the head has at most max characters.
func cutPoint(s string, max int) int {
	end := len(s)
	n := 0
	for i := range s {
		if n == max {
			end = i
			break
		}
		n++
	}
	w := s[:end]
	// Never inside one of our tokens: an opening '<' after the last '>' is unclosed.
	if lt := strings.LastIndexByte(w, '<'); lt > 0 && lt > strings.LastIndexByte(w, '>') {
		end, w = lt, w[:lt]
	}
	// Never inside an entity: a '&' without its ';' in the window is cut off whole.
	if amp := strings.LastIndexByte(w, '&'); amp > 0 && !strings.Contains(w[amp:], ";") {
		end, w = amp, w[:amp]
	}
	half := end / 2
	if i := strings.LastIndexByte(w, '\n'); i >= half {
		return i + 1
	}
	if i := strings.LastIndexByte(w, ' '); i >= half {
		return i + 1
	}
	return end
}

// when renders t as a Slack date token, which every reader sees in their own time zone; the
// fallback, shown where tokens are not rendered, is UTC and names the day only when it is not
// today's.
func when(t, now time.Time) string {
	t, now = t.UTC(), now.UTC()
	var fallback string
	switch {
	case t.YearDay() == now.YearDay() && t.Year() == now.Year():
		fallback = t.Format("15:04 UTC")
	case t.Year() == now.Year():
		fallback = t.Format("Jan 2, 15:04 UTC")
	default:
		fallback = t.Format("Jan 2 2006, 15:04 UTC")
	}
	return fmt.Sprintf("<!date^%d^{date_short_pretty} at {time}|%s>", t.Unix(), fallback)
}

// line builds a context block's elements where the bot's own words (mrkdwn: mentions, dates,
// links) and text of the asker's (literal) alternate: each run of the bot's words is one mrkdwn
// element, each piece of asker text a plain_text element of its own, so no formatting character
// of the asker's reaches mrkdwn. A context block holds at most maxContextBlock elements: what
// does not fit is joined into the last one as plain text (mentions then show as ids).
type line struct {
	els  []slack.MixedElement
	bot  strings.Builder // the bot's words not yet made an element
	over []string        // what did not fit, as plain text
}

// ours adds the bot's own mrkdwn (already escaped where it quotes anything).
func (l *line) ours(s string) {
	if len(l.over) > 0 {
		l.over = append(l.over, s)
		return
	}
	l.bot.WriteString(s)
}

// theirs adds text of the asker's (or an answerer's), cut to max characters (0: uncut) on one line.
func (l *line) theirs(s string, max int) {
	if max > 0 {
		s = inquiry.OneLine(s, max)
	}
	l.flush()
	if strings.TrimSpace(s) == "" {
		return
	}
	if len(l.over) > 0 || len(l.els) >= maxContextBlock-1 {
		l.over = append(l.over, printed(s))
		return
	}
	l.els = append(l.els, literal(s, ""))
}

// who adds a person: a mention for a Slack user id, else their name as text of its own.
func (l *line) who(id string) {
	if IsUserID(id) {
		l.ours("<@" + id + ">")
		return
	}
	l.theirs(id, 100)
}

func (l *line) flush() {
	if l.bot.Len() == 0 {
		return
	}
	s := l.bot.String()
	l.bot.Reset()
	if strings.TrimSpace(s) == "" {
		return
	}
	if len(l.over) > 0 || len(l.els) >= maxContextBlock-1 {
		l.over = append(l.over, s)
		return
	}
	l.els = append(l.els, mrkdwn(clip(s, maxText)))
}

func (l *line) empty() bool { return len(l.els) == 0 && l.bot.Len() == 0 && len(l.over) == 0 }

// elements are the context block's elements, at most maxContextBlock.
func (l *line) elements() []slack.MixedElement {
	l.flush()
	els := l.els
	if len(l.over) > 0 {
		els = append(els, slack.NewTextBlockObject(slack.PlainTextType, clip(strings.Join(l.over, " "), maxText), false, false))
	}
	return els
}

// block is the line as a context block with block_id id, or nil when it says nothing.
func (l *line) block(id string) slack.Block {
	if l.empty() {
		return nil
	}
	return slack.NewContextBlock(id, l.elements()...)
}

// chunkPlain splits literal text into pieces of at most limit characters, after a line break or
// a space when one lies in the second half of the window, so text longer than a section is
// split across sections rather than cut. Pieces of nothing but blanks are dropped.
func chunkPlain(s string, limit int) []string {
	var out []string
	for s != "" {
		if runes(s) <= limit {
			return appendNonBlank(out, s)
		}
		end, n := len(s), 0
		for i := range s {
			if n == limit {
				end = i
				break
			}
			n++
		}
		w, cut := s[:end], end
		if i := strings.LastIndexByte(w, '\n'); i >= end/2 {
			cut = i + 1
		} else if i := strings.LastIndexByte(w, ' '); i >= end/2 {
			cut = i + 1
		}
		out = appendNonBlank(out, s[:cut])
		s = s[cut:]
	}
	return out
}
