package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
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
		body["id"] = "q-" + inquiry.NewKey()
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

// page is a page as a test reads it.
type page struct {
	status int
	body   string
	header http.Header
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
