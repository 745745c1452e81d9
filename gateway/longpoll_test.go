package gateway_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

// These tests hold long-polls served as `bot serve` serves them (gateway.Listen and
// gateway.NewHTTPServer): each waits in its net/http handler, bounded by the token's waiter
// slots, and every way it ends gives its slot back.

// serveAsBot serves b's gateway on the hardened server of l and returns its address.
func serveAsBot(t *testing.T, b *bundle, l gateway.Limits) string {
	t.Helper()
	ln, err := gateway.Listen("127.0.0.1:0", l)
	require.NoError(t, err)
	hs := gateway.NewHTTPServer(b.srv.Handler(), l)
	done := make(chan struct{})
	go func() { _ = hs.Serve(ln); close(done) }()
	t.Cleanup(func() { _ = hs.Close(); <-done })
	return ln.Addr().String()
}

// getFrom sends GET path with token to base over a connection of its own.
func getFrom(t *testing.T, base, path, token string) resp {
	t.Helper()
	req, err := http.NewRequest("GET", base+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	c := &http.Client{Transport: &http.Transport{}, Timeout: 90 * time.Second}
	defer c.CloseIdleConnections()
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return resp{status: res.StatusCode, header: res.Header, body: raw}
}

func rawGet(addr, path, token string) string {
	return "GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + token + "\r\n\r\n"
}

// script writes each of writes on a connection of its own to addr (half-closing after the last
// when half), and returns everything read back until the server closes it or wait passes.
func script(t *testing.T, addr string, wait time.Duration, half bool, writes ...string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	for _, w := range writes {
		_, err := io.WriteString(c, w)
		require.NoError(t, err)
	}
	if half {
		require.NoError(t, c.(*net.TCPConn).CloseWrite())
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	got, _ := io.ReadAll(c)
	return string(got)
}

// A client that goes away while its long-poll waits ends the wait (net/http's background read
// sees it) and frees its waiter slot: with one slot a token, its next long-poll is served.
func TestLongPollClientGoneFreesItsSlot(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher(),
		withLimits(gateway.RateLimits{Rate: rate.Inf, AddressRate: rate.Inf, MaxWaiters: 1}))
	addr := serveAsBot(t, b, gateway.Limits{})
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])

	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = io.WriteString(c, rawGet(addr, "/v1/inquiries/"+key+"?wait=55", b.askA))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return b.hub.Waiters() == 1 }, 10*time.Second, 5*time.Millisecond)

	// The one slot is held: a second long-poll is refused.
	getFrom(t, "http://"+addr, "/v1/inquiries/"+key+"?wait=1", b.askA).errorOf(t, http.StatusTooManyRequests, inquiry.CodeRateLimited)

	require.NoError(t, c.Close())
	require.Eventually(t, func() bool { return b.hub.Waiters() == 0 }, 20*time.Second, 5*time.Millisecond,
		"the wait ends with its client")
	r := getFrom(t, "http://"+addr, "/v1/inquiries/"+key+"?wait=0.3", b.askA)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	require.Equal(t, "pending", r.json(t)["status"])
}

// With one waiter slot a token, every way a long-poll ends gives the slot back: the wait's end,
// an answer, a client that half-closed, a pipelined request behind it; the next long-poll is
// served, not refused.
func TestLongPollWaiterSlotGivenBack(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher(),
		withLimits(gateway.RateLimits{Rate: rate.Inf, AddressRate: rate.Inf, MaxWaiters: 1}))
	addr := serveAsBot(t, b, gateway.Limits{})
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
	answered := str(b.ask(b.askA, choice("answered"), http.StatusCreated)["key"])
	poll := func(k, wait string) string { return rawGet("x", "/v1/inquiries/"+k+"?wait="+wait, b.askA) }
	next := func(why string) {
		t.Helper()
		require.Eventually(t, func() bool { return b.hub.Waiters() == 0 }, 10*time.Second, 5*time.Millisecond, why)
		r := getFrom(t, "http://"+addr, "/v1/inquiries/"+key+"?wait=0.2", b.askA)
		require.Equal(t, http.StatusOK, r.status, "%s: body: %s", why, r.body)
	}

	require.Contains(t, script(t, addr, 2*time.Second, false, poll(key, "0.3")), "200 OK")
	next("the wait's end")

	go func() {
		require.Eventually(t, func() bool { return b.hub.Waiters() == 1 }, 10*time.Second, 5*time.Millisecond)
		r := b.do("POST", "/v1/inquiries/"+answered+"/answer", b.answerer, map[string]any{"value": "Merge"})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	}()
	require.Contains(t, script(t, addr, 3*time.Second, false, poll(answered, "30")), `"status":"answered"`)
	next("an answer")

	script(t, addr, 5*time.Second, true, poll(key, "30"))
	next("a half-close")

	got := script(t, addr, 3*time.Second, false, poll(key, "0.3")+poll(key, "0.3"))
	require.Equal(t, 2, strings.Count(got, "HTTP/1.1 200 OK"), "both answered in turn: %s", got)
	next("a pipelined long-poll behind it")
}

// Shutdown as bot serve does it (the hub closed, then net/http's Shutdown) with hundreds of
// long-polls waiting: every one is answered (the inquiry as it stands, Connection: close),
// Shutdown returns within the grace, and no waiter is left.
func TestShutdownWithManyWaiting(t *testing.T) {
	const n = 300
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher())
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
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
	require.Eventually(t, func() bool { return b.hub.Waiters() == n }, 30*time.Second, 10*time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The waits end once the server is shutting down (its OnShutdown hooks run after it stops
	// keeping connections alive), so every answer says Connection: close.
	hs.RegisterOnShutdown(b.hub.Close)
	require.NoError(t, hs.Shutdown(ctx))
	require.ErrorIs(t, <-served, http.ErrServerClosed)
	for range n {
		got := <-answers
		require.True(t, strings.HasPrefix(got, "HTTP/1.1 200 OK\r\n"), "answer: %q", got)
		require.Contains(t, got, "\r\nConnection: close\r\n")
		require.Contains(t, got, `"status":"pending"`)
	}
	require.Equal(t, 0, b.hub.Waiters())
}

// At the connection cap, with every connection held by a long-poll, a new client is held until
// one answers; the connections then wait for their next request, and give way to it.
func TestLongPollsAtTheConnectionCap(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher())
	addr := serveAsBot(t, b, gateway.Limits{MaxConns: 2})
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])

	polls := make(chan string, 2)
	for range 2 {
		go func() {
			polls <- script(t, addr, 6*time.Second, false, rawGet("x", "/v1/inquiries/"+key+"?wait=1", b.askA))
		}()
	}
	require.Eventually(t, func() bool { return b.hub.Waiters() == 2 }, 10*time.Second, 5*time.Millisecond)
	third := script(t, addr, 8*time.Second, false,
		strings.Replace(rawGet("x", "/v1/inquiries/"+key, b.askA), "\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1))
	require.True(t, strings.HasPrefix(third, "HTTP/1.1 200 OK\r\n"), "third: %q", third)
	for range 2 {
		require.True(t, strings.HasPrefix(<-polls, "HTTP/1.1 200 OK\r\n"))
	}
}
