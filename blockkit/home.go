package blockkit

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/slack-go/slack"
)

// revHome is the revision of the blocks of a question shown in the Home tab: its block_ids
// differ from the message's, and still carry the key, so a click there routes as one in the
// message does (ParseBlockID).
const revHome = "h"

// CallbackHome is the callback_id of the Home tab view.
const CallbackHome = "inq:home"

// Bounds of the Home tab.
const (
	// HomeAnswered is how many of the questions a person answered lately the Home tab lists.
	HomeAnswered = 10
	// homeAnsweredChars cuts a question in the list of what a person answered lately: a line
	// that says it was cut ("…") and links to its message, beside no control.
	homeAnsweredChars = 100
)

// Home is what the Home tab of one person shows.
type Home struct {
	// Waiting are the pending questions that wait for the person (they are named among the
	// answerers, themselves or through a user group), newest first.
	Waiting []*inquiry.Record
	// Unread counts the pending questions beyond those read to find Waiting (the listing was
	// cut at its bound): some of them may wait for the person too.
	Unread bool
	// Answered are the questions the person answered or voted in lately, the last first.
	Answered []*inquiry.Record
	// User is the person (a Slack user id): "your vote" is theirs.
	User string
}

// HomeView renders the Home tab: the questions waiting for the person, each with its proposal
// and its controls (the same blocks and action_ids as its message) and a link to its message,
// within Slack's 100 blocks of a Home tab — those that do not fit are counted in an "and N more"
// line — and what they answered lately.
func HomeView(h Home, now time.Time) slack.HomeTabViewRequest {
	blocks := []slack.Block{slack.NewHeaderBlock(plain("Questions waiting for you"),
		slack.HeaderBlockOptionBlockID("inq-home|waiting"))}
	tail := homeAnswered(h, now)
	// Room for the questions, in blocks and in bytes: the header above, the answered list
	// below, and one line for those that did not fit (its text and the view's own fields are
	// well within the margin).
	room := maxViewBlocks - len(blocks) - len(tail) - 1
	bytes := maxViewBytes - jsonSize(blocks) - jsonSize(tail) - 2000
	shown := 0
	for _, rec := range h.Waiting {
		q := homeQuestion(rec, now)
		size := jsonSize(q)
		if len(q) > room || size > bytes {
			break
		}
		blocks = append(blocks, q...)
		room, bytes = room-len(q), bytes-size
		shown++
	}
	var more string
	switch left := len(h.Waiting) - shown; {
	case len(h.Waiting) == 0 && !h.Unread:
		more = "Nothing waits for you right now. Questions that name you (or a user group of yours) among who may answer show up here as they are asked."
	case len(h.Waiting) == 0:
		more = "None of the newest questions waits for you; older ones may: find them in their channels."
	case left > 0:
		more = fmt.Sprintf("…and %d more waiting for you: answer these first, or find the others in their channels.", left)
	case h.Unread:
		more = "Older questions may wait for you too: find them in their channels."
	}
	if more != "" {
		blocks = append(blocks, slack.NewContextBlock("inq-home|more", mrkdwn(more)))
	}
	blocks = append(blocks, tail...)
	return slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: blocks}, CallbackID: CallbackHome}
}

// homeQuestion is one waiting question: a divider, the question whole (split across sections
// where it is longer than one holds: a person answers it here, beside live buttons), where it
// was asked with a link to its message, its context whole under its label, its proposal as the
// message shows it, its controls, the tally of a team approval, and when it expires.
func homeQuestion(rec *inquiry.Record, now time.Time) []slack.Block {
	in := &rec.Inquiry
	blocks := []slack.Block{slack.NewDividerBlock()}
	for i, c := range chunkPlain(printed(nonEmpty(in.Question, noQuestion)), maxSectionText) {
		blocks = append(blocks, literalSection(blockID(rec.Key, revHome, "q"+strconv.Itoa(i)), c))
	}
	where := &line{}
	if link := safeLink(rec.Slack.Permalink); link != "" {
		where.ours("<" + link + "|Open its message>")
	}
	if rec.Slack.Channel != "" && channelIDRe.MatchString(rec.Slack.Channel) {
		where.ours(" in <#" + rec.Slack.Channel + ">")
	}
	if b := where.block(blockID(rec.Key, revHome, "where")); b != nil {
		blocks = append(blocks, b)
	}
	if strings.TrimSpace(in.Context) != "" {
		blocks = append(blocks, slack.NewContextBlock(blockID(rec.Key, revHome, "cl"), mrkdwn(contextLabel)))
		for i, c := range chunkPlain(printed(in.Context), maxSectionText) {
			blocks = append(blocks, literalSection(blockID(rec.Key, revHome, "c"+strconv.Itoa(i)), c))
		}
	}
	// The proposal as its message shows it, by the same builder: the first lines, a sentence and
	// "View all" wherever it is shortened, and the edit.
	blocks = append(blocks, proposalBlocks(rec, revHome, true)...)
	blocks = append(blocks, controls(rec, revHome)...)
	if b := approvalLine(rec).block(blockID(rec.Key, revHome, "tally")); b != nil {
		blocks = append(blocks, b)
	}
	meta := &line{}
	metaLine(meta, rec, now)
	return append(blocks, meta.block(blockID(rec.Key, revHome, "meta")))
}

// homeAnswered is the list of what the person answered lately: a divider, a header and one
// context block a question: the question (cut, with a link to its message) and what came of it.
func homeAnswered(h Home, now time.Time) []slack.Block {
	blocks := []slack.Block{slack.NewDividerBlock(),
		slack.NewHeaderBlock(plain("What you answered lately"), slack.HeaderBlockOptionBlockID("inq-home|answered"))}
	n := 0
	for i, rec := range h.Answered {
		if i == HomeAnswered {
			break
		}
		blocks = append(blocks, homeAnsweredLine(rec, h.User, now).block("inq-home|answered-"+strconv.Itoa(i)))
		n++
	}
	if n == 0 {
		blocks = append(blocks, section("inq-home|answered-list", "Nothing yet: your answers show up here."))
	}
	return blocks
}

// homeAnsweredLine is "“Merge now?” (message) — Answered by @ana: Merge · 5 min ago", or for a
// vote that did not decide yet "“…” — your vote: Yes; waiting for more votes".
func homeAnsweredLine(rec *inquiry.Record, user string, now time.Time) *line {
	in := &rec.Inquiry
	l := &line{}
	l.theirs("“"+inquiry.OneLine(nonEmpty(in.Question, noQuestion), homeAnsweredChars)+"”", 0)
	if link := safeLink(rec.Slack.Permalink); link != "" {
		l.ours("(<" + link + "|its message>) ")
	}
	l.ours("— ")
	if rec.Status == inquiry.StatusPending {
		what := "waiting for more votes"
		for _, v := range rec.Votes {
			if v.By == user {
				what = ""
				if v.Declined {
					what = "you declined; waiting for more votes"
				}
				if what == "" {
					l.ours("your vote:")
					l.theirs(inquiry.OneLine(inquiry.RenderValue(in, v.Value), 60), 0)
					what = "; waiting for more votes"
				}
			}
		}
		l.ours(what)
		t := &line{}
		if tally(t, in, rec.Votes) {
			l.ours(" (")
			tally(l, in, rec.Votes)
			l.ours(")")
		}
		return l
	}
	o := outcome(rec, now)
	l.ours(o.head)
	if w := strings.TrimSpace(o.words); w != "" {
		l.theirs(inquiry.OneLine(w, 100), 0)
	}
	if rec.ResolvedAt != nil {
		l.ours(" · " + when(*rec.ResolvedAt, now))
	}
	return l
}

// jsonSize is how many bytes blocks take in the view Slack receives.
func jsonSize(blocks []slack.Block) int {
	b, err := json.Marshal(blocks)
	if err != nil {
		return maxViewBytes // cannot be sent anyway: nothing more fits
	}
	return len(b) + 1 // and a comma
}

// safeLink is a permalink fit for <url|text> in mrkdwn: an http(s) URL with none of the
// characters that would end the link or start another, else "".
func safeLink(u string) string {
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return ""
	}
	if strings.ContainsAny(u, "<>| \t\r\n") || runes(u) > maxURL {
		return ""
	}
	return u
}

// channelIDRe is a Slack channel id (public C…, private G…, direct D…): only such an id becomes
// a <#C…> link.
var channelIDRe = regexp.MustCompile(`^[CGD][A-Z0-9]{2,30}$`)
