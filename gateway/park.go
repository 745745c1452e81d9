package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gin-gonic/gin/render"

	"github.com/inquiry-bot/bot/inquiry"
)

// A long-poll on HTTP/1.1 served by NewHTTPServer on the gateway's listener is parked while it
// waits, holding no goroutine: after authentication, the first read (pending) and its waiter
// slot, the handler hijacks the connection (keeping the bytes net/http read ahead of it),
// returns — so net/http's goroutine, its background read and its buffers go — and waits in
// the hub with Service.Park. When the wait ends, the response is written on the connection as
// net/http would have written it (status, headers, the same body), with the request's log line
// and metrics, and the connection goes back to net/http through the listener's Accept for its
// next request, its slot held throughout. On shutdown (the hub closed) or when the request
// asked for it, the response says Connection: close and the connection is closed instead.
//
// While parked, nothing reads the connection, so one goroutine per Server (the prober, running
// only while there are parked long-polls) looks at each every probeEvery with a read that does
// not block: the end of the stream or an error ends the wait as net/http's background read
// would (the client went away, or half-closed: the response is written as net/http writes it,
// the connection closed and its slot free), bytes (a
// pipelined request) are kept for net/http. A client going away is noticed that much later.

// probeEvery is how often a parked long-poll's connection is looked at for a client gone away.
const probeEvery = 2 * time.Second

// parked is one long-poll parked off its goroutine.
type parked struct {
	s       *Server
	conn    *limitedConn
	key     string
	ctx     context.Context // the request's values, not its end
	release func()          // the waiter slot
	header  []string        // the response's header set before the wait, as name, value pairs
	close   bool            // the request asked for Connection: close
	line    requestLine

	mu       sync.Mutex // with answered: the prober and the answer take turns on the connection
	answered bool
	gone     bool   // the client went away (or half-closed): answered, the connection closed
	refused  error  // its token no longer lets it in (waiters.go): answered with this
	cancel   func() // Service.Park's, once it has returned
}

// parkers are a Server's parked long-polls, and its prober.
type parkers struct {
	mu      sync.Mutex
	set     map[*parked]struct{}
	probing bool
	idle    *sync.Cond // signalled whenever set empties
	holds   holds      // every held request, parked or not, watched for its token's revocation
}

// park parks c's long-poll on rec (pending, read after mark: Service.ParkRead) for wait, with
// the waiter slot release, when it can be parked (HTTP/1.1 on NewHTTPServer and the gateway's
// listener, no body); false leaves c
// untouched for today's wait on its goroutine. Kept out of getInquiry's frame, which stays on
// the stack across Service.Wait on that path (see requestLog).
//
//go:noinline
func (s *Server) park(c *gin.Context, rec *inquiry.Record, mark uint64, wait time.Duration, release func()) bool {
	key := rec.Key
	lc, ok := c.Request.Context().Value(connKey{}).(*limitedConn)
	if !ok || !canProbe || c.Request.ProtoMajor != 1 || c.Request.ProtoMinor != 1 ||
		c.Request.Body != http.NoBody || c.Writer.Written() || c.Request.Context().Err() != nil ||
		!lc.l.canHandBack() {
		return false
	}
	start, _ := c.Get(ctxStart)
	t0, _ := start.(time.Time)
	p := &parked{s: s, conn: lc, key: key, release: release, close: c.Request.Close, line: lineOf(c, t0, requestID(c))}
	for name, values := range c.Writer.Header() {
		for _, v := range values {
			p.header = append(p.header, name, v)
		}
	}
	// The request's one value the wait reads (the caller: what it may see), not its end: net/http
	// ends it when the handler returns, and its chain costs as much as the rest of the waiter. A
	// context that never ends costs the wait nothing; the prober ends a wait by its cancel.
	p.ctx = inquiry.WithCaller(context.Background(), inquiry.CallerFrom(c.Request.Context()))
	p.line.ctx = p.ctx
	if h, ok := c.Get(ctxHold); ok {
		if p.release, ok = h.(*hold).park(p.refuse); !ok {
			return false // the token was found revoked meanwhile: the wait on its goroutine ends at once
		}
	}
	c.Set(ctxParked, true) // requestLog leaves the line to the response
	conn, rw, err := c.Writer.Hijack()
	if err != nil {
		// Cannot happen on net/http's HTTP/1.1 before anything is written; answered as a fault.
		c.Set(ctxParked, false)
		p.release()
		s.abort(c, err)
		return true
	}
	_ = conn // lc itself: net/http hands back the connection it was given
	var ahead []byte
	if n := rw.Reader.Buffered(); n > 0 {
		ahead, _ = rw.Reader.Peek(n)
	}
	lc.parkWith(ahead)
	lc.settle()      // parked: it waits holding nothing of net/http's, so it is no longer arriving
	s.parkers.add(p) // before Park, which may answer at once
	cancel := s.svc.ParkRead(p.ctx, rec, mark, wait, p.answer)
	p.mu.Lock()
	p.cancel = cancel
	gone := (p.gone || p.refused != nil) && !p.answered // probed, or refused, meanwhile
	p.mu.Unlock()
	if gone {
		cancel()
	}
	return true
}

// answer writes the response the wait ended with, then hands the connection back or closes it
// (always when the client went away).
func (p *parked) answer(rec *inquiry.Record, err error) {
	p.mu.Lock()
	p.answered = true // no probe from now on
	gone, refused := p.gone, p.refused
	p.mu.Unlock()
	defer p.s.parkers.remove(p) // once the response is written: WaitParked waits for that
	released := false
	defer func() {
		// A fault while answering (presenting the inquiry, writing) must not end the process:
		// on the goroutine path gin's recovery (Server.recovery) keeps it alive, and here no
		// net/http goroutine would. Logged with its stack, the waiter slot given back, the
		// connection closed: its client sees the connection end, not a half response.
		if r := recover(); r != nil {
			p.s.log.ErrorContext(p.ctx, "panic answering a parked long-poll", "request_id", p.line.id,
				"inquiry", p.key, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			if !released {
				p.release()
			}
			_ = p.conn.Close()
		}
	}()
	if refused == nil && err == nil {
		// The answer is about to go: its token must still let it in, revoked since the last
		// round or not (waiters.go).
		refused = p.s.svc.Recheck(p.ctx, inquiry.CallerFrom(p.ctx))
	}
	if refused != nil {
		rec, err = nil, refused
	} else if gone && rec == nil && errors.Is(err, context.Canceled) {
		// Ended by the prober: the inquiry as it stands, as net/http's background read seeing
		// the client go made today's wait read it (for the log line, and a client that only
		// half-closed, which reads the response).
		rec, err = p.s.svc.Get(p.ctx, p.key)
	}
	header := make(http.Header, len(p.header)/2+4)
	for i := 0; i+1 < len(p.header); i += 2 {
		header[p.header[i]] = append(header[p.header[i]], p.header[i+1])
	}
	if inquiry.ErrorCode(refused) == inquiry.CodeUnauthenticated {
		header.Set("WWW-Authenticate", invalidTokenChallenge)
	}
	status, body := p.respond(header, rec, err)
	// As the handler's deferred release ran before net/http flushed its answer: a caller that
	// has the answer may wait again at once.
	p.release()
	released = true
	closing := p.close || isClosed(p.s.svc.Hub.Closing()) || !p.conn.l.canHandBack()
	if closing {
		header.Set("Connection", "close")
	}
	// A client gone is answered all the same, as net/http answers one whose background read
	// saw the end of the stream: one that only half-closed (it sent all it will) reads it. The
	// connection is closed after, as net/http closes it on reading that end.
	closing = closing || gone
	head := responseHead(status, header, len(body))
	// Logged before the response is written, as requestLog logs before net/http flushes what
	// the handler wrote: a client that has the answer finds its line in the log.
	p.line.status, p.line.bytes = status, len(body)
	p.s.writeLine(&p.line)
	_ = p.conn.SetWriteDeadline(p.line.start.Add(writeTimeout))
	_, werr := p.conn.Write(append(head, body...))
	_ = p.conn.SetWriteDeadline(time.Time{})
	if closing || werr != nil {
		if werr == nil {
			p.conn.linger() // the answer must not be lost to a reset over unread input
		}
		_ = p.conn.Close()
		return
	}
	p.conn.l.handBack(p.conn)
}

// respond is the status and body today's wait answers with (getInquiry's, after Service.Wait):
// the inquiry as presented, or the error as abort answers it, rendered as gin renders c.JSON.
func (p *parked) respond(header http.Header, rec *inquiry.Record, err error) (int, []byte) {
	status, v := http.StatusOK, any(nil)
	if err != nil {
		d, st, retryAfter := p.s.errorAnswer(p.ctx, p.line.id, err)
		if retryAfter != "" {
			header.Set("Retry-After", retryAfter)
		}
		p.line.errorCode = string(d.Code)
		status, v = st, ErrorBody{Error: d}
	} else {
		v = p.s.present(rec)
	}
	w := bufferWriter{header: header}
	if rerr := (render.JSON{Data: v}).Render(&w); rerr != nil {
		d, st, _ := p.s.errorAnswer(p.ctx, p.line.id, rerr)
		p.line.errorCode = string(d.Code)
		w.body.Reset()
		_ = (render.JSON{Data: ErrorBody{Error: d}}).Render(&w)
		status = st
	}
	return status, w.body.Bytes()
}

// refuse ends the wait with err, its token's refusal, unless it is answered already.
func (p *parked) refuse(err error) {
	p.mu.Lock()
	if p.answered || p.refused != nil {
		p.mu.Unlock()
		return
	}
	p.refused = err
	cancel := p.cancel
	p.mu.Unlock()
	if cancel != nil { // else park cancels it once Service.ParkRead has returned
		cancel()
	}
}

// responseHead is the status line and the header of a response as net/http writes one whose
// handler has finished, byte for byte: the handler's header sorted, then its Date and
// Content-Length, then Connection when it closes.
func responseHead(status int, h http.Header, length int) []byte {
	conn := h.Get("Connection")
	h.Del("Connection")
	h.Del("Date")
	h.Del("Content-Length")
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n")
	_ = h.Write(&b)
	b.WriteString("Date: " + time.Now().UTC().Format(http.TimeFormat) + "\r\n")
	b.WriteString("Content-Length: " + strconv.Itoa(length) + "\r\n")
	if conn != "" {
		b.WriteString("Connection: " + conn + "\r\n")
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// bufferWriter is the http.ResponseWriter gin's renderer writes a parked response into.
type bufferWriter struct {
	header http.Header
	body   bytes.Buffer
}

func (w *bufferWriter) Header() http.Header         { return w.header }
func (w *bufferWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *bufferWriter) WriteHeader(int)             {}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (ps *parkers) add(p *parked) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.set == nil {
		ps.set = map[*parked]struct{}{}
		ps.idle = sync.NewCond(&ps.mu)
	}
	ps.set[p] = struct{}{}
	if !ps.probing {
		ps.probing = true
		go ps.probe()
	}
}

func (ps *parkers) remove(p *parked) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	delete(ps.set, p)
	if len(ps.set) == 0 && ps.idle != nil {
		ps.idle.Broadcast()
	}
}

// probe looks at every parked connection every probeEvery, for as long as there are any.
func (ps *parkers) probe() {
	buf := make([]byte, readSize)
	var round []*parked
	for {
		time.Sleep(probeEvery)
		ps.mu.Lock()
		if len(ps.set) == 0 {
			ps.probing = false
			ps.mu.Unlock()
			return
		}
		round = round[:0]
		for p := range ps.set {
			round = append(round, p)
		}
		ps.mu.Unlock()
		for i, p := range round {
			p.mu.Lock()
			var cancel func()
			if !p.answered && !p.gone && p.conn.probe(buf) {
				p.gone, cancel = true, p.cancel
			}
			p.mu.Unlock()
			if cancel != nil {
				// The wait ends as when net/http's background read sees the client go; the
				// answer reads the inquiry, on a goroutine of its own.
				go cancel()
			}
			round[i] = nil
		}
	}
}

// Parked counts the long-polls parked off their goroutines (for tests and shutdown).
func (s *Server) Parked() int {
	s.parkers.mu.Lock()
	defer s.parkers.mu.Unlock()
	return len(s.parkers.set)
}

// WaitParked waits until every parked long-poll has written its response, or ctx ends (its
// error then). http.Server.Shutdown does not wait for them (their connections are hijacked):
// call it after Shutdown, having closed the service's hub (which ends their waits).
func (s *Server) WaitParked(ctx context.Context) error {
	ps := &s.parkers
	stop := context.AfterFunc(ctx, func() {
		ps.mu.Lock()
		if ps.idle != nil {
			ps.idle.Broadcast()
		}
		ps.mu.Unlock()
	})
	defer stop()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for len(ps.set) > 0 && ctx.Err() == nil {
		ps.idle.Wait()
	}
	if len(ps.set) > 0 {
		return ctx.Err()
	}
	return nil
}

// parkWith readies c to be parked: ahead, the bytes net/http had read ahead of the parked
// request, go back in front of what c holds (the framer has judged them: they are ready for
// net/http again), and a connection holding nothing gives its read-ahead buffer back for the
// wait.
func (c *limitedConn) parkWith(ahead []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(ahead) == 0 {
		if c.off == len(c.in) {
			c.dropBuffer()
		}
		return
	}
	held := c.in[c.off:]
	in := make([]byte, 0, len(ahead)+len(held))
	in = append(append(in, ahead...), held...)
	c.ready = len(ahead) + c.ready - c.off
	c.in, c.off = in, 0
}
