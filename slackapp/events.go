package slackapp

import (
	"container/list"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/inquiry-bot/bot/inquiry"
)

// handleEvent serves one Events API event, from HTTP or Socket Mode. An error means it could not
// be served now and should come again (Slack redelivers it); it is then not marked seen.
func (a *App) handleEvent(ctx context.Context, ev slackevents.EventsAPIEvent) error {
	switch ev.Type {
	case slackevents.CallbackEvent:
		id := ""
		if cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent); ok {
			id = cb.EventID
		}
		if id == "" {
			return a.callback(ctx, ev.InnerEvent)
		}
		switch a.seen.begin(id) {
		case eventServed:
			return nil // a retry of an event served before: ack it, serve nothing
		case eventInFlight:
			// Slack retried while the first delivery is still being served: ask for a later
			// retry rather than ack one that may yet fail.
			return fmt.Errorf("event %s is being served right now", id)
		}
		served := false
		defer func() { a.seen.end(id, served) }() // a panic leaves the event to a retry
		if err := a.callback(ctx, ev.InnerEvent); err != nil {
			return err
		}
		served = true
		return nil
	case slackevents.AppRateLimited:
		a.log.WarnContext(ctx, "slack stopped sending events for a while: this app passed 30,000 events an hour in the workspace")
	}
	return nil
}

func (a *App) callback(ctx context.Context, inner slackevents.EventsAPIInnerEvent) error {
	switch ev := inner.Data.(type) {
	case *slackevents.MessageEvent:
		return a.threadReply(ctx, ev)
	case *slackevents.AppHomeOpenedEvent:
		a.appHomeOpened(ctx, ev)
	}
	return nil
}

// threadLimit bounds the pending questions of one thread a reply is weighed against.
const threadLimit = 20

// threadReply answers an inquiry with a reply in a thread: of the pending inquiries posted in the
// thread — its root message, messages the bot posted into it, or an escalation step's message
// (inquiry.Placement) — the newest the person may
// answer (inquiry/doc.go, "Thread replies"). When the thread holds several, the person is told
// which question the reply answered. Bot messages, edits, deletions and threads where no question
// of ours waits are none of its business.
func (a *App) threadReply(ctx context.Context, m *slackevents.MessageEvent) error {
	switch {
	case m.BotID != "" || m.User == "":
		return nil
	case m.SubType != "" && m.SubType != "thread_broadcast":
		return nil // message_changed, message_deleted, bot_message, channel_join, …
	case m.ThreadTimeStamp == "" || m.ThreadTimeStamp == m.TimeStamp:
		return nil // not a reply
	case a.finder == nil:
		return nil
	}
	pending, err := a.finder.PendingInThread(ctx, m.Channel, m.ThreadTimeStamp, threadLimit)
	if err != nil {
		return fmt.Errorf("find the questions of thread %s in %s: %w", m.ThreadTimeStamp, m.Channel, err)
	}
	if len(pending) == 0 {
		return nil // no question waits in this thread (or it was answered): talk is just talk
	}
	at := where{channel: m.Channel, threadTS: m.ThreadTimeStamp}
	var rec *inquiry.Record
	var refused saying
	for _, p := range pending { // newest first
		no := a.refusal(ctx, p, m.User)
		if no.empty() {
			rec = p
			break
		}
		if refused.empty() {
			refused = no // the newest question's refusal, if they may answer none
		}
	}
	if rec == nil {
		a.tell(at, m.User, refused)
		return nil
	}
	several := len(pending) > 1
	reply, _ := inquiry.ReplyOf(&rec.Inquiry, unescape(m.Text), false) // "no: the tests fail" carries its reason
	out, err := a.svc.Answer(inquiry.WithVia(ctx, inquiry.ViaSlack), rec.Key, reply, a.identity(ctx, rec.Key, m.User))
	switch inquiry.ErrorCode(err) {
	case "":
		a.log.InfoContext(ctx, "answered in a slack thread", "key", rec.Key, "user", m.User, "pending_in_thread", len(pending))
		var told saying
		if several {
			told = sayAnsweredOneOf(rec, len(pending)-1, len(pending) == threadLimit)
		}
		a.tell(at, m.User, told.and(sayVoted(rec, out, m.User)))
	case inquiry.CodeForbidden:
		a.tell(at, m.User, sayForbidden(err))
	case inquiry.CodeAlreadyResolved:
		if out == nil {
			out = rec
		}
		a.tell(at, m.User, sayResolved(out, a.now()))
	case inquiry.CodeInvalidAnswer:
		told := sayInvalid(rec, reply, err)
		if inquiry.ReasonMissing(&rec.Inquiry, reply) {
			told = sayNoReason(rec, err)
		}
		if several {
			told = told.and(sayReadFor(rec))
		}
		a.tell(at, m.User, told)
	case inquiry.CodeNotFound:
	default:
		return fmt.Errorf("record the thread reply of %s to inquiry %s: %w", m.User, rec.Key, err)
	}
	return nil
}

// unescape undoes Slack's encoding of message text: & < > arrive as entities.
func unescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// commandLines is how many questions a slash command lists.
const commandLines = 20

// handleCommand answers a slash command with an ephemeral: the questions waiting in the
// channel it was typed in (whoever is there can see them anyway), each quoted and shortened,
// with a link to its message where it is whole.
func (a *App) handleCommand(ctx context.Context, cmd slack.SlashCommand) any {
	type answer struct {
		ResponseType string        `json:"response_type"`
		Text         string        `json:"text"`
		Blocks       []slack.Block `json:"blocks,omitempty"`
	}
	reply := func(s saying) answer { return answer{"ephemeral", s.text(), s.blocks()} }
	// This channel's pending questions, newest first: the store filters by channel, so questions
	// waiting elsewhere hide none of these. The few not posted yet are skipped; a bounded number
	// of pages is read to find 20 posted ones.
	var lines []saying
	f := inquiry.ListFilter{Status: inquiry.StatusPending, Channel: cmd.ChannelID, Limit: 50}
	for page := 0; page < 4 && len(lines) < commandLines && cmd.ChannelID != ""; page++ {
		recs, next, err := a.svc.List(ctx, f) // as they stand now: none past its expiry
		if err != nil {
			a.log.WarnContext(ctx, "list questions for a slash command", "err", err)
			return reply(say("the questions could not be listed just now: try again in a moment."))
		}
		for _, rec := range recs {
			if rec.Slack.Channel != cmd.ChannelID || rec.Slack.TS == "" {
				continue
			}
			line := say("• ")
			questionLink(&line, rec)
			if rec.ExpiresAt != nil {
				line.ours(" — expires " + slackTime(*rec.ExpiresAt))
			}
			lines = append(lines, line)
			if len(lines) == commandLines {
				break
			}
		}
		if next == "" {
			break
		}
		f.Cursor = next
	}
	var s saying
	switch len(lines) {
	case 0:
		s = say("No question waits for an answer in this channel.")
	case 1:
		s = say("One question waits for an answer here:")
	default:
		s = say(fmt.Sprintf("%d questions wait for an answer here:", len(lines)))
	}
	for _, l := range lines { // one block each: 20 of them and two sentences stay under Slack's 50
		s = s.and(l)
	}
	return reply(s.and(say("Answer with the buttons under a question, or reply in its thread.")))
}

// eventLog remembers the event ids served lately (bounded, oldest forgotten first), so a
// redelivered event is acked without being served twice. It is per replica; the first answer
// wins in the store anyway, so a replay on another replica changes nothing.
type eventLog struct {
	mu     sync.Mutex
	max    int
	order  *list.List // of ids, oldest first
	done   map[string]*list.Element
	active map[string]bool
}

func newEventLog(max int) *eventLog {
	return &eventLog{max: max, order: list.New(), done: map[string]*list.Element{}, active: map[string]bool{}}
}

// What begin found of an event id.
const (
	eventNew      = iota // never seen: serve it (it is in flight until end)
	eventInFlight        // being served right now
	eventServed          // served before
)

// begin says what is known of id; a new id is then in flight until end.
func (l *eventLog) begin(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.done[id]; ok {
		return eventServed
	}
	if l.active[id] {
		return eventInFlight
	}
	l.active[id] = true
	return eventNew
}

// end records id as served when ok; otherwise it may be served again.
func (l *eventLog) end(id string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.active, id)
	if !ok {
		return
	}
	l.done[id] = l.order.PushBack(id)
	for l.order.Len() > l.max {
		old := l.order.Front()
		l.order.Remove(old)
		delete(l.done, old.Value.(string))
	}
}
