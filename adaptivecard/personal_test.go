package adaptivecard_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
)

const (
	aliceID = "b15a9416-0ad3-4172-9210-7beb711d3f70"
	bobID   = "c5e99701-2a32-49c1-a660-4629ceeb8c61"
	// ownLink stands for the link the bot mints for one person.
	ownLink = "https://bot.example.com/a/b3duLWxpbmstb2YtYWxpY2U.personal"
)

// named is a pending confirm whose proposal is past the card's lines and editable, asked of the
// Teams answerers Alice and Bob: it has no general link, and its people get links of their own.
func named() *inquiry.Record {
	rec := withProposal(&inquiry.Proposal{Format: inquiry.FormatDiff, Content: proposalOf(inquiry.FormatDiff, 51), Editable: true})
	rec.Links = &inquiry.Links{Answer: adaptivecard.PersonalLinks}
	rec.Teams.Answerers = []string{aliceID, bobID}
	return rec
}

// quorum is a pending Choice that needs two people, with the votes given.
func quorum(votes ...inquiry.Vote) *inquiry.Record {
	rec := choice(3, false)
	two := 2
	rec.Approvals = &two
	rec.Teams.Answerers = []string{aliceID, bobID, "d3a4c1f0-1111-4222-8333-944455556666"}
	rec.Votes = votes
	return rec
}

func vote(by, value string) inquiry.Vote {
	return inquiry.Vote{By: by, Value: inquiry.One(value), At: now.Add(-time.Minute), Via: inquiry.ViaTeams}
}

var teamNames = map[string]string{aliceID: "Alice Example"} // Bob: the roster gave no name

// personalCases are the golden cards of a question that names who may answer: its page as each
// person's own (Action.Execute, verb page), the card the clicker alone sees with their link, and
// people shown by the names Teams gives them.
func personalCases() []goldenCase {
	reqBy := withProposal(&inquiry.Proposal{Format: inquiry.FormatJSON, Content: `{"replicas": 3}`, Editable: true})
	reqBy.Links = &inquiry.Links{Answer: adaptivecard.PersonalLinks}
	reqBy.RequestedBy = []string{bobID}
	decided := quorum(vote(aliceID, "merge"), vote(bobID, "merge"))
	decided = answered(decided, inquiry.Answer{Value: inquiry.One("merge"), AnsweredBy: bobID, Votes: decided.Votes})
	return []goldenCase{
		{"proposal_named_answerers", func() *adaptivecard.Card { return adaptivecard.Question(named(), now) }},
		{"proposal_named_requested_by", func() *adaptivecard.Card { return adaptivecard.Question(reqBy, now) }},
		{"proposal_own_page", func() *adaptivecard.Card { return adaptivecard.WithPage(adaptivecard.Question(named(), now), ownLink) }},
		{"quorum_tally_named", func() *adaptivecard.Card {
			return adaptivecard.Question(adaptivecard.Named(quorum(vote(aliceID, "merge")), teamNames), now)
		}},
		{"resolved_quorum_named", func() *adaptivecard.Card { return adaptivecard.Resolved(adaptivecard.Named(decided, teamNames)) }},
		{"resolved_chosen_named", func() *adaptivecard.Card {
			rec := answered(choice(3, false), inquiry.Answer{Value: inquiry.One("merge"), AnsweredBy: aliceID})
			return adaptivecard.Resolved(adaptivecard.Named(rec, teamNames))
		}},
	}
}

// actionsOf are the actions of c titled title, wherever they stand.
func actionsOf(c *adaptivecard.Card, title string) []adaptivecard.Element {
	var out []adaptivecard.Element
	var walk func(els []adaptivecard.Element)
	walk = func(els []adaptivecard.Element) {
		for _, e := range els {
			for _, a := range asElements(e["actions"]) {
				if a["title"] == title {
					out = append(out, a)
				}
			}
			walk(asElements(e["items"]))
		}
	}
	walk(c.Body)
	return out
}

// TestPageOfANamedQuestionIsEachPersonsOwn: where the record offers personal links, "View all"
// and "Edit on the web" ask the bot for the clicker's link (verb page, the inquiry's key);
// without them (no public address) a named question offers no button; a plain question keeps
// its page's URL; a resolved card offers no page button.
func TestPageOfANamedQuestionIsEachPersonsOwn(t *testing.T) {
	for _, title := range []string{"View all", "Edit on the web"} {
		acts := actionsOf(adaptivecard.Question(named(), now), title)
		if len(acts) != 1 || acts[0]["type"] != "Action.Execute" || acts[0]["verb"] != adaptivecard.VerbPage ||
			adaptivecard.Key(acts[0]["data"].(adaptivecard.Element)) != "inq_01JTEAMS" {
			t.Errorf("named answerers, %s: want one Action.Execute of verb page carrying the key, got %v", title, acts)
		}
		off := named()
		off.Links = nil
		if acts := actionsOf(adaptivecard.Question(off, now), title); len(acts) != 0 {
			t.Errorf("named answerers without personal links, %s: want no button, got %v", title, acts)
		}
		plain := named()
		plain.Teams.Answerers = nil
		plain.Links = &inquiry.Links{Answer: answerPage}
		if acts := actionsOf(adaptivecard.Question(plain, now), title); len(acts) != 1 || acts[0]["type"] != "Action.OpenUrl" || acts[0]["url"] != answerPage {
			t.Errorf("a plain question, %s: want the page's URL, got %v", title, acts)
		}
		plain.Links = nil
		if acts := actionsOf(adaptivecard.Question(plain, now), title); len(acts) != 0 {
			t.Errorf("a plain question without a page, %s: want no button, got %v", title, acts)
		}
	}
	done := answered(named(), inquiry.Answer{Value: inquiry.One("yes"), AnsweredBy: aliceID})
	if acts := actionsOf(adaptivecard.Resolved(done), "View all"); len(acts) != 0 {
		t.Errorf("a resolved card: want no page button, got %v", acts)
	}
}

// TestWithPageOpensTheLinkAndLeavesTheCard: the clicker's card opens their link from both
// buttons and keeps its answer buttons; the card it was made from is left as it was, since
// everybody else's card is that one.
func TestWithPageOpensTheLinkAndLeavesTheCard(t *testing.T) {
	shared := adaptivecard.Question(named(), now)
	before := adaptivecard.Marshal(shared)
	own := adaptivecard.WithPage(shared, ownLink)
	for _, title := range []string{"View all", "Edit on the web"} {
		if acts := actionsOf(own, title); len(acts) != 1 || acts[0]["type"] != "Action.OpenUrl" || acts[0]["url"] != ownLink {
			t.Errorf("%s: want an Action.OpenUrl to the person's link, got %v", title, acts)
		}
	}
	if acts := actionsOf(own, "Yes"); len(acts) != 1 || acts[0]["verb"] != adaptivecard.Verb {
		t.Errorf("the answer buttons should stay on the clicker's card, got %v", acts)
	}
	if !bytes.Equal(adaptivecard.Marshal(shared), before) {
		t.Errorf("WithPage changed the card it was given:\n%s", adaptivecard.Marshal(shared))
	}
	if strings.Contains(string(before), ownLink) {
		t.Error("the shared card carries the person's link")
	}
}

// TestNamedShowsNamesAndKeepsTheRecord: the outcome and the tally name people by the names
// given, the ids of those without one; the record keeps its ids.
func TestNamedShowsNamesAndKeepsTheRecord(t *testing.T) {
	rec := quorum(vote(aliceID, "merge"), vote(bobID, "merge"))
	rec = answered(rec, inquiry.Answer{Value: inquiry.One("merge"), AnsweredBy: bobID, Votes: rec.Votes})
	card := string(adaptivecard.Marshal(adaptivecard.Resolved(adaptivecard.Named(rec, teamNames))))
	if !strings.Contains(card, "chosen by Alice Example and "+bobID) {
		t.Errorf("want the outcome by Alice's name and Bob's id, got %s", card)
	}
	if rec.Answer.Votes[0].By != aliceID || rec.Answer.AnsweredBy != bobID {
		t.Errorf("Named changed the record: %+v", rec.Answer)
	}
	pending := string(adaptivecard.Marshal(adaptivecard.Question(adaptivecard.Named(quorum(vote(aliceID, "merge")), teamNames), now)))
	if !strings.Contains(pending, "1 given so far (1 of 2 for Label merge: Alice Example)") {
		t.Errorf("want the tally to name Alice, got %s", pending)
	}
}
