package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/testkit"
)

// serveParked serves b's handler as `bot serve` does — NewHTTPServer on the gateway's
// listener — where an HTTP/1.1 long-poll is parked off its goroutine; b.url (httptest) serves
// the same handler with the long-poll waiting on its goroutine, as before. It returns the
// address.
func serveParked(t *testing.T, b *bundle) string {
	t.Helper()
	return serveParkedWith(t, b, gateway.Limits{}, 0)
}

// serveParkedWith is serveParked on a listener of l, whose connections hold their place among
// the arriving for hold (the default when 0).
func serveParkedWith(t *testing.T, b *bundle, l gateway.Limits, hold time.Duration) string {
	t.Helper()
	ln, err := gateway.Listen("127.0.0.1:0", l)
	require.NoError(t, err)
	if hold > 0 {
		gateway.SetArrivalHold(ln, hold)
	}
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
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: false}, Timeout: 90 * time.Second}
	defer c.CloseIdleConnections()
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	if res.Close {
		res.Header.Set("Connection", "close") // the client takes it out of the header
	}
	return resp{status: res.StatusCode, header: res.Header, body: raw}
}

// bothWait long-polls path on both servers at once and returns their answers (today's, parked)
// once during has run, after both wait.
func bothWait(t *testing.T, b *bundle, addr, path string, during func()) (before, parked resp) {
	t.Helper()
	waiting := b.svc.Hub.Waiters()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); before = getFrom(t, b.url, path, b.askA) }()
	go func() { defer wg.Done(); parked = getFrom(t, "http://"+addr, path, b.askA) }()
	require.Eventually(t, func() bool { return b.svc.Hub.Waiters() == waiting+2 }, 10*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool { return b.srv.Parked() >= 1 }, 10*time.Second, 5*time.Millisecond,
		"the long-poll on the gateway's listener is parked")
	if during != nil {
		during()
	}
	wg.Wait()
	return before, parked
}

// requireSameAnswer checks that the parked long-poll answered as today's: status, body, and
// every header but the per-response ones (Date, the request id), the framing (a parked answer
// always has a Content-Length; today's is chunked past 2 kB) and those in except.
func requireSameAnswer(t *testing.T, before, parked resp, except ...string) {
	t.Helper()
	require.Equal(t, before.status, parked.status, "before: %s\nparked: %s", before.body, parked.body)
	require.Equal(t, string(before.body), string(parked.body))
	skip := map[string]bool{"Date": true, "X-Request-Id": true, "Content-Length": true}
	for _, h := range except {
		skip[http.CanonicalHeaderKey(h)] = true
	}
	strip := func(h http.Header) http.Header {
		out := http.Header{}
		for k, v := range h {
			if !skip[k] {
				out[k] = v
			}
		}
		return out
	}
	require.Equal(t, strip(before.header), strip(parked.header))
	require.NotEmpty(t, parked.header.Get("X-Request-Id"))
	require.NotEmpty(t, parked.header.Get("Date"))
	_, err := http.ParseTime(parked.header.Get("Date"))
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(len(parked.body)), parked.header.Get("Content-Length"))
}

// askingParked is a gateway that asks people, and the address of its listener that parks
// long-polls.
func askingParked(t *testing.T) (*bundle, string) {
	b := setup(t, withPolicy(inquiry.PolicyAsk))
	return b, serveParked(t, b)
}

func TestParkedLongPollAnswersAsBefore(t *testing.T) {
	t.Run("answered while waiting", func(t *testing.T) {
		b, addr := askingParked(t)
		key := str(b.ask(b.askA, choice("merge"), http.StatusCreated)["key"])
		before, parked := bothWait(t, b, addr, "/v1/inquiries/"+key+"?wait=30", func() {
			r := b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "Merge"})
			require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		})
		requireSameAnswer(t, before, parked)
		require.Equal(t, "answered", parked.json(t)["status"])
		require.Equal(t, 0, b.svc.Hub.Waiters())
		require.Eventually(t, func() bool { return b.srv.Parked() == 0 }, 5*time.Second, 5*time.Millisecond)
	})
	// Nothing happens during the wait but its end, or the inquiry's.
	for _, c := range []struct {
		name, wait, status string
		ask                func() map[string]any // called once the gateway is up
	}{
		{"timeout", "1", "pending", func() map[string]any { return choice("hold") }},
		{"expiry during the wait", "40", "expired", func() map[string]any {
			return confirm("deploy", "expires_at", time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano), "default", "no")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, addr := askingParked(t)
			key := str(b.ask(b.askA, c.ask(), http.StatusCreated)["key"])
			before, parked := bothWait(t, b, addr, "/v1/inquiries/"+key+"?wait="+c.wait, nil)
			requireSameAnswer(t, before, parked)
			require.Equal(t, c.status, parked.json(t)["status"])
		})
	}
	t.Run("extend during the wait", func(t *testing.T) {
		b, addr := askingParked(t)
		old := time.Now().Add(time.Second)
		key := str(b.ask(b.askA, choice("ship", "expires_at", old.UTC().Format(time.RFC3339Nano),
			"extend", map[string]any{"by": "1h", "max": "1h"}), http.StatusCreated)["key"])
		before, parked := bothWait(t, b, addr, "/v1/inquiries/"+key+"?wait=30", func() {
			r := b.do("POST", "/v1/inquiries/"+key+"/extend", b.answerer, map[string]any{})
			require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
			time.Sleep(time.Until(old.Add(300 * time.Millisecond))) // past the old expiry
			r = b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "Merge"})
			require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		})
		requireSameAnswer(t, before, parked)
		require.Equal(t, "answered", parked.json(t)["status"], "the waits outlived the old expiry")
	})
	t.Run("shutdown while parked", func(t *testing.T) {
		b, addr := askingParked(t)
		key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
		before, parked := bothWait(t, b, addr, "/v1/inquiries/"+key+"?wait=55", func() {
			b.svc.Hub.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, b.srv.WaitParked(ctx))
		})
		// Today's answer says Connection: close too when net/http is shutting down, which the
		// hub's Close alone (b.url's server runs on) does not make it.
		requireSameAnswer(t, before, parked, "Connection")
		require.Equal(t, "close", parked.header.Get("Connection"))
		require.Equal(t, "pending", parked.json(t)["status"], "the inquiry as it stands")
	})
	t.Run("an error after the wait", func(t *testing.T) {
		// The inquiry's store fails for the read after the wait: the same error answer.
		b, addr := askingParked(t)
		key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
		before, parked := bothWait(t, b, addr, "/v1/inquiries/"+key+"?wait=30", func() {
			require.NoError(t, b.store.Close())
			b.svc.Hub.Wake(key)
		})
		requireSameAnswer(t, before, parked)
		require.NotEqual(t, http.StatusOK, parked.status)
	})
}

// rawGet is a GET request of the long-poll API as a client writes it on a connection.
func rawGet(addr, path, token string) string {
	return "GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + token + "\r\n\r\n"
}

func readResponse(t *testing.T, br *bufio.Reader) (*http.Response, map[string]any) {
	t.Helper()
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	res.Body.Close()
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m), "body: %s", raw)
	return res, m
}

// After its answer a parked long-poll's connection serves the next request (keep-alive), and a
// request pipelined behind the long-poll — sent with it, or while it waits — is answered after
// it, in order.
func TestParkedConnectionServesItsNextRequests(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher())
	addr := serveParked(t, b)
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
	other := str(b.ask(b.askA, choice("other"), http.StatusCreated)["key"])

	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	br := bufio.NewReader(c)

	// Keep-alive: a long-poll, answered, then two more requests on the connection.
	_, err = io.WriteString(c, rawGet(addr, "/v1/inquiries/"+key+"?wait=0.5", b.askA))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return b.srv.Parked() == 1 }, 10*time.Second, 5*time.Millisecond)
	res, got := readResponse(t, br)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.False(t, res.Close, "kept alive")
	require.Equal(t, "pending", got["status"])
	_, err = io.WriteString(c, rawGet(addr, "/v1/inquiries/"+other, b.askA))
	require.NoError(t, err)
	res, got = readResponse(t, br)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, other, got["key"])

	// Pipelined with the long-poll, in one write: net/http has read it ahead.
	_, err = io.WriteString(c, rawGet(addr, "/v1/inquiries/"+key+"?wait=0.5", b.askA)+rawGet(addr, "/v1/inquiries/"+other, b.askA))
	require.NoError(t, err)
	_, got = readResponse(t, br)
	require.Equal(t, key, got["key"])
	_, got = readResponse(t, br)
	require.Equal(t, other, got["key"])

	// Pipelined while the long-poll is parked: the probe reads it and keeps it.
	_, err = io.WriteString(c, rawGet(addr, "/v1/inquiries/"+key+"?wait=55", b.askA))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return b.srv.Parked() == 1 }, 10*time.Second, 5*time.Millisecond)
	_, err = io.WriteString(c, rawGet(addr, "/v1/inquiries/"+other, b.askA))
	require.NoError(t, err)
	time.Sleep(2500 * time.Millisecond) // a probe reads it meanwhile (and must not end the wait)
	require.Equal(t, 1, b.srv.Parked(), "pipelined bytes are not a client gone away")
	r := b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "Merge"})
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	_, got = readResponse(t, br)
	require.Equal(t, key, got["key"])
	require.Equal(t, "answered", got["status"])
	_, got = readResponse(t, br)
	require.Equal(t, other, got["key"])

	// A request asking for Connection: close is answered so and the connection closed.
	key3 := str(b.ask(b.askA, choice("third"), http.StatusCreated)["key"])
	req := strings.Replace(rawGet(addr, "/v1/inquiries/"+key3+"?wait=0.3", b.askA), "\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1)
	_, err = io.WriteString(c, req)
	require.NoError(t, err)
	res, _ = readResponse(t, br)
	require.True(t, res.Close)
	_, err = br.ReadByte()
	require.ErrorIs(t, err, io.EOF)
}

// A client that goes away while parked ends its wait and frees its waiter slot: with one slot a
// token, its next long-poll is served.
func TestParkedClientGoneFreesItsSlot(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher(),
		withLimits(gateway.RateLimits{Rate: rate.Inf, AddressRate: rate.Inf, MaxWaiters: 1}))
	addr := serveParked(t, b)
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])

	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	_, err = io.WriteString(c, rawGet(addr, "/v1/inquiries/"+key+"?wait=55", b.askA))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return b.srv.Parked() == 1 }, 10*time.Second, 5*time.Millisecond)

	// The one slot is held: a second long-poll is refused.
	getFrom(t, "http://"+addr, "/v1/inquiries/"+key+"?wait=1", b.askA).errorOf(t, http.StatusTooManyRequests, inquiry.CodeRateLimited)

	require.NoError(t, c.Close())
	require.Eventually(t, func() bool { return b.srv.Parked() == 0 && b.svc.Hub.Waiters() == 0 }, 20*time.Second, 20*time.Millisecond,
		"the probe sees the client gone")
	r := getFrom(t, "http://"+addr, "/v1/inquiries/"+key+"?wait=0.3", b.askA)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	require.Equal(t, "pending", r.json(t)["status"])
}

// A parked long-poll holds no goroutine: N of them add (next to) none, where each held two
// (the handler and net/http's background read) on its goroutine.
func TestParkedLongPollHoldsNoGoroutine(t *testing.T) {
	const n = 100
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher())
	addr := serveParked(t, b)
	keys := make([]string, n)
	for i := range keys {
		rec, _, err := b.svc.Ask(context.Background(), inquiry.AskRequest{Namespace: "team-a", Inquiry: inquiry.Inquiry{
			ID: fmt.Sprintf("parked-%d", i), Kind: inquiry.KindConfirm, Question: "Deploy now?"}})
		require.NoError(t, err)
		keys[i] = rec.Key
	}
	before := settledGoroutines()
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for _, key := range keys {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		conns = append(conns, c)
		_, err = io.WriteString(c, rawGet(addr, "/v1/inquiries/"+key+"?wait=55", b.askA))
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return b.srv.Parked() == n && b.svc.Hub.Waiters() == n }, 30*time.Second, 10*time.Millisecond)
	during := settledGoroutines()
	t.Logf("goroutines: %d before, %d with %d long-polls parked", before, during, n)
	require.Less(t, during-before, n/10, "parked long-polls hold goroutines")
}

// settledGoroutines counts goroutines once the ones on their way out have gone.
func settledGoroutines() int {
	last := runtime.NumGoroutine()
	for range 50 {
		time.Sleep(20 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n == last {
			return n
		}
		last = n
	}
	return last
}

// A parked long-poll's request log line says what today's says (but its id and duration), once.
func TestParkedLongPollLogsItsLine(t *testing.T) {
	var logged testkit.SyncBuffer
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher(), withLog(&logged))
	addr := serveParked(t, b)
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
	before, parked := bothWait(t, b, addr, "/v1/inquiries/"+key+"?wait=0.5", nil)
	requireSameAnswer(t, before, parked)

	lines := map[string]map[string]any{}
	for _, raw := range bytes.Split([]byte(logged.String()), []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(raw, &m) != nil || m["msg"] != "http request" || m["route"] != "/v1/inquiries/:key" {
			continue
		}
		id := str(m["request_id"])
		require.NotContains(t, lines, id, "one line a request")
		lines[id] = m
	}
	b1, p := lines[before.header.Get("X-Request-Id")], lines[parked.header.Get("X-Request-Id")]
	require.NotNil(t, b1, "today's line")
	require.NotNil(t, p, "the parked long-poll's line")
	for _, m := range []map[string]any{b1, p} {
		delete(m, "request_id")
		delete(m, "duration_ms")
		delete(m, "time")
	}
	require.Equal(t, b1, p)
}

// A parked long-poll is no longer arriving: with room for one arriving connection, held for
// longer than the test may take, a second client is served while the first waits parked.
func TestParkedLongPollLeavesRoomForArrivals(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher())
	addr := serveParkedWith(t, b, gateway.Limits{MaxArriving: 1}, time.Hour)
	key := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
	other := str(b.ask(b.askA, choice("other"), http.StatusCreated)["key"])

	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, rawGet(addr, "/v1/inquiries/"+key+"?wait=55", b.askA))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return b.srv.Parked() == 1 }, 10*time.Second, 5*time.Millisecond)

	got := getFrom(t, "http://"+addr, "/v1/inquiries/"+other, b.askA)
	require.Equal(t, http.StatusOK, got.status, "body: %s", got.body)
	require.Equal(t, 1, b.srv.Parked(), "the first still waits")
}
