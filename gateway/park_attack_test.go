package gateway_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

// step is what a scripted client writes, after sleeping for pause.
type step struct {
	pause time.Duration
	write string
	half  bool // half-close after writing
}

// script runs steps on a connection of its own to addr and returns everything read back until
// the server closes it or wait passes.
func script(t *testing.T, addr string, wait time.Duration, steps ...step) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	out := make(chan string, 1)
	go func() {
		_ = c.SetReadDeadline(time.Now().Add(wait))
		got, _ := io.ReadAll(c)
		out <- string(got)
	}()
	for _, s := range steps {
		time.Sleep(s.pause)
		_, _ = io.WriteString(c, s.write)
		if s.half {
			_ = c.(*net.TCPConn).CloseWrite()
		}
	}
	return <-out
}

// noDeadline hides the TCP listener's SetDeadline, so that the gateway's listener cannot hand a
// connection back and its long-polls wait on their goroutines.
type noDeadline struct{ net.Listener }

// serveUnparked serves b's handler as serveParked does, on the gateway's listener, but with
// every long-poll waiting on its goroutine; it returns the address.
func serveUnparked(t *testing.T, b *bundle) string {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := gateway.NewListener(noDeadline{inner}, gateway.Limits{})
	hs := gateway.NewHTTPServer(b.srv.Handler(), gateway.Limits{})
	done := make(chan struct{})
	go func() { _ = hs.Serve(ln); close(done) }()
	t.Cleanup(func() { _ = hs.Close(); <-done })
	return ln.Addr().String()
}

var perResponse = regexp.MustCompile(`(?m)^(Date|X-Request-Id): .*\r\n`)

func normalize(s string) string { return perResponse.ReplaceAllString(s, "") }

// A parked long-poll's connection answers what a client pipelines behind it — a request with a
// body, its body late, a head split across packets, Expect: 100-continue, a request framed two
// ways, a GET with a chunked body, Expect on the long-poll, HTTP/1.0 kept alive, a half-close,
// Connection: close — byte for byte as the goroutine path on the same listener does, but for
// Date and the request id.
func TestParkedPipelinedAsBefore(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher())
	addr := serveParked(t, b)
	plain := serveUnparked(t, b)
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
	poll := rawGet("x", "/v1/inquiries/"+key+"?wait=3", b.askA)
	get := rawGet("x", "/v1/inquiries/"+key, b.askA)
	body := `{"value":"nope"}`
	post := "POST /v1/inquiries/" + key + "/answer HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + b.answerer +
		"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	cases := map[string][]step{
		"post with body pipelined": {{write: poll + post + body + get}},
		"post body later":          {{write: poll}, {pause: 500 * time.Millisecond, write: post}, {pause: 2500 * time.Millisecond, write: body + get}},
		"split head":               {{write: poll}, {pause: 500 * time.Millisecond, write: get[:20]}, {pause: 2200 * time.Millisecond, write: get[20:]}},
		"expect continue":          {{write: poll + strings.Replace(post, "\r\n\r\n", "\r\nExpect: 100-continue\r\n\r\n", 1)}, {pause: 3500 * time.Millisecond, write: body + get}},
		"expect on the poll":       {{write: strings.Replace(poll, "\r\n\r\n", "\r\nExpect: 100-continue\r\n\r\n", 1) + get}},
		"http/1.0 keep-alive":      {{write: strings.Replace(strings.Replace(poll, "HTTP/1.1", "HTTP/1.0", 1), "\r\n\r\n", "\r\nConnection: keep-alive\r\n\r\n", 1) + get}},
		"half close":               {{write: poll}, {pause: 500 * time.Millisecond, half: true}},
		"cl and te":                {{write: poll}, {pause: 500 * time.Millisecond, write: strings.Replace(post, "\r\n\r\n", "\r\nTransfer-Encoding: chunked\r\n\r\n", 1) + "0\r\n\r\n" + get}},
		"chunked get":              {{write: poll + strings.Replace(get, "\r\n\r\n", "\r\nTransfer-Encoding: chunked\r\n\r\n", 1) + "5\r\nhello\r\n0\r\n\r\n" + get}},
		"close after":              {{write: poll + strings.Replace(get, "\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1) + get}},
	}
	t.Cleanup(func() { // after every case
		require.Eventually(t, func() bool { return b.srv.Parked() == 0 }, 5*time.Second, 5*time.Millisecond)
	})
	for name, steps := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			done := make(chan string, 1)
			go func() { done <- script(t, plain, 6*time.Second, steps...) }()
			parked := normalize(script(t, addr, 6*time.Second, steps...))
			before := normalize(<-done)
			require.Equal(t, before, parked)
			require.Contains(t, before, "HTTP/1.1 200 OK", "the long-poll is answered")
		})
	}
}

// Shutdown as bot serve does it (the hub closed, net/http's Shutdown, then WaitParked) with
// hundreds of long-polls parked: every one is answered (the inquiry as it stands, Connection:
// close), Shutdown and WaitParked return within the grace, and nothing is left behind: no
// parked long-poll, no waiter, no goroutine.
func TestShutdownWithManyParked(t *testing.T) {
	const n = 300
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher())
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
	before := settledGoroutines()
	ln, err := gateway.Listen("127.0.0.1:0", gateway.Limits{})
	require.NoError(t, err)
	addr := ln.Addr().String()
	hs := gateway.NewHTTPServer(b.srv.Handler(), gateway.Limits{})
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	answers := make(chan string, n)
	for range n {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		_, err = io.WriteString(c, rawGet(addr, "/v1/inquiries/"+key+"?wait=55", b.askA))
		require.NoError(t, err)
		go func() {
			_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
			got, _ := io.ReadAll(c)
			answers <- string(got)
		}()
	}
	require.Eventually(t, func() bool { return b.srv.Parked() == n }, 30*time.Second, 10*time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b.svc.Hub.Close()
	require.NoError(t, hs.Shutdown(ctx))
	require.NoError(t, b.srv.WaitParked(ctx))
	require.ErrorIs(t, <-served, http.ErrServerClosed)
	for range n {
		got := <-answers
		require.True(t, strings.HasPrefix(got, "HTTP/1.1 200 OK\r\n"), "answer: %q", got)
		require.Contains(t, got, "\r\nConnection: close\r\n")
		require.Contains(t, got, `"status":"pending"`)
	}
	require.Equal(t, 0, b.srv.Parked())
	require.Equal(t, 0, b.svc.Hub.Waiters())
	require.Eventually(t, func() bool { return settledGoroutines() <= before+2 }, 10*time.Second, 50*time.Millisecond,
		"goroutines left after shutdown (the prober ends within %s)", 2*time.Second)
}

// With one waiter slot a token, every way a parked long-poll ends gives the slot back: the
// wait's end, an answer, a client that half-closed, a pipelined request behind it; the next
// long-poll is served, not refused.
func TestParkedWaiterSlotGivenBack(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher(),
		withLimits(gateway.RateLimits{Rate: rate.Inf, AddressRate: rate.Inf, MaxWaiters: 1}))
	addr := serveParked(t, b)
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
	answered := str(b.ask(b.askA, choice("answered"), http.StatusCreated)["key"])
	poll := func(k, wait string) string { return rawGet("x", "/v1/inquiries/"+k+"?wait="+wait, b.askA) }
	next := func(why string) {
		t.Helper()
		require.Eventually(t, func() bool { return b.srv.Parked() == 0 }, 10*time.Second, 5*time.Millisecond, why)
		r := getFrom(t, "http://"+addr, "/v1/inquiries/"+key+"?wait=0.2", b.askA)
		require.Equal(t, http.StatusOK, r.status, "%s: body: %s", why, r.body)
	}

	require.Contains(t, script(t, addr, 2*time.Second, step{write: poll(key, "0.3")}), "200 OK")
	next("the wait's end")

	go func() {
		require.Eventually(t, func() bool { return b.srv.Parked() == 1 }, 10*time.Second, 5*time.Millisecond)
		r := b.do("POST", "/v1/inquiries/"+answered+"/answer", b.answerer, map[string]any{"value": "Merge"})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	}()
	require.Contains(t, script(t, addr, 3*time.Second, step{write: poll(answered, "30")}), `"status":"answered"`)
	next("an answer")

	require.Contains(t, script(t, addr, 5*time.Second, step{write: poll(key, "30")},
		step{pause: 300 * time.Millisecond, half: true}), "200 OK")
	next("a half-close")

	got := script(t, addr, 3*time.Second, step{write: poll(key, "0.3") + poll(key, "0.3")})
	require.Equal(t, 2, strings.Count(got, "HTTP/1.1 200 OK"), "both answered in turn: %s", got)
	next("a pipelined long-poll behind it")
}

// At the connection cap, with every slot held by a parked long-poll, a new client is held until
// one answers; the connections handed back are then idle keep-alives, reclaimed for it.
func TestParkedAtTheConnectionCap(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher())
	ln, err := gateway.Listen("127.0.0.1:0", gateway.Limits{MaxConns: 2})
	require.NoError(t, err)
	addr := ln.Addr().String()
	hs := gateway.NewHTTPServer(b.srv.Handler(), gateway.Limits{MaxConns: 2})
	done := make(chan struct{})
	go func() { _ = hs.Serve(ln); close(done) }()
	t.Cleanup(func() { _ = hs.Close(); <-done })
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])

	polls := make(chan string, 2)
	for range 2 {
		go func() {
			polls <- script(t, addr, 6*time.Second, step{write: rawGet("x", "/v1/inquiries/"+key+"?wait=1", b.askA)})
		}()
	}
	require.Eventually(t, func() bool { return b.srv.Parked() == 2 }, 10*time.Second, 5*time.Millisecond)
	start := time.Now()
	third := script(t, addr, 8*time.Second, step{write: strings.Replace(rawGet("x", "/v1/inquiries/"+key, b.askA), "\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1)})
	t.Logf("the third client waited %s", time.Since(start))
	require.True(t, strings.HasPrefix(third, "HTTP/1.1 200 OK\r\n"), "third: %q", third)
	for range 2 {
		require.True(t, strings.HasPrefix(<-polls, "HTTP/1.1 200 OK\r\n"))
	}
}

// panickyInquiries panics on every read of an inquiry once armed.
type panickyInquiries struct {
	inquiry.Store
	armed atomic.Bool
}

func (p *panickyInquiries) Inquiry(ctx context.Context, key string) (*inquiry.Record, error) {
	if p.armed.Load() {
		panic("the store's read of the inquiry fails")
	}
	return p.Store.Inquiry(ctx, key)
}

// A read that panics while a long-poll is parked (off every handler, so net/http's and gin's
// recovery do not see it) is answered as on the goroutine path — an internal error — and does
// not take the process down.
func TestParkedReadPanicAnsweredAsBefore(t *testing.T) {
	panicky := &panickyInquiries{}
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher(),
		withStore(func(s inquiry.Store) inquiry.Store { panicky.Store = s; return panicky }))
	addr := serveParked(t, b)
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
	before, parked := bothWait(t, b, addr, "/v1/inquiries/"+key+"?wait=30", func() {
		panicky.armed.Store(true)
		b.svc.Hub.Wake(key)
	})
	requireSameAnswer(t, before, parked)
	require.Equal(t, http.StatusInternalServerError, parked.status)
}

// A client that closes its side of the connection right after its request (printf … | nc -N
// does) may be told its answer or, when the server noticed first, that it left (499
// client_closed_request, with a sentence) — never 500 and an ERROR line for a fault of its own,
// on either path of a long-poll and on a plain read.
func TestHalfClosedAtOnceIsNoServerError(t *testing.T) {
	each(t, func(t *testing.T, db string) { halfClosedAtOnce(t, db) })
}

func halfClosedAtOnce(t *testing.T, db string) {
	var mu sync.Mutex
	var logs strings.Builder
	b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withoutDispatcher(), withLog(&lockedWriter{mu: &mu, w: &logs}))
	parked := serveParked(t, b)
	plain := serveUnparked(t, b)
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
	create := `{"id": "half-%d", "kind": "confirm", "question": "Go?"}`
	requests := map[string]func(i int) string{
		"read":      func(int) string { return rawGet("x", "/v1/inquiries/"+key, b.askA) },
		"long-poll": func(int) string { return rawGet("x", "/v1/inquiries/"+key+"?wait=1", b.askA) },
		"list":      func(int) string { return rawGet("x", "/v1/inquiries", b.askA) },
		"create": func(i int) string {
			body := fmt.Sprintf(create, i)
			return "POST /v1/inquiries HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + b.askA +
				"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		},
	}
	gone, i := 0, 0
	for name, req := range requests {
		for where, addr := range map[string]string{"parked": parked, "plain": plain} {
			for range 10 {
				i++
				got := script(t, addr, 6*time.Second, step{write: req(i), half: true})
				head, body, _ := strings.Cut(got, "\r\n\r\n")
				switch {
				case strings.HasPrefix(head, "HTTP/1.1 200 OK"), strings.HasPrefix(head, "HTTP/1.1 201 Created"):
				case strings.HasPrefix(head, "HTTP/1.1 499 "):
					gone++
					require.Contains(t, body, `"code":"client_closed_request"`, "%s on %s", name, where)
					require.Contains(t, body, "send the same request again", "%s on %s", name, where)
				default:
					t.Fatalf("%s on %s, half-closed at once: %q", name, where, got)
				}
			}
		}
	}
	t.Logf("%d of %d told the client left", gone, i)
	mu.Lock()
	defer mu.Unlock()
	require.NotContains(t, logs.String(), `"level":"ERROR"`)
}
