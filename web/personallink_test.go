package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestPersonalLinkPage: the page of a link given to one person a question names (a Slack user
// who clicked "View all") shows the question, says whom it answers as, and records their vote
// as their click would be recorded, via web: the same person voting again in Slack is still one
// vote. The link stops working at its end, and a requester gets none, in the sentence a click
// of theirs gets.
func TestPersonalLinkPage(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		const base = "https://bot.example.com"
		b := setup(t, dbURL, func(o *setupOpts) { o.publicURL = base })
		q := b.askWith(map[string]any{"kind": "confirm", "question": "Merge PR #14?", "approvals": 2,
			"requested_by": []string{"U3"}, "slack": map[string]any{"answerers": []string{"U1", "U2", "U3"}},
			"proposal": map[string]any{"format": "diff", "content": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n"}})
		require.Nil(t, q.Links, "no general link: it names who may answer")
		ctx := context.Background()

		rec, err := b.svc.Get(ctx, q.Key)
		require.NoError(t, err)
		_, err = b.svc.PersonalLink(ctx, q.Key, inquiry.SlackUser("U3", nil))
		require.Equal(t, inquiry.MayAnswer(rec, inquiry.SlackUser("U3", nil)).Err().Error(), err.Error())

		url, err := b.svc.PersonalLink(ctx, q.Key, inquiry.SlackUser("U1", nil))
		require.NoError(t, err)
		path, ok := strings.CutPrefix(url, base)
		require.True(t, ok, url)

		p := b.open(path)
		require.Equal(t, http.StatusOK, p.status, p.body)
		require.Contains(t, p.body, "Merge PR #14?")
		require.Contains(t, p.body, `<span class="add">&#43;new`)
		require.Contains(t, p.body, `<dd id="who">U1</dd>`, "the page says whom it answers as")

		s := b.post(path, with(formOf(t, p), "step", "send", "value", "yes"))
		require.Equal(t, http.StatusOK, s.status, s.body)
		require.Contains(t, s.body, "Your vote is counted")
		got := b.get(q.Key)
		require.Equal(t, "pending", got.Status)
		require.Equal(t, []string{"U1"}, voters(got.Votes))
		require.Equal(t, inquiry.ViaWeb, got.Votes[0].Via)

		_, err = b.svc.Answer(ctx, q.Key, inquiry.Reply{Value: inquiry.One("yes")}, inquiry.SlackUser("U1", nil))
		require.NoError(t, err)
		got = b.get(q.Key)
		require.Equal(t, "pending", got.Status, "U1 in Slack and U1 through their link are one person")
		require.Equal(t, []string{"U1"}, voters(got.Votes))

		// Through the link once more: the page says the vote replaced theirs.
		s = b.post(path, with(formOf(t, b.open(path)), "step", "send", "value", "yes"))
		require.Equal(t, http.StatusOK, s.status, s.body)
		require.Contains(t, s.body, "You had voted already, so this vote replaces yours")
		got = b.get(q.Key)
		require.Equal(t, []string{"U1"}, voters(got.Votes))
		require.Equal(t, inquiry.ViaWeb, got.Votes[0].Via)

		b.clock.Add(inquiry.PersonalLinkTTL + time.Minute)
		p = b.open(path)
		require.Equal(t, http.StatusGone, p.status, p.body)
		require.Contains(t, p.body, "this link expired")
	})
}

func voters(votes []inquiry.Vote) []string {
	var by []string
	for _, v := range votes {
		by = append(by, v.By)
	}
	return by
}
