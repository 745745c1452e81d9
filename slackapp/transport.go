package slackapp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// metadataEvent names the message metadata every question carries: the inquiry key, so a
// message Slack may have posted despite an error can be recognised later.
const metadataEvent = "inquiry_question"

// reminderEvent and escalationEvent name the metadata of a reminder (the key and its number) and
// of an escalated question (the key and its step), so a retry can find one Slack posted despite
// an error, or while the process died, instead of posting it twice.
const (
	reminderEvent   = "inquiry_reminder"
	escalationEvent = "inquiry_escalation"
)

// Post shows a pending inquiry in its channel (in its thread when it names one) and returns
// where it landed. The dispatcher runs one channel's deliveries in order; Post only paces them.
func (a *App) Post(ctx context.Context, rec *inquiry.Record) (inquiry.Posted, error) {
	channel := rec.Slack.Channel
	if channel == "" {
		channel = a.cfg.DefaultChannel
	}
	if channel == "" {
		return inquiry.Posted{}, inquiry.Unavailable("no Slack channel to ask in: name one in slack.channel, or set SLACK_DEFAULT_CHANNEL on the server")
	}
	if err := a.quorumFits(ctx, rec); err != nil {
		return inquiry.Posted{}, err
	}
	text, blocks := blockkit.Message(a.withPage(rec), a.now())
	opts := []slack.MsgOption{
		slack.MsgOptionText(text, false),
		slack.MsgOptionBlocks(blocks...),
		slack.MsgOptionDisableLinkUnfurl(),
		slack.MsgOptionDisableMediaUnfurl(),
		slack.MsgOptionMetadata(slack.SlackMetadata{EventType: metadataEvent, EventPayload: map[string]any{"key": rec.Key}}),
	}
	if rec.Slack.ThreadTS != "" {
		opts = append(opts, slack.MsgOptionTS(rec.Slack.ThreadTS))
	}
	if err := a.ready(ctx, channel); err != nil {
		return inquiry.Posted{}, err
	}
	posted, ts, msg, err := a.client.PostMessageWithResponseContext(ctx, channel, opts...)
	if err != nil {
		return inquiry.Posted{}, a.failed(fmt.Sprintf("post inquiry %s to channel %s", rec.Key, channel), channel, err)
	}
	if posted == "" {
		posted = channel
	}
	// The thread Slack put it in: one whose parent is gone un-threads it to the top of the channel.
	ref := inquiry.Posted{Place: posted, Thread: msg.ThreadTimestamp, ID: ts}
	ref.Link = a.permalink(ctx, rec.Key, posted, ts)
	a.log.InfoContext(ctx, "question posted", "key", rec.Key, "channel", posted, "ts", ts)
	return ref, nil
}

// permalink asks for a posted question's permalink. It is a nicety: the message is posted, so no
// failure here may post it twice.
func (a *App) permalink(ctx context.Context, key, channel, ts string) string {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	link, err := a.client.GetPermalinkContext(pctx, &slack.PermalinkParameters{Channel: channel, Ts: ts})
	if err != nil {
		a.log.InfoContext(ctx, "no permalink for a posted question", "key", key, "channel", channel, "ts", ts, "err", err)
	}
	return link
}

// findSkew is how long before an inquiry's creation FindPost looks, for clocks that disagree;
// findPages bounds the pages of a busy channel it reads.
const (
	findSkew  = time.Minute
	findPages = 3
)

var _ inquiry.PostFinder = (*App)(nil)

// FindPost looks in the inquiry's channel (its thread, when it names one) for the message of an
// earlier attempt to post it: the message metadata carries the inquiry key. The dispatcher asks
// before it retries a post, since Slack may have posted a message whose answer never came back.
// It reads the messages since the inquiry was created (a minute before, for clock skew), at most
// findPages pages, with conversations.history or conversations.replies (scopes channels:history,
// groups:history). A lookup Slack refuses for good (a missing scope, an unknown channel) is an
// error for which inquiry.Fatal is true: the dispatcher then posts without looking.
func (a *App) FindPost(ctx context.Context, rec *inquiry.Record) (inquiry.Posted, bool, error) {
	channel := rec.Slack.Channel
	if channel == "" {
		channel = a.cfg.DefaultChannel
	}
	if channel == "" {
		return inquiry.Posted{}, false, nil
	}
	op := fmt.Sprintf("look for an earlier post of inquiry %s in channel %s", rec.Key, channel)
	m, found, err := a.findMessage(ctx, op, channel, rec.Slack.ThreadTS, rec.CreatedAt, func(m slack.Message) bool {
		return m.Metadata.EventType == metadataEvent && fmt.Sprint(m.Metadata.EventPayload["key"]) == rec.Key
	})
	if err != nil || !found {
		return inquiry.Posted{}, false, err
	}
	thread := m.ThreadTimestamp // the thread it sits in; a root's is its own ts
	if thread == m.Timestamp {
		thread = ""
	}
	ref := inquiry.Posted{Place: channel, Thread: thread, ID: m.Timestamp}
	ref.Link = a.permalink(ctx, rec.Key, channel, m.Timestamp)
	a.log.InfoContext(ctx, "question found posted by an earlier attempt", "key", rec.Key, "channel", channel, "ts", m.Timestamp)
	return ref, true, nil
}

// findMessage reads channel (the thread, when thread is set) since since (a minute before, for
// clock skew), at most findPages pages, for the first message match takes. A lookup Slack
// refuses for good is an error for which inquiry.Fatal is true.
func (a *App) findMessage(ctx context.Context, op, channel, thread string, since time.Time, match func(slack.Message) bool) (slack.Message, bool, error) {
	oldest := since.Add(-findSkew)
	from := fmt.Sprintf("%d.%06d", oldest.Unix(), oldest.Nanosecond()/1000)
	cursor := ""
	for range findPages {
		var (
			msgs []slack.Message
			more bool
			next string
			err  error
		)
		if thread != "" {
			msgs, more, next, err = a.client.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{
				ChannelID: channel, Timestamp: thread, Oldest: from, Cursor: cursor, Limit: 200, IncludeAllMetadata: true})
		} else {
			var h *slack.GetConversationHistoryResponse
			h, err = a.client.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{
				ChannelID: channel, Oldest: from, Cursor: cursor, Limit: 200, IncludeAllMetadata: true})
			if h != nil {
				msgs, more, next = h.Messages, h.HasMore, h.ResponseMetaData.NextCursor
			}
		}
		if err != nil {
			return slack.Message{}, false, lookupFailed(op, channel, err)
		}
		for _, m := range msgs {
			if match(m) {
				return m, true, nil
			}
		}
		if !more || next == "" {
			break
		}
		cursor = next
	}
	return slack.Message{}, false, nil
}

// lookupFailed classifies a failed history lookup: passing faults (the network, a 5xx, a rate
// limit, Slack's own passing errors) are retried; any other answer of Slack's means the lookup
// will never succeed, which is inquiry_unavailable (fatal) — for the lookup only: the question is
// posted without it.
func lookupFailed(op, channel string, err error) error {
	var se slack.SlackErrorResponse
	if errors.As(err, &se) {
		switch se.Err {
		case "ratelimited", "rate_limited", "internal_error", "fatal_error", "service_unavailable", "request_timeout":
		default:
			return &inquiry.Error{Code: inquiry.CodeUnavailable, Message: "Slack will not show the channel's history (" + se.Err + ")",
				Err: fmt.Errorf("%s: %w", op, err)}
		}
	}
	return classify(op, channel, err)
}

// quorumFits resolves the user groups among the answerers of an inquiry that needs several
// people, and refuses to post it when fewer people could answer than it needs
// (inquiry.GroupQuorumFits, fatal: the inquiry fails with the sentence). A group Slack will
// never list is fatal too; a passing failure is retried.
func (a *App) quorumFits(ctx context.Context, rec *inquiry.Record) error {
	if rec.Quorum() <= 1 {
		return nil
	}
	members := map[string][]string{}
	for _, id := range rec.Slack.Answerers {
		if !blockkit.IsGroupID(id) {
			continue
		}
		set, err := a.groups.members(ctx, id)
		if err != nil {
			return groupFailed(fmt.Sprintf("list the members of user group %s for inquiry %s", id, rec.Key), id, err)
		}
		for u := range set {
			members[id] = append(members[id], u)
		}
	}
	if len(members) == 0 {
		return nil
	}
	elsewhere, known := inquiry.PeopleElsewhere(rec, inquiry.TransportSlack)
	if !known {
		return nil // anybody may answer on another of its channels: the quorum can be met there
	}
	return inquiry.GroupQuorumFits(&rec.Inquiry, rec.Slack.Answerers, members, elsewhere)
}

// groupFailed classifies a failed usergroups.users.list at posting time: an answer of Slack's
// that no retry changes fails the inquiry with how to fix it; anything passing is retried.
func groupFailed(op, group string, err error) error {
	var se slack.SlackErrorResponse
	if errors.As(err, &se) {
		fix := ""
		switch se.Err {
		case "no_such_subteam", "subteam_not_found":
			fix = fmt.Sprintf("Slack knows no user group %s: put the group's id (S…, from its page in Slack) in slack.answerers", group)
		case "missing_scope":
			fix = "the Slack app lacks the scope usergroups:read, needed to count the members of a user group among slack.answerers: add it under OAuth & Permissions, reinstall the app, and set SLACK_BOT_TOKEN to the new token"
		}
		if fix != "" {
			return &inquiry.Error{Code: inquiry.CodeUnavailable, Message: se.Err + ": " + fix, Err: fmt.Errorf("%s: %w", op, err)}
		}
	}
	return classify(op, "", err)
}

// Update shows the inquiry as it stands: while it is pending (a vote came in), the question
// with its tally and its controls; once resolved, its outcome — controls gone, new block_ids,
// one line saying what happened.
func (a *App) Update(ctx context.Context, rec *inquiry.Record) error {
	if rec.Slack.TS == "" || rec.Slack.Channel == "" {
		return nil // never shown: nothing to update
	}
	text, blocks := blockkit.Resolved(rec, a.now())
	if rec.Status == inquiry.StatusPending {
		text, blocks = blockkit.Message(a.withPage(rec), a.now())
	}
	if err := a.ready(ctx, rec.Slack.Channel); err != nil {
		return err
	}
	_, _, _, err := a.client.UpdateMessageContext(ctx, rec.Slack.Channel, rec.Slack.TS,
		slack.MsgOptionText(text, false), slack.MsgOptionBlocks(blocks...))
	if err != nil {
		return a.failed(fmt.Sprintf("update the message of inquiry %s in channel %s", rec.Key, rec.Slack.Channel), rec.Slack.Channel, err)
	}
	// Every other message that shows it too: an answer in either place resolves the one inquiry.
	// A retry after one of them failed updates the first again, which chat.update allows.
	for _, p := range rec.Escalations(inquiry.TransportSlack) {
		text, blocks := blockkit.Resolved(rec, a.now())
		if rec.Status == inquiry.StatusPending {
			text, blocks = blockkit.Escalated(rec, p.Step, a.now())
		}
		if err := a.ready(ctx, p.Channel); err != nil {
			return err
		}
		if _, _, _, err := a.client.UpdateMessageContext(ctx, p.Channel, p.TS,
			slack.MsgOptionText(text, false), slack.MsgOptionBlocks(blocks...)); err != nil {
			return a.failed(fmt.Sprintf("update the escalated message of inquiry %s in channel %s", rec.Key, p.Channel), p.Channel, err)
		}
	}
	// The Home tabs it shows in (home.go): in the background, never failing the update.
	a.refreshHomesFor(ctx, rec)
	return nil
}

// maxReminderDMs bounds the direct messages of one reminder: a long list of answerers is better
// reached through the thread's mentions than through a burst of messages.
const maxReminderDMs = 20

var (
	_ inquiry.Reminder  = (*App)(nil)
	_ inquiry.Escalator = (*App)(nil)
)

// Remind posts reminder number n of a pending inquiry as a reply in its thread (blockkit.Reminder)
// and, when the asker asked for it (remind_dm), a direct message to each listed user answerer.
// The direct messages are a courtesy: one that fails is logged, never retried, so that a retry
// never repeats the reply in the thread.
func (a *App) Remind(ctx context.Context, rec *inquiry.Record, n int) error {
	channel, thread := rec.Slack.Channel, rec.Slack.ThreadTS
	if thread == "" {
		thread = rec.Slack.TS
	}
	if channel == "" || thread == "" {
		return nil // never shown: the record and the events carry the reminder
	}
	if rec.RemindHere && !a.svc.AllowBroadcast {
		// Stored while the operator allowed @here, reminded after they stopped: the switch
		// holds now, so the reminder calls on nobody it does not name.
		cp := *rec
		cp.RemindHere = false
		rec = &cp
	}
	text, blocks := blockkit.Reminder(rec, n, a.now())
	if err := a.replyInThread(ctx, channel, thread, text, blocks, fmt.Sprintf("post reminder %d of inquiry %s in channel %s", n, rec.Key, channel),
		slack.MsgOptionMetadata(slack.SlackMetadata{EventType: reminderEvent, EventPayload: map[string]any{"key": rec.Key, "n": n}})); err != nil {
		return err
	}
	a.log.InfoContext(ctx, "reminder posted", "key", rec.Key, "channel", channel, "number", n)
	if !rec.RemindDM {
		return nil
	}
	sent := 0
	for _, user := range inquiry.Answerers(rec) {
		if !blockkit.IsUserID(user) {
			continue
		}
		if sent++; sent > maxReminderDMs {
			a.log.InfoContext(ctx, "reminder by direct message to the first answerers only", "key", rec.Key, "max", maxReminderDMs)
			break
		}
		if err := a.await(ctx, user); err != nil {
			a.log.WarnContext(ctx, "reminder by direct message not sent", "key", rec.Key, "user", user, "err", err)
			continue
		}
		if _, _, err := a.client.PostMessageContext(ctx, user, slack.MsgOptionText(text, false),
			slack.MsgOptionBlocks(blocks...), slack.MsgOptionDisableLinkUnfurl()); err != nil {
			a.log.WarnContext(ctx, "reminder by direct message not sent", "key", rec.Key, "user", user, "err", err)
		}
	}
	return nil
}

var (
	_ inquiry.ReminderFinder   = (*App)(nil)
	_ inquiry.EscalationFinder = (*App)(nil)
)

// FindReminder looks in the question's thread for reminder number n of rec, by its metadata.
func (a *App) FindReminder(ctx context.Context, rec *inquiry.Record, n int) (bool, error) {
	thread := cmp.Or(rec.Slack.ThreadTS, rec.Slack.TS)
	if rec.Slack.Channel == "" || thread == "" {
		return false, nil
	}
	op := fmt.Sprintf("look for an earlier post of reminder %d of inquiry %s in channel %s", n, rec.Key, rec.Slack.Channel)
	_, found, err := a.findMessage(ctx, op, rec.Slack.Channel, thread, rec.CreatedAt, func(m slack.Message) bool {
		return m.Metadata.EventType == reminderEvent && fmt.Sprint(m.Metadata.EventPayload["key"]) == rec.Key &&
			fmt.Sprint(m.Metadata.EventPayload["n"]) == strconv.Itoa(n)
	})
	return found, err
}

// FindEscalation looks in the channel of escalation step (1-based) for the question it posted,
// or, for a step without a channel, in the question's thread for the call on its answerers
// (found with a Placement without a channel).
func (a *App) FindEscalation(ctx context.Context, rec *inquiry.Record, step int) (inquiry.Placement, bool, error) {
	if step < 1 || step > len(rec.Escalate) {
		return inquiry.Placement{}, false, nil
	}
	match := func(m slack.Message) bool {
		return m.Metadata.EventType == escalationEvent && fmt.Sprint(m.Metadata.EventPayload["key"]) == rec.Key &&
			fmt.Sprint(m.Metadata.EventPayload["step"]) == strconv.Itoa(step)
	}
	if rec.Escalate[step-1].Channel == "" {
		thread := cmp.Or(rec.Slack.ThreadTS, rec.Slack.TS)
		if rec.Slack.Channel == "" || thread == "" {
			return inquiry.Placement{}, false, nil
		}
		op := fmt.Sprintf("look for an earlier call of escalation step %d of inquiry %s in channel %s", step, rec.Key, rec.Slack.Channel)
		_, found, err := a.findMessage(ctx, op, rec.Slack.Channel, thread, rec.CreatedAt, match)
		return inquiry.Placement{}, found, err
	}
	channel := rec.Escalate[step-1].Channel
	op := fmt.Sprintf("look for an earlier post of escalation step %d of inquiry %s in channel %s", step, rec.Key, channel)
	m, found, err := a.findMessage(ctx, op, channel, "", rec.CreatedAt, match)
	if err != nil || !found {
		return inquiry.Placement{}, false, err
	}
	return inquiry.Placement{Step: step, Channel: channel, TS: m.Timestamp, Permalink: a.permalink(ctx, rec.Key, channel, m.Timestamp)}, true, nil
}

// Escalate posts the question, with the same controls, in the channel of escalation step
// (1-based), headed by a line that says so (blockkit.Escalated), and returns where. A channel the
// bot cannot post in is a fatal error with the sentence that says how to fix it.
func (a *App) Escalate(ctx context.Context, rec *inquiry.Record, step int) (inquiry.Placement, error) {
	if step < 1 || step > len(rec.Escalate) {
		return inquiry.Placement{}, nil
	}
	if rec.Escalate[step-1].Channel == "" {
		return inquiry.Placement{}, a.escalateInThread(ctx, rec, step)
	}
	channel := rec.Escalate[step-1].Channel
	text, blocks := blockkit.Escalated(rec, step, a.now())
	if err := a.ready(ctx, channel); err != nil {
		return inquiry.Placement{}, err
	}
	posted, ts, err := a.client.PostMessageContext(ctx, channel, slack.MsgOptionText(text, false),
		slack.MsgOptionBlocks(blocks...), slack.MsgOptionDisableLinkUnfurl(), slack.MsgOptionDisableMediaUnfurl(),
		slack.MsgOptionMetadata(slack.SlackMetadata{EventType: escalationEvent, EventPayload: map[string]any{"key": rec.Key, "step": step}}))
	if err != nil {
		return inquiry.Placement{}, a.failed(fmt.Sprintf("post escalation step %d of inquiry %s in channel %s", step, rec.Key, channel), channel, err)
	}
	if posted == "" {
		posted = channel
	}
	a.log.InfoContext(ctx, "question escalated", "key", rec.Key, "channel", posted, "ts", ts, "step", step)
	return inquiry.Placement{Step: step, Channel: posted, TS: ts, Permalink: a.permalink(ctx, rec.Key, posted, ts)}, nil
}

// escalateInThread calls on the answerers of escalation step (1-based), a step without a channel
// that mentions them, with a reply in the question's thread.
func (a *App) escalateInThread(ctx context.Context, rec *inquiry.Record, step int) error {
	channel, thread := rec.Slack.Channel, cmp.Or(rec.Slack.ThreadTS, rec.Slack.TS)
	if !rec.Escalate[step-1].Mention || channel == "" || thread == "" {
		return nil
	}
	text, blocks := blockkit.EscalatedInThread(rec, step, a.now())
	if err := a.replyInThread(ctx, channel, thread, text, blocks, fmt.Sprintf("post escalation step %d of inquiry %s in its thread in channel %s", step, rec.Key, channel),
		slack.MsgOptionMetadata(slack.SlackMetadata{EventType: escalationEvent, EventPayload: map[string]any{"key": rec.Key, "step": step}})); err != nil {
		return err
	}
	a.log.InfoContext(ctx, "escalation called on in the thread", "key", rec.Key, "channel", channel, "step", step)
	return nil
}

// Notice records in the inquiry's thread the answer that policy assumed without asking anybody.
// An inquiry that names no thread has nowhere to put it: the store and the API show it.
func (a *App) Notice(ctx context.Context, rec *inquiry.Record) error {
	channel := rec.Slack.Channel
	if channel == "" {
		channel = a.cfg.DefaultChannel
	}
	if rec.Slack.ThreadTS == "" || channel == "" {
		return nil
	}
	text, blocks := blockkit.Notice(rec)
	return a.replyInThread(ctx, channel, rec.Slack.ThreadTS, text, blocks, fmt.Sprintf("post the notice of inquiry %s in channel %s", rec.Key, channel))
}

// replyInThread posts text and blocks in channel's thread in the channel's turn (see ready), with
// opts (the metadata a retry finds the post by) after them; what names the post when it fails.
func (a *App) replyInThread(ctx context.Context, channel, thread, text string, blocks []slack.Block, what string, opts ...slack.MsgOption) error {
	if err := a.ready(ctx, channel); err != nil {
		return err
	}
	opts = append([]slack.MsgOption{slack.MsgOptionText(text, false), slack.MsgOptionBlocks(blocks...),
		slack.MsgOptionTS(thread), slack.MsgOptionDisableLinkUnfurl()}, opts...)
	if _, _, err := a.client.PostMessageContext(ctx, channel, opts...); err != nil {
		return a.failed(what, channel, err)
	}
	return nil
}

// holdMargin is added to what is left of a channel's hold when a message is turned away: the
// message that hit the rate limit is due again when the hold ends, so the ones turned away come
// due just after it and go out behind it.
const holdMargin = 250 * time.Millisecond

// ready waits for the channel's turn: it turns the message away while Slack rate-limits the
// channel (a 429 told us for how long), and paces it otherwise.
//
// The hold keeps a channel's order when the dispatcher claims messages of the channel that were
// enqueued after the one that hit the limit (it holds only those it claimed in the same batch),
// and spares Slack calls that would be refused anyway.
func (a *App) ready(ctx context.Context, channel string) error {
	if left := a.holds.left(channel); left > 0 {
		return &inquiry.RetryAfterError{After: left + holdMargin,
			Err: fmt.Errorf("channel %s is rate-limited by Slack for another %s", channel, left.Round(time.Millisecond))}
	}
	return a.pace.wait(ctx, channel)
}

// ephemeralTries bounds the calls of one ephemeral: the first and two more after 429s.
const ephemeralTries = 3

// ephemeral sends user an ephemeral in channel (in the thread when threadTS is set), paced with
// the channel's other messages. It has no dispatcher behind it to try again later, so where a
// post is turned away it waits, within ctx: for the end of a hold Slack put on the channel (a
// 429's Retry-After, whoever met it), for the channel's pace, and after a 429 of its own — which
// holds the channel for every message — for that Retry-After before it calls again. A wait
// that would end after ctx does drops the ephemeral at once: it only tells a person why a click
// did nothing, and must not hold Slack's channel longer than Slack allows.
func (a *App) ephemeral(ctx context.Context, channel, threadTS, user string, opts ...slack.MsgOption) error {
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	op := fmt.Sprintf("send an ephemeral to %s in channel %s", user, channel)
	var err error
	for range ephemeralTries {
		if err = a.await(ctx, channel); err != nil {
			return err
		}
		if _, err = a.client.PostEphemeralContext(ctx, channel, user, opts...); err == nil {
			return nil
		}
		var ra *inquiry.RetryAfterError
		if err = a.failed(op, channel, err); !errors.As(err, &ra) {
			return err
		}
	}
	return err
}

// await is ready for a message nobody will retry: it waits out the channel's hold, when it ends
// before ctx does, instead of turning the message away, then paces it.
func (a *App) await(ctx context.Context, channel string) error {
	for {
		left := a.holds.left(channel)
		if left <= 0 {
			return a.pace.wait(ctx, channel)
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < left {
			return fmt.Errorf("channel %s is rate-limited by Slack for another %s, longer than the message may wait", channel, left.Round(time.Millisecond))
		}
		t := time.NewTimer(left)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// failed classifies a Slack error and holds the channel when Slack rate-limited it.
func (a *App) failed(op, channel string, err error) error {
	err = classify(op, channel, err)
	var ra *inquiry.RetryAfterError
	if errors.As(err, &ra) {
		a.holds.set(channel, ra.After)
	}
	return err
}

// holds remembers until when Slack rate-limits each channel. It is the wall clock's business,
// like the dispatcher's retry times, not the injectable clock's.
type holds struct {
	mu    sync.Mutex
	until map[string]time.Time
}

func (h *holds) set(channel string, d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := time.Now().Add(d); t.After(h.until[channel]) {
		h.until[channel] = t
	}
}

func (h *holds) left(channel string) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.until[channel]
	if !ok {
		return 0
	}
	left := time.Until(t)
	if left <= 0 {
		delete(h.until, channel)
		return 0
	}
	return left
}

// classify turns a Slack error into the dispatcher's vocabulary: *inquiry.RetryAfterError for a
// rate limit, inquiry.Unavailable (fatal) for an error no retry can fix, a plain error (retried
// with backoff) for anything passing.
func classify(op, channel string, err error) error {
	var rl *slack.RateLimitedError
	if errors.As(err, &rl) {
		return &inquiry.RetryAfterError{After: rl.RetryAfter, Err: fmt.Errorf("%s: %w", op, err)}
	}
	var sc slack.StatusCodeError
	if errors.As(err, &sc) && sc.Code == http.StatusTooManyRequests {
		// A 429 without Retry-After: wait what slack-go itself would.
		return &inquiry.RetryAfterError{After: 30 * time.Second, Err: fmt.Errorf("%s: %w", op, err)}
	}
	var se slack.SlackErrorResponse
	if errors.As(err, &se) {
		switch se.Err {
		case "ratelimited", "rate_limited":
			return &inquiry.RetryAfterError{After: 5 * time.Second, Err: fmt.Errorf("%s: %w", op, err)}
		}
		if fix, ok := permanentFix(se, channel); ok {
			return &inquiry.Error{Code: inquiry.CodeUnavailable, Message: se.Err + ": " + fix, Err: fmt.Errorf("%s: %w", op, err)}
		}
		return fmt.Errorf("%s: slack answered %s: %w", op, se.Err, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// permanentFix says how to fix a Slack error that no retry can fix; ok is false for an error
// that may pass (internal_error, fatal_error, service_unavailable, request_timeout, and any code
// this list does not know).
func permanentFix(se slack.SlackErrorResponse, channel string) (fix string, ok bool) {
	switch se.Err {
	case "channel_not_found":
		return fmt.Sprintf("Slack cannot find channel %q, or the bot cannot see it: put a channel id (like C0123456789, from the channel's details) in slack.channel or SLACK_DEFAULT_CHANNEL, and for a private channel invite the bot with /invite @bot", channel), true
	case "not_in_channel":
		return fmt.Sprintf("the bot is not a member of channel %s: invite it there with /invite @bot, or add the chat:write.public scope to the Slack app and reinstall it", channel), true
	case "is_archived":
		return fmt.Sprintf("channel %s is archived: unarchive it, or ask in another channel", channel), true
	case "invalid_auth", "not_authed":
		return "Slack refuses the bot token: set SLACK_BOT_TOKEN to the app's current bot token (xoxb-…, under OAuth & Permissions) and restart", true
	case "account_inactive":
		return "the bot token belongs to a deleted user or workspace: reinstall the Slack app and set SLACK_BOT_TOKEN to the new bot token", true
	case "token_revoked":
		return "the bot token was revoked or the app was removed from the workspace: reinstall the Slack app and set SLACK_BOT_TOKEN to the new bot token", true
	case "token_expired":
		return "the bot token expired (token rotation is on): turn token rotation off for the app, or refresh the token, and set SLACK_BOT_TOKEN", true
	case "missing_scope":
		need := se.Needed
		if need == "" {
			need = "chat:write"
		}
		return fmt.Sprintf("the Slack app lacks the scope %s: add it under OAuth & Permissions, reinstall the app, and set SLACK_BOT_TOKEN to the new token", need), true
	case "no_permission", "restricted_action", "ekm_access_denied", "org_login_required", "team_access_not_granted", "access_denied":
		return fmt.Sprintf("the workspace does not let the bot post in channel %s: ask a workspace admin to allow it, or ask in another channel", channel), true
	case "invalid_blocks", "invalid_blocks_format", "invalid_arguments", "msg_too_long", "msg_blocks_too_long",
		"no_text", "too_many_attachments", "invalid_metadata_format", "invalid_metadata_schema", "metadata_too_large":
		detail := ""
		if len(se.ResponseMetadata.Messages) > 0 {
			detail = " (" + strings.Join(se.ResponseMetadata.Messages, "; ") + ")"
		}
		return "Slack refused the message as malformed" + detail + ": this is a bug in the bot's rendering; shorten the question or its options, and report it with the inquiry", true
	case "message_not_found", "cant_update_message", "edit_window_closed":
		return "the question message is gone or can no longer be edited in Slack; its outcome stays in the API", true
	}
	return "", false
}

// withPage returns rec with the answer page its message may offer (inquiry.Service.BrowserLink:
// with BOT_PUBLIC_URL set, where no answerers are named), or where answerers are named the mark
// that each of them gets a link of their own by a click (blockkit.PersonalLinks); rec itself
// when neither.
func (a *App) withPage(rec *inquiry.Record) *inquiry.Record {
	link := a.svc.BrowserLink(rec)
	if link == "" && a.svc.OffersPersonalLinks(rec) {
		link = blockkit.PersonalLinks
	}
	if link == "" {
		return rec
	}
	out := *rec
	out.Links = &inquiry.Links{Answer: link}
	return &out
}
