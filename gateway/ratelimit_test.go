package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

// RateLimits under abuse (the README's Limits, issue 14 item 5): per token, creates and answers are
// rate limited and concurrent long-polls capped; requests without a valid token are rate limited
// per client address. A refusal is 429 rate_limited with Retry-After and a sentence.

// slow is a rate that refills one request a minute: within a test's few seconds, what a burst
// lets through is all that goes through.
var slow = rate.Every(time.Minute)

// retryAfter checks a refusal is rate_limited with a Retry-After of whole seconds from 1 to max,
// and a sentence saying when to retry; it returns the sentence.
func retryAfter(t *testing.T, r resp, max int) string {
	t.Helper()
	e := r.errorOf(t, http.StatusTooManyRequests, inquiry.CodeRateLimited)
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	require.NoError(t, err, "Retry-After %q is not whole seconds", r.header.Get("Retry-After"))
	require.GreaterOrEqual(t, secs, 1)
	require.LessOrEqual(t, secs, max)
	msg := e["message"].(string)
	require.Contains(t, msg, fmt.Sprintf("retry in %d s", secs), "the sentence says when to retry")
	return msg
}

func TestRateLimitCreatesAndAnswers(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withLimits(gateway.RateLimits{Rate: slow, Burst: 3}))
		// A burst of three creates goes through; the fourth and fifth are refused, and stored nothing.
		var keys []string
		for i := range 3 {
			keys = append(keys, str(b.ask(b.askA, confirm(fmt.Sprintf("burst-%d", i)), http.StatusCreated)["key"]))
		}
		for i := 3; i < 5; i++ {
			msg := retryAfter(t, b.do("POST", "/v1/inquiries", b.askA, confirm(fmt.Sprintf("burst-%d", i))), 60)
			require.Contains(t, msg, `token "agent-a"`)
			require.Contains(t, msg, "creates and answers")
			require.Contains(t, msg, "1 a minute, in bursts of up to 3")
		}
		require.Len(t, b.listAll(), 3, "a refused create stores nothing")
		// Every create of the token shares the one limit: asking in a run, resuming it,
		// registering it.
		for _, path := range []string{"/v1/runs/nightly/ask", "/v1/runs/nightly/resume", "/v1/runs"} {
			retryAfter(t, b.do("POST", path, b.askA, map[string]any{}), 60)
		}
		// Another token has a limit of its own; answers count like creates.
		for _, key := range keys {
			r := b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "yes"})
			require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		}
		r := b.do("POST", "/v1/inquiries/"+keys[0]+"/answer", b.answerer, map[string]any{"value": "yes"})
		require.Contains(t, retryAfter(t, r, 60), `token "alice"`)
		b.ask(b.askB, confirm("other-token"), http.StatusCreated)
		// Reads, cancels, heartbeats and finishes are not creates.
		require.Equal(t, http.StatusOK, b.do("GET", "/v1/inquiries/"+keys[0], b.askA, nil).status)
		require.Equal(t, http.StatusOK, b.do("GET", "/v1/inquiries", b.askA, nil).status)
	})
}

func TestRateLimitOff(t *testing.T) {
	t.Parallel()
	b := setup(t, withPolicy(inquiry.PolicyAsk), withLimits(gateway.RateLimits{Rate: rate.Inf}))
	// Past the default burst of 100: nothing is refused.
	const n = gateway.DefaultBurst + 20
	for i := range n {
		b.ask(b.askA, confirm(fmt.Sprintf("off-%d", i)), http.StatusCreated)
	}
	require.Len(t, b.listAll(), n)
}

// waitRefused sends a long-poll of the token until one is refused rate_limited (the holders are
// goroutines that may not have reached their wait yet); it returns the refusal.
func waitRefused(t *testing.T, b *bundle, token, path string, body any) resp {
	t.Helper()
	method := "GET"
	if body != nil {
		method = "POST"
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if r := b.do(method, path, token, body); r.status == http.StatusTooManyRequests {
			return r
		}
	}
	t.Fatalf("%s %s was never refused while the token held every long-poll", method, path)
	return resp{}
}

func TestRateLimitWaiters(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withLimits(gateway.RateLimits{Rate: rate.Inf, MaxWaiters: 2}))
		key := str(b.ask(b.askA, confirm("held"), http.StatusCreated)["key"])
		// Two long-polls hold the token's two places until they are let go (each tries again
		// while a probe below has a place).
		ctx, cancel := context.WithCancel(context.Background())
		var holders sync.WaitGroup
		for range 2 {
			holders.Add(1)
			go func() {
				defer holders.Done()
				for ctx.Err() == nil {
					req, _ := http.NewRequestWithContext(ctx, "GET", b.url+"/v1/inquiries/"+key+"?wait=50", nil)
					req.Header.Set("Authorization", "Bearer "+b.askA)
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						return
					}
					res.Body.Close()
					if res.StatusCode != http.StatusTooManyRequests {
						return
					}
				}
			}()
		}
		// A third long-poll is refused (probes wait a twentieth of a second while a place is free).
		r := waitRefused(t, b, b.askA, "/v1/inquiries/"+key+"?wait=0.05", nil)
		msg := retryAfter(t, r, 1)
		require.Contains(t, msg, `token "agent-a"`)
		require.Contains(t, msg, "long-polls held at once (2)")
		// So is a create that would wait, and it stores nothing; one that does not wait is taken.
		retryAfter(t, b.do("POST", "/v1/inquiries", b.askA, confirm("would-wait", "wait", 1)), 1)
		retryAfter(t, b.do("POST", "/v1/runs/nightly/ask", b.askA, confirm("would-wait", "wait", 1)), 1)
		require.Len(t, b.listAll(), 1, "a refused create stores nothing")
		b.ask(b.askA, confirm("no-wait", "wait", 0), http.StatusCreated)
		require.Equal(t, http.StatusOK, b.do("GET", "/v1/inquiries/"+key, b.askA, nil).status, "a read without wait holds no place")
		// Another token has places of its own.
		require.Equal(t, http.StatusOK, b.do("GET", "/v1/inquiries/"+key+"?wait=0.1", b.admin, nil).status)
		// Once the holders end, the token's places are free again.
		cancel()
		holders.Wait()
		require.Eventually(t, func() bool { return b.do("GET", "/v1/inquiries/"+key+"?wait=0.1", b.askA, nil).status == http.StatusOK },
			10*time.Second, 20*time.Millisecond, "the token's places are free again")
	})
}

func TestRateLimitUnauthenticated(t *testing.T) {
	t.Parallel()
	b := setup(t, withPolicy(inquiry.PolicyAsk), withMount(fakeSlackRoute), withLimits(gateway.RateLimits{Rate: rate.Inf, AddressRate: slow, AddressBurst: 4}))
	// A missing token, an unknown one, the document and a Slack request refused for its
	// signature share the address's burst of four; the fifth request from the address is
	// refused, whatever it asks for.
	b.do("POST", "/v1/inquiries", "", confirm("a")).errorOf(t, http.StatusUnauthorized, inquiry.CodeUnauthenticated)
	b.do("GET", "/v1/inquiries", "bot_nope_nope", nil).errorOf(t, http.StatusUnauthorized, inquiry.CodeUnauthenticated)
	require.Equal(t, http.StatusOK, b.do("GET", "/openapi.yaml", "", nil).status)
	require.Equal(t, http.StatusNoContent, b.do("POST", "/slack/interactions", "signed", nil).status, "a signed request is not charged")
	require.Equal(t, http.StatusUnauthorized, b.do("POST", "/slack/interactions", "", nil).status)
	require.Equal(t, http.StatusNoContent, b.do("POST", "/slack/interactions", "signed", nil).status, "Slack is never limited")
	for _, c := range []struct{ method, path, token string }{
		{"POST", "/v1/inquiries", ""},
		{"GET", "/v1/inquiries/inq_x", b.revoked},
		{"GET", "/openapi.yaml", ""},
		{"GET", "/nowhere", ""},
	} {
		msg := retryAfter(t, b.do(c.method, c.path, c.token, nil), 60)
		require.Contains(t, msg, "127.0.0.1", "%s %s", c.method, c.path)
		require.Contains(t, msg, "without a valid")
	}
	// Probes are never limited, and a valid token is not charged for the address's refusals.
	for range 3 {
		require.Equal(t, http.StatusOK, b.do("GET", "/healthz", "", nil).status)
		require.Equal(t, http.StatusOK, b.do("GET", "/readyz", "", nil).status)
	}
	b.ask(b.askA, confirm("valid"), http.StatusCreated)
	require.Equal(t, http.StatusOK, b.do("GET", "/v1/inquiries", b.askA, nil).status)
}

// fakeSlackRoute stands for the Slack app's endpoint: 204 for a request it takes as signed (here:
// one with the bearer "signed"), 401 for one whose signature it refuses.
func fakeSlackRoute(r gin.IRoutes) {
	r.POST("/slack/interactions", func(c *gin.Context) {
		if c.GetHeader("Authorization") == "Bearer signed" {
			c.Status(http.StatusNoContent)
			return
		}
		c.JSON(http.StatusUnauthorized, gin.H{"error": gin.H{"code": "unauthenticated", "message": "the signature is wrong", "fatal": false}})
	})
}

// Requests Slack signed are Slack's: they are never limited per address, though the address is
// over its limit — a busy workspace clicks faster than any per-address rate, from few addresses.
// Those refused for their signature are charged to the address: a flood of them spends what it
// has for every other request without a valid token.
func TestRateLimitSlackBySignature(t *testing.T) {
	t.Parallel()
	b := setup(t, withMount(fakeSlackRoute), withLimits(gateway.RateLimits{Rate: rate.Inf, AddressRate: slow, AddressBurst: 3}))
	for range 3 {
		require.Equal(t, http.StatusUnauthorized, b.do("POST", "/slack/interactions", "", nil).status)
	}
	b.do("GET", "/nowhere", "", nil).errorOf(t, http.StatusTooManyRequests, inquiry.CodeRateLimited)
	b.do("POST", "/v1/inquiries", "", confirm("a")).errorOf(t, http.StatusTooManyRequests, inquiry.CodeRateLimited)
	for range 50 {
		require.Equal(t, http.StatusNoContent, b.do("POST", "/slack/interactions", "signed", nil).status)
	}
}

// Each POST /mcp is a create or an answer of its token, and holds one of its long-poll places
// while it runs (its tool calls wait for an answer by default).
func TestRateLimitMCP(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	entered := make(chan struct{}, 10)
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("hold") != "" {
			entered <- struct{}{}
			<-release
		}
		w.WriteHeader(http.StatusOK)
	})
	b := setup(t, withPolicy(inquiry.PolicyAsk), withMCP(mcp), withLimits(gateway.RateLimits{Rate: slow, Burst: 4, MaxWaiters: 1}))
	let := sync.OnceFunc(func() { close(release) })
	t.Cleanup(let) // before the server closes, which waits for the held call
	// One call holds the token's one place; a second is refused while it runs.
	held := make(chan resp, 1)
	go func() { held <- b.do("POST", "/mcp?hold=1", b.askA, map[string]any{}) }()
	<-entered
	msg := retryAfter(t, b.do("POST", "/mcp", b.askA, map[string]any{}), 1)
	require.Contains(t, msg, "long-polls held at once (1)")
	let()
	require.Equal(t, http.StatusOK, (<-held).status)
	// The held call and the refused one took two of the burst of four; two more go through, and
	// then a create of the same token is refused: they share one limit.
	for range 2 {
		require.Equal(t, http.StatusOK, b.do("POST", "/mcp", b.askA, map[string]any{}).status)
	}
	retryAfter(t, b.do("POST", "/mcp", b.askA, map[string]any{}), 60)
	retryAfter(t, b.do("POST", "/v1/inquiries", b.askA, confirm("after-mcp")), 60)
}
