package gateway

// The record of events (openapi.yaml: Event; the README's Follow what happens): an inquiry's, and
// the Server-Sent Events stream that follows a namespace's. The rules — who sees which events, what
// each says — are the service's; this is the reading and the streaming.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/inquiry-bot/bot/inquiry"
)

// EventList is the record of one inquiry, oldest first.
type EventList struct {
	Events []inquiry.Event `json:"events"`
}

// inquiryEvents answers GET /v1/inquiries/{key}/events: whoever may read the inquiry reads its
// record.
func (s *Server) inquiryEvents(c *gin.Context) {
	evs, err := s.svc.Events(c.Request.Context(), c.Param("key"))
	if err != nil {
		s.abort(c, notFound(err, c.Param("key")))
		return
	}
	c.JSON(http.StatusOK, EventList{Events: evs})
}

// The pace of a stream.
const (
	// streamKeepAlive is how often an idle stream sends a comment line, so that proxies and
	// clients keep it open.
	streamKeepAlive = 15 * time.Second
	// streamFallback is how often a follower reads on its own, in case a wake-up was lost (a
	// replica's notification sent while the listener reconnected).
	streamFallback = time.Second
	// streamWriteWindow is how long one write may take: a client that reads nothing for that
	// long is cut (the server's WriteTimeout is moved on before every write, so it never cuts a
	// stream that is read).
	streamWriteWindow = 30 * time.Second
)

// LastEventIDHeader is the header a follower resumes with (an EventSource sends it by itself on
// reconnect).
const LastEventIDHeader = "Last-Event-ID"

// followEvents answers GET /v1/events: the events of the token's namespace (every namespace for a
// token that reads them all) as Server-Sent Events, after the Last-Event-ID header or ?after=ID
// (the header wins: it is what a reconnecting client last saw), or from now on with neither. It
// holds one of the token's long-poll places for as long as it streams. A follower is woken by
// the store after any replica records events, and reads on its own every streamFallback; it
// ends when the client goes, the server shuts down, or its token is revoked (waiters.go: within
// a round; and no batch read after the token's refusal is written).
func (s *Server) followEvents(c *gin.Context) {
	after, resume, err := resumeFrom(c)
	if err != nil {
		s.abort(c, err)
		return
	}
	release, ok := s.longPoll(c, true)
	if !ok {
		return
	}
	defer release()
	ctx := c.Request.Context()
	woken, stop := s.svc.WatchEvents() // before the first read, so that no wake-up is lost
	defer stop()
	if !resume {
		if after, err = s.svc.LastEventID(ctx); err != nil {
			s.abort(c, err)
			return
		}
	}
	tok := token(c)
	read := func(after int64) ([]inquiry.Event, error) {
		evs, err := s.svc.EventsAfter(ctx, after, 0)
		if err == nil && len(evs) > 0 {
			// What the events say (a question's text) is for a token that still lets them in:
			// one revoked since the last round of the holds gets none of it.
			err = s.svc.Recheck(ctx, tok)
		}
		return evs, err
	}
	first, err := read(after)
	if err != nil {
		s.abort(c, err)
		return
	}
	h := c.Writer.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on as it comes
	c.Status(http.StatusOK)
	st := stream{w: c.Writer, rc: http.NewResponseController(c.Writer), keepAlive: streamKeepAlive, fallback: streamFallback}
	err = st.follow(ctx, after, first, read, woken, s.svc.Hub.Closing())
	switch {
	case err == nil || ctx.Err() != nil:
	case inquiry.ErrorCode(err) == inquiry.CodeUnauthenticated:
		s.log.InfoContext(ctx, "event stream ended: its token was revoked", "request_id", requestID(c))
	default:
		s.log.WarnContext(ctx, "event stream ended", "request_id", requestID(c), "err", err)
	}
}

// resumeFrom reads where a follower resumes: the Last-Event-ID header, else ?after; resume is
// false with neither.
func resumeFrom(c *gin.Context) (after int64, resume bool, err error) {
	if raw := c.GetHeader(LastEventIDHeader); raw != "" {
		after, err = inquiry.ParseEventID(LastEventIDHeader, raw)
		return after, true, err
	}
	if raw, ok := c.GetQuery("after"); ok {
		after, err = inquiry.ParseEventID("after", raw)
		return after, true, err
	}
	return 0, false, nil
}

// stream writes events to one follower.
type stream struct {
	w                   io.Writer
	rc                  *http.ResponseController
	keepAlive, fallback time.Duration
}

// follow writes batch, then every event after it as it is recorded (read returns those after an
// id, in id order), until ctx ends or closing closes (nil then) or a write or a read fails. Each
// batch is written and flushed before the next is read, so a follower holds one batch at most.
func (st *stream) follow(ctx context.Context, after int64, batch []inquiry.Event, read func(int64) ([]inquiry.Event, error),
	woken <-chan struct{}, closing <-chan struct{}) error {
	if err := st.flush(); err != nil { // the headers: the client knows it is following
		return err
	}
	poll := time.NewTicker(st.fallback)
	defer poll.Stop()
	alive := time.NewTicker(st.keepAlive)
	defer alive.Stop()
	for {
		if len(batch) > 0 {
			if err := st.write(batch); err != nil {
				return err
			}
			after = batch[len(batch)-1].ID
		}
		if len(batch) < inquiry.MaxEventBatch { // caught up: wait for more
			select {
			case <-ctx.Done():
				return nil
			case <-closing:
				return nil
			case <-alive.C:
				if err := st.comment("keep-alive"); err != nil {
					return err
				}
				batch = nil
				continue
			case <-woken:
			case <-poll.C:
			}
		}
		var err error
		if batch, err = read(after); err != nil {
			return err
		}
	}
}

// write sends evs, one event each: its id, its type and its JSON.
func (st *stream) write(evs []inquiry.Event) error {
	st.extend()
	for _, e := range evs {
		data, err := json.Marshal(e)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(st.w, "id: %d\nevent: %s\ndata: %s\n\n", e.ID, e.Type, data); err != nil {
			return err
		}
	}
	return st.flush()
}

// comment sends a comment line, which every client ignores.
func (st *stream) comment(text string) error {
	st.extend()
	if _, err := fmt.Fprintf(st.w, ": %s\n\n", text); err != nil {
		return err
	}
	return st.flush()
}

// extend gives the next write its own window, past the server's WriteTimeout.
func (st *stream) extend() {
	_ = st.rc.SetWriteDeadline(time.Now().Add(streamWriteWindow)) // a writer without deadlines (a test's) has nothing to extend
}

func (st *stream) flush() error {
	if err := st.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
