package teamsapp

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
)

// Names. The record keeps people by their Entra object id (answered_by, a vote's by), which has
// no field for a name; a card shows the name Teams gives them instead. It comes from the
// invoke of their own click (from.name) or from the conversation's roster, and is kept in
// memory per conversation and id, in a bounded LRU, for the App's life; the record gains
// nothing. Where neither gives a name the card shows the id.

// maxNames bounds the names kept: one entry is a few dozen bytes, and a team's questions name
// far fewer people.
const maxNames = 4096

// nameLookupTime bounds the roster lookups of one card, so that a slow roster never holds an
// update back for long: past it the card shows ids.
const nameLookupTime = 5 * time.Second

// nameKey is one person in one conversation's roster.
type nameKey struct{ conversation, id string }

// rosterKey is the conversation a name is kept under: a channel's thread
// ("<channel>;messageid=<root>") shares its channel's roster.
func rosterKey(conv, id string) nameKey {
	conv, _, _ = strings.Cut(conv, ";messageid=")
	return nameKey{conversation: conv, id: inquiry.CanonID(id)}
}

// heard keeps the name the invoke of who's click gave (from.name), in the conversation of rec's
// question, where the card's update will look for it.
func (a *App) heard(rec *inquiry.Record, who inquiry.Identity, name string) {
	name = strings.TrimSpace(name)
	if name == "" || rec.Teams == nil || !inquiry.EntraID(who.ID) {
		return
	}
	a.names.Add(rosterKey(rec.Teams.Conversation, who.ID), name)
}

// name is the name of the Entra object id id in conversation conv: the one kept, or else the
// roster's, "" when neither gives one. A roster that says the person is not a member is kept
// as no name; one that cannot be read now is asked again next time.
func (a *App) name(ctx context.Context, t *inquiry.TeamsTarget, conv, id string) string {
	k := rosterKey(conv, id)
	if n, ok := a.names.Get(k); ok {
		return n
	}
	m, err := a.member(ctx, serviceURL(t), conv, id)
	switch {
	case errors.Is(err, errNotMember):
		a.names.Add(k, "")
		return ""
	case err != nil:
		a.log.InfoContext(ctx, "teams: no name for a person; shown by id", "conversation", conv, "person", id, "err", err)
		return ""
	}
	a.names.Add(k, m.Name)
	return m.Name
}

// shown is rec as its cards in Teams show it: with the answer page everybody there may open
// where it has one (inquiry.Service.BrowserLink), or where it names who may answer, a page of
// each person's own (adaptivecard.PersonalLinks); and whoever answered or voted by their name
// in the conversation of its question.
func (a *App) shown(ctx context.Context, rec *inquiry.Record) *inquiry.Record {
	out := rec
	link := a.svc.BrowserLink(rec)
	if link == "" && a.svc.OffersPersonalLinks(rec) {
		link = adaptivecard.PersonalLinks
	}
	if link != "" {
		cp := *rec
		cp.Links = &inquiry.Links{Answer: link}
		out = &cp
	}
	if rec.Teams == nil || rec.Teams.Conversation == "" {
		return out
	}
	var ids []string
	if rec.Answer != nil {
		ids = append(ids, rec.Answer.AnsweredBy)
		for _, v := range rec.Answer.Votes {
			ids = append(ids, v.By)
		}
	}
	for _, v := range rec.Votes {
		ids = append(ids, v.By)
	}
	ctx, cancel := context.WithTimeout(ctx, nameLookupTime)
	defer cancel()
	names := map[string]string{}
	for _, id := range ids {
		if _, done := names[id]; done || !inquiry.EntraID(id) {
			continue // a Slack id or a token's name, of a vote given elsewhere, stays as it is
		}
		names[id] = a.name(ctx, rec.Teams, rec.Teams.Conversation, id)
	}
	return adaptivecard.Named(out, names)
}
