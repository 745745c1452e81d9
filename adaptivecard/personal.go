package adaptivecard

import (
	"maps"
	"slices"

	"github.com/inquiry-bot/bot/inquiry"
)

// Personal links: where a question names who may answer it, the card everybody in the
// conversation sees carries no link to its answer page, since whoever holds one answers through
// it. A record whose Links.Answer is PersonalLinks (set for rendering by the Teams app, where
// inquiry.Service.OffersPersonalLinks) shows "View all" and "Edit on the web" as an
// Action.Execute of verb VerbPage, whose click gets the clicker alone a link of their own.
const (
	// PersonalLinks marks a record, as rendered, whose people each get a link of their own.
	PersonalLinks = "personal-links:"
	// VerbPage is the verb of the Action.Execute that asks for the clicker's own link.
	VerbPage = "page"
)

// WithPage is c as the person who asked for their own link sees it: each VerbPage button an
// Action.OpenUrl to url, under a line saying that the link is theirs. The bot answers the invoke
// with it, which Teams shows to that person alone; the card everybody else sees keeps its
// buttons.
func WithPage(c *Card, url string) *Card {
	out := *c
	out.Body = append([]Element{words("Your own link to this question's page is below: it answers as you, so keep it to yourself.", "Bolder")},
		opened(c.Body, url)...)
	return &out
}

// opened is a copy of els with every VerbPage Action.Execute an Action.OpenUrl to url; the
// elements it leaves as they are stay shared with els.
func opened(els []Element, url string) []Element {
	out := slices.Clone(els)
	for i, e := range out {
		if e["type"] == "Action.Execute" && e["verb"] == VerbPage {
			out[i] = Element{"type": "Action.OpenUrl", "title": e["title"], "url": url}
			continue
		}
		for _, member := range []string{"items", "actions"} {
			if sub, ok := e[member].([]Element); ok {
				e = maps.Clone(e)
				e[member] = opened(sub, url)
				out[i] = e
			}
		}
	}
	return out
}

// Named is rec as a card shows it: whoever answered and voted by the name names gives their id
// (the Entra object id the record keeps), the id where it gives none. It is a copy for
// rendering only; rec is left as it is.
func Named(rec *inquiry.Record, names map[string]string) *inquiry.Record {
	if len(names) == 0 {
		return rec
	}
	name := func(id string) string {
		if n, ok := names[id]; ok && n != "" {
			return n
		}
		return id
	}
	out := *rec
	out.Votes = renamed(rec.Votes, name)
	if rec.Answer != nil {
		a := *rec.Answer
		a.AnsweredBy = name(a.AnsweredBy)
		a.Votes = renamed(a.Votes, name)
		out.Answer = &a
	}
	return &out
}

func renamed(votes []inquiry.Vote, name func(string) string) []inquiry.Vote {
	if votes == nil {
		return nil
	}
	out := make([]inquiry.Vote, len(votes))
	for i, v := range votes {
		v.By = name(v.By)
		out[i] = v
	}
	return out
}
