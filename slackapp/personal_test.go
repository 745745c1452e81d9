package slackapp

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/web"
)

// withPages serves the answer page beside the fake Slack, as bot serve does, at the service's
// public address, and turns links on.
func (b *bundle) withPages() {
	b.t.Helper()
	pages := httptest.NewServer(web.New(web.Config{Service: b.svc, Logger: quiet}))
	b.t.Cleanup(pages.Close)
	b.svc.PublicURL, b.svc.LinkSecret = pages.URL, []byte("test-link-secret")
}

// personalLink waits for the n-th ephemeral to user and returns the link of its link button.
func (b *bundle) personalLink(user string, n int) (link string, e string) {
	b.t.Helper()
	eph := b.ephemeral(user, n)
	var blocks []struct {
		Type     string `json:"type"`
		Elements []struct {
			Type, URL string
			Text      struct{ Text string }
		} `json:"elements"`
	}
	require.NoError(b.t, json.Unmarshal(eph.Blocks, &blocks))
	for _, bl := range blocks {
		if bl.Type == "actions" && len(bl.Elements) == 1 && bl.Elements[0].URL != "" {
			return bl.Elements[0].URL, eph.Text
		}
	}
	b.t.Fatalf("ephemeral to %s has no link button: %s", user, eph.Blocks)
	return "", ""
}

// pageOf GETs link and returns its status and body.
func pageOf(t *testing.T, link string) (int, string) {
	t.Helper()
	resp, err := http.Get(link)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(raw)
}

var hiddenField = regexp.MustCompile(`<input type="hidden" name="(csrf|inquiry)" value="([^"]*)">`)

// postPage POSTs the page's form through link with the fields kv (name, value, …), as a browser
// does from the page it got.
func postPage(t *testing.T, link, body string, kv ...string) (int, string) {
	t.Helper()
	form := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(body, -1) {
		form.Set(m[1], m[2])
	}
	require.NotEmpty(t, form.Get("csrf"), "no form on the page")
	for i := 0; i+1 < len(kv); i += 2 {
		form.Set(kv[i], kv[i+1])
	}
	req, err := http.NewRequest(http.MethodPost, link, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	u, _ := url.Parse(link)
	req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(raw)
}

// diffOf is a unified diff of n changed lines.
func diffOf(n int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/config.yaml\n+++ b/config.yaml\n@@ -1,%d +1,%d @@\n", n, n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "-line %d: old\n+line %d: new\n", i, i)
	}
	return sb.String()
}

// TestPersonalViewAllOnFourEyes: a four-eyes question (two approvals of U1 and U2) with a long
// diff shows its first lines and "View all" with no link anybody in the channel could use. U1's
// click gets U1 alone a link; the page behind it shows the whole diff; U1 approves in Slack,
// then votes through the link, and it is still one person's vote.
func TestPersonalViewAllOnFourEyes(t *testing.T) {
	b := setup(t)
	b.withPages()
	const u1, u2 = "U0ALICE01", "U0BOB0001"
	two := 2
	diff := diffOf(150) // 303 lines
	in := inquiry.Inquiry{ID: "four-eyes", Kind: inquiry.KindConfirm, Question: "Apply this change?",
		Approval: inquiry.Approval{Approvals: &two}, Proposal: &inquiry.Proposal{Format: inquiry.FormatDiff, Content: diff}}
	rec := b.ask(in, inquiry.SlackRef{Answerers: []string{u1, u2}})

	m, ok := b.fake.Message(rec.Slack.Channel, rec.Slack.TS)
	require.True(t, ok)
	require.Contains(t, m.ActionIDs(), blockkit.ActionPersonalPage)
	require.NotContains(t, string(m.Blocks), inquiry.LinkPath, "no answer link in a message the whole channel sees")
	require.NotContains(t, string(m.Blocks), b.svc.PublicURL)

	b.click(u1, rec, "View all")
	link, said := b.personalLink(u1, 1)
	require.True(t, strings.HasPrefix(link, b.svc.PublicURL+inquiry.LinkPath), link)
	require.Contains(t, said, "link of your own")
	b.settle()
	require.Empty(t, b.fake.Ephemerals(u2), "the link goes to the clicker alone")
	for _, e := range b.fake.Ephemerals("") {
		require.Equal(t, u1, e.User)
	}
	b.noAnswer(rec.Key)

	status, page := pageOf(t, link)
	require.Equal(t, http.StatusOK, status, page)
	require.Contains(t, html.UnescapeString(page), "+line 150: new", "the page shows the diff whole")
	require.Contains(t, page, `<dd id="who">`+u1+`</dd>`)

	b.click(u1, rec, "yes")
	b.until(rec.Key, "never took U1's vote", func(r *inquiry.Record) bool { return len(r.Votes) == 1 })
	status, sent := postPage(t, link, page, "step", "send", "value", "yes")
	require.Equal(t, http.StatusOK, status, sent)
	require.Contains(t, sent, "You had voted already, so this vote replaces yours (one person, one vote)")
	got := b.get(rec.Key)
	require.Equal(t, inquiry.StatusPending, got.Status, "U1 in Slack and U1 through their link are one approval")
	require.Len(t, got.Votes, 1)
	require.Equal(t, u1, got.Votes[0].By)
	require.Equal(t, inquiry.ViaWeb, got.Votes[0].Via, "the later vote, through the link, stands")
}

// TestPersonalEditOnTheWeb: an editable proposal past the modal's 3,000 characters on a
// question naming U1 and U2 offers "Edit on the web" with no link in the channel; U2's click
// gets U2 a link, and an edit posted on its page is recorded as U2's, edited, byte for byte.
// Someone not named who clicks is told so and gets no link.
func TestPersonalEditOnTheWeb(t *testing.T) {
	b := setup(t)
	b.withPages()
	const u1, u2, stranger = "U0ALICE01", "U0BOB0001", "U0EVE0009"
	proposed := strings.Repeat("replicas: 3 # é\n", 5000/16)
	require.Greater(t, len([]rune(proposed)), 3000)
	in := inquiry.Inquiry{ID: "edit-web", Kind: inquiry.KindConfirm, Question: "Apply this config?",
		Proposal: &inquiry.Proposal{Format: inquiry.FormatText, Content: proposed, Editable: true}}
	rec := b.ask(in, inquiry.SlackRef{Answerers: []string{u1, u2}})
	m, ok := b.fake.Message(rec.Slack.Channel, rec.Slack.TS)
	require.True(t, ok)
	require.NotContains(t, m.ActionIDs(), blockkit.ActionOpenEdit, "past 3,000 characters no modal")
	require.NotContains(t, string(m.Blocks), inquiry.LinkPath)

	b.click(stranger, rec, "Edit on the web")
	eph := b.ephemeral(stranger, 1)
	require.Contains(t, eph.Text, "may answer this question")
	require.NotContains(t, string(eph.Blocks), inquiry.LinkPath, "no link for someone not named")

	b.click(u2, rec, "Edit on the web")
	link, said := b.personalLink(u2, 1)
	require.Contains(t, said, "edit the proposal")
	status, page := pageOf(t, link)
	require.Equal(t, http.StatusOK, status, page)

	edited := strings.Replace(proposed, "replicas: 3", "replicas: 4", 1) + "\t<!here> *x*\n"
	status, confirm := postPage(t, link, page, "step", "confirm", "value", "yes", "content", edited)
	require.Equal(t, http.StatusOK, status, confirm)
	status, sent := postPage(t, link, confirm, "step", "send", "value", "yes", "content", edited)
	require.Equal(t, http.StatusOK, status, sent)
	got := b.resolved(rec.Key)
	require.Equal(t, inquiry.StatusAnswered, got.Status)
	require.True(t, got.Answer.Edited)
	require.Equal(t, edited, got.Answer.Content, "recorded byte for byte")
	require.Equal(t, proposed, got.Proposal.Content)
	require.Equal(t, u2, got.Answer.AnsweredBy, "answered as U2, as U2's click would be")
	require.Equal(t, inquiry.ViaWeb, got.Answer.Via)
}

// TestPersonalLinkFromHome: "View all" in the App Home gives the clicker their link in a modal
// (an ephemeral would land in a channel out of sight), which opens the page as them.
func TestPersonalLinkFromHome(t *testing.T) {
	b := setup(t)
	b.withPages()
	const u1 = "U0ALICE01"
	two := 2
	in := inquiry.Inquiry{ID: "home-view-all", Kind: inquiry.KindConfirm, Question: "Apply this change?",
		Approval: inquiry.Approval{Approvals: &two}, Proposal: &inquiry.Proposal{Format: inquiry.FormatDiff, Content: diffOf(60)}}
	rec := b.ask(in, inquiry.SlackRef{Answerers: []string{u1, "U0BOB0001"}})
	b.ok(b.fake.OpenHome(u1))
	require.Eventually(t, func() bool {
		h, ok := b.fake.HomeOf(u1)
		return ok && strings.Contains(string(h.JSON), blockkit.ActionPersonalPage)
	}, 15*time.Second, 10*time.Millisecond, "the Home tab never offered View all")

	b.ok(b.fake.ClickHome(u1, rec.Key, "View all"))
	var view slackfake.View
	require.Eventually(t, func() bool {
		var ok bool
		view, ok = b.fake.OpenView(u1)
		return ok
	}, 10*time.Second, 10*time.Millisecond, "no modal opened")
	require.Equal(t, blockkit.CallbackPersonalLink, view.CallbackID)
	var v struct {
		Blocks []struct {
			Accessory struct{ URL string } `json:"accessory"`
		} `json:"blocks"`
	}
	require.NoError(t, json.Unmarshal(view.JSON, &v))
	link := ""
	for _, bl := range v.Blocks {
		if bl.Accessory.URL != "" {
			link = bl.Accessory.URL
		}
	}
	require.True(t, strings.HasPrefix(link, b.svc.PublicURL+inquiry.LinkPath), "modal %s", view.JSON)
	status, page := pageOf(t, link)
	require.Equal(t, http.StatusOK, status, page)
	require.Contains(t, page, `<dd id="who">`+u1+`</dd>`)
	b.settle()
	require.Empty(t, b.fake.Ephemerals(u1), "the modal, not an ephemeral")
}
