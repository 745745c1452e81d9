package gateway

// A request a token holds open — a long-poll (a GET, a create or a run's ask with wait), an
// event stream, an MCP call — was let in when it began. A token revoked meanwhile loses it
// within 15 s on every replica: each held request is a hold, and one goroutine per Server,
// running only while there are holds, rechecks every token held every tokenRecheck and at once
// when a token is revoked through this process (Service.TokenRevocations). The recheck reads the
// token from the store, so what another replica revoked is seen at the next round: tokenRecheck
// is the bound, notifications or none.
// What a revoked token holds ends: a long-poll is answered 401 with the bearer check's sentence,
// a stream is cut. And the moment a held request is about to answer, its token is rechecked
// once more, so a wait that ends between two rounds hands nothing to a token revoked since.

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/inquiry-bot/bot/inquiry"
)

// tokenRecheck is how often the token of a held request is read again.
const tokenRecheck = 5 * time.Second

// holds are a Server's held requests, and their watch.
type holds struct {
	every    time.Duration // between rounds; 0 means tokenRecheck
	mu       sync.Mutex
	set      map[*hold]struct{}
	watching bool
	emptied  chan struct{} // told when the set empties, so the watch ends without a round
}

// hold is one request held open by tok.
type hold struct {
	tok     *inquiry.Token
	release func() // its long-poll place

	mu        sync.Mutex
	refused   error       // why it ends: the token's refusal, or the store's fault past the bound
	verified  time.Time   // the last recheck that let it in (when it began, at first)
	committed bool        // its answer (a stream's headers) has gone out: it keeps what it wrote
	end       func(error) // ends the wait: cancels its context
}

// refuse ends h with err, once.
func (h *hold) refuse(err error) {
	h.mu.Lock()
	if h.refused != nil {
		h.mu.Unlock()
		return
	}
	h.refused = err
	end := h.end
	h.mu.Unlock()
	end(err)
}

// err is why h ended, nil while it goes on.
func (h *hold) err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refused
}

// holdOpen makes c, whose token holds one of its long-poll places until release, a held
// request: its context ends and its writer takes nothing more when the token is found revoked,
// and the release it returns (in place of release) answers it 401 then, unless its answer went
// out first. The returned function may be called more than once.
func (s *Server) holdOpen(c *gin.Context, release func()) func() {
	req := c.Request
	ctx, cancel := context.WithCancelCause(req.Context())
	c.Request = req.WithContext(ctx)
	h := &hold{tok: token(c), release: release, verified: time.Now(), end: cancel}
	w := &heldWriter{ResponseWriter: c.Writer, s: s, h: h, ctx: ctx, header: c.Writer.Header().Clone()}
	c.Writer = w
	s.holds.add(s, h)
	return sync.OnceFunc(func() {
		s.holds.remove(h)
		h.mu.Lock()
		committed, err := h.committed, h.refused
		h.mu.Unlock()
		c.Writer = w.ResponseWriter
		if err != nil && !committed {
			// Answered on the request's own context: the one ended here is no sign that the
			// client went away.
			c.Request = req
			w.refusal(err)
			s.abort(c, err)
		}
		cancel(nil)
		release()
	})
}

// heldWriter is a held request's writer: once its hold has ended it writes nothing, and its
// first write (the answer, or a stream's headers) rechecks the token.
type heldWriter struct {
	gin.ResponseWriter
	s      *Server
	h      *hold
	ctx    context.Context
	header http.Header // the header before the handler ran: a refusal carries only it
}

// pass reports whether a write may go out.
func (w *heldWriter) pass() bool {
	h := w.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.refused != nil {
		return false
	}
	if !h.committed {
		if err := w.s.svc.Recheck(w.ctx, h.tok); err != nil {
			h.refused = err // the release answers it; the handler is finishing
			return false
		}
		h.committed = true
	}
	return true
}

func (w *heldWriter) WriteHeaderNow() {
	if w.pass() {
		w.ResponseWriter.WriteHeaderNow()
	}
}

func (w *heldWriter) Write(b []byte) (int, error) {
	if !w.pass() {
		return len(b), nil // the handler's answer is dropped: the release writes the refusal
	}
	return w.ResponseWriter.Write(b)
}

func (w *heldWriter) WriteString(s string) (int, error) {
	if !w.pass() {
		return len(s), nil
	}
	return w.ResponseWriter.WriteString(s)
}

func (w *heldWriter) Flush() {
	if w.pass() {
		w.ResponseWriter.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (a stream's write deadline).
func (w *heldWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// refusal readies the header for the refusal of err: what the handler set for its answer (a
// Location, a Content-Type) goes, and a refused token gets the bearer check's challenge.
func (w *heldWriter) refusal(err error) {
	hd := w.ResponseWriter.Header()
	clear(hd)
	for k, v := range w.header {
		hd[k] = v
	}
	if inquiry.ErrorCode(err) == inquiry.CodeUnauthenticated {
		challengeInvalidToken(hd)
	}
}

// add holds h, starting the watch when it is the first.
func (hs *holds) add(s *Server, h *hold) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.set == nil {
		hs.set = map[*hold]struct{}{}
		hs.emptied = make(chan struct{}, 1)
	}
	hs.set[h] = struct{}{}
	if !hs.watching {
		hs.watching = true
		every := hs.every
		if every <= 0 {
			every = tokenRecheck
		}
		go hs.watch(s, every)
	}
}

func (hs *holds) remove(h *hold) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	delete(hs.set, h)
	if len(hs.set) == 0 {
		select {
		case hs.emptied <- struct{}{}:
		default:
		}
	}
}

// watch rechecks the held tokens every round, for as long as there are holds.
func (hs *holds) watch(s *Server, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	revoked := s.svc.TokenRevocations()
	for {
		select {
		case <-tick.C:
		case <-revoked:
		case <-hs.emptied:
		}
		revoked = s.svc.TokenRevocations() // before the round: one during it makes another
		hs.mu.Lock()
		if len(hs.set) == 0 {
			hs.watching = false
			hs.mu.Unlock()
			return
		}
		byToken := map[string][]*hold{}
		for h := range hs.set {
			byToken[h.tok.ID] = append(byToken[h.tok.ID], h)
		}
		hs.mu.Unlock()
		for _, held := range byToken {
			s.recheck(held, every)
		}
	}
}

// recheck reads the token of held (holds of one token) again and ends them when it no longer
// lets them in. A store that cannot be read ends them only once it has not verified them for two
// rounds: fail closed within the bound, but a passing fault does not cut every wait at once.
func (s *Server) recheck(held []*hold, every time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), tokenRecheck) // a round's worth, however short the rounds
	defer cancel()
	err := s.svc.Recheck(ctx, held[0].tok)
	now := time.Now()
	for _, h := range held {
		switch {
		case err == nil:
			h.mu.Lock()
			h.verified = now
			h.mu.Unlock()
		case inquiry.ErrorCode(err) == inquiry.CodeUnauthenticated:
			h.refuse(err)
		default:
			h.mu.Lock()
			stale := now.Sub(h.verified) >= 2*every
			h.mu.Unlock()
			if stale {
				h.refuse(err)
			}
		}
	}
	if err != nil && inquiry.ErrorCode(err) != inquiry.CodeUnauthenticated && !errors.Is(err, context.Canceled) {
		s.log.Warn("recheck the token of held requests", "token", held[0].tok.Name, "err", err)
	}
}
