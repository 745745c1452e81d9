package inquiry_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

const personalBase = "https://bot.example.com"

var base64URL = base64.RawURLEncoding

// fourEyes asks a confirm that needs two of U1, U2, U3 and the members of group S1, with U3
// the one who requested it, in Slack; and aad-1 in Teams.
func fourEyes(t *testing.T) (*fanOut, *inquiry.Record) {
	t.Helper()
	f := setupFanOut(t)
	f.svc.LinkSecret, f.svc.PublicURL = []byte("link-secret"), personalBase
	two := 2
	in := inquiry.Inquiry{ID: "deploy", Kind: inquiry.KindConfirm, Question: "Deploy?",
		Approval: inquiry.Approval{Approvals: &two, RequestedBy: []string{"U3"}}}
	req := ask(inquiry.PolicyAsk, in)
	req.Slack = &inquiry.SlackTarget{Channel: "C1", Answerers: []string{"U1", "U2", "U3", "S1"}}
	req.Teams = &inquiry.TeamsTarget{Conversation: "19:c@thread.tacv2", Answerers: []string{"aad-1"}}
	rec, _, err := f.svc.Ask(f.ctx, req)
	require.NoError(t, err)
	return f, rec
}

// inS1 reads group S1's members as Slack would: U7 is one.
func inS1(group string) (bool, error) { return group == "S1", nil }

// tokenOf is the token of a link under personalBase.
func tokenOf(t *testing.T, url string) string {
	t.Helper()
	tok, ok := strings.CutPrefix(url, personalBase+inquiry.LinkPath)
	require.True(t, ok, "link %q is not absolute under the public URL", url)
	return tok
}

// A personal link is its person's: minted only for whom MayAnswer allows (in its own sentence
// otherwise), it answers as them — answered_by as their click, via web — so their vote is one
// vote however many ways they give it.
func TestPersonalLink(t *testing.T) {
	yes := inquiry.Reply{Value: inquiry.One("yes")}
	for _, tc := range []struct {
		name    string
		who     inquiry.Identity
		before  func(f *fanOut, rec *inquiry.Record) // what happens before the link is used
		refused inquiry.Refusal                      // minting refused so
		code    inquiry.Code                         // minting refused with another code
		by      string                               // the vote through the link is recorded as
	}{
		{name: "a named person answers as themselves", who: inquiry.SlackUser("U1", nil), by: "U1"},
		{name: "the requester is refused", who: inquiry.SlackUser("U3", nil), refused: inquiry.RefusedRequester},
		{name: "someone not named is refused", who: inquiry.SlackUser("U9", inS1Not), refused: inquiry.RefusedNotNamed},
		{name: "a member of a named group is vouched for at mint", who: inquiry.SlackUser("U7", inS1), by: "U7"},
		{name: "a Teams person answers as their Entra id", who: inquiry.Identity{Channel: inquiry.ChannelTeams, ID: "aad-1"}, by: "aad-1"},
		{name: "a Teams person not named is refused", who: inquiry.Identity{Channel: inquiry.ChannelTeams, ID: "aad-9"}, refused: inquiry.RefusedNotNamed},
		{name: "a token is no channel-verified person", who: inquiry.TokenHolder(&inquiry.Token{Name: "slack:U1", Scopes: []inquiry.Scope{inquiry.ScopeAnswer}}), code: inquiry.CodeForbidden},
		{name: "a click in Slack, then a vote through the link, is one vote", who: inquiry.SlackUser("U1", nil), by: "U1",
			before: func(f *fanOut, rec *inquiry.Record) {
				_, err := f.svc.Answer(f.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("yes")}, inquiry.SlackUser("U1", nil))
				require.NoError(t, err)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, rec := fourEyes(t)
			url, err := f.svc.PersonalLink(f.ctx, rec.Key, tc.who)
			switch {
			case tc.refused != "":
				require.Equal(t, tc.refused, inquiry.RefusalOf(err), "%v", err)
				require.Equal(t, inquiry.MayAnswer(rec, tc.who).Err().Error(), err.Error(), "the same sentence as a click's refusal")
				require.Empty(t, url)
				return
			case tc.code != "":
				require.Equal(t, tc.code, inquiry.ErrorCode(err), "%v", err)
				require.Empty(t, url)
				return
			}
			require.NoError(t, err)
			tok := tokenOf(t, url)
			if tc.before != nil {
				tc.before(f, rec)
			}
			opened, l, err := f.svc.OpenLink(f.ctx, tok)
			require.NoError(t, err)
			require.Equal(t, rec.Key, opened.Key)
			require.Equal(t, tc.by, l.Who(), "the page says whom it answers as")

			out, err := f.svc.AnswerByLink(f.ctx, tok, yes)
			require.NoError(t, err)
			require.Equal(t, inquiry.StatusPending, out.Status, "one person's approval of two")
			require.Len(t, out.Votes, 1, "one person, one vote: %+v", out.Votes)
			require.Equal(t, tc.by, out.Votes[0].By)
			require.Equal(t, inquiry.ViaWeb, out.Votes[0].Via)
		})
	}
}

func inS1Not(string) (bool, error) { return false, nil }

// Two people's links decide a quorum, each a distinct vote; the answer names both as their
// clicks would.
func TestPersonalLinksDecideAQuorum(t *testing.T) {
	f, rec := fourEyes(t)
	yes := inquiry.Reply{Value: inquiry.One("yes")}
	for _, who := range []inquiry.Identity{inquiry.SlackUser("U1", nil), inquiry.SlackUser("U2", nil)} {
		url, err := f.svc.PersonalLink(f.ctx, rec.Key, who)
		require.NoError(t, err)
		rec, err = f.svc.AnswerByLink(f.ctx, tokenOf(t, url), yes)
		require.NoError(t, err)
	}
	require.Equal(t, inquiry.StatusAnswered, rec.Status)
	var by []string
	for _, v := range rec.Answer.Votes {
		by = append(by, v.By)
	}
	require.ElementsMatch(t, []string{"U1", "U2"}, by)

	_, err := f.svc.PersonalLink(f.ctx, rec.Key, inquiry.SlackUser("U1", nil))
	require.Equal(t, inquiry.CodeAlreadyResolved, inquiry.ErrorCode(err), "no link of a decided question: %v", err)
}

// A personal link's identity is signed: changing whom it names, or its group, makes it a link
// the bot did not make.
func TestPersonalLinkAlteredIsNotTheBots(t *testing.T) {
	f, rec := fourEyes(t)
	url, err := f.svc.PersonalLink(f.ctx, rec.Key, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	tok := tokenOf(t, url)
	payload, mac, _ := strings.Cut(tok, ".")
	raw, err := base64URL.DecodeString(payload)
	require.NoError(t, err)
	for _, change := range []struct{ from, to string }{{"slack:U1", "slack:U2"}, {"slack:U1\x00", "slack:U1\x00S1"}} {
		altered := strings.Replace(string(raw), change.from, change.to, 1)
		require.NotEqual(t, string(raw), altered)
		_, _, err := f.svc.OpenLink(f.ctx, base64URL.EncodeToString([]byte(altered))+"."+mac)
		require.Equal(t, inquiry.CodeNotFound, inquiry.ErrorCode(err), "%q → %q: %v", change.from, change.to, err)
		require.Contains(t, err.Error(), "not one the bot made")
	}
}

// Without a public address or a link secret there is no link to give, and the refusal says so
// in one sentence.
func TestPersonalLinkNeedsPublicURLAndSecret(t *testing.T) {
	f, rec := fourEyes(t)
	f.svc.PublicURL = ""
	_, err := f.svc.PersonalLink(f.ctx, rec.Key, inquiry.SlackUser("U1", nil))
	require.Equal(t, inquiry.CodeUnavailable, inquiry.ErrorCode(err), "%v", err)
	require.Contains(t, err.Error(), "BOT_PUBLIC_URL")
	f.svc.PublicURL, f.svc.LinkSecret = personalBase, nil
	_, err = f.svc.PersonalLink(f.ctx, rec.Key, inquiry.SlackUser("U1", nil))
	require.Equal(t, inquiry.CodeUnavailable, inquiry.ErrorCode(err), "%v", err)
	require.Contains(t, err.Error(), "link secret")
}

// A shared message offers personal links exactly where BrowserLink offers none because
// answerers are named, and the server can make links at all.
func TestOffersPersonalLinks(t *testing.T) {
	f, rec := fourEyes(t)
	require.True(t, f.svc.OffersPersonalLinks(rec))
	require.Empty(t, f.svc.BrowserLink(rec))
	f.svc.PublicURL = ""
	require.False(t, f.svc.OffersPersonalLinks(rec), "no public address, no link")
	f.svc.PublicURL = personalBase

	open, _, err := f.svc.Ask(f.ctx, ask(inquiry.PolicyAsk, merge()))
	require.NoError(t, err)
	require.False(t, f.svc.OffersPersonalLinks(open), "a question that names nobody has its general link")
	require.NotEmpty(t, f.svc.BrowserLink(open))

	_, err = f.svc.Cancel(f.ctx, rec.Key)
	require.NoError(t, err)
	rec, err = f.svc.Get(f.ctx, rec.Key)
	require.NoError(t, err)
	require.False(t, f.svc.OffersPersonalLinks(rec), "a decided question answers nothing")
}

// A question never asked in Teams names nobody there, yet is nobody's to answer from Teams: a
// Teams click (or a link minted from one) carrying the key of a Slack-only question whose
// answerers are named is refused, not admitted as "anybody on a channel that names nobody".
func TestTeamsPersonCannotAnswerAQuestionNotAskedInTeams(t *testing.T) {
	f := setupFanOut(t)
	f.svc.LinkSecret, f.svc.PublicURL = []byte("link-secret"), personalBase
	two := 2
	in := inquiry.Inquiry{ID: "deploy", Kind: inquiry.KindConfirm, Question: "Deploy?",
		Approval: inquiry.Approval{Approvals: &two}}
	req := ask(inquiry.PolicyAsk, in)
	req.Slack = &inquiry.SlackTarget{Channel: "C1", Answerers: []string{"U1", "U2"}}
	rec, _, err := f.svc.Ask(f.ctx, req)
	require.NoError(t, err)
	require.Nil(t, rec.Teams)

	stranger := inquiry.Identity{Channel: inquiry.ChannelTeams, ID: "aad-9"}
	p := inquiry.MayAnswer(rec, stranger)
	require.False(t, p.Allowed, "a Teams identity on a Slack-only question")
	require.Equal(t, inquiry.RefusedNotNamed, p.Refused)

	url, err := f.svc.PersonalLink(f.ctx, rec.Key, stranger)
	require.Equal(t, inquiry.CodeForbidden, inquiry.ErrorCode(err), "%v", err)
	require.Empty(t, url)

	_, err = f.svc.Answer(f.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("yes")}, stranger)
	require.Equal(t, inquiry.CodeForbidden, inquiry.ErrorCode(err), "%v", err)
}

// A personal link that got out (pasted where others see it) can be revoked as a recipient's
// can: naming the person's channel identity, spelt in any case, ends every link of theirs
// issued so far, their next click mints one that works, and revoking the general link
// leaves personal links be.
func TestPersonalLinkCanBeRevoked(t *testing.T) {
	f, rec := fourEyes(t)
	admin := inquiry.WithCaller(f.ctx, &inquiry.Token{Name: "root", Scopes: []inquiry.Scope{inquiry.ScopeAdmin}})
	url, err := f.svc.PersonalLink(f.ctx, rec.Key, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	other, err := f.svc.PersonalLink(f.ctx, rec.Key, inquiry.SlackUser("U2", nil))
	require.NoError(t, err)

	_, err = f.svc.RevokeLinks(admin, rec.Key, "answer")
	require.NoError(t, err)
	_, _, err = f.svc.OpenLink(f.ctx, tokenOf(t, url))
	require.NoError(t, err, "revoking the general link leaves personal links be")

	f.clock.Add(time.Second)
	got, err := f.svc.RevokeLinks(admin, rec.Key, "slack:u1")
	require.NoError(t, err)
	require.Equal(t, "slack:u1", got.Recipient)
	_, _, err = f.svc.OpenLink(f.ctx, tokenOf(t, url))
	require.Equal(t, inquiry.CodeGone, inquiry.ErrorCode(err), "%v", err)
	_, _, err = f.svc.OpenLink(f.ctx, tokenOf(t, other))
	require.NoError(t, err, "another person's link still works")

	f.clock.Add(time.Second)
	again, err := f.svc.PersonalLink(f.ctx, rec.Key, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	_, _, err = f.svc.OpenLink(f.ctx, tokenOf(t, again))
	require.NoError(t, err, "a link minted after the revocation works")
}
