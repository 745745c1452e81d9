package slackapp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// TestBrowserButton: with BOT_PUBLIC_URL set, a question that names no answerers offers "Answer
// in a browser", a link button to its answer page; its click is acknowledged and answers
// nothing. A question that names answerers offers none (a link in a channel is a key everybody
// there holds), and a resolved message drops it.
func TestBrowserButton(t *testing.T) {
	b := setup(t)
	b.svc.PublicURL = "https://bot.example.com"
	b.svc.LinkSecret = []byte("test-link-secret")

	rec := b.ask(mergeQuestion("browser"), inquiry.SlackRef{})
	m, ok := b.fake.Message(rec.Slack.Channel, rec.Slack.TS)
	require.True(t, ok)
	require.Contains(t, m.ActionIDs(), blockkit.ActionOpenPage)
	want := b.svc.BrowserLink(rec)
	require.True(t, strings.HasPrefix(want, "https://bot.example.com/a/"), want)
	require.Contains(t, string(m.Blocks), mustJSON(t, want), "the button opens the inquiry's answer link")

	b.click("U0ALICE01", rec, "Answer in a browser")
	// An answer is recorded before the ack: had the click answered, it would show now.
	got, err := b.store.Inquiry(b.ctx, rec.Key)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, got.Status, "opening the page answers nothing")

	b.click("U0ALICE01", rec, "Merge")
	b.resolved(rec.Key)
	require.Eventually(t, func() bool {
		m, _ := b.fake.Message(rec.Slack.Channel, rec.Slack.TS)
		return m.Edits > 0 && !slices.Contains(m.ActionIDs(), blockkit.ActionOpenPage)
	}, 10*time.Second, 10*time.Millisecond, "the resolved message has no button")

	named := b.ask(mergeQuestion("named"), inquiry.SlackRef{Answerers: []string{"U0ALICE01"}})
	m, ok = b.fake.Message(named.Slack.Channel, named.Slack.TS)
	require.True(t, ok)
	require.NotContains(t, m.ActionIDs(), blockkit.ActionOpenPage)
}

func mustJSON(t *testing.T, s string) string {
	raw, err := json.Marshal(s)
	require.NoError(t, err)
	return string(raw)
}

// TestBrowserButtonNotWhereWhoMatters: a question that needs several people's approvals, or
// someone other than who requested it, offers no "Answer in a browser": its general link names
// nobody and is refused there (inquiry: namesSomebody).
func TestBrowserButtonNotWhereWhoMatters(t *testing.T) {
	b := setup(t)
	b.svc.PublicURL = "https://bot.example.com"
	b.svc.LinkSecret = []byte("test-link-secret")

	two := 2
	quorum := mergeQuestion("quorum")
	quorum.Approvals = &two
	fourEyes := mergeQuestion("four-eyes")
	fourEyes.RequestedBy = []string{"U0BOB0001"}
	for _, in := range []inquiry.Inquiry{quorum, fourEyes} {
		rec := b.ask(in, inquiry.SlackRef{})
		m, ok := b.fake.Message(rec.Slack.Channel, rec.Slack.TS)
		require.True(t, ok)
		require.NotContains(t, m.ActionIDs(), blockkit.ActionOpenPage, in.ID)
		require.Empty(t, b.svc.BrowserLink(rec), in.ID)
	}
}
