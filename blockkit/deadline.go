package blockkit

import (
	"strconv"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/inquiry-bot/bot/inquiry"
)

// ActionExtend is the "Extend" button of a question whose asker allows more time; its value is
// the inquiry key.
const ActionExtend = "inq:extend"

// revReminder is the revision of a reminder's blocks (a message of its own, in the thread).
const revReminder = "m"

// Reminder renders reminder number n of a pending inquiry, a reply in its thread: who may answer
// mentioned (users, user groups; @here only when the asker opted in and the server allows it:
// the caller clears RemindHere otherwise), how long is left and a link to the question, and
// under it what will be assumed, in the asker's words as literal text.
func Reminder(rec *inquiry.Record, n int, now time.Time) (text string, blocks []slack.Block) {
	var parts, head []string
	if m := mentions(inquiry.Mentions(rec, rec.Escalation)); m != "" {
		parts, head = append(parts, m), append(head, m)
	}
	parts = append(parts, Escape(inquiry.ReminderText(rec, now)))
	head = append(head, "Still waiting for an answer: "+inquiry.TimeLeft(rec, now)+" left.")
	if link := safeLink(rec.Slack.Permalink); link != "" {
		parts = append(parts, "<"+link+"|Open the question>")
		head = append(head, "<"+link+"|Open the question>")
	}
	rev := revReminder + strconv.Itoa(n)
	blocks = append(blocks, section(blockID(rec.Key, rev, "0"), clip(strings.Join(head, " "), maxSectionText)))
	meta := &line{}
	meta.ours("If nobody answers:")
	meta.theirs("“"+inquiry.OneLine(inquiry.Assumed(&rec.Inquiry), 300)+"”", 0)
	if rec.RunID != "" {
		meta.ours("·")
		meta.theirs("run “"+inquiry.OneLine(rec.RunID, inquiry.MaxIDChars)+"”", 0)
	}
	meta.ours("· reminder " + strconv.Itoa(n) + " of " + strconv.Itoa(len(rec.Remind)))
	blocks = append(blocks, meta.block(blockID(rec.Key, rev, "meta")))
	return clip(strings.Join(parts, " "), 3000), blocks
}

// Escalated renders the question as escalation step (1-based) posts it in another channel: the
// question message with the same controls, headed by a line that says it was escalated, mentions
// the step's answerers when the step asks for it, and links to where it was first asked.
func Escalated(rec *inquiry.Record, step int, now time.Time) (text string, blocks []slack.Block) {
	text, blocks = message(rec, now, false)
	if step < 1 || step > len(rec.Escalate) {
		return text, blocks
	}
	st := rec.Escalate[step-1]
	who := ""
	if st.Mention {
		who = mentions(st.Answerers)
	}
	parts := []string{Escape(inquiry.EscalationText(rec, step))}
	if who != "" {
		parts = append([]string{who}, parts...)
	}
	if link := safeLink(rec.Slack.Permalink); link != "" {
		parts = append(parts, "<"+link+"|Where it was first asked>")
	}
	head := slack.NewContextBlock(blockID(rec.Key, revQuestion, "esc"), mrkdwn(clip(strings.Join(parts, " "), maxText)))
	text = strings.TrimSpace(who + " Escalated: " + text)
	return clip(text, 3000), append([]slack.Block{head}, blocks...)
}

// EscalatedInThread renders escalation step (1-based) of a pending inquiry that names no
// channel but mentions its answerers: a reply in the question's thread calling on them.
func EscalatedInThread(rec *inquiry.Record, step int, now time.Time) (text string, blocks []slack.Block) {
	if step < 1 || step > len(rec.Escalate) {
		return "", nil
	}
	parts := []string{mentions(rec.Escalate[step-1].Answerers), Escape(inquiry.EscalationText(rec, step))}
	if left := inquiry.TimeLeft(rec, now); left != "" {
		parts = append(parts, Escape("You may answer it too: "+left+" left."))
	} else {
		parts = append(parts, "You may answer it too.")
	}
	if link := safeLink(rec.Slack.Permalink); link != "" {
		parts = append(parts, "<"+link+"|Open the question>")
	}
	line := clip(strings.TrimSpace(strings.Join(parts, " ")), maxSectionText)
	blocks = append(blocks, section(blockID(rec.Key, revReminder+"e"+strconv.Itoa(step), "0"), line))
	return clip(strings.TrimSpace(strings.Join(parts, " ")), 3000), blocks
}

// extendButton is the actions block with the "Extend" button, for a pending inquiry that may be
// given more time still (inquiry.MayExtend); nil otherwise.
func extendButton(rec *inquiry.Record) slack.Block {
	if rec.Extend == nil {
		return nil
	}
	by, err := inquiry.MayExtend(rec, 0)
	if err != nil {
		return nil
	}
	b := slack.NewButtonBlockElement(ActionExtend, rec.Key, plain(clip("Extend by "+by.String(), maxButtonText)))
	return slack.NewActionBlock(blockID(rec.Key, revQuestion, "ext"), b)
}

// mentions renders who a message calls on: users and user groups as mentions, "here" as
// <!here>; anything else is left out (it would ping nobody).
func mentions(ids []string) string {
	var out []string
	for _, id := range ids {
		switch {
		case id == "here":
			out = append(out, "<!here>")
		case IsUserID(id) || IsGroupID(id):
			out = append(out, Mention(id))
		}
	}
	return strings.Join(out, " ")
}
