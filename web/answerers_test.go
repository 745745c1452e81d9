package web_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// Who may answer through a link is the service's rule (inquiry.MayAnswer), and the page defers
// to it: these are the attacks an ask token could make through links before it was.

// TestAgentCannotApproveItsOwnFourEyes: an ask token creates a four-eyes question naming itself
// and its author, then tries to answer it through links of its own: it gets no general link,
// mints no recipient link (not even for people it names), and the question stays pending. A
// person's answer token, not the asker, may mint a link for a reviewer, whose vote counts.
func TestAgentCannotApproveItsOwnFourEyes(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.askWith(map[string]any{"kind": "confirm", "question": "Merge PR #14?", "approvals": 2,
			"requested_by": []string{"U_AUTHOR", "asker"}})
		require.Nil(t, q.Links, "no general link: it names who may answer")
		require.Nil(t, b.get(q.Key).Links, "nor on a read")
		for _, who := range []string{"alice@example.com", "bob@example.com"} {
			var e struct{ Error inquiry.Error }
			require.Equal(t, http.StatusForbidden, b.api("POST", "/v1/inquiries/"+q.Key+"/links", b.ask, map[string]string{"recipient": who}, &e))
		}
		got := b.get(q.Key)
		require.Equal(t, "pending", got.Status)
		require.Empty(t, got.Votes)

		// Two reviewers' links, minted by a person's answer token: two votes decide it.
		for _, who := range []string{"alice@example.com", "bob@example.com"} {
			m := b.mintAs(b.answerer, q.Key, who)
			p := b.post(m.URL, with(formOf(t, b.open(m.URL)), "step", "send", "value", "yes"))
			require.Equal(t, http.StatusOK, p.status, p.body)
		}
		got = b.get(q.Key)
		require.Equal(t, "answered", got.Status)
		require.Len(t, got.Answer.Votes, 2)
	})
}

// TestAskerLinkRefusedOnNamedAnswerers: a question whose slack.answerers names U1 carries no
// general link, its asker mints none, and a link the server made for somebody it does not name
// (as a link minted before this rule would be) is refused on the page.
func TestAskerLinkRefusedOnNamedAnswerers(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.askWith(map[string]any{"kind": "confirm", "question": "Deploy?", "slack": map[string]any{"answerers": []string{"U1"}}})
		require.Nil(t, q.Links)
		var e struct {
			Error struct{ Message string } `json:"error"`
		}
		require.Equal(t, http.StatusForbidden, b.api("POST", "/v1/inquiries/"+q.Key+"/links", b.ask, map[string]string{"recipient": "me@example.com"}, &e))
		require.Contains(t, e.Error.Message, "an asker never holds a link that answers its own question")

		rec, err := b.svc.Get(context.Background(), q.Key)
		require.NoError(t, err)
		m, err := b.svc.LinkFor(rec, "me@example.com")
		require.NoError(t, err)
		require.Equal(t, http.StatusForbidden, b.open(m.URL).status)
		require.Equal(t, "pending", b.get(q.Key).Status)
	})
}

// TestLinkExpiryPastAWeekRefused: expires_in past the 168 hours a link may work is refused with
// a sentence, not cut silently.
func TestLinkExpiryPastAWeekRefused(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.merge()
		var e struct {
			Error struct{ Message, Field string } `json:"error"`
		}
		require.Equal(t, http.StatusBadRequest, b.api("POST", "/v1/inquiries/"+q.Key+"/links", b.ask, map[string]string{"recipient": "alice@example.com", "expires_in": "8760h"}, &e))
		require.Equal(t, "expires_in", e.Error.Field)
		require.Contains(t, e.Error.Message, "at most 168h")
		m := b.mint(q.Key, "alice@example.com", "168h")
		require.NotEmpty(t, m.URL)
	})
}

// TestPageShowsDisguiseAsCodes: a question stored before the rule refused them (here written to
// the store directly) with a carriage return, a right-to-left override and a zero-width space
// shows each as a visible code (html/template writes its "+" as &#43;), inside <bdi> under the
// label that says whose words they are.
func TestPageShowsDisguiseAsCodes(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		now := b.clock.Now()
		rec := &inquiry.Record{Key: inquiry.NewKey(now), Namespace: "team", AskedBy: "asker", Status: inquiry.StatusPending, CreatedAt: now}
		rec.ID, rec.Kind = "old", inquiry.KindChoice
		rec.Question = "Merge PR \u202e41# ?"
		rec.Context = "CI: 214 tests FAILED\r   CI: all 214 tests passed"
		rec.Options = []inquiry.Option{{Value: "merge", Label: "Merge\u200b"}, {Value: "hold", Label: "Hold"}}
		rec.Config = inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportInbox}
		_, _, err := b.svc.Store.CreateInquiry(context.Background(), rec, nil)
		require.NoError(t, err)
		m := b.mintAs(b.admin, rec.Key, "alice@example.com")
		p := b.open(m.URL)
		require.Equal(t, http.StatusOK, p.status, p.body)
		require.Contains(t, p.body, `The question, as its asker wrote it:`)
		require.Contains(t, p.body, `<h1 id="question" dir="auto"><bdi>Merge PR ⟨U&#43;202E⟩41# ?</bdi></h1>`)
		require.Contains(t, p.body, `FAILED⟨U&#43;000D⟩   CI`)
		require.Contains(t, p.body, `<bdi>Merge⟨U&#43;200B⟩</bdi>`)
		require.NotContains(t, p.body, "\u202e")
		require.NotContains(t, p.body, "\r")
	})
}

// TestVouchedLinkEndsWithItsToken: a link a person's answer token minted for someone a question
// does not name works while that token holds, and not once it is revoked.
func TestVouchedLinkEndsWithItsToken(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.askWith(map[string]any{"kind": "confirm", "question": "Deploy?", "approvals": 2})
		m := b.mintAs(b.answerer, q.Key, "carol@example.com")
		require.Equal(t, http.StatusOK, b.open(m.URL).status)
		ctx := inquiry.WithCaller(context.Background(), inquiry.Operator())
		_, err := b.svc.RevokeToken(ctx, "answerer")
		require.NoError(t, err)
		p := b.open(m.URL)
		require.Equal(t, http.StatusGone, p.status, p.body)
		require.Contains(t, p.body, "was revoked")
		require.Equal(t, "pending", b.get(q.Key).Status)
	})
}
