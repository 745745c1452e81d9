package slackapp

import (
	"container/list"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/inquiry-bot/bot/blockkit"
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
	if m, ok := inner.Data.(*slackevents.MessageEvent); ok {
		return a.threadReply(ctx, m)
	}
	return nil
}

// threadReply answers an inquiry with a reply in its thread. Bot messages, edits, deletions and
// messages outside a question's thread are none of its business.
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
	rec, err := a.finder.InquiryBySlackTS(ctx, m.Channel, m.ThreadTimeStamp)
	if err != nil {
		if inquiry.ErrorCode(err) == inquiry.CodeNotFound {
			return nil // a thread that is no question of ours
		}
		return fmt.Errorf("find the inquiry of thread %s in %s: %w", m.ThreadTimeStamp, m.Channel, err)
	}
	if rec == nil || rec.Status != inquiry.StatusPending {
		return nil // talk in the thread after the answer is just talk
	}
	at := where{channel: m.Channel, threadTS: m.ThreadTimeStamp}
	if say := a.refusal(ctx, rec, m.User); say != "" {
		a.tell(at, m.User, say)
		return nil
	}
	reply := inquiry.Reply{Text: unescape(m.Text)}
	out, err := a.svc.Answer(ctx, rec.Key, reply, m.User)
	switch inquiry.ErrorCode(err) {
	case "":
		a.log.InfoContext(ctx, "answered in a slack thread", "key", rec.Key, "user", m.User)
	case inquiry.CodeAlreadyResolved:
		if out == nil {
			out = rec
		}
		a.tell(at, m.User, sayResolved(out, a.now()))
	case inquiry.CodeInvalidAnswer:
		a.tell(at, m.User, sayInvalid(rec, reply, err))
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

// handleCommand answers a slash command with an ephemeral: the questions waiting in the
// channel it was typed in (whoever is there can see them anyway), with links.
func (a *App) handleCommand(ctx context.Context, cmd slack.SlashCommand) any {
	type answer struct {
		ResponseType string `json:"response_type"`
		Text         string `json:"text"`
	}
	recs, _, err := a.svc.Store.ListInquiries(ctx, inquiry.ListFilter{Status: inquiry.StatusPending, Limit: 100})
	if err != nil {
		a.log.WarnContext(ctx, "list questions for a slash command", "err", err)
		return answer{"ephemeral", "the questions could not be listed just now: try again in a moment."}
	}
	var lines []string
	for _, rec := range recs {
		if rec.Slack.Channel != cmd.ChannelID || rec.Slack.TS == "" {
			continue
		}
		q := blockkit.Escape(short(rec.Question, 120))
		if rec.Slack.Permalink != "" {
			q = "<" + rec.Slack.Permalink + "|" + q + ">"
		}
		line := "• " + q
		if rec.ExpiresAt != nil {
			line += " — expires " + slackTime(*rec.ExpiresAt)
		}
		lines = append(lines, line)
		if len(lines) == 20 {
			break
		}
	}
	var b strings.Builder
	switch len(lines) {
	case 0:
		b.WriteString("No question waits for an answer in this channel.")
	case 1:
		b.WriteString("One question waits for an answer here:\n")
	default:
		fmt.Fprintf(&b, "%d questions wait for an answer here:\n", len(lines))
	}
	b.WriteString(strings.Join(lines, "\n"))
	b.WriteString("\nAnswer with the buttons under a question, or reply in its thread.")
	return answer{"ephemeral", b.String()}
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
