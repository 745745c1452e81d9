package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/storage"
	"github.com/inquiry-bot/bot/storage/storagetest"
	"github.com/inquiry-bot/bot/web"
)

// bundle is the real gateway with the answer page mounted, over HTTP on :0, on a database of its
// own, with a movable clock and every log line kept.
type bundle struct {
	t     testing.TB
	url   string
	svc   *inquiry.Service
	clock *testkit.Clock
	logs  *testkit.SyncBuffer
	// Tokens as plain text: two askers of one namespace, an answerer, an admin.
	ask, ask2, answerer, admin string
}

// setupOpts change setup.
type setupOpts struct {
	publicURL string
	burst     int
	// addressBurst, when set, limits requests without a token per address (an hour apiece).
	addressBurst int
}

func setup(t testing.TB, dbURL string, opts ...func(*setupOpts)) *bundle {
	t.Helper()
	var o setupOpts
	for _, f := range opts {
		f(&o)
	}
	ctx := context.Background()
	st, err := storage.Open(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	b := &bundle{t: t, clock: testkit.NewClock(time.Now().UTC()), logs: &testkit.SyncBuffer{}}
	log := slog.New(slog.NewJSONHandler(b.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc := inquiry.NewService(st, inquiry.NewRegistry())
	svc.Now = b.clock.Now
	svc.Log = log
	svc.DefaultPolicy = inquiry.PolicyAsk
	svc.LinkSecret = []byte("test-link-secret-" + t.Name())
	svc.PublicURL = o.publicURL
	b.svc = svc
	pages := web.New(web.Config{Service: svc, Logger: log, Rate: rate.Limit(100), Burst: max(o.burst, 1000)})
	if o.burst > 0 {
		pages = web.New(web.Config{Service: svc, Logger: log, Rate: rate.Every(time.Hour), Burst: o.burst})
	}
	limits := gateway.RateLimits{Rate: rate.Inf, MaxWaiters: -1, AddressRate: rate.Inf}
	if o.addressBurst > 0 {
		limits.AddressRate, limits.AddressBurst = rate.Every(time.Hour), o.addressBurst
	}
	srv := gateway.New(gateway.Config{Service: svc, Logger: log, Pages: pages, RateLimits: limits})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	b.url = ts.URL

	mk := func(name string, scopes ...inquiry.Scope) string {
		plain, tok := inquiry.NewToken(name, "team", scopes, b.clock.Now())
		require.NoError(t, st.CreateToken(ctx, tok))
		return plain
	}
	b.ask = mk("asker", inquiry.ScopeAsk)
	b.ask2 = mk("other-asker", inquiry.ScopeAsk)
	b.answerer = mk("answerer", inquiry.ScopeAnswer)
	b.admin = mk("root", inquiry.ScopeAdmin)
	return b
}

// api sends a JSON request with token and decodes the answer into out (when not nil).
func (b *bundle) api(method, path, token string, body any, out any) int {
	b.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		require.NoError(b.t, err)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, b.url+path, rd)
	require.NoError(b.t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	if out != nil {
		require.NoError(b.t, json.Unmarshal(raw, out), "%s", raw)
	}
	return resp.StatusCode
}

// inquiryView is what a test reads of an inquiry.
type inquiryView struct {
	Key    string          `json:"key"`
	Status string          `json:"status"`
	Answer *inquiry.Answer `json:"answer"`
	Votes  []inquiry.Vote  `json:"votes"`
	Links  *inquiry.Links  `json:"links"`
}

// ask creates an inbox inquiry from body (kind, question, ...) and returns it.
func (b *bundle) askWith(body map[string]any) inquiryView {
	b.t.Helper()
	if _, ok := body["id"]; !ok {
		body["id"] = "q-" + inquiry.NewKey(time.Now())
	}
	body["config"] = map[string]string{"policy": "ask", "transport": "inbox"}
	var v inquiryView
	require.Equal(b.t, http.StatusCreated, b.api("POST", "/v1/inquiries", b.ask, body, &v))
	return v
}

// merge asks the test's usual Choice.
func (b *bundle) merge() inquiryView {
	return b.askWith(map[string]any{"kind": "choice", "question": "Merge now?", "options": []map[string]string{{"value": "merge", "label": "Merge"}, {"value": "hold", "label": "Hold"}},
		"default": "hold", "expires_in": "2h"})
}

// get reads an inquiry with the admin token.
func (b *bundle) get(key string) inquiryView {
	b.t.Helper()
	var v inquiryView
	require.Equal(b.t, http.StatusOK, b.api("GET", "/v1/inquiries/"+key, b.admin, nil, &v))
	return v
}

// mint mints a link of recipient with the asker's token.
func (b *bundle) mint(key, recipient string, extra ...string) inquiry.MintedLink {
	b.t.Helper()
	body := map[string]string{"recipient": recipient}
	if len(extra) == 1 {
		body["expires_in"] = extra[0]
	}
	var m inquiry.MintedLink
	require.Equal(b.t, http.StatusCreated, b.api("POST", "/v1/inquiries/"+key+"/links", b.ask, body, &m))
	return m
}

// mintAs mints a link of recipient with the token tok.
func (b *bundle) mintAs(tok, key, recipient string) inquiry.MintedLink {
	b.t.Helper()
	var m inquiry.MintedLink
	require.Equal(b.t, http.StatusCreated, b.api("POST", "/v1/inquiries/"+key+"/links", tok, map[string]string{"recipient": recipient}, &m))
	return m
}

// page is a page as a test reads it.
type page struct {
	status int
	body   string
	header http.Header
}

// requireOwnHeaders fails the test unless p carries the page's security headers: its CSP, no
// referrer, no framing.
func (p page) requireOwnHeaders(t *testing.T, msgAndArgs ...any) {
	t.Helper()
	require.Contains(t, p.header.Get("Content-Security-Policy"), "default-src 'none'", msgAndArgs...)
	require.Equal(t, "no-referrer", p.header.Get("Referrer-Policy"), msgAndArgs...)
	require.Equal(t, "DENY", p.header.Get("X-Frame-Options"), msgAndArgs...)
}

// open GETs a link (relative or absolute).
func (b *bundle) open(link string) page {
	b.t.Helper()
	resp, err := http.Get(b.abs(link))
	require.NoError(b.t, err)
	return readPage(b.t, resp)
}

// openPast opens link n times, each one shown, and returns the opening after them: the first
// past a burst of n.
func (b *bundle) openPast(link string, n int) page {
	b.t.Helper()
	for range n {
		require.Equal(b.t, http.StatusOK, b.open(link).status)
	}
	return b.open(link)
}

func (b *bundle) abs(link string) string {
	if strings.HasPrefix(link, "/") {
		return b.url + link
	}
	return link
}

// post POSTs form to a link as a browser does from the page.
func (b *bundle) post(link string, form url.Values) page {
	b.t.Helper()
	req, err := http.NewRequest("POST", b.abs(link), strings.NewReader(form.Encode()))
	require.NoError(b.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.url)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(b.t, err)
	return readPage(b.t, resp)
}

func readPage(t testing.TB, resp *http.Response) page {
	t.Helper()
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return page{status: resp.StatusCode, body: string(raw), header: resp.Header}
}

var hiddenRe = regexp.MustCompile(`<input type="hidden" name="(csrf|inquiry)" value="([^"]*)">`)

// formOf is the hidden fields of a page's form.
func formOf(t testing.TB, p page) url.Values {
	t.Helper()
	v := url.Values{}
	for _, m := range hiddenRe.FindAllStringSubmatch(p.body, -1) {
		v.Set(m[1], m[2])
	}
	require.NotEmpty(t, v.Get("csrf"), "no form on the page:\n%s", p.body)
	return v
}

// with returns form with the fields kv (name, value, ...) added.
func with(form url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, vs := range form {
		out[k] = append([]string(nil), vs...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out.Add(kv[i], kv[i+1])
	}
	return out
}

// each runs fn on SQLite and, with TEST_DATABASE_URL, PostgreSQL.
func each(t *testing.T, fn func(t *testing.T, dbURL string)) {
	t.Helper()
	t.Parallel()
	storagetest.Each(t, fn)
}

// TestChooseConfirmSend: a GET shows and never answers, the confirm step shows what would be
// sent and sends nothing, only the send step answers — as the link's recipient, via web.
func TestChooseConfirmSend(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.merge()
		m := b.mint(q.Key, "Alice@Example.com")
		require.Equal(t, "alice@example.com", m.Recipient)
		require.True(t, strings.HasPrefix(m.URL, "/a/"), "relative without BOT_PUBLIC_URL: %s", m.URL)

		p := b.open(m.URL)
		require.Equal(t, http.StatusOK, p.status)
		require.Contains(t, p.body, "Merge now?")
		require.Contains(t, p.body, `value="merge"`)
		require.Contains(t, p.body, "Hold", "what will be assumed")
		require.Equal(t, "pending", b.get(q.Key).Status, "a GET never answers")

		form := formOf(t, p)
		c := b.post(m.URL, with(form, "step", "confirm", "value", "merge"))
		require.Equal(t, http.StatusOK, c.status, c.body)
		require.Contains(t, c.body, "Send: <strong>Merge</strong>?")
		require.Contains(t, c.body, `id="take-back"`)
		require.Equal(t, "pending", b.get(q.Key).Status, "the confirmation sends nothing")

		s := b.post(m.URL, with(formOf(t, c), "step", "send", "value", "merge"))
		require.Equal(t, http.StatusOK, s.status, s.body)
		require.Contains(t, s.body, "Sent")
		got := b.get(q.Key)
		require.Equal(t, "answered", got.Status)
		require.Equal(t, "merge", got.Answer.Value.First())
		require.Equal(t, "link:alice@example.com", got.Answer.AnsweredBy)
		require.Equal(t, inquiry.ViaWeb, got.Answer.Via)
		require.Equal(t, inquiry.SourcePerson, got.Answer.Source)
		require.Nil(t, got.Links, "a resolved inquiry carries no answer link")
	})
}

// TestGeneralLink: every pending inquiry's response carries links.answer, absolute under
// BOT_PUBLIC_URL, and it answers as "link".
func TestGeneralLink(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL, func(o *setupOpts) { o.publicURL = "https://bot.example.com/" })
		q := b.merge()
		require.NotNil(t, q.Links)
		require.True(t, strings.HasPrefix(q.Links.Answer, "https://bot.example.com/a/"), q.Links.Answer)
		require.Equal(t, q.Links.Answer, b.get(q.Key).Links.Answer, "the same link on every read")

		path := strings.TrimPrefix(q.Links.Answer, "https://bot.example.com")
		p := b.open(path)
		s := b.post(path, with(formOf(t, p), "step", "send", "value", "Hold"))
		require.Equal(t, http.StatusOK, s.status, s.body)
		got := b.get(q.Key)
		require.Equal(t, "hold", got.Answer.Value.First())
		require.Equal(t, inquiry.GeneralLink, got.Answer.AnsweredBy)
	})
}

// TestLinkRefusals: forged, expired, revoked, reused after resolution and another inquiry's
// link are each refused with a page that says why, with its status, and nothing is recorded.
func TestLinkRefusals(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.merge()
		m := b.mint(q.Key, "alice@example.com")

		t.Run("forged", func(t *testing.T) {
			tok := strings.TrimPrefix(m.URL, "/a/")
			payload, mac, _ := strings.Cut(tok, ".")
			flipped := []byte(mac)
			flipped[0] ^= 1
			if flipped[0] == mac[0] || !strings.ContainsRune("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", rune(flipped[0])) {
				flipped[0] = 'A'
				if mac[0] == 'A' {
					flipped[0] = 'B'
				}
			}
			for _, bad := range []string{"/a/" + payload + "." + string(flipped), "/a/nonsense", "/a/" + payload + "x." + mac} {
				p := b.open(bad)
				require.Equal(t, http.StatusNotFound, p.status, bad)
				require.Contains(t, p.body, "not one the bot made")
				require.NotContains(t, p.body, "Merge now?", "a forged link shows nothing of the question")
			}
		})

		t.Run("another inquiry's link", func(t *testing.T) {
			other := b.merge()
			om := b.mint(other.Key, "alice@example.com")
			formA := formOf(t, b.open(m.URL))
			p := b.post(om.URL, with(formA, "step", "send", "value", "merge"))
			require.Equal(t, http.StatusForbidden, p.status, p.body)
			require.Contains(t, p.body, "another question")
			// The inquiry field right but the form token another link's: refused too.
			formB := formOf(t, b.open(om.URL))
			formB.Set("csrf", formA.Get("csrf"))
			p = b.post(om.URL, with(formB, "step", "send", "value", "merge"))
			require.Equal(t, http.StatusForbidden, p.status, p.body)
			require.Contains(t, p.body, "does not belong to this link")
			require.Equal(t, "pending", b.get(other.Key).Status)
			require.Equal(t, "pending", b.get(q.Key).Status)
		})

		t.Run("revoked", func(t *testing.T) {
			r := b.merge()
			rm := b.mint(r.Key, "bob@example.com")
			form := formOf(t, b.open(rm.URL))
			var rev inquiry.LinkRevocation
			require.Equal(t, http.StatusOK, b.api("DELETE", "/v1/inquiries/"+r.Key+"/links/bob@example.com", b.ask, nil, &rev))
			require.Equal(t, "bob@example.com", rev.Recipient)
			p := b.open(rm.URL)
			require.Equal(t, http.StatusGone, p.status)
			require.Contains(t, p.body, "was revoked")
			p = b.post(rm.URL, with(form, "step", "send", "value", "merge"))
			require.Equal(t, http.StatusGone, p.status)
			require.Equal(t, "pending", b.get(r.Key).Status)
			// Another recipient's link still works, and so does one minted afterwards.
			require.Equal(t, http.StatusOK, b.open(b.mint(r.Key, "carol@example.com").URL).status)
			b.clock.Add(time.Millisecond)
			require.Equal(t, http.StatusOK, b.open(b.mint(r.Key, "bob@example.com").URL).status)
			// Once the question is answered, a revoked link still learns nothing of it.
			require.Equal(t, http.StatusOK, b.api("POST", "/v1/inquiries/"+r.Key+"/answer", b.answerer, map[string]string{"value": "hold"}, nil))
			p = b.open(rm.URL)
			require.Equal(t, http.StatusGone, p.status)
			require.NotContains(t, p.body, "Hold")
			require.NotContains(t, p.body, "Merge now?")
			// The general link, revoked by "answer".
			require.Equal(t, http.StatusOK, b.api("DELETE", "/v1/inquiries/"+r.Key+"/links/answer", b.ask, nil, nil))
			require.Equal(t, http.StatusGone, b.open(r.Links.Answer).status)
		})

		t.Run("expired", func(t *testing.T) {
			e := b.merge()
			em := b.mint(e.Key, "dan@example.com", "10m")
			require.WithinDuration(t, b.clock.Now().Add(10*time.Minute), em.ExpiresAt, time.Second)
			form := formOf(t, b.open(em.URL))
			b.clock.Add(11 * time.Minute)
			p := b.open(em.URL)
			require.Equal(t, http.StatusGone, p.status)
			require.Contains(t, p.body, "expired at")
			p = b.post(em.URL, with(form, "step", "send", "value", "merge"))
			require.Equal(t, http.StatusGone, p.status)
			require.Equal(t, "pending", b.get(e.Key).Status, "the inquiry itself has not expired")

			// With the inquiry's own expiry, the page says what was assumed.
			b.clock.Add(2 * time.Hour)
			p = b.open(e.Links.Answer)
			require.Equal(t, http.StatusOK, p.status)
			require.Contains(t, p.body, "Expired")
			require.Contains(t, p.body, "Hold")
		})

		t.Run("reused after resolution", func(t *testing.T) {
			u := b.askWith(map[string]any{"kind": "confirm", "question": "Deploy?"})
			um := b.mint(u.Key, "erin@example.com")
			form := formOf(t, b.open(um.URL))
			require.Equal(t, http.StatusOK, b.post(um.URL, with(form, "step", "send", "value", "yes")).status)
			p := b.post(um.URL, with(form, "step", "send", "value", "no"))
			require.Equal(t, http.StatusConflict, p.status)
			require.Contains(t, p.body, "Already answered")
			require.Contains(t, p.body, "link:erin@example.com", "who answered")
			p = b.open(um.URL)
			require.Equal(t, http.StatusOK, p.status, "looking is no refusal")
			require.Contains(t, p.body, "Already answered")
			require.Equal(t, "yes", b.get(u.Key).Answer.Value.First())
		})

		t.Run("cancelled", func(t *testing.T) {
			c := b.merge()
			require.Equal(t, http.StatusOK, b.api("POST", "/v1/inquiries/"+c.Key+"/cancel", b.ask, nil, nil))
			p := b.open(c.Links.Answer)
			require.Contains(t, p.body, "withdrew the question")
		})
	})
}

// TestTextOverCeiling: the page caps the text area at the one ceiling, and the server refuses
// more with a page that says so, keeping what was typed; nothing is recorded.
func TestTextOverCeiling(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.askWith(map[string]any{"kind": "text", "question": "What changed?"})
		p := b.open(q.Links.Answer)
		require.Contains(t, p.body, `maxlength="2000"`)
		long := strings.Repeat("é", inquiry.DefaultAnswerChars+1)
		for _, step := range []string{"confirm", "send"} {
			r := b.post(q.Links.Answer, with(formOf(t, p), "step", step, "text", long))
			require.Equal(t, http.StatusUnprocessableEntity, r.status, step)
			require.Contains(t, r.body, "2001 characters long but may have at most 2000")
			require.Contains(t, r.body, long, "what was typed is kept to shorten")
		}
		require.Equal(t, "pending", b.get(q.Key).Status)
		ok := strings.Repeat("é", inquiry.DefaultAnswerChars)
		r := b.post(q.Links.Answer, with(formOf(t, p), "step", "send", "text", ok))
		require.Equal(t, http.StatusOK, r.status)
		got := b.get(q.Key)
		require.Equal(t, ok, got.Answer.Text)
		require.False(t, got.Answer.Truncated)
	})
}

// TestEscapesUserText: a question, context and options holding markup are shown as text.
func TestEscapesUserText(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.askWith(map[string]any{"kind": "choice", "question": `<script>alert("q")</script>`,
			"context": `<img src=x onerror=alert(1)>`, "options": []string{`<b>yes</b>`, `"><script>x</script>`}})
		p := b.open(q.Links.Answer)
		require.NotContains(t, p.body, "<script>")
		require.NotContains(t, p.body, "<img")
		require.NotContains(t, p.body, "<b>")
		require.Contains(t, p.body, "&lt;script&gt;alert(&#34;q&#34;)&lt;/script&gt;")
	})
}

// TestSecurityHeaders: CSP without unsafe-inline, no framing, no referrer, nosniff, no cache —
// on the question and on a refusal alike.
func TestSecurityHeaders(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.merge()
		for _, p := range []page{b.open(q.Links.Answer), b.open("/a/forged.x")} {
			csp := p.header.Get("Content-Security-Policy")
			require.Contains(t, csp, "default-src 'none'")
			require.Contains(t, csp, "frame-ancestors 'none'")
			require.NotContains(t, csp, "unsafe-inline")
			require.Equal(t, "DENY", p.header.Get("X-Frame-Options"))
			require.Equal(t, "no-referrer", p.header.Get("Referrer-Policy"))
			require.Equal(t, "nosniff", p.header.Get("X-Content-Type-Options"))
			require.Equal(t, "no-store", p.header.Get("Cache-Control"))
			require.Contains(t, p.body, `name="viewport"`)
		}
		// A POST from another site is refused whatever its form says.
		form := formOf(t, b.open(q.Links.Answer))
		req, _ := http.NewRequest("POST", b.url+q.Links.Answer, strings.NewReader(with(form, "step", "send", "value", "merge").Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://evil.example")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusForbidden, resp.StatusCode)
		// As a browser says it, with no Origin to go by (Referrer-Policy no-referrer).
		req, _ = http.NewRequest("POST", b.url+q.Links.Answer, strings.NewReader(with(form, "step", "send", "value", "merge").Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "null")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		resp, err = http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusForbidden, resp.StatusCode)
		require.Equal(t, "pending", b.get(q.Key).Status)
	})
}

// TestRateLimitedPerLink: one link past its burst is refused with 429; another link is not.
func TestRateLimitedPerLink(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL, func(o *setupOpts) { o.burst = 3 })
		q := b.merge()
		p := b.openPast(q.Links.Answer, 3)
		require.Equal(t, http.StatusTooManyRequests, p.status)
		require.Contains(t, p.body, "opened too often")
		require.Equal(t, http.StatusOK, b.open(b.mint(q.Key, "alice@example.com").URL).status)
	})
}

// TestEveryMethodIsThePagesOwn: a link opened with any method, or with a stray segment after its
// token, is answered by the page — its security headers on the answer, nothing of the token in
// the body — and never answered; HEAD is a GET without its body.
func TestEveryMethodIsThePagesOwn(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.merge()
		m := b.mint(q.Key, "alice@example.com")
		tok := strings.TrimPrefix(m.URL, "/a/")
		_, mac, _ := strings.Cut(tok, ".")
		cases := []struct{ method, path string }{
			{"HEAD", m.URL}, {"OPTIONS", m.URL}, {"PUT", m.URL}, {"DELETE", m.URL}, {"PATCH", m.URL},
			{"GET", m.URL + "/"}, {"GET", m.URL + "/more"}, {"POST", m.URL + "/more"}, {"GET", "/a/"},
		}
		for _, c := range cases {
			req, err := http.NewRequest(c.method, b.url+c.path, nil)
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			p := readPage(t, resp)
			what := c.method + " " + strings.ReplaceAll(c.path, tok, "<token>")
			p.requireOwnHeaders(t, what)
			require.NotContains(t, p.body, mac, what)
			if c.method == "HEAD" {
				require.Equal(t, http.StatusOK, p.status, what)
				require.Empty(t, p.body, what)
			} else {
				require.GreaterOrEqual(t, p.status, 400, what)
			}
		}
		require.Equal(t, "pending", b.get(q.Key).Status)
		require.Equal(t, http.StatusOK, b.open(m.URL).status, "the link still works")
	})
}

// TestOneSpellingPerLink: base64 decoders skip line breaks, so a token with a CR or LF slipped
// in would read as the same link under another name — a fresh rate limit per spelling. Such a
// spelling is not the link: refused as one the bot did not make, past the link's limit too.
func TestOneSpellingPerLink(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL, func(o *setupOpts) { o.burst = 2 })
		q := b.merge()
		link := q.Links.Answer
		require.Equal(t, http.StatusTooManyRequests, b.openPast(link, 2).status, "the link is past its burst")
		for i, variant := range []string{
			link[:8] + "%0A" + link[8:], link[:9] + "%0D" + link[9:], link + "%0A", link[:10] + "%0D%0A" + link[10:],
		} {
			p := b.open(variant)
			require.Equal(t, http.StatusNotFound, p.status, "variant %d", i)
			require.Contains(t, p.body, "not one the bot made", "variant %d", i)
		}
		require.Equal(t, "pending", b.get(q.Key).Status)
	})
}

// TestAddressLimitRefusedOnThePage: past the limit of requests from one address whose link the
// bot did not sign, the gateway's refusal is the page's — HTML, with its security headers,
// Retry-After and a sentence — not the API's JSON.
func TestAddressLimitRefusedOnThePage(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL, func(o *setupOpts) { o.addressBurst = 2 })
		for i := range 2 {
			require.Equal(t, http.StatusNotFound, b.open(fmt.Sprintf("/a/forged%d.x", i)).status)
		}
		p := b.open("/a/forged2.x")
		require.Equal(t, http.StatusTooManyRequests, p.status)
		require.Contains(t, p.header.Get("Content-Type"), "text/html")
		p.requireOwnHeaders(t)
		require.NotEmpty(t, p.header.Get("Retry-After"))
		require.Contains(t, p.body, "Too many tries")
		require.Contains(t, p.body, "are over their limit")
	})
}

// TestForgeriesLockNobodyOut: behind a reverse proxy every visitor shares one address, so a
// flood of forged links from it must not refuse the real ones: a link the bot signed is limited
// per link, never per address, and only the forgeries spend the address's budget.
func TestForgeriesLockNobodyOut(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL, func(o *setupOpts) { o.burst, o.addressBurst = 3, 5 })
		q := b.merge()
		refused := 0
		for i := range 200 {
			if b.open(fmt.Sprintf("/a/forged%d.x", i)).status == http.StatusTooManyRequests {
				refused++
			}
		}
		require.Equal(t, 195, refused, "the forgeries past the address's budget are refused")
		alice, bob := b.mint(q.Key, "alice@example.com").URL, b.mint(q.Key, "bob@example.com").URL
		p := b.openPast(alice, 3) // three openings: more than the address has left, within the link's own
		require.Equal(t, http.StatusTooManyRequests, p.status, "the link hammered is past its own limit")
		require.Contains(t, p.body, "opened too often")
		require.Equal(t, http.StatusOK, b.open(bob).status, "another link from the same address")
		require.Equal(t, http.StatusOK, b.open(q.Links.Answer).status, "and the general link")
	})
}

// TestGeneralLinkNamesNobody: the general link answers as "link" — anybody who holds it, the
// asker first, since every response carries it — so a question that must know who answers (the
// approvals of several distinct people, or someone other than who requested it) carries none,
// and a link that names nobody the question names is refused on opening and on sending; a link
// a token that may answer it minted counts.
func TestGeneralLinkNamesNobody(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		quorum := b.askWith(map[string]any{"kind": "confirm", "question": "Ship it?", "approvals": 2})
		fourEyes := b.askWith(map[string]any{"kind": "confirm", "question": "Grant access?", "requested_by": []string{"link:mallory@example.com"}})
		for _, q := range []inquiryView{quorum, fourEyes} {
			require.Nil(t, q.Links, "no general link for a question that names who may answer it")
			rec, err := b.svc.Get(context.Background(), q.Key)
			require.NoError(t, err)
			m, err := b.svc.LinkFor(rec, "eve@example.com") // a link of somebody it does not name
			require.NoError(t, err)
			p := b.open(m.URL)
			require.Equal(t, http.StatusForbidden, p.status, p.body)
			require.Contains(t, p.body, "is not one of them")
			form := url.Values{"csrf": {b.svc.FormToken(strings.TrimPrefix(m.URL, "/a/"))}, "inquiry": {q.Key}}
			s := b.post(m.URL, with(form, "step", "send", "value", "yes"))
			require.Equal(t, http.StatusForbidden, s.status, s.body)
			got := b.get(q.Key)
			require.Equal(t, "pending", got.Status)
			require.Empty(t, got.Votes)
		}
		m := b.mintAs(b.admin, quorum.Key, "alice@example.com")
		p := b.post(m.URL, with(formOf(t, b.open(m.URL)), "step", "send", "value", "yes"))
		require.Contains(t, p.body, "Your vote is counted")
	})
}

// TestForgeriesDoNotResetALinksLimit: the page remembers a bounded number of links' limits;
// forged tokens are refused before they take a place among them, so a flood of forgeries cannot
// push a real link's limit out and start it afresh.
func TestForgeriesDoNotResetALinksLimit(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL, func(o *setupOpts) { o.burst = 2 })
		q := b.merge()
		require.Equal(t, http.StatusTooManyRequests, b.openPast(q.Links.Answer, 2).status)
		const forgeries = 10_001 // past the table's bound
		var wg sync.WaitGroup
		var bad atomic.Int32
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < forgeries; i += 8 {
					resp, err := http.Get(b.url + "/a/" + fmt.Sprintf("forged%d.x", i))
					if err != nil {
						bad.Add(1)
						continue
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusNotFound {
						bad.Add(1)
					}
				}
			})
		}
		wg.Wait()
		require.Zero(t, bad.Load(), "every forgery is refused as one")
		require.Equal(t, http.StatusTooManyRequests, b.open(q.Links.Answer).status, "the link's limit holds")
	})
}

// TestQuorumCountsLinkVotes: each recipient's link is one person's vote; two make the quorum.
func TestQuorumCountsLinkVotes(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.askWith(map[string]any{"kind": "confirm", "question": "Ship it?", "approvals": 2})
		send := func(who string) page {
			m := b.mintAs(b.admin, q.Key, who) // not the asker: it names who may answer it
			return b.post(m.URL, with(formOf(t, b.open(m.URL)), "step", "send", "value", "yes"))
		}
		p := send("alice@example.com")
		require.Contains(t, p.body, "Your vote is counted")
		require.Equal(t, "pending", b.get(q.Key).Status)
		p = send("alice@example.com") // the same person again: still one vote
		require.Equal(t, "pending", b.get(q.Key).Status)
		p = send("bob@example.com")
		require.Contains(t, p.body, "approved by")
		got := b.get(q.Key)
		require.Equal(t, "answered", got.Status)
		require.Len(t, got.Answer.Votes, 2)
		for _, v := range got.Answer.Votes {
			require.Equal(t, inquiry.ViaWeb, v.Via)
			require.True(t, strings.HasPrefix(v.By, "link:"), v.By)
		}
	})
}

// TestLinksAPI: only the asker (or an admin) mints and revokes; a recipient must be an address;
// a resolved inquiry mints none.
func TestLinksAPI(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.merge()
		body := map[string]string{"recipient": "alice@example.com"}
		var e struct {
			Error struct{ Code, Message, Field string }
		}
		require.Equal(t, http.StatusForbidden, b.api("POST", "/v1/inquiries/"+q.Key+"/links", b.ask2, body, &e))
		require.Contains(t, e.Error.Message, "did not ask inquiry")
		require.Equal(t, http.StatusForbidden, b.api("POST", "/v1/inquiries/"+q.Key+"/links", b.answerer, body, nil))
		require.Equal(t, http.StatusForbidden, b.api("DELETE", "/v1/inquiries/"+q.Key+"/links/alice@example.com", b.ask2, nil, nil))
		require.Equal(t, http.StatusCreated, b.api("POST", "/v1/inquiries/"+q.Key+"/links", b.admin, body, nil))
		for _, bad := range []string{"", "alice", "Alice <alice@example.com>", strings.Repeat("a", 250) + "@example.com"} {
			require.Equal(t, http.StatusBadRequest, b.api("POST", "/v1/inquiries/"+q.Key+"/links", b.ask, map[string]string{"recipient": bad}, &e), bad)
			require.Equal(t, "recipient", e.Error.Field)
		}
		require.Equal(t, http.StatusBadRequest, b.api("POST", "/v1/inquiries/"+q.Key+"/links", b.ask, map[string]string{"recipient": "a@b.c", "expires_in": "soon"}, &e))
		// A link never outlives its inquiry.
		m := b.mint(q.Key, "alice@example.com", "100h")
		require.WithinDuration(t, b.clock.Now().Add(2*time.Hour), m.ExpiresAt, time.Second)
		require.Equal(t, http.StatusNotFound, b.api("POST", "/v1/inquiries/inq_nope/links", b.ask, body, nil))

		require.Equal(t, http.StatusOK, b.api("POST", "/v1/inquiries/"+q.Key+"/cancel", b.ask, nil, nil))
		require.Equal(t, http.StatusConflict, b.api("POST", "/v1/inquiries/"+q.Key+"/links", b.ask, body, &e))
		require.Equal(t, "already_resolved", e.Error.Code)
	})
}

// TestNoLinkInLogs: after every kind of request to the page and the links API, no log line
// holds a link's token, nor its signature.
func TestNoLinkInLogs(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.merge()
		m := b.mint(q.Key, "alice@example.com")
		form := formOf(t, b.open(m.URL))
		b.post(m.URL, with(form, "step", "confirm", "value", "merge"))
		b.post(m.URL, with(form, "step", "send", "value", "merge"))
		b.post(m.URL, with(form, "step", "send", "value", "hold")) // refused: already answered
		b.open(m.URL + "x")                                        // forged
		b.open(q.Links.Answer)
		req, _ := http.NewRequest("PUT", b.url+m.URL, nil) // no such method
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()

		logs := b.logs.String()
		require.Contains(t, logs, `"path":"/a/…"`, "the page's requests are logged, redacted")
		for _, link := range []string{m.URL, q.Links.Answer} {
			tok := strings.TrimPrefix(link, "/a/")
			_, mac, _ := strings.Cut(tok, ".")
			require.NotContains(t, logs, tok)
			require.NotContains(t, logs, mac)
		}
		require.NotContains(t, logs, url.QueryEscape(form.Get("csrf")))
		require.NotContains(t, logs, form.Get("csrf"))
	})
}

// TestOtherAnswers: a multiple choice (several ticks, or one), own words where allow_text, and
// a reason where one is asked for — each through the confirmation, as the domain reads it.
func TestOtherAnswers(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		opts := []map[string]string{{"value": "api", "label": "API"}, {"value": "web", "label": "Web"}, {"value": "cli", "label": "CLI"}}

		t.Run("multiple", func(t *testing.T) {
			for _, ticks := range [][]string{{"api", "cli"}, {"web"}} {
				q := b.askWith(map[string]any{"kind": "choice", "multiple": true, "question": "Which parts change?", "options": opts})
				p := b.open(q.Links.Answer)
				require.Contains(t, p.body, `type="checkbox" name="value" value="cli"`)
				kv := []string{"step", "confirm"}
				for _, v := range ticks {
					kv = append(kv, "value", v)
				}
				c := b.post(q.Links.Answer, with(formOf(t, p), kv...))
				require.Equal(t, http.StatusOK, c.status, c.body)
				require.Contains(t, c.body, "Send: <strong>")
				kv[1] = "send"
				s := b.post(q.Links.Answer, with(formOf(t, c), kv...))
				require.Equal(t, http.StatusOK, s.status, s.body)
				require.Equal(t, ticks, b.get(q.Key).Answer.Value.Strings())
			}
		})

		t.Run("own words", func(t *testing.T) {
			q := b.askWith(map[string]any{"kind": "choice", "allow_text": true, "question": "Which part first?", "options": opts})
			p := b.open(q.Links.Answer)
			require.Contains(t, p.body, "Or answer in your own words")
			c := b.post(q.Links.Answer, with(formOf(t, p), "step", "confirm", "text", "Neither: <b>docs</b> first"))
			require.Contains(t, c.body, "Send: <strong>&#34;Neither: &lt;b&gt;docs&lt;/b&gt; first&#34;</strong>?")
			s := b.post(q.Links.Answer, with(formOf(t, c), "step", "send", "text", "Neither: <b>docs</b> first"))
			require.Equal(t, http.StatusOK, s.status, s.body)
			got := b.get(q.Key).Answer
			require.Equal(t, "Neither: <b>docs</b> first", got.Text)
			require.True(t, got.Value.IsZero())
		})

		// Words typed in the own-words box are read as a thread reply's or bot answer's are
		// (inquiry.ReplyOf): answers separated by commas, an answer and its reason after a break.
		t.Run("typed answers", func(t *testing.T) {
			for _, tc := range []struct {
				ask   map[string]any
				typed string
				value []string
				text  string
			}{
				{map[string]any{"kind": "choice", "multiple": true, "allow_text": true, "question": "Which parts change?", "options": opts}, "API, cli", []string{"api", "cli"}, ""},
				{map[string]any{"kind": "choice", "allow_text": true, "reason": "always", "question": "Which part first?", "options": opts}, "Web: the page is slow", []string{"web"}, "the page is slow"},
			} {
				q := b.askWith(tc.ask)
				p := b.open(q.Links.Answer)
				c := b.post(q.Links.Answer, with(formOf(t, p), "step", "confirm", "text", tc.typed))
				require.Equal(t, http.StatusOK, c.status, c.body)
				require.Contains(t, c.body, `<input type="hidden" name="text" value="`+tc.typed+`">`, "the words go on as typed, to be read again")
				s := b.post(q.Links.Answer, with(formOf(t, c), "step", "send", "text", tc.typed))
				require.Equal(t, http.StatusOK, s.status, s.body)
				got := b.get(q.Key).Answer
				require.Equal(t, tc.value, got.Value.Strings(), tc.typed)
				require.Equal(t, tc.text, got.Text, tc.typed)
			}
		})

		t.Run("reason", func(t *testing.T) {
			q := b.askWith(map[string]any{"kind": "confirm", "question": "Release today?", "reason": "on_no"})
			p := b.open(q.Links.Answer)
			require.Contains(t, p.body, "Your reason (needed for a no)")
			r := b.post(q.Links.Answer, with(formOf(t, p), "step", "confirm", "value", "no"))
			require.Equal(t, http.StatusUnprocessableEntity, r.status)
			require.Contains(t, r.body, `id="problem"`)
			c := b.post(q.Links.Answer, with(formOf(t, p), "step", "confirm", "value", "no", "text", "tests are red"))
			require.Equal(t, http.StatusOK, c.status, c.body)
			s := b.post(q.Links.Answer, with(formOf(t, c), "step", "send", "value", "no", "text", "tests are red"))
			require.Equal(t, http.StatusOK, s.status, s.body)
			got := b.get(q.Key).Answer
			require.Equal(t, "no", got.Value.First())
			require.Equal(t, "tests are red", got.Text)
		})
	})
}
