package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"golang.org/x/net/netutil"

	"github.com/inquiry-bot/bot/inquiry"
)

// Limits bound what one client can hold of the server (the limits under abuse in docs/). A zero
// field takes its default. Serve the server of NewHTTPServer on a listener of Listen or
// NewListener: the connection cap lives in the listener, the rest in net/http's own limits and
// in a wrapper around every route (the Slack endpoints, which must read a body before they can
// check its signature, among them).
type Limits struct {
	// MaxConns caps the connections open at once (BOT_MAX_CONNS). Past it, new connections wait
	// in the kernel's backlog until one closes, so the process keeps file descriptors for its
	// database, Slack and callbacks however many clients connect.
	MaxConns int
	// HeaderTimeout bounds the reading of a request line and its headers (net/http's
	// ReadHeaderTimeout: on a kept-alive connection, from the first bytes of the next request).
	HeaderTimeout time.Duration
	// BodyTimeout bounds the reading of a request body, from the end of its headers
	// (BOT_BODY_TIMEOUT). A read past it fails with an error wrapping os.ErrDeadlineExceeded, and
	// the connection is closed once the handler has answered.
	BodyTimeout time.Duration
	// MaxRequestLine bounds the request line (method, path and query, protocol), in bytes:
	// past it the request is answered 414.
	MaxRequestLine int
	// MaxHeaderBytes bounds the request line and headers together, in bytes: past it net/http
	// answers 431.
	MaxHeaderBytes int
	// Logger hears one line for each request refused before it reaches a route, and net/http's
	// own complaints; nil means slog.Default().
	Logger *slog.Logger
}

// The defaults of Limits.
const (
	DefaultMaxConns       = 4096
	DefaultHeaderTimeout  = 10 * time.Second
	DefaultBodyTimeout    = 10 * time.Second
	DefaultMaxRequestLine = 8 << 10
	// DefaultMaxHeaderBytes is nginx's default for a request's head (four 8 kB buffers).
	DefaultMaxHeaderBytes = 32 << 10
)

func (l Limits) withDefaults() Limits {
	orDefault(&l.MaxConns, DefaultMaxConns)
	orDefault(&l.HeaderTimeout, DefaultHeaderTimeout)
	orDefault(&l.BodyTimeout, DefaultBodyTimeout)
	orDefault(&l.MaxRequestLine, DefaultMaxRequestLine)
	orDefault(&l.MaxHeaderBytes, DefaultMaxHeaderBytes)
	l.MaxHeaderBytes = max(l.MaxHeaderBytes, l.MaxRequestLine+2, 2*headerSlack)
	if l.Logger == nil {
		l.Logger = slog.Default()
	}
	return l
}

// orDefault sets *v to def when it is zero or less (a Limits field left out).
func orDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// headerSlack is what net/http reads of a head beyond http.Server.MaxHeaderBytes (its
// initialReadLimitSize): subtracted, so that a head over Limits.MaxHeaderBytes is refused.
const headerSlack = 4096

// The timeouts of NewHTTPServer.
const (
	// Long-polls wait up to 55 s; leave room for the response.
	writeTimeout = inquiry.MaxWait + 15*time.Second
	idleTimeout  = 2 * time.Minute
)

// NewHTTPServer returns the server of handler h with the limits l: net/http's header timeout
// and header bound, and around h the request line's bound, the body's deadline and the
// connection closed after a request whose framing a proxy could read differently. At
// l.MaxConns open connections, the one that has waited longest for its next request is closed,
// so that kept-alive connections cannot lock out a new client (a probe, Slack).
func NewHTTPServer(h http.Handler, l Limits) *http.Server {
	l = l.withDefaults()
	ka := &keepAlives{max: l.MaxConns, idle: map[net.Conn]time.Time{}}
	return &http.Server{
		Handler:           &bounded{next: h, lim: l},
		ReadHeaderTimeout: l.HeaderTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    l.MaxHeaderBytes - headerSlack,
		ErrorLog:          slog.NewLogLogger(l.Logger.Handler(), slog.LevelWarn),
		ConnState:         ka.track,
	}
}

// Listen announces on the TCP address addr; see NewListener.
func Listen(addr string, l Limits) (net.Listener, error) {
	inner, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return NewListener(inner, l), nil
}

// NewListener wraps inner so that at most l.MaxConns of its connections are open at once.
func NewListener(inner net.Listener, l Limits) net.Listener {
	last := &lastAccepted{Listener: inner}
	return &halfClosing{Listener: netutil.LimitListener(last, l.withDefaults().MaxConns), last: last}
}

// halfClosing gives each connection of a netutil.LimitListener the CloseWrite of the TCP
// connection it wraps, which it hides: net/http half-closes a connection before closing one
// whose request it refused unread (431), and without it the kernel's reset over the unread
// input can destroy the answer before the client reads it.
type halfClosing struct {
	net.Listener
	last *lastAccepted
}

// lastAccepted remembers the connection its Accept returned last: the limit listener's Accept
// calls it on the goroutine of halfClosing's Accept (net/http's one accepting goroutine).
type lastAccepted struct {
	net.Listener
	c net.Conn
}

func (l *lastAccepted) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	l.c = c
	return c, err
}

func (l *halfClosing) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if cw, ok := l.last.c.(interface{ CloseWrite() error }); ok {
		l.last.c = nil
		return &halfCloseConn{Conn: c, cw: cw}, nil
	}
	return c, nil
}

// halfCloseConn is a connection of the limit listener (its Close gives its slot back) that can
// be half-closed.
type halfCloseConn struct {
	net.Conn
	cw interface{ CloseWrite() error }
}

func (c *halfCloseConn) CloseWrite() error { return c.cw.CloseWrite() }

// keepAlives follows the server's connections (http.Server.ConnState) to close an idle one when
// they fill the cap: the listener accepts no other until one closes, and an idle keep-alive
// would otherwise hold its place for the idle timeout. A connection yet to send its first
// request is no keep-alive but a client on its way, bounded by the header timeout.
type keepAlives struct {
	max  int
	mu   sync.Mutex
	open int
	idle map[net.Conn]time.Time // since when each idle connection waits for its next request
}

func (k *keepAlives) track(c net.Conn, st http.ConnState) {
	k.mu.Lock()
	switch st {
	case http.StateNew:
		k.open++
	case http.StateActive:
		delete(k.idle, c)
	case http.StateIdle:
		k.idle[c] = time.Now()
	case http.StateHijacked, http.StateClosed:
		k.open--
		delete(k.idle, c)
	}
	var oldest net.Conn
	if k.open >= k.max {
		var since time.Time
		for ic, t := range k.idle {
			if oldest == nil || t.Before(since) {
				oldest, since = ic, t
			}
		}
		delete(k.idle, oldest)
	}
	k.mu.Unlock()
	if oldest != nil {
		_ = oldest.Close() // net/http's wait for its next request ends, and its slot comes free
	}
}

// bounded holds each request to the limits net/http has no setting for.
type bounded struct {
	next http.Handler
	lim  Limits
}

func (b *bounded) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 2; n > b.lim.MaxRequestLine {
		b.refuse(w, r, http.StatusRequestURITooLong, "request line too long",
			fmt.Sprintf("the request line is over %d bytes: shorten the path and query", b.lim.MaxRequestLine))
		return
	}
	if !r.ProtoAtLeast(1, 1) || len(r.TransferEncoding) > 0 {
		// net/http reads a chunked body where a proxy in front may have read a Content-Length
		// (sent beside it, or in a folded header line), and over HTTP/1.0 it ignores
		// Transfer-Encoding: what follows on the connection could be a smuggled request, so none
		// is read.
		w.Header().Set("Connection", "close")
	}
	if r.Body != nil && r.Body != http.NoBody {
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(b.lim.BodyTimeout)) == nil {
			r.Body = &timedBody{ReadCloser: r.Body, rc: rc, w: w, limit: b.lim.BodyTimeout}
		}
	}
	b.next.ServeHTTP(w, r)
}

// refuse answers r itself, with the API's JSON error and the connection closed after it.
func (b *bounded) refuse(w http.ResponseWriter, r *http.Request, status int, reason, msg string) {
	b.lim.Logger.Warn("http request refused", "status", status, "reason", reason, "remote", r.RemoteAddr)
	body, _ := json.Marshal(ErrorBody{Error: ErrorDetail{Code: inquiry.CodeBadRequest, Message: msg}})
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Connection", "close")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// timedBody is a request body read under the body deadline. Once it is read to its end the
// deadline goes: the handler may wait on (a long-poll after its body), and net/http's background
// read, which watches for the client going away, must not end with it.
type timedBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	w     http.ResponseWriter
	limit time.Duration
	done  bool
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == nil || b.done:
	case errors.Is(err, io.EOF):
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline stays: net/http's discarding of the rest of the body after the handler
		// must fail as fast, and the connection is closed after the answer.
		b.done = true
		b.w.Header().Set("Connection", "close")
		err = &bodyTimeoutError{limit: b.limit}
	}
	return n, err
}

// bodyTimeoutError is the body deadline passing: a timeout, as a read deadline's error is, that
// says which.
type bodyTimeoutError struct{ limit time.Duration }

func (e *bodyTimeoutError) Error() string {
	return fmt.Sprintf("the request body did not arrive within %s of its headers", e.limit)
}
func (e *bodyTimeoutError) Timeout() bool   { return true }
func (e *bodyTimeoutError) Temporary() bool { return true }
func (e *bodyTimeoutError) Unwrap() error   { return os.ErrDeadlineExceeded }
