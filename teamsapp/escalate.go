package teamsapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
)

var _ inquiry.Escalator = (*App)(nil)

// Escalate shows escalation step (1-based) of a pending inquiry asked in Teams: a step with a
// conversation gets the question's card there, headed by why and mentioning the step's
// answerers when it says mention; a step without one, that mentions its answerers, calls on them
// in reply to the question. The step's conversation is reached through the question's
// serviceUrl (one tenant, one Connector). A conversation that is no Teams one, or that refuses
// the bot, is a fatal error saying how to fix it.
//
// There is no EscalationFinder: the Connector cannot list a conversation's activities (see the
// package comment), so a post whose answer was lost is posted again on the retry.
func (a *App) Escalate(ctx context.Context, rec *inquiry.Record, step int) (inquiry.Placement, error) {
	if step < 1 || step > len(rec.Escalate) || rec.Teams == nil {
		return inquiry.Placement{}, nil
	}
	st := rec.Escalate[step-1]
	if st.Channel == "" {
		where, ok := postedIn(rec)
		if !st.Mention || len(st.Answerers) == 0 || !ok {
			return inquiry.Placement{}, nil
		}
		people := a.people(ctx, rec.Teams, where.Place, st.Answerers)
		if err := a.reply(ctx, rec, where, adaptivecard.EscalatedInThread(rec, step, a.now(), people)); err != nil {
			return inquiry.Placement{}, err
		}
		a.log.InfoContext(ctx, "escalation called on in the question's thread", "key", rec.Key, "step", step)
		return inquiry.Placement{}, nil
	}
	if !inquiry.TeamsConversationID(st.Channel) {
		return inquiry.Placement{}, inquiry.Unavailable("escalate[%d].channel %q is no Teams conversation, and inquiry %s is asked in Teams: name the conversation the bot says when mentioned there, such as \"19:…@thread.tacv2\"", step-1, inquiry.OneLine(st.Channel, 40), rec.Key)
	}
	var people []adaptivecard.Person
	if st.Mention {
		people = a.people(ctx, rec.Teams, st.Channel, st.Answerers)
	}
	body := map[string]any{
		"type":        "message",
		"summary":     inquiry.OneLine(inquiry.EscalationText(rec, step)+" "+rec.Question, 120),
		"attachments": []adaptivecard.Attachment{adaptivecard.Attach(adaptivecard.Escalated(a.shown(ctx, rec), step, a.now(), people))},
	}
	id, err := a.send(ctx, http.MethodPost, serviceURL(rec.Teams), st.Channel, "", body)
	if err != nil {
		return inquiry.Placement{}, err
	}
	a.log.InfoContext(ctx, "question escalated in teams", "key", rec.Key, "conversation", st.Channel, "activity", id, "step", step)
	return inquiry.Placement{Step: step, Via: inquiry.TransportTeams, Channel: st.Channel, TS: id}, nil
}

// people are the Entra object ids ids as Teams names them in conversation conv: each one's
// name, read from the conversation's roster (GET …/members/{id}, which takes an object id) or
// kept from before (App.name). One the roster does not give is mentioned by the id it was named
// by: the mention still reaches them, and a roster that cannot be read never holds the
// escalation back.
func (a *App) people(ctx context.Context, t *inquiry.TeamsTarget, conv string, ids []string) []adaptivecard.Person {
	out := make([]adaptivecard.Person, 0, len(ids))
	for _, id := range ids {
		if !inquiry.EntraID(id) {
			continue // a Slack id of a step that also asks in Slack
		}
		p := adaptivecard.Person{ID: id, Name: id}
		if name := a.name(ctx, t, conv, id); name != "" {
			p.Name = name
		}
		out = append(out, p)
	}
	return out
}

// member is one member of a conversation, as the Connector's roster gives it.
type member struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	AADObjectID string `json:"aadObjectId"`
}

// errNotMember is the roster's answer for somebody who is not a member of the conversation.
var errNotMember = errors.New("not a member of the conversation")

func (a *App) member(ctx context.Context, base, conv, id string) (member, error) {
	var m member
	tok, err := a.tokens.Token()
	if err != nil {
		return m, err
	}
	u := strings.TrimSuffix(base, "/") + "/v3/conversations/" + url.PathEscape(conv) + "/members/" + url.PathEscape(id)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return m, err
	}
	tok.SetAuthHeader(req)
	resp, err := a.client.Do(req)
	if err != nil {
		return m, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return m, fmt.Errorf("%w: HTTP 404: %s", errNotMember, errorText(raw))
	default:
		return m, fmt.Errorf("HTTP %d: %s", resp.StatusCode, errorText(raw))
	}
	return m, json.Unmarshal(raw, &m)
}
