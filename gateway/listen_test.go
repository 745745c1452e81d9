package gateway_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

// These tests hold the hardened server (gateway.Listen and gateway.NewHTTPServer, as cmd/bot
// serves) to the limits under abuse over raw TCP, where a client can send what net/http's own
// client never would. The handler is a plain echo: the limits sit below every route.

// echo answers every request it serves with its method, path, body length and body hash, and
// remembers the paths it served, in order. A body it could not read is answered 400 and kept
// in readErrs.
type echo struct {
	mu       sync.Mutex
	served   []string
	readErrs chan error
}

func newEcho() *echo { return &echo{readErrs: make(chan error, 16)} }

func (e *echo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		select {
		case e.readErrs <- err:
		default:
		}
		http.Error(w, "read the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	e.served = append(e.served, r.URL.Path)
	e.mu.Unlock()
	fmt.Fprint(w, echoLine(r.Method, r.URL.Path, body))
}

func (e *echo) paths() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string{}, e.served...)
}

func echoLine(method, path string, body []byte) string {
	return fmt.Sprintf("%s %s %d %x", method, path, len(body), sha256.Sum256(body))
}

// serveHardened serves h on 127.0.0.1:0 the way cmd/bot does, and returns the address.
func serveHardened(t *testing.T, l gateway.Limits, h http.Handler) string {
	t.Helper()
	addr, _ := serveCounted(t, l, h)
	return addr
}

// serveCounted is serveHardened that also counts the connections the server has accepted.
func serveCounted(t *testing.T, l gateway.Limits, h http.Handler) (addr string, accepted *atomic.Int32) {
	t.Helper()
	ln, err := gateway.Listen("127.0.0.1:0", l)
	require.NoError(t, err)
	srv := gateway.NewHTTPServer(h, l)
	accepted = new(atomic.Int32)
	track := srv.ConnState
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateNew {
			accepted.Add(1)
		}
		track(c, st)
	}
	done := make(chan struct{})
	go func() { _ = srv.Serve(ln); close(done) }()
	t.Cleanup(func() {
		_ = srv.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("Serve did not return within 10s of Close")
		}
	})
	return ln.Addr().String(), accepted
}

// rawReply is one answer read off a raw connection.
type rawReply struct {
	status int
	close  bool // the answer said Connection: close
	ctype  string
	body   string
}

// exchange writes each piece to a new connection, then reads answers until the server closes
// the connection or `within` passes. closed is false when the connection was still open then.
func exchange(t *testing.T, addr string, within time.Duration, pieces ...string) (replies []rawReply, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	for _, p := range pieces {
		if _, err := io.WriteString(c, p); err != nil {
			break // the server may refuse before it has read everything
		}
	}
	return readReplies(t, c, within)
}

func readReplies(t *testing.T, c net.Conn, within time.Duration) (replies []rawReply, closed bool) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(within))
	br := bufio.NewReader(c)
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			var ne net.Error
			return replies, !(errors.As(err, &ne) && ne.Timeout())
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			var ne net.Error
			return replies, !(errors.As(err, &ne) && ne.Timeout())
		}
		replies = append(replies, rawReply{status: resp.StatusCode, close: resp.Close, ctype: resp.Header.Get("Content-Type"), body: string(body)})
	}
}

func statuses(rs []rawReply) []int {
	out := []int{}
	for _, r := range rs {
		out = append(out, r.status)
	}
	return out
}

// requireRefusal checks an answer of the listener itself: the API's JSON error, bad_request,
// one sentence holding want.
func requireRefusal(t *testing.T, r rawReply, status int, want string) {
	t.Helper()
	require.Equal(t, status, r.status, "body: %s", r.body)
	require.True(t, r.close, "a refusal must say Connection: close")
	require.Contains(t, r.ctype, "application/json")
	var eb gateway.ErrorBody
	require.NoError(t, json.Unmarshal([]byte(r.body), &eb), "body: %s", r.body)
	require.Equal(t, "bad_request", string(eb.Error.Code))
	require.Contains(t, eb.Error.Message, want)
	require.Contains(t, eb.Error.Message, ": ", "a refusal says what to do after a colon")
	require.NotContains(t, eb.Error.Message, "\n")
}

// TestSmuggledRequestNotServed: after a request whose framing two servers could read
// differently (both Content-Length and Transfer-Encoding; Transfer-Encoding over HTTP/1.0; a
// folded header line), nothing sent on the connection is served: the answer says
// Connection: close and the connection is closed. Plain net/http drops the Content-Length and
// serves the request pipelined after it too.
func TestSmuggledRequestNotServed(t *testing.T) {
	t.Parallel()
	const smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
	cases := []struct {
		name       string
		raw        string
		wantServed []string
	}{{
		name:       "Content-Length then Transfer-Encoding",
		raw:        "POST /smuggler HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
		wantServed: []string{"/smuggler"},
	}, {
		name:       "Transfer-Encoding then Content-Length, in lower case",
		raw:        "POST /smuggler HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\ncontent-length: 40\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + smuggled,
		wantServed: []string{"/smuggler"},
	}, {
		name:       "after a request served",
		raw:        "GET /first HTTP/1.1\r\nHost: x\r\n\r\nPOST /smuggler HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
		wantServed: []string{"/first", "/smuggler"},
	}, {
		name:       "both over HTTP/1.0",
		raw:        "POST /smuggler HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
		wantServed: []string{"/smuggler"},
	}, {
		name:       "Transfer-Encoding over HTTP/1.0",
		raw:        "POST /smuggler HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
		wantServed: []string{"/smuggler"},
	}, {
		name:       "a folded Transfer-Encoding",
		raw:        "POST /smuggler HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n" + smuggled,
		wantServed: []string{"/smuggler"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEcho()
			addr := serveHardened(t, gateway.Limits{}, e)
			replies, closed := exchange(t, addr, 10*time.Second, tc.raw)
			require.Len(t, replies, len(tc.wantServed), "replies: %+v", replies)
			require.True(t, replies[len(replies)-1].close, "the answer says Connection: close")
			require.True(t, closed, "the connection must be closed after it")
			require.Equal(t, tc.wantServed, e.paths(), "served")
		})
	}
}

// TestRequestLineAndHeadersBounded: a request line over 8 kB is answered 414 with a sentence, a
// header block over 32 KiB 431 (net/http's own answer, which comes before any handler), each
// with the connection closed; a line that never ends is cut by the header timeout. Before,
// net/http took a megabyte of either.
func TestRequestLineAndHeadersBounded(t *testing.T) {
	t.Parallel()
	e := newEcho()
	addr := serveHardened(t, gateway.Limits{HeaderTimeout: 500 * time.Millisecond}, e)

	okPath := "/" + strings.Repeat("a", 8100)
	replies, _ := exchange(t, addr, 10*time.Second, "GET "+okPath+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.Equal(t, []int{200}, statuses(replies), "a request line under 8 kB is served")

	long := "/" + strings.Repeat("a", 9000)
	replies, closed := exchange(t, addr, 10*time.Second, "GET "+long+" HTTP/1.1\r\nHost: x\r\n\r\n")
	require.Len(t, replies, 1)
	requireRefusal(t, replies[0], http.StatusRequestURITooLong, "8192 bytes")
	require.True(t, closed)

	// A line that never ends holds its connection no longer than the header timeout.
	replies, closed = exchange(t, addr, 10*time.Second, "GET /"+strings.Repeat("b", 10000))
	require.Equal(t, []int{http.StatusBadRequest}, statuses(replies), "net/http's answer to a cut head")
	require.True(t, closed, "cut by the header timeout, not left open")

	// Over 32 KiB by a little, within what net/http reads beyond its own MaxHeaderBytes.
	for _, size := range []int{33 << 10, 40 << 10} {
		big := "X-Big: " + strings.Repeat("c", size) + "\r\n"
		replies, closed = exchange(t, addr, 10*time.Second, "GET /big HTTP/1.1\r\nHost: x\r\n"+big+"\r\n")
		require.Equal(t, []int{http.StatusRequestHeaderFieldsTooLarge}, statuses(replies), "a %d-byte header", size)
		require.True(t, replies[0].close)
		require.True(t, closed)
	}

	require.Equal(t, []string{okPath}, e.paths())
}

// TestSlowBodyCut: a body that has not arrived BodyTimeout after its headers fails to read (the
// handler's error is a deadline), the handler's answer goes out, and the connection is closed.
// Before, a body sent a byte at a time held its connection for ever.
func TestSlowBodyCut(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"Content-Length": {"POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n", "0123456789"},
		"chunked":        {"POST /slow HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", "a\r\n01234"},
		"chunk line":     {"POST /slow HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", "2\r\nab\r\n1"},
	}
	for name, pieces := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEcho()
			addr := serveHardened(t, gateway.Limits{BodyTimeout: 300 * time.Millisecond}, e)
			start := time.Now()
			replies, closed := exchange(t, addr, 10*time.Second, pieces...)
			require.Equal(t, []int{400}, statuses(replies), "replies: %+v", replies)
			require.True(t, closed, "the connection of a cut body must be closed")
			select {
			case err := <-e.readErrs:
				require.ErrorIs(t, err, os.ErrDeadlineExceeded)
				require.Contains(t, err.Error(), "body")
			default:
				t.Fatal("the handler read no error")
			}
			require.Empty(t, e.paths())
			t.Logf("figure: a body stalled after %d bytes was cut and its connection closed %s after its headers (BodyTimeout 300ms)",
				len(pieces[1]), time.Since(start).Round(10*time.Millisecond))
		})
	}
}

// TestSlowHeadersCutOnKeptAliveConnection: the header timeout holds for the second request of a
// connection too, not only the idle timeout.
func TestSlowHeadersCutOnKeptAliveConnection(t *testing.T) {
	t.Parallel()
	e := newEcho()
	addr := serveHardened(t, gateway.Limits{HeaderTimeout: 300 * time.Millisecond}, e)
	replies, closed := exchange(t, addr, 5*time.Second, "GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HT")
	require.Equal(t, 200, replies[0].status)
	require.LessOrEqual(t, len(replies), 2, "then at most net/http's 400 for the cut head")
	require.True(t, closed, "a request line left unfinished must not hold its connection until the idle timeout")
	require.Equal(t, []string{"/one"}, e.paths())
}

// TestLongPollNotCutByBodyTimeout: a handler that waits past the body timeout — a long-poll, with
// or without a body read first — keeps its request context and answers.
func TestLongPollNotCutByBodyTimeout(t *testing.T) {
	t.Parallel()
	wait := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		select {
		case <-r.Context().Done():
			fmt.Fprintf(w, "cancelled: %v", context.Cause(r.Context()))
		case <-time.After(time.Second):
			fmt.Fprint(w, "waited")
		}
	})
	addr := serveHardened(t, gateway.Limits{BodyTimeout: 100 * time.Millisecond, HeaderTimeout: 100 * time.Millisecond}, wait)
	replies, closed := exchange(t, addr, 20*time.Second,
		"GET /poll HTTP/1.1\r\nHost: x\r\n\r\n"+
			"POST /poll HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"+
			"POST /poll HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
	require.True(t, closed)
	require.Len(t, replies, 3)
	for _, r := range replies {
		require.Equal(t, "waited", r.body)
	}
}

// TestPipelinedBodyTimedFromItsRead: the body of a request pipelined behind a slow one (a
// long-poll) is timed from when the server starts reading it, not from when its headers came
// in behind the slow one: a large body sent at once is read whole.
func TestPipelinedBodyTimedFromItsRead(t *testing.T) {
	t.Parallel()
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.Method == http.MethodGet {
			// Kept: the scenario is a request slower than the body timeout; a slower machine
			// only makes it slower.
			time.Sleep(500 * time.Millisecond)
		}
		fmt.Fprintf(w, "read %d", len(body))
	})
	addr := serveHardened(t, gateway.Limits{BodyTimeout: 100 * time.Millisecond, HeaderTimeout: 100 * time.Millisecond}, slow)
	big := strings.Repeat("x", 200<<10)
	replies, _ := exchange(t, addr, 20*time.Second,
		"GET /poll HTTP/1.1\r\nHost: x\r\n\r\n"+
			fmt.Sprintf("POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(big), big))
	require.Len(t, replies, 2)
	require.Equal(t, "read 0", replies[0].body)
	require.Equal(t, fmt.Sprintf("read %d", len(big)), replies[1].body)
}

// TestIdleConnectionsGiveWay: at the cap, a keep-alive connection that idles between requests
// is closed to let a new one in, so that clients that keep connections open cannot lock out
// everyone else (a probe, Slack); one in the middle of a request is never closed for it.
func TestIdleConnectionsGiveWay(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/held" {
			<-release
		}
		fmt.Fprint(w, "ok")
	})
	addr := serveHardened(t, gateway.Limits{MaxConns: 2}, h)
	t.Cleanup(func() { close(release) })

	// One connection busy with a request, one idle after its request, both kept open by their
	// clients.
	busy, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer busy.Close()
	_, err = io.WriteString(busy, "GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	idle, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer idle.Close()
	_, err = io.WriteString(idle, "GET /once HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(idle)
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.False(t, res.Close, "kept alive")

	// A third client is served: the idle connection gave way, the busy one did not.
	replies, _ := exchange(t, addr, 10*time.Second, "GET /new HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.Equal(t, []int{200}, statuses(replies))
	_ = idle.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err = br.ReadByte()
	require.ErrorIs(t, err, io.EOF, "the idle connection was closed")
	_ = busy.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	_, err = busy.Read(make([]byte, 1))
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	require.True(t, ne.Timeout(), "the busy connection is still open, its request still running: %v", err)
}

// TestConnectionCap: at most MaxConns connections are open at once; the others wait until one
// closes, and are then served.
func TestConnectionCap(t *testing.T) {
	t.Parallel()
	const limit, clients = 3, 8
	h := &heldHandler{release: make(chan struct{})}
	addr := serveHardened(t, gateway.Limits{MaxConns: limit}, h)
	requireServedAtMost(t, addr, h, limit, clients, "connections served at once")
}

// requireServedAtMost sends clients requests to h at addr at once, each on its own connection,
// and requires that exactly limit are inside h together while it holds them (for long enough
// for the others to come in, were there no cap), then that each is served once h lets them go.
func requireServedAtMost(t *testing.T, addr string, h *heldHandler, limit, clients int, what string) {
	t.Helper()
	var wg sync.WaitGroup
	got := make(chan []int, clients)
	for range clients {
		wg.Go(func() {
			replies, _ := exchange(t, addr, 20*time.Second, "GET /held HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
			got <- statuses(replies)
		})
	}
	require.Eventually(t, func() bool { return h.inside.Load() == int32(limit) }, 10*time.Second, 5*time.Millisecond)
	// Kept: the scenario is a time in which the others could come in, were there no cap; no
	// event marks a connection the cap keeps out, and a slow machine cannot fail a working cap.
	time.Sleep(300 * time.Millisecond)
	require.EqualValues(t, limit, h.most.Load(), what)
	close(h.release)
	wg.Wait()
	close(got)
	for s := range got {
		require.Equal(t, []int{200}, s)
	}
	require.EqualValues(t, limit, h.most.Load(), "never more at once: %s", what)
}

// heldHandler counts the requests inside it and the most at once; each waits for release.
type heldHandler struct {
	inside, most atomic.Int32
	release      chan struct{}
}

func (h *heldHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := h.inside.Add(1)
	for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
	}
	<-h.release
	h.inside.Add(-1)
	fmt.Fprint(w, "ok")
}

// TestConnectionCapSparesNewConnections: at the cap, only a connection that has served a request
// and waits for the next gives way to a newcomer; one that has not yet sent its first request is
// no idle keep-alive but a client on its way (its head is bounded by the header timeout), and
// closing it for a later one would drop a request whose bytes are in flight — under load, that
// is any connection accepted a moment before the next.
func TestConnectionCapSparesNewConnections(t *testing.T) {
	t.Parallel()
	addr, accepted := serveCounted(t, gateway.Limits{MaxConns: 1}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "ok")
	}))
	first, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer first.Close()
	require.Eventually(t, func() bool { return accepted.Load() == 1 }, 10*time.Second, 5*time.Millisecond,
		"the first connection is accepted, and holds the one place while it reads its first request")
	// The second client is connected (in the listen backlog) and has sent its request before
	// the first sends its own.
	second, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer second.Close()
	_, err = io.WriteString(second, "GET /second HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.NoError(t, err)
	_, err = io.WriteString(first, "GET /first HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.NoError(t, err)
	require.Equal(t, []int{200}, statuses(mustReplies(t, first)), "the first client's request is served")
	require.Equal(t, []int{200}, statuses(mustReplies(t, second)), "and the second's after it")
}

// mustReplies reads the replies on c until it closes.
func mustReplies(t *testing.T, c net.Conn) []rawReply {
	t.Helper()
	replies, _ := readReplies(t, c, 20*time.Second)
	return replies
}

// BenchmarkListener measures what the limits cost: requests one after another on a kept-alive
// connection, through plain net/http and through the hardened server.
func BenchmarkListener(b *testing.B) {
	body := strings.Repeat("x", 1<<10)
	for _, name := range []string{"plain", "hardened"} {
		for _, kind := range []string{"GET", "POST 1 KiB", "POST 1 KiB chunked"} {
			b.Run(name+"/"+kind, func(b *testing.B) {
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) })
				var ln net.Listener
				var err error
				var srv *http.Server
				if name == "plain" {
					ln, err = net.Listen("tcp", "127.0.0.1:0")
					srv = &http.Server{Handler: h}
				} else {
					ln, err = gateway.Listen("127.0.0.1:0", gateway.Limits{})
					srv = gateway.NewHTTPServer(h, gateway.Limits{})
				}
				require.NoError(b, err)
				go func() { _ = srv.Serve(ln) }()
				defer srv.Close()
				var req *http.Request
				client := &http.Client{}
				for b.Loop() {
					switch kind {
					case "GET":
						req, _ = http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/", nil)
					case "POST 1 KiB":
						req, _ = http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/", strings.NewReader(body))
					default:
						req, _ = http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/", io.NopCloser(strings.NewReader(body)))
					}
					resp, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		}
	}
}

// requestLines returns the "http request" lines of a JSON log, decoded, with their sizes.
func requestLines(t *testing.T, log string) (lines []map[string]any, sizes []int) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 8<<20) // the unbounded line of before must still be read to be measured
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "log line %.200s", sc.Text())
		if m["msg"] == "http request" {
			lines = append(lines, m)
			sizes = append(sizes, len(sc.Bytes()))
		}
	}
	require.NoError(t, sc.Err())
	return lines, sizes
}

// requireExcerpt checks got is a clipped excerpt of sent: at most 200 characters of valid
// UTF-8 on one line, the start of what was sent, and marked as clipped.
func requireExcerpt(t *testing.T, got, sent, what string) {
	t.Helper()
	require.True(t, utf8.ValidString(got), "%s: valid UTF-8", what)
	require.LessOrEqual(t, utf8.RuneCountInString(got), 200, "%s: %.300s…", what, got)
	require.NotContains(t, got, "\n", what)
	require.True(t, strings.HasSuffix(got, "…"), "%s is marked as clipped: %.300s", what, got)
	require.True(t, strings.HasPrefix(sent, strings.TrimSuffix(got, "…")), "%s is the start of what was sent: %.300s", what, got)
}

// TestRequestSuppliedTextBoundedInLogAndAnswer: a long path or method, sent without a token, is
// neither written whole to the request log nor echoed whole in the 404 or 405 sentence; each
// holds a marked excerpt of at most 200 characters, valid UTF-8, on one line. The 7 kB path
// passes any request-line limit, so the bound holds on its own.
func TestRequestSuppliedTextBoundedInLogAndAnswer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var logs strings.Builder
	b := setup(t, withLog(&lockedWriter{mu: &mu, w: &logs}))

	long := "/nowhere/" + strings.Repeat("a", 7000)
	accents := "/nowhere/" + strings.Repeat("%C3%A9", 1000) // é: 2 bytes each, a cut could split one
	accentsSent := "/nowhere/" + strings.Repeat("é", 1000)
	key := strings.Repeat("k", 7000)
	method := strings.Repeat("M", 300)
	for _, c := range []struct {
		method, path, sentPath string
		status                 int
		code                   inquiry.Code
		clipped                []string // what the sentence must hold only an excerpt of
	}{
		{"GET", long, long, 404, inquiry.CodeNotFound, []string{long}},
		{"GET", accents, accentsSent, 404, inquiry.CodeNotFound, []string{accentsSent}},
		{"GET", "/nowhere/a%0Ab" + strings.Repeat("c", 300), "/nowhere/a\nb" + strings.Repeat("c", 300), 404, inquiry.CodeNotFound, []string{"/nowhere/a b" + strings.Repeat("c", 300)}},
		{method, "/nowhere", "/nowhere", 404, inquiry.CodeNotFound, []string{method}},
		{"PUT", "/v1/inquiries/" + key + "/answer", "/v1/inquiries/" + key + "/answer", 405, inquiry.CodeBadRequest, []string{"/v1/inquiries/" + key + "/answer"}},
		{method, "/healthz", "/healthz", 405, inquiry.CodeBadRequest, []string{method}},
	} {
		mu.Lock()
		logs.Reset()
		mu.Unlock()
		name := fmt.Sprintf("%.20s %.40s", c.method, c.path)
		r := b.do(c.method, c.path, "", nil)
		e := r.errorOf(t, c.status, c.code)
		msg := str(e["message"])
		require.Less(t, len(r.body), 1500, "%s: the answer is bounded: %d bytes", name, len(r.body))
		requireOneSentence(t, name, msg)
		for _, whole := range c.clipped {
			require.NotContains(t, msg, whole, "%s: echoed whole", name)
			require.Contains(t, msg, whole[:150], "%s: the sentence still shows what was asked for", name)
			require.Contains(t, msg, "…", name)
		}

		mu.Lock()
		lines, sizes := requestLines(t, logs.String())
		mu.Unlock()
		require.Len(t, lines, 1, name)
		require.Less(t, sizes[0], 2048, "%s: the log line is bounded", name)
		if len(c.sentPath) > 200 {
			requireExcerpt(t, str(lines[0]["path"]), strings.ReplaceAll(c.sentPath, "\n", " "), name+": logged path")
		} else {
			require.Equal(t, c.sentPath, lines[0]["path"])
		}
		if len(c.method) > 200 {
			requireExcerpt(t, str(lines[0]["method"]), c.method, name+": logged method")
		} else {
			require.Equal(t, c.method, lines[0]["method"])
		}
	}

	// A short path is logged and echoed as it was.
	mu.Lock()
	logs.Reset()
	mu.Unlock()
	e := b.do("GET", "/nowhere/short", "", nil).errorOf(t, 404, inquiry.CodeNotFound)
	require.Equal(t, "no endpoint GET /nowhere/short: see GET /openapi.yaml for the API", e["message"])
	mu.Lock()
	lines, _ := requestLines(t, logs.String())
	mu.Unlock()
	require.Equal(t, "/nowhere/short", lines[0]["path"])
}

// TestMegabytePathBounded: a 1 MB path, whatever answers it (a request-line limit may refuse it
// first), costs a bounded log line and a bounded answer, not a megabyte of each.
func TestMegabytePathBounded(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var logs strings.Builder
	b := setup(t, withLog(&lockedWriter{mu: &mu, w: &logs}))
	path := "/" + strings.Repeat("a", 1<<20-200) // within net/http's own 1 MB header limit
	req, err := http.NewRequest("GET", b.url+path, nil)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	n, err := bufio.NewReader(res.Body).Discard(1 << 21)
	require.ErrorContains(t, err, "EOF")
	require.Less(t, n, 2048, "the answer to a 1 MB path: %d bytes", n)
	mu.Lock()
	defer mu.Unlock()
	require.Less(t, logs.Len(), 4096, "the log for a 1 MB path: %d bytes", logs.Len())
}
