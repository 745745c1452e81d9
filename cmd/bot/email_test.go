package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/email/emailtest"
)

// mailedBot is a real bot serve whose email transport mails a real SMTP server in the test's
// process (STARTTLS, its certificate trusted through SSL_CERT_FILE, as an operator's own CA
// would be). extra are more variables for the server.
func mailedBot(t *testing.T, extra ...string) (*server, *emailtest.Server) {
	t.Helper()
	ms, err := emailtest.Start(false)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ms.Close() })
	dir := t.TempDir()
	ca := filepath.Join(dir, "mail-ca.pem")
	require.NoError(t, os.WriteFile(ca, ms.CertPEM(), 0o600))
	env := []string{"SSL_CERT_FILE=" + ca, "SMTP_URL=" + ms.URL(emailtest.User, emailtest.Password),
		"EMAIL_FROM=Inquiry bot <bot@example.com>", "BOT_PUBLIC_URL=https://bot.example.com"}
	s := startServerIn(t, dir, append(env, extra...)...)
	return s, ms
}

var (
	mailedLink = regexp.MustCompile(`https://bot\.example\.com(/a/[A-Za-z0-9_.-]+)`)
	formField  = regexp.MustCompile(`name="(csrf|inquiry)" value="([^"]*)"`)
)

// answerByMail follows the link mailed in m on s (its path: BOT_PUBLIC_URL is the name people
// reach the bot by) and answers value through the page's two steps, as a browser posts them.
func answerByMail(t *testing.T, s *server, m emailtest.Message, value string) string {
	t.Helper()
	found := mailedLink.FindStringSubmatch(m.Text)
	require.NotNil(t, found, "a link in the message:\n%s", m.Text)
	require.Contains(t, m.HTML, `href="https://bot.example.com`+found[1]+`"`)
	page := s.url + found[1]
	resp, err := http.Get(page)
	require.NoError(t, err)
	body := readAll(t, resp)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	form := url.Values{}
	for _, f := range formField.FindAllStringSubmatch(body, -1) {
		form.Set(f[1], f[2])
	}
	require.NotEmpty(t, form.Get("csrf"), body)
	form.Set("value", value)
	for _, step := range []string{"confirm", "send"} {
		form.Set("step", step)
		req, err := http.NewRequest("POST", page, strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body = readAll(t, resp)
		require.Equal(t, http.StatusOK, resp.StatusCode, "step %s: %s", step, body)
	}
	return body
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// inquiryOf reads the inquiry with key through the API.
func inquiryOf(t *testing.T, s *server, key string) map[string]any {
	t.Helper()
	code, body := call(t, "GET", s.url+"/v1/inquiries/"+key, s.admin, "")
	require.Equal(t, http.StatusOK, code, string(body))
	var rec map[string]any
	require.NoError(t, json.Unmarshal(body, &rec))
	return rec
}

// TestEmailEndToEnd: the question mailed to each recipient with a link of their own; the link
// answers it as that recipient, through the page; the outcome mailed in reply.
func TestEmailEndToEnd(t *testing.T) {
	s, ms := mailedBot(t)
	code, body := call(t, "POST", s.url+"/v1/inquiries", s.admin, `{"id":"deploy-1","kind":"confirm",
		"question":"Deploy <b>1.4</b>?","expires_in":"4h","config":{"policy":"ask","transport":"email"},
		"email":{"to":["alice@example.com","bob@example.com"]}}`)
	require.Equal(t, http.StatusCreated, code, string(body))
	var created struct {
		Key   string `json:"key"`
		Email struct {
			To []string `json:"to"`
		} `json:"email"`
	}
	require.NoError(t, json.Unmarshal(body, &created))
	require.Equal(t, []string{"alice@example.com", "bob@example.com"}, created.Email.To, "the API shows whom it mails")

	got, err := ms.Wait(2, 20*time.Second)
	require.NoError(t, err)
	require.Equal(t, []string{"alice@example.com"}, got[0].To)
	require.Equal(t, []string{"bob@example.com"}, got[1].To)
	require.NotEqual(t, mailedLink.FindString(got[0].Text), mailedLink.FindString(got[1].Text), "a link a recipient")
	require.Contains(t, got[0].HTML, "Deploy &lt;b&gt;1.4&lt;/b&gt;?")

	sent := answerByMail(t, s, got[1], "yes")
	require.Contains(t, sent, "bob@example.com")
	rec := inquiryOf(t, s, created.Key)
	require.Equal(t, "answered", rec["status"])
	answer := rec["answer"].(map[string]any)
	require.Equal(t, "link:bob@example.com", answer["answered_by"])
	require.Equal(t, "yes", answer["value"])

	got, err = ms.Wait(4, 20*time.Second)
	require.NoError(t, err, "the outcome mailed to both")
	for _, m := range got[2:] {
		require.Contains(t, m.Text, "Outcome: Yes by link:bob@example.com")
		require.NotEmpty(t, m.Header.Get("In-Reply-To"))
	}
	require.NotContains(t, s.stderr.String(), mailedLink.FindStringSubmatch(got[0].Text)[1], "no link in the log")
	require.NotContains(t, s.stderr.String(), emailtest.Password, "no password in the log")
}

// TestEmailRetriedThenFailed: a 4xx from the mail server is retried until it goes through, and
// so is a 5xx that does not last; a refusal that lasts fails the inquiry with a sentence.
func TestEmailRetriedThenFailed(t *testing.T) {
	s, ms := mailedBot(t)
	var attempts, flaky atomic.Int32 // the mail server's goroutine counts, the test reads
	ms.Refuse(func(to string) error {
		switch {
		case to == "nobody@example.com":
			return emailtest.Reply(550, "5.1.1 no such user here")
		case to == "flaky@example.com" && flaky.Add(1) == 1:
			return emailtest.Reply(554, "5.3.0 mail system trouble, try again")
		case to == "flaky@example.com":
			return nil
		case attempts.Load() < 1:
			attempts.Add(1)
			return emailtest.Reply(451, "4.7.1 greylisted, try again later")
		}
		return nil
	})
	ask := func(id, to string) string {
		code, body := call(t, "POST", s.url+"/v1/inquiries", s.admin, `{"id":"`+id+`","kind":"confirm","question":"Ship?",
			"config":{"policy":"ask","transport":"email"},"email":{"to":["`+to+`"]}}`)
		require.Equal(t, http.StatusCreated, code, string(body))
		var rec struct{ Key string }
		require.NoError(t, json.Unmarshal(body, &rec))
		return rec.Key
	}

	retried := ask("greylisted", "alice@example.com")
	got, err := ms.Wait(1, 30*time.Second)
	require.NoError(t, err, "mailed once the server takes it")
	require.Equal(t, []string{"alice@example.com"}, got[0].To)
	require.Equal(t, int32(1), attempts.Load(), "refused once first")
	require.Equal(t, "pending", inquiryOf(t, s, retried)["status"])

	ask("five-hundred", "flaky@example.com")
	got, err = ms.Wait(2, 30*time.Second)
	require.NoError(t, err, "mailed after a 5xx that did not last")
	require.Equal(t, []string{"flaky@example.com"}, got[1].To)
	require.Equal(t, int32(2), flaky.Load(), "refused once, then taken")

	failed := ask("unknown", "nobody@example.com")
	var rec map[string]any
	eventually(t, "the refused inquiry to fail", func() bool {
		rec = inquiryOf(t, s, failed)
		return rec["status"] == "failed"
	})
	failure := rec["failure"].(map[string]any)
	require.Equal(t, "inquiry_unavailable", failure["code"])
	require.Equal(t, true, failure["fatal"])
	require.Contains(t, failure["message"], "no such user here")
	require.Contains(t, failure["message"], "check the addresses in email.to")
}

// TestEmailRefusedAtCreate: the API refuses what cannot be mailed, in one sentence.
func TestEmailRefusedAtCreate(t *testing.T) {
	s, _ := mailedBot(t)
	for body, says := range map[string]string{
		`{"id":"a","kind":"confirm","question":"Q?","config":{"policy":"ask","transport":"email"}}`:                               "name the recipients in email.to",
		`{"id":"b","kind":"confirm","question":"Q?","config":{"policy":"ask","transport":"email"},"email":{"to":["Al <a@x.y>"]}}`: "one plain address",
		`{"id":"c","kind":"confirm","question":"Q?","config":{"policy":"ask","transport":"inbox"},"email":{"to":["a@x.y"]}}`:      "leave config.transport out to post to each channel named",
	} {
		code, got := call(t, "POST", s.url+"/v1/inquiries", s.admin, body)
		require.Equal(t, http.StatusUnprocessableEntity, code, string(got))
		require.Contains(t, string(got), says)
	}
}
