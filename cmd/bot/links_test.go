package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAnswerLinkEndToEnd runs the real binary: a pending inquiry carries links.answer under
// BOT_PUBLIC_URL, a minted link answers through the page as its recipient, the link secret
// survives a restart (the link still opens, now saying who answered), and no log line holds a
// token.
func TestAnswerLinkEndToEnd(t *testing.T) {
	dir := t.TempDir()
	const public = "https://bot.example.com"
	s := startServerIn(t, dir, "BOT_PUBLIC_URL="+public)
	code, body := call(t, "POST", s.url+"/v1/inquiries", s.admin,
		`{"id":"e2e","kind":"confirm","question":"Ship it?","config":{"policy":"ask","transport":"inbox"}}`)
	require.Equal(t, 201, code, string(body))
	var rec struct {
		Key   string
		Links struct{ Answer string }
	}
	require.NoError(t, json.Unmarshal(body, &rec))
	require.True(t, strings.HasPrefix(rec.Links.Answer, public+"/a/"), rec.Links.Answer)

	code, body = call(t, "POST", s.url+"/v1/inquiries/"+rec.Key+"/links", s.admin, `{"recipient":"alice@example.com"}`)
	require.Equal(t, 201, code, string(body))
	var minted struct{ URL string }
	require.NoError(t, json.Unmarshal(body, &minted))
	page := s.url + strings.TrimPrefix(minted.URL, public)

	resp, err := http.Get(page)
	require.NoError(t, err)
	html, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	form := url.Values{"step": {"send"}, "value": {"yes"}}
	for _, m := range regexp.MustCompile(`name="(csrf|inquiry)" value="([^"]*)"`).FindAllStringSubmatch(string(html), -1) {
		form.Set(m[1], m[2])
	}
	resp, err = http.PostForm(page, form)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)

	code, body = call(t, "GET", s.url+"/v1/inquiries/"+rec.Key, s.admin, "")
	require.Equal(t, 200, code)
	require.Contains(t, string(body), `"answered_by":"link:alice@example.com"`)
	require.Contains(t, string(body), `"via":"web"`)
	stopServer(t, s)

	again := startServerIn(t, dir, "BOT_PUBLIC_URL="+public)
	resp, err = http.Get(again.url + strings.TrimPrefix(minted.URL, public))
	require.NoError(t, err)
	html, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, "the link secret was kept: the link is still the bot's")
	require.Contains(t, string(html), "link:alice@example.com")
	stopServer(t, again)

	logs := s.stderr.String() + s.stdout.String() + again.stderr.String() + again.stdout.String()
	for _, link := range []string{rec.Links.Answer, minted.URL} {
		tok := link[strings.LastIndex(link, "/")+1:]
		require.NotContains(t, logs, tok)
		_, mac, _ := strings.Cut(tok, ".")
		require.NotContains(t, logs, mac)
	}
	require.Contains(t, logs, `/a/…`)
}
