package teamsapp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
)

// defaultRetryAfter is how long a 429 without Retry-After holds the conversation's deliveries.
const defaultRetryAfter = 2 * time.Second

// Post shows a pending inquiry as a card in the conversation its teams object names and returns
// the message's activity id.
func (a *App) Post(ctx context.Context, rec *inquiry.Record) (inquiry.Posted, error) {
	t := rec.Teams
	if t == nil || t.Conversation == "" {
		return inquiry.Posted{}, inquiry.Unavailable("inquiry %s names no Teams conversation to post to: name it in teams.conversation", rec.Key)
	}
	body := map[string]any{
		"type":        "message",
		"summary":     inquiry.OneLine(rec.Question, 120),
		"attachments": []adaptivecard.Attachment{adaptivecard.Attach(a.card(ctx, rec))},
	}
	id, err := a.send(ctx, http.MethodPost, serviceURL(t), t.Conversation, "", body)
	if err != nil {
		return inquiry.Posted{}, err
	}
	a.log.InfoContext(ctx, "question posted to teams", "key", rec.Key, "conversation", t.Conversation, "activity", id)
	return inquiry.Posted{Place: t.Conversation, ID: id}, nil
}

// card is rec's card as it now stands: the question, with an Extend button while more time may
// be given, or the outcome; people by their names (shown).
func (a *App) card(ctx context.Context, rec *inquiry.Record) *adaptivecard.Card {
	return adaptivecard.WithExtend(adaptivecard.Current(a.shown(ctx, rec), a.now()), rec)
}

// Update replaces every card of rec in Teams with the inquiry as it now stands — the question's
// and each escalation step's — for everyone in those conversations, where the invoke's answer
// replaced it only for the person who clicked. Each card is tried; an error to retry comes back
// before one that no retry mends, and a retry puts every card again (a PUT of the same card
// twice shows it once).
func (a *App) Update(ctx context.Context, rec *inquiry.Record) error {
	t := rec.Teams
	if t == nil {
		return nil
	}
	var retry, fatal error
	note := func(err error) {
		switch {
		case err == nil:
		case inquiry.Fatal(err):
			fatal = cmp.Or(fatal, err)
		default:
			retry = cmp.Or(retry, err)
		}
	}
	if where, ok := postedIn(rec); ok {
		note(a.put(ctx, t, where.Place, where.ID, a.card(ctx, rec)))
	}
	shown := a.shown(ctx, rec)
	for _, p := range rec.Escalations(inquiry.TransportTeams) {
		if p.Channel == "" || p.TS == "" {
			continue // a call in the question's thread: nothing of its own to update
		}
		c := adaptivecard.Resolved(shown)
		if rec.Status == inquiry.StatusPending && !rec.DueAt(a.now()) {
			c = adaptivecard.Escalated(shown, p.Step, a.now(), nil) // the mentions were made when it was posted
		}
		note(a.put(ctx, t, p.Channel, p.TS, c))
	}
	return cmp.Or(retry, fatal)
}

// put puts card in place of activity id in conversation conv.
func (a *App) put(ctx context.Context, t *inquiry.TeamsTarget, conv, id string, card *adaptivecard.Card) error {
	body := map[string]any{
		"type":        "message",
		"id":          id,
		"attachments": []adaptivecard.Attachment{adaptivecard.Attach(card)},
	}
	_, err := a.send(ctx, http.MethodPut, serviceURL(t), conv, id, body)
	return err
}

// Notice posts, in the conversation, the answer assumed by policy without asking anybody.
func (a *App) Notice(ctx context.Context, rec *inquiry.Record) error {
	t := rec.Teams
	if t == nil || t.Conversation == "" {
		return nil
	}
	body := map[string]any{
		"type":        "message",
		"attachments": []adaptivecard.Attachment{adaptivecard.Attach(adaptivecard.Resolved(rec))},
	}
	_, err := a.send(ctx, http.MethodPost, serviceURL(t), t.Conversation, "", body)
	return err
}

var _ inquiry.Reminder = (*App)(nil)

// Remind posts reminder n of a pending inquiry in reply to its question (in a channel, in the
// question's thread).
func (a *App) Remind(ctx context.Context, rec *inquiry.Record, n int) error {
	where, ok := postedIn(rec)
	if rec.Teams == nil || !ok {
		return nil // never posted: nobody to remind there
	}
	people := a.people(ctx, rec.Teams, where.Place, remindWho(rec))
	return a.reply(ctx, rec, where, adaptivecard.WithMentions(adaptivecard.Reminder(a.shown(ctx, rec), n, a.now()), people))
}

// remindWho is who a reminder calls on, as inquiry.Mentions says it for Slack: who may answer
// in Teams after the steps taken, or — when anybody may — those the steps taken named. Nobody
// is mentioned when nobody is named: Teams has no @here for a bot's card.
func remindWho(rec *inquiry.Record) []string {
	if ids := inquiry.TeamsAnswerers(rec); len(ids) > 0 {
		return ids
	}
	var out []string
	for i := 0; i < rec.Escalation && i < len(rec.Escalate); i++ {
		for _, a := range rec.Escalate[i].Answerers {
			if inquiry.EntraID(a) && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// reply posts card in reply to rec's question, where it was posted: in a channel, in the
// question's thread — the conversation "<channel>;messageid=<root>", as Teams names a thread
// (posting to the bare channel starts a new one); a chat has no threads.
func (a *App) reply(ctx context.Context, rec *inquiry.Record, where inquiry.Posted, card *adaptivecard.Card) error {
	body := map[string]any{
		"type":        "message",
		"replyToId":   where.ID,
		"attachments": []adaptivecard.Attachment{adaptivecard.Attach(card)},
	}
	conv := where.Place
	if channel := strings.HasPrefix(conv, "19:") && (strings.Contains(conv, "@thread.tacv2") || strings.Contains(conv, "@thread.skype")); channel && !strings.Contains(conv, ";messageid=") {
		conv += ";messageid=" + where.ID
	}
	_, err := a.send(ctx, http.MethodPost, serviceURL(rec.Teams), conv, where.ID, body)
	return err
}

// postedIn is where rec's question is shown in Teams — the conversation and the activity id —
// found false when it was not posted (yet). A record stored before its post named its
// conversation keeps it in its teams object.
func postedIn(rec *inquiry.Record) (inquiry.Posted, bool) {
	where, ok := rec.PostedOn(inquiry.TransportTeams)
	if !ok || where.ID == "" {
		return inquiry.Posted{}, false
	}
	if where.Place == "" && rec.Teams != nil {
		where.Place = rec.Teams.Conversation
	}
	return where, true
}

func serviceURL(t *inquiry.TeamsTarget) string {
	if t.ServiceURL != "" {
		return t.ServiceURL
	}
	return DefaultServiceURL
}

// send posts body to the conversation (with an activity id: in reply to it), or puts it in place
// of that activity, and returns the id of the activity. Its errors are what the dispatcher
// needs: *inquiry.RetryAfterError for a 429, a fatal inquiry.Unavailable saying what to fix for
// what no retry mends, anything else retried.
func (a *App) send(ctx context.Context, method, base, conv, activityID string, body any) (string, error) {
	u := strings.TrimSuffix(base, "/") + "/v3/conversations/" + url.PathEscape(conv) + "/activities"
	if activityID != "" {
		u += "/" + url.PathEscape(activityID)
	}
	// As written: a card's <at>…</at> mentions and the asker's < and & stay one byte for one.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return "", err
	}
	tok, err := a.tokens.Token()
	if err != nil {
		if re, ok := errors.AsType[*oauth2.RetrieveError](err); ok && re.Response != nil && re.Response.StatusCode < 500 {
			return "", inquiry.Unavailable("the token endpoint refused the bot's credentials (HTTP %d %s): check TEAMS_APP_ID, TEAMS_APP_PASSWORD and, for a single-tenant bot, TEAMS_TENANT_ID", re.Response.StatusCode, re.ErrorCode)
		}
		return "", fmt.Errorf("fetch the bot's token: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, &b)
	if err != nil {
		return "", inquiry.Unavailable("the Teams service URL %q is not a URL: fix teams.service_url", base)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	tok.SetAuthHeader(req)
	resp, err := a.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", method, u, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	verb := map[string]string{http.MethodPost: "post", http.MethodPut: "update"}[method]
	if method == http.MethodPost && activityID != "" {
		verb = "reply"
	}
	op := fmt.Sprintf("%s to Teams conversation %s", verb, conv)
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		var rr struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(raw, &rr)
		if rr.ID == "" {
			rr.ID = activityID
		}
		return rr.ID, nil
	case s == http.StatusTooManyRequests:
		return "", &inquiry.RetryAfterError{After: retryAfter(resp.Header.Get("Retry-After"), a.now()), Err: fmt.Errorf("%s: Teams is throttling the bot (HTTP 429)", op)}
	case s >= 500 || s == http.StatusPreconditionFailed:
		return "", fmt.Errorf("%s: HTTP %d: %s", op, s, errorText(raw))
	case s == http.StatusUnauthorized:
		return "", inquiry.Unavailable("%s: Teams refused the bot's token (HTTP 401): check TEAMS_APP_ID, TEAMS_APP_PASSWORD and TEAMS_TENANT_ID", op)
	case s == http.StatusForbidden || s == http.StatusNotFound:
		return "", inquiry.Unavailable("%s: Teams refused it (HTTP %d: %s): add the bot to that team or chat (install the app there), or check teams.conversation and teams.service_url", op, s, errorText(raw))
	case s == http.StatusRequestEntityTooLarge:
		return "", inquiry.Unavailable("%s: the card is too large for Teams (HTTP 413): shorten the question, its context or its options", op)
	default:
		return "", inquiry.Unavailable("%s: Teams refused it (HTTP %d: %s): check teams.conversation and teams.service_url", op, s, errorText(raw))
	}
}

// retryAfter reads a Retry-After of seconds or an HTTP date; none is defaultRetryAfter.
func retryAfter(h string, now time.Time) time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return defaultRetryAfter
}

// errorText is the message of a Connector error body, or the body itself, cut short.
func errorText(raw []byte) string {
	var e struct {
		Error struct {
			Code, Message string
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) == nil {
		switch {
		case e.Error.Message != "":
			return e.Error.Code + ": " + e.Error.Message
		case e.Message != "":
			return inquiry.OneLine(e.Message, 200)
		}
	}
	return inquiry.OneLine(string(raw), 200)
}
