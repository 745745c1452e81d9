package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
)

// ---- what a person sees is what they decide: one table of hostile asker text, every surface ----

// hostileAsks are asker texts the create accepts (nothing in them rewrites a line or hides), each
// built to make a surface show something other than what is decided: the bot's own words
// imitated, formatting, live links and mentions, markup. marker is a piece of each that a surface
// shows only as the asker's quoted text.
var hostileAsks = []struct {
	name           string
	question       string
	context, label string
	markers        []string
}{
	{
		name:     "the bot's own words imitated",
		question: "Deploy release 4.2?",
		context:  "Answer it here (the page asks you to confirm before anything is sent):\nhttps://bot.examp1e.com/a/fake\n1. Merge now? from release-bot · expires in 2h\nApproved by: ana (security)",
		label:    "Deploy",
		markers:  []string{"bot.examp1e.com", "from release-bot", "Approved by: ana"},
	},
	{
		name:     "formatting, links and mentions",
		question: "Merge *APPROVED* _by_ ~security~ `ok` [docs](https://evil.example) <https://evil.example|click> <!here> <@U0ADMIN01>?",
		context:  "**bold** > quoted\n# heading",
		label:    "*Merge* now",
		markers:  []string{"*APPROVED*", "evil.example", "**bold**"},
	},
	{
		name:     "markup",
		question: "Ship <script>alert(1)</script> <b>now</b>?",
		context:  "<img src=x onerror=alert(1)> &amp; <a href=\"https://evil.example\">approved</a>",
		label:    "<b>Ship</b>",
		markers:  []string{"alert(1)", "evil.example"},
	},
}

// TestEverySurfaceShowsAskerTextAsQuoted asks each hostile question through Slack (the fake
// Slack), e-mail (a real SMTP server) and the inbox, and reads it where a person does: the Slack
// message, the mail's text and HTML parts, the answer page, and bot questions. On every surface
// the asker's text is marked off from the bot's words — Slack: plain_text objects only, never
// mrkdwn, and no live link or mention of its; mail: behind ">" and in the labelled blockquote;
// the page: escaped, inside <bdi> under its label; the CLI: behind the gutter.
func TestEverySurfaceShowsAskerTextAsQuoted(t *testing.T) {
	fake := slackfaketest.New(t)
	s, ms := mailedBot(t, "SLACK_BOT_TOKEN="+slackfake.BotToken, "SLACK_SIGNING_SECRET="+slackfake.SigningSecret,
		"SLACK_API_URL="+fake.URL(), "SLACK_DEFAULT_CHANNEL="+slackfake.DefaultChannel)
	fake.SetAppURL(s.url)

	for i, h := range hostileAsks {
		ask := func(id, transport string, extra map[string]any) map[string]any {
			body := map[string]any{"id": id, "kind": "choice", "question": h.question, "context": h.context,
				"options": []any{map[string]any{"value": "go", "label": h.label}, map[string]any{"value": "stop", "label": "Stop"}},
				"config":  map[string]any{"policy": "ask", "transport": transport}}
			for k, v := range extra {
				body[k] = v
			}
			raw, err := json.Marshal(body)
			require.NoError(t, err)
			code, out := call(t, "POST", s.url+"/v1/inquiries", s.admin, string(raw))
			require.Equal(t, http.StatusCreated, code, "%s: %s", h.name, out)
			var rec map[string]any
			require.NoError(t, json.Unmarshal(out, &rec))
			return rec
		}
		slackRec := ask("slack-"+string(rune('a'+i)), "slack", nil)
		mailRec := ask("mail-"+string(rune('a'+i)), "email", map[string]any{"email": map[string]any{"to": []string{"alice@example.com"}}})
		inboxRec := ask("inbox-"+string(rune('a'+i)), "inbox", nil)

		// Slack: the posted message holds the asker's text in plain_text objects only.
		var msg slackfake.Message
		eventually(t, "the question posted in Slack", func() bool {
			for _, m := range fake.BotMessages(slackfake.DefaultChannel) {
				if strings.Contains(string(m.Metadata), slackRec["key"].(string)) {
					msg = m
					return true
				}
			}
			return false
		})
		shown := 0
		for _, obj := range textObjects(t, msg.Blocks) {
			for _, mark := range h.markers {
				if strings.Contains(obj.Text, mark) {
					shown++
					require.Equal(t, "plain_text", obj.Type, "%s: asker text %q in a %s object: %q", h.name, mark, obj.Type, obj.Text)
				}
			}
		}
		require.Positive(t, shown, "%s: the Slack message shows the asker's text", h.name)
		for _, live := range []string{"<!here>", "<https://evil.example", "<@U0ADMIN01>", "<script"} {
			require.NotContains(t, msg.Text, live, "%s: the notification text", h.name)
			require.NotContains(t, string(msg.Blocks), live, "%s: the blocks", h.name)
		}

		// E-mail: behind ">" in the text part, inside the labelled blockquote in the HTML part,
		// the bot's link before both.
		got, err := ms.Wait(i+1, 20*time.Second)
		require.NoError(t, err)
		m := got[i]
		quoted := 0
		for _, line := range strings.Split(m.Text, "\n") {
			for _, mark := range h.markers {
				if strings.Contains(line, mark) {
					quoted++
					require.True(t, strings.HasPrefix(line, "> "), "%s: mail line %q is not quoted", h.name, line)
				}
			}
		}
		require.Positive(t, quoted, "%s: the mail shows the asker's text", h.name)
		quoteAt, endAt := strings.Index(m.HTML, "<blockquote"), strings.Index(m.HTML, "</blockquote>")
		require.Positive(t, quoteAt, h.name)
		require.Less(t, strings.Index(m.HTML, `href="https://bot.example.com/a/`), quoteAt, "%s: the bot's button comes first", h.name)
		require.NotContains(t, m.HTML, "<script", h.name)
		require.NotContains(t, m.HTML, `href="https://evil.example`, h.name)
		require.NotContains(t, m.HTML[:quoteAt]+m.HTML[endAt:], "evil.example", "%s: asker text outside the quote", h.name)
		_ = mailRec

		// The answer page: escaped, isolated, under its label.
		links, _ := inboxRec["links"].(map[string]any)
		require.NotNil(t, links, "%s: a plain question has its general link", h.name)
		page := pageOf(t, s, links["answer"].(string))
		require.Contains(t, page, "The question, as its asker wrote it:", h.name)
		require.Contains(t, page, `<h1 id="question" dir="auto"><bdi>`, h.name)
		require.NotContains(t, page, "<script", h.name)
		require.NotContains(t, page, "<img", h.name)
		require.NotContains(t, page, `href="https://evil.example`, h.name)
		require.NotContains(t, page, "<b>", h.name)

		// The CLI: every line with asker text behind the gutter.
		r := s.bot(t, s.admin, "questions", "--context")
		require.Equal(t, 0, r.code, r.String())
		seen := false
		for _, line := range strings.Split(r.stdout, "\n") {
			for _, mark := range h.markers {
				if strings.Contains(line, mark) {
					seen = true
					require.Contains(t, line, "│ ", "%s: bot questions line %q is not behind the gutter", h.name, line)
				}
			}
		}
		require.True(t, seen, "%s: bot questions shows the question:\n%s", h.name, r.stdout)
	}
}

// textObject is a Block Kit text object: its type and text.
type textObject struct {
	Type, Text string
}

// textObjects walks blocks and returns every text object in them.
func textObjects(t *testing.T, blocks json.RawMessage) []textObject {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(blocks, &v))
	var out []textObject
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			typ, _ := x["type"].(string)
			if text, ok := x["text"].(string); ok && (typ == "plain_text" || typ == "mrkdwn") {
				out = append(out, textObject{typ, text})
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	return out
}

// pageOf reads the answer page of link (relative or under BOT_PUBLIC_URL) from s.
func pageOf(t *testing.T, s *server, link string) string {
	t.Helper()
	path := link
	if i := strings.Index(link, "/a/"); i >= 0 {
		path = link[i:]
	}
	resp, err := http.Get(s.url + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	return string(body)
}
