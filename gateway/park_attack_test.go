package gateway_test

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
// ways, a GET with a chunked body, a half-close, Connection: close — byte for byte as the
// goroutine path does, but for Date and the request id.
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
