package slackfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// Slack's clock. Slack gives the app three seconds (Options.AckTimeout) to ack what it delivers,
// and then (Slack's interactivity and Events API documentation):
//
//   - an interaction (a click, a selection, a modal submission) or a slash command failed: "your
//     app has to respond to the request within 3 seconds by ack() … Otherwise, the user will see
//     the timeout error" (java-slack-sdk docs/guides/modals.md); a submitted modal stays open,
//     and a late answer is thrown away;
//   - an event is delivered again: "on failure Slack retries up to 3 times (roughly
//     immediately, +1 min, +5 min) with headers X-Slack-Retry-Num (1..3) and
//     X-Slack-Retry-Reason" — http_timeout here — over HTTP, and with retry_attempt and
//     retry_reason "timeout" in the envelope over Socket Mode. The fake retries at once each
//     time (Slack's minutes compressed) and gives up after the third retry, as Slack does.
//
// Over HTTP the fake stops waiting at the deadline and hangs up, as an HTTP client with a
// timeout does; over Socket Mode a late ack is ignored. Either way the delivery is kept in
// Timeouts and logged.

// Kinds of delivery, in a Timeout.
const (
	KindInteraction = "interaction"
	KindCommand     = "command"
	KindEvent       = "event"
)

// maxEventRetries is how many times Slack delivers an event again.
const maxEventRetries = 3

// ErrNotAcked is the error of a delivery the app did not ack within the ack timeout: the click,
// submission or command failed as in Slack, or the event was not acked by any of Slack's
// deliveries.
var ErrNotAcked = errors.New("slackfake: the app did not ack in time")

// notAcked is ErrNotAcked with how long Slack waited.
type notAcked struct {
	what string
	wait time.Duration
}

func (e *notAcked) Error() string {
	return fmt.Sprintf("%s: %s within %s", ErrNotAcked, e.what, e.wait)
}
func (e *notAcked) Unwrap() error { return ErrNotAcked }

// A Timeout is a delivery the app did not ack in time, and what Slack did about it.
type Timeout struct {
	// Kind is KindInteraction, KindCommand or KindEvent.
	Kind string
	// Type is what was delivered: the interaction's type (block_actions, view_submission…), the
	// command ("/ask"), the inner event's type ("message").
	Type string
	// EventID is an event's event_id; RetryNum the delivery's retry number (0 the first).
	EventID  string
	RetryNum int
	// Socket reports a delivery over Socket Mode (else HTTP).
	Socket bool
	// After is how long Slack waited; At when it stopped waiting.
	After time.Duration
	At    time.Time
	// Outcome is what Slack did then: showed the person an error, delivered the event again, or
	// gave up on it.
	Outcome string
}

func (t Timeout) String() string {
	via := "HTTP"
	if t.Socket {
		via = "Socket Mode"
	}
	what := t.Kind
	if t.Type != "" {
		what += " " + t.Type
	}
	if t.EventID != "" {
		what += " " + t.EventID
	}
	if t.Kind == KindEvent {
		if t.RetryNum == 0 {
			what += " (first delivery)"
		} else {
			what += fmt.Sprintf(" (retry %d)", t.RetryNum)
		}
	}
	return fmt.Sprintf("the app did not ack the %s over %s within %s: %s", what, via, t.After, t.Outcome)
}

// SetAckTimeout changes how long Slack waits for an ack (Options.AckTimeout); d <= 0 restores
// Slack's three seconds.
func (s *Server) SetAckTimeout(d time.Duration) {
	if d <= 0 {
		d = DefaultAckTimeout
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ackTimeout = d
}

// AckTimeout is how long Slack waits for an ack.
func (s *Server) AckTimeout() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ackTimeout
}

// Timeouts returns every delivery the app did not ack in time, oldest first.
func (s *Server) Timeouts() []Timeout {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Timeout(nil), s.timeouts...)
}

// FailedInteractions returns the interactions and slash commands the app did not ack in time:
// each one the person saw fail with an error.
func (s *Server) FailedInteractions() []Timeout {
	var out []Timeout
	for _, t := range s.Timeouts() {
		if t.Kind != KindEvent {
			out = append(out, t)
		}
	}
	return out
}

// TakeTimeouts returns the deliveries the app did not ack in time and forgets them: a test that
// expects a timeout takes it, and slackfaketest fails the test on any left.
func (s *Server) TakeTimeouts() []Timeout {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.timeouts
	s.timeouts = nil
	return out
}

// timedOut records a delivery that was not acked in time: err says how long Slack waited.
func (s *Server) timedOut(t Timeout, err error) {
	var na *notAcked
	if errors.As(err, &na) {
		t.After = na.wait
	}
	t.At = time.Now()
	s.mu.Lock()
	s.timeouts = append(s.timeouts, t)
	s.mu.Unlock()
	s.log.Warn("slackfake: " + t.String())
}

// interactionTimeout is the record of an interaction or a slash command not acked in time.
func interactionTimeout(kind, typ string, socket bool) Timeout {
	outcome := "Slack showed the person an error"
	if typ == "view_submission" {
		outcome += " and kept the modal open"
	}
	return Timeout{Kind: kind, Type: typ, Socket: socket, Outcome: outcome}
}

// deliverEvent delivers an Events API body as Slack's delivery number retry (0 the first), and
// again with the next retry number, up to Slack's third retry, as long as the app does not ack
// in time. The answer is the one to the delivery acked, with its RetryNum.
func (s *Server) deliverEvent(body []byte, retry int, opts ...SendOption) (*Response, error) {
	typ, eventID := eventInfo(body)
	for {
		socket := s.SocketConnected()
		var (
			resp *Response
			err  error
		)
		if socket {
			resp, err = s.socketSend("events_api", body, false, retry)
		} else {
			o := opts
			if retry > 0 {
				o = append(o[:len(o):len(o)], WithHeader("X-Slack-Retry-Num", strconv.Itoa(retry)),
					WithHeader("X-Slack-Retry-Reason", "http_timeout"))
			}
			resp, err = s.post("/slack/events", "application/json", body, o...)
		}
		if !errors.Is(err, ErrNotAcked) {
			if resp != nil {
				resp.RetryNum = retry
			}
			return resp, err
		}
		t := Timeout{Kind: KindEvent, Type: typ, EventID: eventID, RetryNum: retry, Socket: socket}
		if retry >= maxEventRetries {
			t.Outcome = fmt.Sprintf("Slack gave up on it after %d retries", maxEventRetries)
			s.timedOut(t, err)
			return nil, fmt.Errorf("%w: event %s was not acked by delivery %d, and Slack retries %d times: it gave up on it",
				ErrNotAcked, eventID, retry, maxEventRetries)
		}
		retry++
		if socket {
			t.Outcome = fmt.Sprintf("Slack delivered it again with retry_attempt %d", retry)
		} else {
			t.Outcome = fmt.Sprintf("Slack delivered it again with X-Slack-Retry-Num: %d", retry)
		}
		s.timedOut(t, err)
	}
}

// eventInfo reads an event_callback's inner event type and its event_id.
func eventInfo(body []byte) (typ, eventID string) {
	var ev struct {
		Type    string `json:"type"`
		EventID string `json:"event_id"`
		Event   struct {
			Type string `json:"type"`
		} `json:"event"`
	}
	_ = json.Unmarshal(body, &ev)
	if ev.Event.Type != "" {
		return ev.Event.Type, ev.EventID
	}
	return ev.Type, ev.EventID
}

// interactionType reads the type of an interaction payload.
func interactionType(payload []byte) string {
	var p struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(payload, &p)
	return p.Type
}

// sentTimeout is the record of something Send posted to path and the app did not ack in time.
func sentTimeout(path string, body []byte) Timeout {
	form, _ := url.ParseQuery(string(body))
	switch path {
	case "/slack/events":
		typ, id := eventInfo(body)
		return Timeout{Kind: KindEvent, Type: typ, EventID: id,
			Outcome: "Send delivers once (SendEvent delivers again, as Slack does)"}
	case "/slack/commands":
		return interactionTimeout(KindCommand, form.Get("command"), false)
	}
	return interactionTimeout(KindInteraction, interactionType([]byte(form.Get("payload"))), false)
}

// envelopeTimeout is the record of a raw envelope (SendEnvelope) the app did not ack in time.
func envelopeTimeout(envelope []byte) Timeout {
	var env struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	_ = json.Unmarshal(envelope, &env)
	switch env.Type {
	case "events_api":
		typ, id := eventInfo(env.Payload)
		return Timeout{Kind: KindEvent, Type: typ, EventID: id, Socket: true,
			Outcome: "SendEnvelope delivers once (SendEvent delivers again, as Slack does)"}
	case "slash_commands":
		var c struct {
			Command string `json:"command"`
		}
		_ = json.Unmarshal(env.Payload, &c)
		return interactionTimeout(KindCommand, c.Command, true)
	}
	return interactionTimeout(KindInteraction, interactionType(env.Payload), true)
}
