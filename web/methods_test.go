package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

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
			require.Contains(t, p.header.Get("Content-Security-Policy"), "default-src 'none'", what)
			require.Equal(t, "no-referrer", p.header.Get("Referrer-Policy"), what)
			require.Equal(t, "DENY", p.header.Get("X-Frame-Options"), what)
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
		for range 2 {
			require.Equal(t, http.StatusOK, b.open(link).status)
		}
		require.Equal(t, http.StatusTooManyRequests, b.open(link).status, "the link is past its burst")
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

// TestAddressLimitRefusedOnThePage: past the limit of requests without a token from one
// address, the gateway's refusal of a link is the page's — HTML, with its security headers and
// Retry-After — not the API's JSON.
func TestAddressLimitRefusedOnThePage(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL, func(o *setupOpts) { o.addressBurst = 2 })
		q := b.merge()
		for range 2 {
			require.Equal(t, http.StatusOK, b.open(q.Links.Answer).status)
		}
		p := b.open(q.Links.Answer)
		require.Equal(t, http.StatusTooManyRequests, p.status)
		require.Contains(t, p.header.Get("Content-Type"), "text/html")
		require.Contains(t, p.header.Get("Content-Security-Policy"), "default-src 'none'")
		require.Equal(t, "no-referrer", p.header.Get("Referrer-Policy"))
		require.Equal(t, "DENY", p.header.Get("X-Frame-Options"))
		require.NotEmpty(t, p.header.Get("Retry-After"))
		require.Contains(t, p.body, "Too many tries")
		require.NotContains(t, p.body, "Merge now?", "a refusal shows nothing of the question")
	})
}

// TestGeneralLinkNamesNobody: the general link answers as "link" — anybody who holds it, the
// asker too, since every response carries it — so where the inquiry must know who answers (the
// approvals of several distinct people, or someone other than who requested it) it is refused,
// on opening and on sending, and a recipient's own link still counts.
func TestGeneralLinkNamesNobody(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		quorum := b.askWith(map[string]any{"kind": "confirm", "question": "Ship it?", "approvals": 2})
		fourEyes := b.askWith(map[string]any{"kind": "confirm", "question": "Grant access?", "requested_by": []string{"link:mallory@example.com"}})
		for _, q := range []inquiryView{quorum, fourEyes} {
			require.NotNil(t, q.Links, "the response still carries the link (DESIGN §15)")
			p := b.open(q.Links.Answer)
			require.Equal(t, http.StatusForbidden, p.status, p.body)
			require.Contains(t, p.body, "ask whoever sent it for a link of your own")
			// A form of a recipient's page posted through the general link is refused anyway
			// (the form token is the link's); one made for the general link is refused here.
			form := url.Values{"csrf": {b.svc.FormToken(strings.TrimPrefix(q.Links.Answer, "/a/"))}, "inquiry": {q.Key}}
			s := b.post(q.Links.Answer, with(form, "step", "send", "value", "yes"))
			require.Equal(t, http.StatusForbidden, s.status, s.body)
			got := b.get(q.Key)
			require.Equal(t, "pending", got.Status)
			require.Empty(t, got.Votes)
		}
		m := b.mint(quorum.Key, "alice@example.com")
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
		for range 2 {
			require.Equal(t, http.StatusOK, b.open(q.Links.Answer).status)
		}
		require.Equal(t, http.StatusTooManyRequests, b.open(q.Links.Answer).status)
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
