package slackfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Socket Mode: apps.connections.open (with the app-level token) hands out a WebSocket URL on
// this fake; the app dials it, gets a hello, and from then on the person's interactions, events
// and commands travel as envelopes over the socket, each answered by the app's ack.

// envelopeState is where an envelope sent over Socket Mode stands.
type envelopeState int

const (
	envelopeSent  envelopeState = iota + 1 // waiting for its ack
	envelopeAcked                          // acked in time
	envelopeLate                           // Slack stopped waiting for its ack (clock.go)
)

type socketState struct {
	conn *websocket.Conn
	wmu  sync.Mutex // gorilla connections allow one writer at a time
	mu   sync.Mutex
	acks map[string]chan json.RawMessage
	done chan struct{}
}

func (s *Server) connectionsOpen(*request) (map[string]any, *apiError) {
	ticket := s.id("ticket")
	return map[string]any{"url": "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/socket?ticket=" + ticket}, nil
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("ticket") == "" {
		http.Error(w, "no ticket", http.StatusUnauthorized)
		return
	}
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	st := &socketState{conn: conn, acks: map[string]chan json.RawMessage{}, done: make(chan struct{})}
	s.replaceSocket(st)
	hello := map[string]any{"type": "hello", "num_connections": 1,
		"debug_info":      map[string]any{"host": "fake", "build_number": 1, "approximate_connection_time": 3600},
		"connection_info": map[string]any{"app_id": AppID}}
	if err := st.write(hello); err != nil {
		s.dropSocket(st)
		return
	}
	go st.ping()
	for {
		var msg struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if err := conn.ReadJSON(&msg); err != nil {
			var syntax *json.SyntaxError
			var typ *json.UnmarshalTypeError
			if errors.As(err, &syntax) || errors.As(err, &typ) {
				s.log.Error("slackfake: the app sent a Socket Mode frame that is not an ack; hanging up", "err", err)
			}
			s.dropSocket(st)
			return
		}
		st.mu.Lock()
		ch := st.acks[msg.EnvelopeID]
		delete(st.acks, msg.EnvelopeID)
		st.mu.Unlock()
		if ch != nil {
			ch <- msg.Payload
			continue
		}
		s.strayAck(msg.EnvelopeID)
	}
}

// strayAck notes an ack that has no delivery waiting for it: a late one, which Slack ignores, or
// one of an envelope never sent (or acked twice), which no caller could be told of.
func (s *Server) strayAck(id string) {
	s.mu.Lock()
	state := s.envelopes[id]
	s.mu.Unlock()
	switch state {
	case envelopeLate:
		s.log.Warn("slackfake: an ack came after Slack stopped waiting for it; ignored", "envelope_id", id)
	case envelopeSent:
		s.log.Warn("slackfake: an ack came on another connection than its envelope's; ignored", "envelope_id", id)
	case envelopeAcked:
		s.log.Error("slackfake: the app acked a Socket Mode envelope twice", "envelope_id", id)
	default:
		s.log.Error("slackfake: the app acked a Socket Mode envelope that was never sent", "envelope_id", id)
	}
}

func (s *Server) setEnvelope(id string, state envelopeState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.envelopes[id] = state
}

func (st *socketState) write(v any) error {
	st.wmu.Lock()
	defer st.wmu.Unlock()
	_ = st.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return st.conn.WriteJSON(v)
}

// ping keeps slack-go's ping watchdog content, as Slack's pings do.
func (st *socketState) ping() {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-st.done:
			return
		case <-t.C:
			st.wmu.Lock()
			err := st.conn.WriteControl(websocket.PingMessage, []byte("ping"), time.Now().Add(5*time.Second))
			st.wmu.Unlock()
			if err != nil {
				return
			}
		}
	}
}

func (st *socketState) close() {
	select {
	case <-st.done:
	default:
		close(st.done)
	}
	_ = st.conn.Close()
}

func (s *Server) dropSocket(st *socketState) {
	st.close()
	s.mu.Lock()
	if s.socket == st {
		s.setSocketLocked(nil)
	}
	s.mu.Unlock()
}

func (s *Server) closeSocket() { s.replaceSocket(nil) }

// replaceSocket makes st the app's connection (nil: none) and closes the one it replaces.
func (s *Server) replaceSocket(st *socketState) {
	s.mu.Lock()
	old := s.socket
	s.setSocketLocked(st)
	s.mu.Unlock()
	if old != nil {
		old.close()
	}
}

// SocketConnected reports whether an app is connected over Socket Mode.
func (s *Server) SocketConnected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.socket != nil
}

// setSocketLocked makes st the app's connection and tells whoever waits for a change; s.mu is
// held.
func (s *Server) setSocketLocked(st *socketState) {
	s.socket = st
	if s.sockets != nil {
		close(s.sockets)
		s.sockets = nil
	}
}

// WaitSocket waits until an app is connected over Socket Mode.
func (s *Server) WaitSocket(timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		up := s.socket != nil
		if !up && s.sockets == nil {
			s.sockets = make(chan struct{})
		}
		changed := s.sockets
		s.mu.Unlock()
		if up {
			return nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return fmt.Errorf("slackfake: no Socket Mode connection within %s", timeout)
		}
	}
}

// SendEnvelope sends a raw Socket Mode envelope (for example one of
// slackapp/testdata/payloads/socket_mode_envelope_*.json) and waits for the app's ack of its
// envelope_id. An ack that does not come within the ack timeout is Slack's timeout: it is kept in
// Timeouts and the error is ErrNotAcked. SendEnvelope delivers once.
func (s *Server) SendEnvelope(envelope []byte) (*Response, error) {
	var env struct {
		EnvelopeID string `json:"envelope_id"`
	}
	if err := json.Unmarshal(envelope, &env); err != nil || env.EnvelopeID == "" {
		return nil, errors.New("slackfake: an envelope needs an envelope_id")
	}
	resp, err := s.sendEnvelope(env.EnvelopeID, json.RawMessage(envelope))
	if errors.Is(err, ErrNotAcked) {
		s.timedOut(envelopeTimeout(envelope), err)
	}
	return resp, err
}

// socketSend wraps a payload in an envelope of the given type and sends it.
func (s *Server) socketSend(typ string, payload []byte, acceptsResponse bool, retry int) (*Response, error) {
	s.mu.Lock()
	id := fmt.Sprintf("%08x-fake-4000-8000-%012x", s.lastTS&0xffffffff, s.seq)
	s.seq++
	s.mu.Unlock()
	reason := ""
	if retry > 0 {
		reason = "timeout"
	}
	env := map[string]any{"envelope_id": id, "payload": json.RawMessage(payload), "type": typ,
		"accepts_response_payload": acceptsResponse, "retry_attempt": retry, "retry_reason": reason}
	return s.sendEnvelope(id, env)
}

func (s *Server) sendEnvelope(id string, env any) (*Response, error) {
	s.mu.Lock()
	st, wait := s.socket, s.ackTimeout
	s.envelopes[id] = envelopeSent
	s.mu.Unlock()
	if st == nil {
		return nil, errors.New("slackfake: no Socket Mode connection")
	}
	ch := make(chan json.RawMessage, 1)
	st.mu.Lock()
	st.acks[id] = ch
	st.mu.Unlock()
	start := time.Now()
	if err := st.write(env); err != nil {
		return nil, fmt.Errorf("slackfake: send envelope: %w", err)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case p := <-ch:
		s.setEnvelope(id, envelopeAcked)
		return ackResponse(p, start), nil
	case <-st.done:
		return nil, errors.New("slackfake: Socket Mode connection closed before the ack")
	case <-timer.C:
		st.mu.Lock()
		_, waiting := st.acks[id]
		delete(st.acks, id)
		st.mu.Unlock()
		if !waiting { // the ack came as the clock ran out
			s.setEnvelope(id, envelopeAcked)
			return ackResponse(<-ch, start), nil
		}
		s.setEnvelope(id, envelopeLate)
		return nil, &notAcked{what: "no ack of envelope " + id, wait: wait}
	}
}

// ackResponse is an ack as the answer to a delivery: its payload, if any, is the body.
func ackResponse(payload json.RawMessage, start time.Time) *Response {
	body := []byte(payload)
	if string(body) == "null" {
		body = nil
	}
	return &Response{Status: http.StatusOK, Body: body, Elapsed: time.Since(start)}
}
