package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// Limits bound what one client can hold of the server (DESIGN §17). A zero field takes its
// default. Serve the server of NewHTTPServer on a listener of Listen or NewListener: the limits
// on connections, heads, bodies and framing live in the listener's connections, below every
// route (the Slack endpoints, which must read a body before they can check its signature,
// among them).
type Limits struct {
	// MaxConns caps the connections open at once (BOT_MAX_CONNS). Past it, new connections wait
	// in the kernel's backlog until one closes, so the process keeps file descriptors for its
	// database, Slack and callbacks however many clients connect.
	MaxConns int
	// MaxArriving caps the connections accepted and not yet settled (BOT_MAX_ARRIVING): a
	// connection settles when its first request is done (it waits for the next, is parked, or
	// is closed), when it has sent nothing more of that request's head for firstReadGrace (its
	// client is slow, not in flight), or arrivalHold after its accept (a long request: an event
	// stream), whichever comes first. Past the cap, new connections wait in the kernel's listen
	// backlog (and, past that, the kernel drops their handshakes and their clients retry). A
	// burst of clients (ten thousand long-polls dialled at once) then goes through a few hundred
	// at a time, each costing a goroutine and its buffers only until it parks, instead of all at
	// once. Only a connection's first request is counted: later ones on kept-alive connections,
	// and on connections handed back after a park, are not. 0 takes the default; below 0, no cap.
	MaxArriving int
	// HeaderTimeout bounds the reading of a request line and its headers, from their first byte
	// (on a kept-alive connection too, where net/http's ReadHeaderTimeout only starts once four
	// bytes have come).
	HeaderTimeout time.Duration
	// BodyTimeout bounds the reading of a request body, from the end of its headers
	// (BOT_BODY_TIMEOUT). A read past it fails with an error wrapping os.ErrDeadlineExceeded, and
	// the connection is closed once the handler has answered.
	BodyTimeout time.Duration
	// MaxRequestLine bounds the request line (method, path and query, protocol), in bytes:
	// past it the request is answered 414.
	MaxRequestLine int
	// MaxHeaderBytes bounds the request line and headers together, in bytes: past it the request
	// is answered 431.
	MaxHeaderBytes int
	// Logger hears one line for each request refused before it reaches a handler; nil means
	// slog.Default().
	Logger *slog.Logger
}

// The defaults of Limits.
const (
	DefaultMaxConns = 4096
	// DefaultMaxArriving keeps a burst's requests in flight to a few megabytes (each one a
	// goroutine and about 20 kB until it is answered or parked) while still taking thousands of
	// new connections a second at a few milliseconds each.
	DefaultMaxArriving    = 256
	DefaultHeaderTimeout  = 10 * time.Second
	DefaultBodyTimeout    = 10 * time.Second
	DefaultMaxRequestLine = 8 << 10
	// DefaultMaxHeaderBytes is nginx's default for a request's head (four 8 kB buffers).
	DefaultMaxHeaderBytes = 32 << 10
)

func (l Limits) withDefaults() Limits {
	orDefault(&l.MaxConns, DefaultMaxConns)
	if l.MaxArriving == 0 {
		l.MaxArriving = DefaultMaxArriving // below 0: no cap
	}
	orDefault(&l.HeaderTimeout, DefaultHeaderTimeout)
	orDefault(&l.BodyTimeout, DefaultBodyTimeout)
	orDefault(&l.MaxRequestLine, DefaultMaxRequestLine)
	orDefault(&l.MaxHeaderBytes, DefaultMaxHeaderBytes)
	l.MaxHeaderBytes = max(l.MaxHeaderBytes, l.MaxRequestLine+2)
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

// NewHTTPServer returns the server of handler h: net/http's own timeouts, with the header limit
// as a backstop behind the listener's (net/http allows 4 KiB more than MaxHeaderBytes, so the
// listener, which answers with a sentence, refuses first).
//
// On a listener of Listen or NewListener, its HTTP/1.1 long-polls are parked off their
// goroutines while they wait (park.go): each request's context carries its connection for that.
func NewHTTPServer(h http.Handler, l Limits) *http.Server {
	l = l.withDefaults()
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.HeaderTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    l.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(l.Logger.Handler(), slog.LevelWarn),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if lc, ok := c.(*limitedConn); ok {
				return context.WithValue(ctx, connKey{}, lc)
			}
			return ctx
		},
	}
}

// The timeouts of NewHTTPServer, which a parked long-poll keeps too.
const (
	// Long-polls wait up to 55 s; leave room for the response.
	writeTimeout = inquiry.MaxWait + 15*time.Second
	idleTimeout  = 2 * time.Minute
)

// connKey is the request context's key of its connection on a listener of NewListener.
type connKey struct{}

// Listen announces on the TCP address addr; see NewListener.
func Listen(addr string, l Limits) (net.Listener, error) {
	inner, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return NewListener(inner, l), nil
}

// NewListener wraps inner so that at most l.MaxConns of its connections are served at once
// (at the cap, the one idle the longest between requests gives way to a new one; see Accept),
// and each connection holds its requests to l:
//
//   - a request line over MaxRequestLine is answered 414, a head over MaxHeaderBytes 431;
//   - a request carrying both Content-Length and Transfer-Encoding, Transfer-Encoding over
//     HTTP/1.0, or a header line folded onto the next (one starting with a space or a tab) is
//     answered 400: proxies may read where such a request ends differently from net/http,
//     which would then take what they think is a body for a second request ("request
//     smuggling");
//   - a head not in within HeaderTimeout of its first byte, or a body not in within BodyTimeout
//     of the end of its head, fails to read and its connection is closed.
//
// The 400, 414 and 431 answers are the API's JSON error (bad_request, one sentence) with
// Connection: close, and nothing after the refused request on the connection is read.
//
// To know where each request starts, a connection follows the framing of the requests on it as
// net/http reads it (net/http's readRequest, readTransfer and chunked reader, Go 1.26): it hands
// net/http a request's head only once the whole head has come and passed, so net/http never
// reads a request the listener refused (net/http itself drops Content-Length when
// Transfer-Encoding is present, so no handler could tell). Bodies go through at once. A
// connection that turns out to be framed in a way the listener does not follow (a malformed
// chunk, a head net/http will refuse anyway) ends after what net/http needs to refuse it. It
// reads plain HTTP/1.x: TLS, where there is any, ends in front of the bot, and the only
// connections the server hijacks are parked HTTP/1.1 long-polls (park.go), whose requests go on
// being HTTP/1.1 when they are handed back (handBack).
func NewListener(inner net.Listener, l Limits) net.Listener {
	l = l.withDefaults()
	ln := &listener{Listener: inner, lim: l, slots: make(chan struct{}, l.MaxConns), done: make(chan struct{}),
		hold: arrivalHold, open: map[*limitedConn]struct{}{}, backc: make(chan struct{}, 1)}
	if l.MaxArriving > 0 {
		ln.arriving = make(chan struct{}, l.MaxArriving)
	}
	return ln
}

// arrivalHold is the longest a connection holds its place among the arriving (MaxArriving):
// a request of the API is answered in milliseconds; one still running after this is slow or
// long-lived (an event stream, a long-poll that cannot park) and must not keep others out.
const arrivalHold = time.Second

// firstReadGrace is how long a connection holding a place among the arriving waits for more of
// its first request's head before it gives the place back: the client is slow, not in flight.
const firstReadGrace = 20 * time.Millisecond

type listener struct {
	net.Listener
	lim   Limits
	slots chan struct{} // one token per open connection
	// arriving holds one token per connection accepted and not yet settled (MaxArriving; nil
	// for no cap); hold is arrivalHold (shorter in tests).
	arriving chan struct{}
	hold     time.Duration
	done     chan struct{} // closed by Close, to release an Accept waiting for a slot
	once     sync.Once

	mu   sync.Mutex
	open map[*limitedConn]struct{} // the connections holding a slot
	// back holds the connections of parked long-polls that have answered (park.go), for Accept
	// to hand to net/http again for their next request: each still holds its slot. poked marks
	// the inner listener's deadline set in the past to end an Accept waiting in it; backc
	// wakes an Accept waiting for a slot. closed: Close has run, so none is taken back.
	back   []*limitedConn
	poked  bool
	backc  chan struct{}
	closed bool

	// waiting is the connection Accept took at the cap and holds, unread, until there is room
	// (only Accept, which net/http calls from one goroutine, uses it).
	waiting net.Conn
}

// Accept waits for a slot. At the cap it takes the next connection all the same, then makes
// room for it: the connection idle the longest between requests is closed (keep-alive
// connections must not lock out a new client: a probe, Slack), looking again every reclaimEvery
// for one gone idle or closed meanwhile. So at most MaxConns connections are served, and one
// more is held, unread, until there is room. A connection a parked long-poll hands back
// (handBack) comes first: it has its slot.
//
// A new connection first waits for a place among the arriving (MaxArriving), which it gives
// back when it settles (settle); a connection handed back has settled already.
func (l *listener) Accept() (net.Conn, error) {
	for {
		if lc := l.takeBack(); lc != nil {
			return lc, nil
		}
		err := l.arrive()
		if errors.Is(err, errHandedBack) {
			continue
		}
		if err != nil {
			return nil, err
		}
		c, err := l.accept()
		if err != nil {
			l.leave()
			if errors.Is(err, errHandedBack) || errors.Is(err, os.ErrDeadlineExceeded) {
				continue // woken for a connection handed back (nothing else sets the deadline)
			}
			return nil, err
		}
		if l.arriving != nil {
			c.arrived(l.hold)
		}
		return c, nil
	}
}

// leave gives back the place arrive took, for a connection that did not come.
func (l *listener) leave() {
	if l.arriving != nil {
		<-l.arriving
	}
}

// arrive takes a place among the arriving, waiting for one; a connection handed back meanwhile
// ends the wait (errHandedBack), as Close does (net.ErrClosed).
func (l *listener) arrive() error {
	if l.arriving == nil {
		return nil // no cap
	}
	select {
	case l.arriving <- struct{}{}:
		return nil
	default:
	}
	select {
	case l.arriving <- struct{}{}:
		return nil
	case <-l.done:
		return net.ErrClosed
	case <-l.backc:
		return errHandedBack
	}
}

// errHandedBack ends accept's wait for a slot: a connection was handed back.
var errHandedBack = errors.New("a connection was handed back")

func (l *listener) accept() (*limitedConn, error) {
	if l.waiting == nil {
		select {
		case l.slots <- struct{}{}:
			c, err := l.Listener.Accept()
			if err != nil {
				<-l.slots
				return nil, err
			}
			return l.wrap(c), nil
		case <-l.done:
			return nil, net.ErrClosed
		default:
		}
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.waiting = c
	}
	for {
		select {
		case l.slots <- struct{}{}:
			return l.wrap(l.takeWaiting()), nil
		default:
		}
		l.closeLongestIdle()
		select {
		case l.slots <- struct{}{}:
			return l.wrap(l.takeWaiting()), nil
		case <-l.done:
			_ = l.takeWaiting().Close()
			return nil, net.ErrClosed
		case <-l.backc:
			return nil, errHandedBack
		case <-time.After(reclaimEvery):
		}
	}
}

func (l *listener) takeWaiting() net.Conn {
	c := l.waiting
	l.waiting = nil
	return c
}

// handBack queues lc, whose parked long-poll has answered, for Accept to give net/http again,
// and wakes Accept; once the listener is closed it closes lc instead. The read-ahead bytes
// are in lc already (unread).
func (l *listener) handBack(lc *limitedConn) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		_ = lc.Close()
		return
	}
	lc.mu.Lock()
	lc.handedBack = time.Now()
	lc.mu.Unlock()
	l.back = append(l.back, lc)
	if !l.poked {
		if dl, ok := l.Listener.(interface{ SetDeadline(time.Time) error }); ok {
			l.poked = dl.SetDeadline(aLongTimeAgo) == nil
		}
	}
	l.mu.Unlock()
	select {
	case l.backc <- struct{}{}:
	default:
	}
}

// canHandBack reports whether a connection can be handed back: the inner listener's Accept
// can be ended by a deadline (a TCP listener's can), and the listener is open.
func (l *listener) canHandBack() bool {
	_, ok := l.Listener.(interface{ SetDeadline(time.Time) error })
	l.mu.Lock()
	defer l.mu.Unlock()
	return ok && !l.closed
}

// takeBack is the next connection handed back, nil when there is none; it clears the inner
// listener's deadline first, so that a hand-back after it sets it again.
func (l *listener) takeBack() *limitedConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.poked {
		if dl, ok := l.Listener.(interface{ SetDeadline(time.Time) error }); ok {
			_ = dl.SetDeadline(time.Time{})
		}
		l.poked = false
	}
	if len(l.back) == 0 {
		return nil
	}
	lc := l.back[0]
	l.back[0] = nil
	l.back = l.back[1:]
	if len(l.back) == 0 {
		l.back = nil
	}
	return lc
}

// aLongTimeAgo is a deadline that has passed: it ends a blocked Accept at once.
var aLongTimeAgo = time.Unix(1, 0)

// reclaimEvery is how often an Accept at the cap looks again for room.
const reclaimEvery = 100 * time.Millisecond

// wrap makes c, which holds a slot, one of the listener's connections.
func (l *listener) wrap(c net.Conn) *limitedConn {
	lc := &limitedConn{Conn: c, lim: &l.lim, f: framer{lim: &l.lim}, l: l}
	lc.release = func() {
		l.mu.Lock()
		delete(l.open, lc)
		l.mu.Unlock()
		<-l.slots
	}
	l.mu.Lock()
	l.open[lc] = struct{}{}
	l.mu.Unlock()
	return lc
}

// closeLongestIdle closes the network connection of the connection that has waited longest for
// its next request; net/http then closes it and its slot comes free. A connection in the middle
// of a request is never chosen.
func (l *listener) closeLongestIdle() {
	l.mu.Lock()
	var oldest *limitedConn
	var since time.Time
	for c := range l.open {
		if t := c.idle(); !t.IsZero() && (oldest == nil || t.Before(since)) {
			oldest, since = c, t
		}
	}
	l.mu.Unlock()
	if oldest != nil {
		oldest.reclaim()
	}
}

// Close stops accepting, and closes the connections handed back and not yet taken again.
func (l *listener) Close() error {
	l.once.Do(func() { close(l.done) })
	l.mu.Lock()
	l.closed = true
	back := l.back
	l.back = nil
	l.mu.Unlock()
	for _, lc := range back {
		_ = lc.Close()
	}
	return l.Listener.Close()
}

// readSize is the least room a read from the network is given.
const readSize = 4 << 10

// limitedConn is one connection of a listener: it reads ahead of net/http to judge each
// request's head before net/http sees it, and bounds the time a head and a body may take.
type limitedConn struct {
	net.Conn
	lim     *Limits
	release func() // gives the connection's slot back
	once    sync.Once
	l       *listener // the listener it came from, to hand it back to (park.go)

	// unsettled: the connection holds a place among the arriving (MaxArriving) until settle
	// gives it back; settling is the timer of arrivalHold that does it at the latest.
	unsettled atomic.Bool
	settling  *time.Timer

	// idleSince is when net/http began to wait for the next request on the connection (zero
	// while a request is under way); reclaimed marks one closed to make room. Both under mu.
	idleSince time.Time
	reclaimed bool
	// served marks a connection that has handed net/http a request: only such a one, waiting for
	// its next, is an idle keep-alive. One yet to send its first request is a client on its way,
	// bounded by the header timeout; closing it for a later one would drop a request in flight.
	served bool

	mu sync.Mutex
	f  framer
	// in[off:ready] has been judged and may go to net/http; in[ready:] is the start of a unit
	// still being judged (a head, a chunk's size line, a trailer).
	in         []byte
	off, ready int
	err        error     // once in[off:ready] has gone: what every read returns from then on
	one        [1]byte   // what net/http's one-byte background read reads into, in holding no buffer
	answer     []byte    // the refusal to write when net/http reaches it, if any
	reached    bool      // net/http asked for what follows the last byte it may have
	deadline   time.Time // the read deadline net/http set
	applied    time.Time // the read deadline the network connection has
	// handedBack is when a parked long-poll handed the connection back (park.go), until
	// net/http sets its first read deadline on it again: net/http takes it for a new
	// connection and gives its first request only the header timeout to come, where a
	// kept-alive one has the idle timeout.
	handedBack time.Time
}

func (c *limitedConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.mu.Lock()
	for {
		if c.ready > c.off {
			n := copy(p, c.in[c.off:c.ready])
			c.off += n
			c.mu.Unlock()
			return n, nil
		}
		if c.err != nil {
			c.reached = true
			err := c.err
			c.mu.Unlock()
			return 0, err
		}
		var buf []byte
		if len(p) == 1 && c.off == len(c.in) {
			// net/http's background read, which runs for as long as a handler does (a long-poll:
			// up to 55 s), with nothing held back: the connection gives its read-ahead buffer
			// back to the pool for that time and reads the one byte into one of its own.
			c.dropBuffer()
			buf = c.one[:]
		} else {
			c.makeRoom()
			buf = c.in[len(c.in):cap(c.in)]
		}
		if c.f.state >= stBody && c.f.since.IsZero() && len(p) > 1 {
			// A read from the network in a body means net/http has taken every byte judged so
			// far, the head included: it reads this body now, so its clock starts here, not when
			// the head came in behind a slow request before it (a long-poll, pipelined). Not on a
			// read of one byte: that is net/http's background read, which watches a connection
			// while the request before runs; a body is read into a buffer.
			c.f.since = time.Now()
		}
		c.applyDeadline()
		if c.served && c.f.state == stStart && c.off == len(c.in) && len(p) > 1 {
			// Between requests with nothing at hand, and not net/http's one-byte background
			// read (which runs while a request's handler does): it waits for the next request.
			c.idleSince = time.Now()
			c.settle()
		}
		grace := false
		if !c.served && c.f.state <= stHead && c.unsettled.Load() {
			// Nothing of a first request in hand: wait for it only a moment holding a place
			// among the arriving. A request sent with the connection (a burst's) is here by
			// then; a client that sends nothing, or a byte at a time, must not keep a place
			// that others doing work would use: past the grace it settles and reads on.
			if d := time.Now().Add(firstReadGrace); c.applied.IsZero() || d.Before(c.applied) {
				_ = c.Conn.SetReadDeadline(d)
				c.applied, grace = d, true
			}
		}
		c.mu.Unlock()
		n, err := c.Conn.Read(buf)
		c.mu.Lock()
		if grace && n == 0 && isTimeout(err) {
			c.settle()
			continue // with the deadline of net/http and the framer again
		}
		c.idleSince = time.Time{}
		now := time.Now()
		if &buf[0] == &c.one[0] {
			if n > 0 { // a pipelined request's first byte: judged as any other
				c.makeRoom()
				c.in = append(c.in, c.one[:n]...)
			}
		} else {
			c.in = c.in[:len(c.in)+n]
		}
		c.judge(now)
		if err == nil || c.err != nil {
			continue
		}
		if stage := c.f.deadline(); isTimeout(err) && !stage.IsZero() && !now.Before(stage) &&
			(c.deadline.IsZero() || stage.Before(c.deadline)) {
			c.err = c.f.timeoutError()
			continue
		}
		if isTimeout(err) {
			// net/http's own deadline (its idle timeout, or its way of ending a background read):
			// it may read again after setting another.
			if c.ready > c.off {
				continue
			}
			c.mu.Unlock()
			return 0, err
		}
		c.err = err // the end of the stream: a head not yet judged is dropped
	}
}

// judge runs the framer over the bytes not yet judged.
func (c *limitedConn) judge(now time.Time) {
	for c.err == nil {
		n, v, r := c.f.step(c.in[c.ready:], now)
		switch v {
		case more:
			return
		case pass:
			c.ready += n
			c.served = true
		case lost:
			c.ready += n
			c.err = io.EOF
		case refuse:
			c.err = io.EOF
			c.answer = r.response()
			c.lim.Logger.Warn("http request refused", "status", r.status, "reason", r.reason, "remote", c.RemoteAddr().String())
		}
	}
}

// readBufs holds the read-ahead buffers of connections that hold none: one waiting in
// net/http's background read (a long-poll) gives its buffer back for the wait, and takes one
// again for its next request, without an allocation.
var readBufs = sync.Pool{New: func() any { return new([readSize]byte) }}

// dropBuffer gives the read-ahead buffer back; call it only with nothing in it to hand over.
func (c *limitedConn) dropBuffer() {
	if cap(c.in) == readSize {
		readBufs.Put((*[readSize]byte)(c.in[:readSize]))
	}
	c.in, c.off, c.ready = nil, 0, 0
}

// makeRoom leaves at least readSize bytes free after in, keeping what is not yet handed over.
func (c *limitedConn) makeRoom() {
	if c.off == len(c.in) {
		if cap(c.in) > 2*readSize {
			c.in = nil // after a large head: do not keep its buffer for the connection's life
		}
		c.in, c.off, c.ready = c.in[:0], 0, 0
	}
	if cap(c.in)-len(c.in) >= readSize {
		return
	}
	if cap(c.in) == 0 {
		c.in = readBufs.Get().(*[readSize]byte)[:0]
		return
	}
	if c.off > 0 {
		n := copy(c.in, c.in[c.off:])
		c.in, c.ready, c.off = c.in[:n], c.ready-c.off, 0
	}
	if cap(c.in)-len(c.in) < readSize {
		grown := make([]byte, len(c.in), len(c.in)+max(readSize, len(c.in)))
		copy(grown, c.in)
		c.in = grown
	}
}

// applyDeadline gives the network connection the earlier of net/http's read deadline and the
// framer's, the one of the head or body being read.
func (c *limitedConn) applyDeadline() {
	if d := c.effectiveDeadline(); !d.Equal(c.applied) {
		_ = c.Conn.SetReadDeadline(d)
		c.applied = d
	}
}

func (c *limitedConn) effectiveDeadline() time.Time {
	d := c.deadline
	if stage := c.f.deadline(); !stage.IsZero() && (d.IsZero() || stage.Before(d)) {
		d = stage
	}
	return d
}

// SetReadDeadline takes effect at once, on a read in progress too: net/http ends its background
// read that way.
func (c *limitedConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.handedBack.IsZero() {
		// The header deadline net/http gives a new connection: a handed-back one waits for its
		// next request as long as a kept-alive one (the listener's own header timeout runs from
		// the first byte).
		if !t.IsZero() {
			t = c.handedBack.Add(idleTimeout)
		}
		c.handedBack = time.Time{}
	}
	c.deadline = t
	c.applied = c.effectiveDeadline()
	return c.Conn.SetReadDeadline(c.applied)
}

func (c *limitedConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.Conn.SetWriteDeadline(t)
}

// CloseWrite lets net/http half-close the connection, as it does before closing one whose
// request it did not read to the end, so that its answer is not lost to a reset.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// idle is when the connection began to wait for its next request, zero while one is under way
// or once it was reclaimed.
func (c *limitedConn) idle() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reclaimed {
		return time.Time{}
	}
	return c.idleSince
}

// reclaim closes the network connection of an idle connection, so that net/http's wait for the
// next request ends and it closes the connection.
func (c *limitedConn) reclaim() {
	c.mu.Lock()
	c.reclaimed = true
	c.mu.Unlock()
	_ = c.Conn.Close()
}

// Close writes the pending refusal, if net/http came as far as the refused request (then every
// answer before it has been written), and gives the connection's slot back.
func (c *limitedConn) Close() error {
	err := net.ErrClosed
	c.once.Do(func() {
		c.mu.Lock()
		answer := c.answer
		if !c.reached {
			answer = nil
		}
		_, cut := c.err.(*deadlineError) // net/http has answered the request whose read was cut
		c.mu.Unlock()
		c.settle() // done with the request: the refusal's write and linger hold no place
		if answer != nil {
			_ = c.Conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
			_, werr := c.Conn.Write(answer)
			cut = werr == nil
		}
		if cut {
			c.linger()
		}
		err = c.Conn.Close()
		c.release()
	})
	return err
}

// arrived starts the connection's time among the arriving: it holds the place Accept took for
// it until it settles, hold from now at the latest.
func (c *limitedConn) arrived(hold time.Duration) {
	c.unsettled.Store(true)
	c.settling = time.AfterFunc(hold, func() { c.giveBack() })
}

// settle gives the connection's place among the arriving back, once: its first request is done
// (net/http waits for the next), it is parked or closed. Its hold ending does too (giveBack).
func (c *limitedConn) settle() {
	if c.giveBack() {
		c.settling.Stop()
	}
}

// giveBack gives the place back unless it was given already, and reports whether it did.
func (c *limitedConn) giveBack() bool {
	if !c.unsettled.CompareAndSwap(true, false) {
		return false
	}
	<-c.l.arriving
	return true
}

// linger half-closes a connection the listener ended, and reads what the client still sends for
// a moment: closing a socket with unread input makes the kernel send a reset, which can destroy
// the last answer before the client reads it (net/http's closeWriteAndWait does the same).
func (c *limitedConn) linger() {
	_ = c.CloseWrite()
	_ = c.Conn.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	_, _ = io.CopyN(io.Discard, c.Conn, 256<<10)
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// deadlineError is a deadline of the listener passing: a timeout, as net/http expects of a read
// deadline, that says which.
type deadlineError struct{ msg string }

func (e *deadlineError) Error() string   { return e.msg }
func (e *deadlineError) Timeout() bool   { return true }
func (e *deadlineError) Temporary() bool { return true }
func (e *deadlineError) Unwrap() error   { return os.ErrDeadlineExceeded }

// refusal is a request the listener answers itself.
type refusal struct {
	status int
	reason string // for the log
	msg    string // the sentence
}

// response is the refusal as the API answers an error: its JSON error body, and the connection
// closed after it.
func (r *refusal) response() []byte {
	body, _ := json.Marshal(ErrorBody{Error: ErrorDetail{Code: inquiry.CodeBadRequest, Message: r.msg}})
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		r.status, http.StatusText(r.status), len(body), body)
}

// framer follows the framing of the requests on a connection, one unit at a time: the bytes
// net/http skips between requests, a head, a body of known length, a chunk's size line, its
// data and the CRLF after it, the trailer. It accepts what net/http accepts and is no more
// lenient: where net/http would fail, it stops following (lost), so that net/http never reads a
// request the framer has not judged.
type framer struct {
	lim   *Limits
	state frameState
	post  bool      // the last request was a POST: net/http then skips up to 4 CR or LF
	skip  int       // CR and LF skipped since
	scan  int       // bytes of the unit already searched for a line end
	line  int       // where the line being searched starts
	left  uint64    // bytes left of the body or the chunk
	extra int64     // net/http's count of chunk overhead beyond what the data earns
	since time.Time // when the head began, or the body (the end of the head)
}

type frameState uint8

const (
	stStart     frameState = iota // between requests
	stHead                        // in a request line and its headers
	stBody                        // in a body of known length
	stChunkLine                   // in a chunk's size line
	stChunkData                   // in a chunk's data
	stChunkEnd                    // at the CRLF after a chunk's data
	stTrailer                     // after the last chunk: trailer fields, then a blank line
)

// verdict is what a step makes of the bytes at hand.
type verdict uint8

const (
	more   verdict = iota // the unit is not complete yet
	pass                  // n bytes may go to net/http
	lost                  // n bytes may go, and nothing after them: net/http refuses or fails there
	refuse                // nothing more may go: the listener answers the request itself
)

// maxChunkLine is net/http's bufio.Reader: a chunk's size line or a trailer must fit in it.
const maxChunkLine = 4096

func (f *framer) deadline() time.Time {
	switch f.state {
	case stStart:
		return time.Time{}
	case stHead:
		return f.since.Add(f.lim.HeaderTimeout)
	default:
		if f.since.IsZero() {
			return time.Time{} // net/http has not asked for the body yet
		}
		return f.since.Add(f.lim.BodyTimeout)
	}
}

func (f *framer) timeoutError() error {
	if f.state == stHead {
		return &deadlineError{fmt.Sprintf("the request headers did not arrive within %s of their first byte", f.lim.HeaderTimeout)}
	}
	return &deadlineError{fmt.Sprintf("the request body did not arrive within %s of its headers", f.lim.BodyTimeout)}
}

// next is the start of the next request.
func (f *framer) next() {
	f.state, f.skip, f.scan, f.line, f.since = stStart, 0, 0, 0, time.Time{}
}

// step judges the unit at the start of b.
func (f *framer) step(b []byte, now time.Time) (int, verdict, *refusal) {
	if len(b) == 0 {
		return 0, more, nil
	}
	switch f.state {
	case stStart:
		// net/http's tolerance of old clients (RFC 7230 §3.5): after a POST it discards the CR
		// and LF among the next four bytes.
		if f.post && f.skip < 4 && (b[0] == '\r' || b[0] == '\n') {
			f.skip++
			return 1, pass, nil
		}
		f.state, f.since, f.scan, f.line = stHead, now, 0, 0
		return f.head(b, now)
	case stHead:
		return f.head(b, now)
	case stBody, stChunkData:
		n := min(uint64(len(b)), f.left)
		f.left -= n
		if f.left == 0 {
			if f.state == stBody {
				f.next()
			} else {
				f.state = stChunkEnd
			}
		}
		return int(n), pass, nil
	case stChunkEnd:
		if len(b) < 2 {
			return 0, more, nil
		}
		if b[0] != '\r' || b[1] != '\n' {
			return 0, lost, nil
		}
		f.state, f.scan = stChunkLine, 0
		return 2, pass, nil
	case stChunkLine:
		return f.chunkLine(b)
	default:
		return f.trailer(b)
	}
}

// head waits for the blank line that ends a head, refusing a request line or a head that grows
// past its limit without waiting for its end.
func (f *framer) head(b []byte, now time.Time) (int, verdict, *refusal) {
	for {
		i := bytes.IndexByte(b[f.scan:], '\n')
		if i < 0 {
			f.scan = len(b)
			break
		}
		end := f.scan + i
		line := trimCR(b[f.line:end])
		switch {
		case f.line == 0 && len(line) > f.lim.MaxRequestLine:
			return 0, refuse, f.lineTooLong()
		case f.line > 0 && len(line) == 0:
			if end+1 > f.lim.MaxHeaderBytes {
				return 0, refuse, f.headTooLarge()
			}
			return f.judge(b[:end+1], now)
		}
		f.line, f.scan = end+1, end+1
	}
	if f.line == 0 && len(b) > f.lim.MaxRequestLine+1 { // even were its last byte a CR
		return 0, refuse, f.lineTooLong()
	}
	if len(b) > f.lim.MaxHeaderBytes {
		return 0, refuse, f.headTooLarge()
	}
	return 0, more, nil
}

// judge reads a whole head as net/http will, and decides how its body is framed.
func (f *framer) judge(head []byte, now time.Time) (int, verdict, *refusal) {
	n := len(head)
	reqLine, rest := cutLine(head)
	method, rest1, ok1 := bytes.Cut(reqLine, []byte(" "))
	_, proto, ok2 := bytes.Cut(rest1, []byte(" "))
	major, minor, ok3 := http.ParseHTTPVersion(string(proto))
	if !ok1 || !ok2 || !ok3 || major != 1 {
		return n, lost, nil // net/http answers 400 or 505, or (PRI * HTTP/2.0) reads no further
	}
	var lengths, encodings [][]byte
	for {
		var line []byte
		line, rest = cutLine(rest)
		if len(line) == 0 {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			return 0, refuse, &refusal{http.StatusBadRequest, "folded header line",
				"a header line of the request starts with a space or a tab (an obsolete folding of the line before it, which proxies read differently): write each header on one line"}
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return n, lost, nil // net/http answers 400
		}
		value = bytes.Trim(value, " \t")
		switch {
		case asciiEqualFold(name, "Content-Length"):
			lengths = append(lengths, value)
		case asciiEqualFold(name, "Transfer-Encoding"):
			encodings = append(encodings, value)
		}
	}
	f.post = string(method) == "POST"
	switch {
	case len(encodings) > 0 && len(lengths) > 0:
		return 0, refuse, &refusal{http.StatusBadRequest, "content-length and transfer-encoding",
			"the request carries both Content-Length and Transfer-Encoding, so a proxy and the bot may disagree on where it ends: send only one of them"}
	case len(encodings) > 0 && minor == 0:
		// RFC 9112 §6.1: such a message's framing is faulty; net/http would ignore the header.
		return 0, refuse, &refusal{http.StatusBadRequest, "transfer-encoding over http/1.0",
			"the request carries Transfer-Encoding over HTTP/1.0, which has no chunked bodies: send HTTP/1.1, or a Content-Length instead"}
	case len(encodings) > 0:
		if len(encodings) != 1 || !asciiEqualFold(encodings[0], "chunked") {
			return n, lost, nil // net/http answers 501
		}
		f.state, f.scan, f.extra, f.since = stChunkLine, 0, 0, time.Time{} // timed from its first read
	case len(lengths) > 0:
		for _, v := range lengths[1:] {
			if !bytes.Equal(v, lengths[0]) {
				return n, lost, nil // net/http answers 400
			}
		}
		size, err := strconv.ParseUint(string(lengths[0]), 10, 63)
		if err != nil {
			return n, lost, nil // net/http answers 400
		}
		if size == 0 {
			f.next()
		} else {
			f.state, f.left, f.since = stBody, size, time.Time{} // timed from its first read
		}
	default:
		f.next()
	}
	return n, pass, nil
}

// chunkLine reads a chunk's size line as net/http's chunked reader does: a CRLF end and no other
// CR, within its buffer, hex digits (at most 16) then optional white space and extensions, and
// the same bound on overhead.
func (f *framer) chunkLine(b []byte) (int, verdict, *refusal) {
	lf, v := f.findLF(b)
	if lf < 0 {
		return 0, v, nil
	}
	n := lf + 1
	if n > maxChunkLine || n < 2 || b[n-2] != '\r' || bytes.IndexByte(b[:n-2], '\r') >= 0 {
		return 0, lost, nil
	}
	p := b[:n-2]
	f.extra += int64(len(p)) + 2
	p = bytes.TrimRight(p, " \t")
	p, _, _ = bytes.Cut(p, []byte(";"))
	size, ok := parseHex(p)
	if !ok {
		return 0, lost, nil
	}
	f.extra -= 16 + 2*int64(size)
	f.extra = max(f.extra, 0)
	if f.extra > 16<<10 {
		return 0, lost, nil
	}
	f.scan = 0
	if size == 0 {
		f.state, f.line = stTrailer, 0
	} else {
		f.state, f.left = stChunkData, size
	}
	return n, pass, nil
}

// trailer reads what follows the last chunk: a CRLF, or trailer fields ending in a blank line
// within net/http's buffer. It takes CRLF line ends only (net/http takes a bare LF too, where
// another server may not).
func (f *framer) trailer(b []byte) (int, verdict, *refusal) {
	if f.scan == 0 {
		if len(b) < 2 {
			return 0, more, nil
		}
		if b[0] == '\r' && b[1] == '\n' {
			f.next()
			return 2, pass, nil
		}
	}
	for {
		end, v := f.findLF(b)
		if end < 0 {
			return 0, v, nil
		}
		line := b[f.line:end]
		if len(line) == 0 || bytes.IndexByte(line, '\r') != len(line)-1 {
			return 0, lost, nil
		}
		line = line[:len(line)-1]
		if len(line) == 0 {
			if end+1 > maxChunkLine {
				return 0, lost, nil
			}
			f.next()
			return end + 1, pass, nil
		}
		if line[0] == ' ' || line[0] == '\t' || bytes.IndexByte(line, ':') < 0 {
			return 0, lost, nil
		}
		f.line, f.scan = end+1, end+1
	}
}

// findLF finds the next LF in b from f.scan on, and where there is none remembers how far it
// has looked, so the next call scans only the new bytes: -1 and more, to wait for them, or -1
// and lost once b is as long as a line may be (net/http gives up on it).
func (f *framer) findLF(b []byte) (int, verdict) {
	if i := bytes.IndexByte(b[f.scan:], '\n'); i >= 0 {
		return f.scan + i, pass
	}
	f.scan = len(b)
	if len(b) >= maxChunkLine {
		return -1, lost
	}
	return -1, more
}

func (f *framer) lineTooLong() *refusal {
	return &refusal{http.StatusRequestURITooLong, "request line too long",
		fmt.Sprintf("the request line is over %d bytes: shorten the path and query", f.lim.MaxRequestLine)}
}

func (f *framer) headTooLarge() *refusal {
	return &refusal{http.StatusRequestHeaderFieldsTooLarge, "headers too large",
		fmt.Sprintf("the request line and headers are over %d bytes: send fewer or shorter headers", f.lim.MaxHeaderBytes)}
}

// cutLine cuts the first line off b, as net/http reads lines: up to an LF, less one CR before it.
func cutLine(b []byte) (line, rest []byte) {
	line, rest, _ = bytes.Cut(b, []byte("\n"))
	return trimCR(line), rest
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// asciiEqualFold compares as net/http compares header names and "chunked": ASCII letters only
// (strings.EqualFold would also fold, say, the Kelvin sign to a k).
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		if lower(b[i]) != lower(s[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// parseHex is net/http's parseHexUint: one to sixteen hex digits.
func parseHex(v []byte) (uint64, bool) {
	if len(v) == 0 || len(v) > 16 {
		return 0, false
	}
	var n uint64
	for _, c := range v {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | uint64(c)
	}
	return n, true
}
