package inquiry_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// The one rule of who may answer (inquiry.MayAnswer), over every kind of identity an edge hands
// in and every restriction a question can carry.
func TestMayAnswerEveryIdentityEveryRestriction(t *testing.T) {
	groups := map[string][]string{"S0OPS0001": {"U0BOB0001"}}
	slack := func(user string) inquiry.Identity {
		return inquiry.SlackUser(user, func(id string) (bool, error) {
			if id == "S0DOWN001" {
				return false, errors.New("usergroups.users.list: ratelimited")
			}
			return slices.Contains(groups[id], user), nil
		})
	}
	tok := func(name, ns string, bound bool, scopes ...inquiry.Scope) inquiry.Identity {
		return inquiry.TokenHolder(&inquiry.Token{Name: name, Namespace: ns, NamespaceBound: bound, Scopes: scopes})
	}
	link := func(recipient, mintedBy string) inquiry.Identity {
		return inquiry.LinkHolder(&inquiry.Link{Key: "inq_1", Recipient: recipient, MintedBy: mintedBy})
	}
	var (
		alice     = slack("U0ALICE01")
		bob       = slack("U0BOB0001") // in S0OPS0001
		carol     = slack("U0CAROL01")
		nobody    = slack("")
		person    = tok("ops", "ops", false, inquiry.ScopeAnswer) // a person's answer token
		asker     = tok("agent", "ns", true, inquiry.ScopeAsk)    // the token that asked
		askerBoth = tok("agent", "ns", true, inquiry.ScopeAsk, inquiry.ScopeAnswer)
		admin     = tok("root", "root", false, inquiry.ScopeAdmin)   // the operator, not the asker
		adminAsk  = tok("agent", "agent", false, inquiry.ScopeAdmin) // an admin that asked
		askOnly   = tok("other", "ns", true, inquiry.ScopeAsk)       // may not answer at all
		elsewhere = tok("team-b", "b", true, inquiry.ScopeAnswer)    // bound to another namespace
		inNS      = tok("team-a", "ns", true, inquiry.ScopeAnswer)   // bound to the inquiry's
		general   = link("", "")
		mailed    = link("alice@example.com", "")     // named by email.to
		stranger  = link("mallory@example.com", "")   // named by nobody
		vouched   = link("dave@example.com", "ops")   // minted by a token that may answer
		selfMade  = link("dave@example.com", "agent") // minted by the asker
		none      = inquiry.Identity{}
		tokenNil  = inquiry.Identity{Channel: inquiry.ChannelToken, ID: "ghost"}
		linkNil   = inquiry.Identity{Channel: inquiry.ChannelLink, ID: "x@example.com"}
	)
	two := 2
	rec := func(edit func(r *inquiry.Record)) *inquiry.Record {
		r := &inquiry.Record{Key: "inq_1", Namespace: "ns", AskedBy: "agent"}
		r.Kind = inquiry.KindConfirm
		if edit != nil {
			edit(r)
		}
		return r
	}
	var (
		plain     = rec(nil)
		answerers = rec(func(r *inquiry.Record) { r.Slack.Answerers = []string{"U0ALICE01", "S0OPS0001"} })
		groupDown = rec(func(r *inquiry.Record) { r.Slack.Answerers = []string{"S0DOWN001"} })
		requested = rec(func(r *inquiry.Record) {
			r.RequestedBy = []string{" u0alice01 ", "ＯＰＳ", "link:Mallory@Example.com", "token:root", "agent"}
		})
		quorum  = rec(func(r *inquiry.Record) { r.Approvals = &two })
		emailTo = rec(func(r *inquiry.Record) {
			r.Config.Transport = inquiry.TransportEmail
			r.Email = &inquiry.EmailTarget{To: []string{"Alice@Example.com"}}
		})
		escalated = rec(func(r *inquiry.Record) {
			r.Slack.Answerers = []string{"U0ALICE01"}
			r.Escalate = []inquiry.Step{{After: inquiry.Duration(time.Hour), Answerers: []string{"U0CAROL01"}}}
			r.Escalation = 1
		})
	)
	const ok = inquiry.Refusal("")
	cases := []struct {
		name  string
		rec   *inquiry.Record
		who   inquiry.Identity
		want  inquiry.Refusal // "" allowed
		named bool
	}{
		// Nobody named: no answer.
		{"no identity", plain, none, inquiry.RefusedNobody, false},
		{"a slack payload naming no user", plain, nobody, inquiry.RefusedNobody, false},
		{"a token identity without its token", plain, tokenNil, inquiry.RefusedNobody, false},
		{"a link identity without its link", plain, linkNil, inquiry.RefusedNobody, false},
		{"a channel the rule does not know", plain, inquiry.Identity{Channel: "carrier-pigeon", ID: "p1"}, inquiry.RefusedNobody, false},

		// A plain question: anybody who sees it, never the asking token.
		{"plain: slack user", plain, carol, ok, false},
		{"plain: a person's token", plain, person, ok, false},
		{"plain: the asking token (ask scope)", plain, asker, inquiry.RefusedScope, false},
		{"plain: the asking token with the answer scope", plain, askerBoth, inquiry.RefusedAsker, false},
		{"plain: an admin that asked", plain, adminAsk, ok, false},
		{"plain: an ask-only token", plain, askOnly, inquiry.RefusedScope, false},
		{"plain: a token bound to another namespace", plain, elsewhere, inquiry.RefusedNamespace, false},
		{"plain: a token bound to its namespace", plain, inNS, ok, false},
		{"plain: the general link", plain, general, ok, false},
		{"plain: a recipient's link", plain, stranger, ok, false},

		// Answerers on Slack: only they on Slack; tokens are the operator's named people.
		{"answerers: listed", answerers, alice, ok, true},
		{"answerers: member of a listed group", answerers, bob, ok, true},
		{"answerers: not listed", answerers, carol, inquiry.RefusedNotNamed, false},
		{"answerers: a group that cannot be read admits nobody", groupDown, bob, inquiry.RefusedNotNamed, false},
		{"answerers: an escalation step widens them", escalated, carol, ok, true},
		{"answerers: a person's token", answerers, person, ok, false},
		{"answerers: the asking token", answerers, askerBoth, inquiry.RefusedAsker, false},
		{"answerers: the general link", answerers, general, inquiry.RefusedAnybody, false},
		{"answerers: a link the asker made", answerers, selfMade, inquiry.RefusedNotNamed, false},
		{"answerers: a link of nobody's", answerers, stranger, inquiry.RefusedNotNamed, false},
		{"answerers: a link a person's token made", answerers, vouched, ok, false},

		// requested_by, compared in one canonical form, on every channel.
		{"requested_by: slack user, blanks and case", requested, alice, inquiry.RefusedRequester, false},
		{"requested_by: token, full-width", requested, person, inquiry.RefusedRequester, false},
		{"requested_by: token:<name>", requested, admin, inquiry.RefusedRequester, false},
		{"requested_by: an admin that asked and is named", requested, adminAsk, inquiry.RefusedRequester, false},
		{"requested_by: link:<recipient>", requested, stranger, inquiry.RefusedRequester, false},
		{"requested_by: someone else on slack", requested, carol, ok, false},
		{"requested_by: the general link", requested, general, inquiry.RefusedAnybody, false},
		{"requested_by: a link its asker made", requested, selfMade, inquiry.RefusedNotNamed, false},

		// A quorum needs named people.
		{"approvals: slack user", quorum, carol, ok, false},
		{"approvals: a person's token", quorum, person, ok, false},
		{"approvals: the general link", quorum, general, inquiry.RefusedAnybody, false},
		{"approvals: a link the asker made", quorum, selfMade, inquiry.RefusedNotNamed, false},
		{"approvals: a link a person's token made", quorum, vouched, ok, false},

		// E-mail recipients name who may answer through their links.
		{"email: a recipient's link, case folded", emailTo, mailed, ok, true},
		{"email: another's link", emailTo, stranger, inquiry.RefusedNotNamed, false},
		{"email: the general link", emailTo, general, inquiry.RefusedAnybody, false},
	}
	for _, c := range cases {
		got := inquiry.MayAnswer(c.rec, c.who)
		if got.Allowed != (c.want == ok) || got.Refused != c.want || got.Named != c.named {
			t.Errorf("%s: MayAnswer(%s) = %+v, want refusal %q named %v", c.name, c.who, got, c.want, c.named)
			continue
		}
		err := got.Err()
		switch {
		case c.want == ok && err != nil:
			t.Errorf("%s: allowed, yet Err() = %v", c.name, err)
		case c.want != ok && (inquiry.ErrorCode(err) != inquiry.CodeForbidden || inquiry.RefusalOf(err) != c.want):
			t.Errorf("%s: Err() = %v (code %q, refusal %q), want forbidden for %q", c.name, err, inquiry.ErrorCode(err), inquiry.RefusalOf(err), c.want)
		}
	}
	if p := inquiry.MayAnswer(groupDown, bob); !slices.Equal(p.Unchecked, []string{"S0DOWN001"}) {
		t.Errorf("a group that cannot be read is reported unchecked: %+v", p)
	}
}

// requested_by, answerers and recipients are compared in one canonical form: NFKC, blanks
// trimmed, case folded.
func TestCanonID(t *testing.T) {
	same := [][2]string{
		{"p0", "p0 "}, {"p0", " p0"}, {"p0", "ｐ０"}, {"p0", "P0"}, {"p0", "\u3000p0\u200b"},
		{"U0ALICE01", "u0alice01"}, {"alice@example.com", "Alice@EXAMPLE.com"}, {"straße", "STRASSE"},
	}
	for _, p := range same {
		if inquiry.CanonID(p[0]) != inquiry.CanonID(p[1]) {
			t.Errorf("CanonID(%q) = %q, CanonID(%q) = %q: want the same", p[0], inquiry.CanonID(p[0]), p[1], inquiry.CanonID(p[1]))
		}
	}
	for _, blank := range []string{"", " ", "\u2800", "\u115f", "\u3164", "\u200b\u200d", "\ufe0f", "\u3000"} {
		if got := inquiry.CanonID(blank); got != "" {
			t.Errorf("CanonID(%q) = %q, want empty: it looks blank", blank, got)
		}
	}
	if inquiry.CanonID("p0") == inquiry.CanonID("p1") {
		t.Error("p0 and p1 are two identities")
	}
}

// An identity's spelling with its channel, and as an answer records it.
func TestIdentitySpelling(t *testing.T) {
	cases := []struct {
		who         inquiry.Identity
		str, byWhom string
	}{
		{inquiry.SlackUser("U1", nil), "slack:U1", "U1"},
		{inquiry.TokenHolder(&inquiry.Token{Name: "ops"}), "token:ops", "ops"},
		{inquiry.LinkHolder(&inquiry.Link{Recipient: "alice@example.com", ExpiresAt: time.Now()}), "link:alice@example.com", "link:alice@example.com"},
		{inquiry.LinkHolder(&inquiry.Link{}), "link", "link"},
		{inquiry.TokenHolder(nil), "", ""},
	}
	for _, c := range cases {
		if c.who.String() != c.str || c.who.AnsweredBy() != c.byWhom {
			t.Errorf("%+v: String %q AnsweredBy %q, want %q and %q", c.who, c.who.String(), c.who.AnsweredBy(), c.str, c.byWhom)
		}
	}
}

// A run's caller hands back an answer only where nobody is named.
func TestMayHandBack(t *testing.T) {
	agent := &inquiry.Token{Name: "agent", Scopes: []inquiry.Scope{inquiry.ScopeAsk}}
	plain := &inquiry.Record{Key: "inq_1", AskedBy: "agent"}
	named := &inquiry.Record{Key: "inq_2", AskedBy: "agent"}
	named.Slack.Answerers = []string{"U1"}
	mine := &inquiry.Record{Key: "inq_3", AskedBy: "agent"}
	mine.RequestedBy = []string{"Agent "}
	if err := inquiry.MayHandBack(plain, agent); err != nil {
		t.Errorf("a plain question: %v", err)
	}
	for _, rec := range []*inquiry.Record{named, mine} {
		if err := inquiry.MayHandBack(rec, agent); inquiry.ErrorCode(err) != inquiry.CodeForbidden {
			t.Errorf("%s: MayHandBack = %v, want forbidden", rec.Key, err)
		}
	}
	if err := inquiry.MayHandBack(plain, nil); inquiry.ErrorCode(err) != inquiry.CodeUnauthenticated {
		t.Errorf("no caller: %v", err)
	}
}
