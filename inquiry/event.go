package inquiry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// EventType is what happened to an inquiry (openapi.yaml: Event).
type EventType string

// Event types. The store appends each in the same transaction as the change it records.
const (
	EventCreated           EventType = "created"            // by the token that asked
	EventPosted            EventType = "posted"             // by the transport; where it was shown
	EventVoted             EventType = "voted"              // by the person; what, and the tally
	EventAnswered          EventType = "answered"           // by who answered; the answer
	EventExpired           EventType = "expired"            // what was assumed, and the votes given in time
	EventCancelled         EventType = "cancelled"          // by the token that cancelled
	EventFailed            EventType = "failed"             // why nobody could be asked
	EventReminded          EventType = "reminded"           // by the sweeper; which reminder, and who it calls on
	EventEscalated         EventType = "escalated"          // by the sweeper; the step, its channel and answerers
	EventExtended          EventType = "extended"           // by who gave more time; by how much, the new expiry
	EventCallbackDelivered EventType = "callback_delivered" // a callback or resume was received
	EventCallbackFailed    EventType = "callback_failed"    // a callback or resume was given up
)

// Event is one entry of an inquiry's record: append-only, in commit order. Its id orders every
// event of the server: an event recorded later never has a lower id than one already read, so a
// follower that resumes after the last id it saw misses nothing and sees nothing twice.
type Event struct {
	ID         int64     `json:"id,string"`
	InquiryKey string    `json:"inquiry_key"`
	Namespace  string    `json:"-"` // the inquiry's: who may see the event (EventsScope)
	Type       EventType `json:"type"`
	At         time.Time `json:"at"`
	By         string    `json:"by"`
	// Data is what the event says, by type: see the event constructors.
	Data json.RawMessage `json:"data"`
}

// EventStore is the part of the Store that keeps the record (storage appends events from its
// writes; these methods read them).
type EventStore interface {
	// InquiryEvents returns the events of the inquiry with key, oldest first (none for a key
	// without events).
	InquiryEvents(ctx context.Context, key string) ([]Event, error)
	// EventsAfter returns up to limit events with an id above after, in id order: of namespace,
	// or of every namespace when namespace is "". Ids are handed out in commit order, so no event
	// committed later has an id at or below the last one returned.
	EventsAfter(ctx context.Context, after int64, namespace string, limit int) ([]Event, error)
	// LastEventID is the id of the newest event, 0 when there is none.
	LastEventID(ctx context.Context) (int64, error)
	// WatchEvents returns a channel that receives (at most one wake-up pending) when events may
	// have been recorded — by this process, or on PostgreSQL by another replica while the
	// store's Listen runs — and a function that ends the watch. Wake-ups may be spurious and,
	// when a notification is lost, late: a follower also reads now and then on its own.
	WatchEvents() (<-chan struct{}, func())
}

// MaxEventBatch bounds the events one read returns.
const MaxEventBatch = 500

// EventsScope is the namespace whose events tok follows: every namespace ("") for a token that
// reads every namespace's inquiries (Token.SeesAll: admin, and answer tokens not bound to a
// namespace), else its own — exactly the events of the inquiries it may read one by one.
func EventsScope(tok *Token) string {
	if tok == nil || tok.SeesAll() {
		return ""
	}
	return tok.Namespace
}

// Events returns the record of the inquiry with key, oldest first, to a caller that may read the
// inquiry (Get's rule: another namespace's is forbidden). Read as it stands now: a pending
// inquiry past its expiry is expired first, and its expiry is on the record.
func (s *Service) Events(ctx context.Context, key string) ([]Event, error) {
	if _, err := s.Get(ctx, key); err != nil {
		return nil, err
	}
	evs, err := s.Store.InquiryEvents(ctx, key)
	if evs == nil && err == nil {
		evs = []Event{}
	}
	return evs, err
}

// EventsAfter returns up to limit (at most MaxEventBatch) of the events after the id after that
// the caller in ctx may see (EventsScope), in id order.
func (s *Service) EventsAfter(ctx context.Context, after int64, limit int) ([]Event, error) {
	if limit <= 0 || limit > MaxEventBatch {
		limit = MaxEventBatch
	}
	return s.Store.EventsAfter(ctx, max(after, 0), EventsScope(CallerFrom(ctx)), limit)
}

// LastEventID is the id of the newest event: a follower that starts "from now on" reads after it.
func (s *Service) LastEventID(ctx context.Context) (int64, error) { return s.Store.LastEventID(ctx) }

// WatchEvents returns the store's wake-up of followers (EventStore.WatchEvents).
func (s *Service) WatchEvents() (<-chan struct{}, func()) { return s.Store.WatchEvents() }

// ParseEventID reads an event id as a follower hands it back (Last-Event-ID, after): a whole
// number of at most 19 digits, 0 meaning before the first event. field names where it came from.
func ParseEventID(field, raw string) (int64, error) {
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 || raw != strconv.FormatInt(n, 10) {
		return 0, FieldErrorf(CodeBadRequest, field, "%s %q is not an event id: give the id of the last event you received (a whole number), or 0 to replay every event kept", field, OneLine(raw, 40))
	}
	return n, nil
}

// The data of each event type.
type (
	createdData struct {
		ID        string     `json:"id"`
		RunID     string     `json:"run_id"`
		Kind      Kind       `json:"kind"`
		Question  string     `json:"question"`
		Policy    Policy     `json:"policy"`
		Transport string     `json:"transport"`
		ExpiresAt *time.Time `json:"expires_at"`
		Approvals int        `json:"approvals"`
	}
	postedData struct {
		Via       string `json:"via,omitempty"` // the channel that posted it, when not Slack
		Channel   string `json:"channel"`
		ThreadTS  string `json:"thread_ts"`
		TS        string `json:"ts"`
		Permalink string `json:"permalink"`
	}
	votedData struct {
		Value    Value  `json:"value"`
		Text     string `json:"text"`
		Declined bool   `json:"declined"`
		Via      Via    `json:"via"`
		Tally    string `json:"tally"` // the tally with this vote ("1 of 2 approvals: U1")
	}
	deliveryData struct {
		Kind     DeliveryKind `json:"kind"` // callback or resume
		URL      string       `json:"url"`
		Attempts int          `json:"attempts"`
		Error    string       `json:"error,omitempty"`
	}
)

func event(rec *Record, t EventType, at time.Time, by string, data any) Event {
	raw, err := json.Marshal(data)
	if err != nil { // every data type here encodes
		raw = []byte(`{}`)
	}
	return Event{InquiryKey: rec.Key, Namespace: rec.Namespace, Type: t, At: at, By: by, Data: raw}
}

// CreatedEvent records the creation of rec, by the token that asked.
func CreatedEvent(rec *Record) Event {
	return event(rec, EventCreated, rec.CreatedAt, rec.AskedBy, createdData{
		ID: rec.ID, RunID: rec.RunID, Kind: rec.Kind, Question: rec.Question, Policy: rec.Config.Policy,
		Transport: rec.Config.Transport, ExpiresAt: rec.ExpiresAt, Approvals: rec.Quorum(),
	})
}

// PostedEvent records where rec was shown as its slack fields say, at at: Slack's post, or for a
// record stored before it listed its channels, its transport's.
func PostedEvent(rec *Record, at time.Time) Event {
	by := rec.Config.Transport
	if rec.Channels != nil {
		by = TransportSlack // a channel other than Slack records its post as a placement (PlacedEvent)
	}
	return event(rec, EventPosted, at, by, postedData{
		Channel: rec.Slack.Channel, ThreadTS: rec.Slack.ThreadTS, TS: rec.Slack.TS, Permalink: rec.Slack.Permalink,
	})
}

// PlacedEvent records where channel p.Via (any but Slack, whose post is in the slack fields)
// showed rec's question, at at.
func PlacedEvent(rec *Record, p Placement, at time.Time) Event {
	return event(rec, EventPosted, at, p.Via, postedData{Via: p.Via, Channel: p.Channel, TS: p.TS, Permalink: p.Permalink})
}

// VotedEvent records v, given on rec (whose votes include v), and the tally it makes.
func VotedEvent(rec *Record, v Vote) Event {
	return event(rec, EventVoted, v.At, v.By, votedData{Value: v.Value, Text: v.Text, Declined: v.Declined, Via: v.Via, Tally: Tallied(rec)})
}

// ResolvedEvent records how rec left pending: answered (by who answered, with the answer),
// expired (with what was assumed and the votes given in time), cancelled (by caller, the token
// that cancelled, when known) or failed (with why). ok is false for a record still pending.
func ResolvedEvent(rec *Record, caller *Token) (e Event, ok bool) {
	at := rec.CreatedAt
	if rec.ResolvedAt != nil {
		at = *rec.ResolvedAt
	}
	switch rec.Status {
	case StatusAnswered:
		by := ""
		if rec.Answer != nil {
			by = rec.Answer.AnsweredBy
		}
		return event(rec, EventAnswered, at, by, rec.Answer), true
	case StatusExpired:
		return event(rec, EventExpired, at, "", rec.Answer), true
	case StatusCancelled:
		by := ""
		if caller != nil {
			by = caller.Name
		}
		return event(rec, EventCancelled, at, by, struct{}{}), true
	case StatusFailed:
		return event(rec, EventFailed, at, "", rec.Failure), true
	}
	return Event{}, false
}

// RecordedDeliveries are the kinds of delivery whose end is on their inquiry's record: what the
// asker's own receivers were told.
var RecordedDeliveries = []DeliveryKind{DeliverCallback, DeliverResume}

// DeliveryEvent records the end of d, done (delivered) or given up with lastErr, at at: only a
// callback's or a resume's, of an inquiry, is on the record (ok false otherwise). The
// namespace is the delivery's, the inquiry's own.
func DeliveryEvent(d Delivery, done bool, lastErr string, at time.Time) (e Event, ok bool) {
	if d.InquiryKey == "" || !slices.Contains(RecordedDeliveries, d.Kind) {
		return Event{}, false
	}
	t, data := EventCallbackDelivered, deliveryData{Kind: d.Kind, URL: d.Target, Attempts: d.Attempts}
	if !done {
		t, data.Error = EventCallbackFailed, lastErr
	}
	return event(&Record{Key: d.InquiryKey, Namespace: d.Namespace}, t, at, "", data), true
}

// Summary is the event on one short line, for a person reading a log: what was asked, where it
// was shown, what was voted or decided, what a callback became.
func (e Event) Summary() string {
	switch e.Type {
	case EventCreated:
		var d createdData
		_ = json.Unmarshal(e.Data, &d)
		s := fmt.Sprintf("%s %q (policy %s, transport %s", d.Kind, OneLine(d.Question, 80), d.Policy, d.Transport)
		if d.Approvals > 1 {
			s += fmt.Sprintf(", %d approvals", d.Approvals)
		}
		return s + ")"
	case EventPosted:
		var d postedData
		_ = json.Unmarshal(e.Data, &d)
		parts := []string{}
		if d.Via != "" {
			parts = append(parts, "on "+d.Via)
		}
		if d.Channel != "" {
			parts = append(parts, "in "+d.Channel)
		}
		if d.ThreadTS != "" {
			parts = append(parts, "thread "+d.ThreadTS)
		}
		if d.TS != "" {
			parts = append(parts, "ts "+d.TS)
		}
		return strings.Join(parts, ", ")
	case EventVoted:
		var d votedData
		_ = json.Unmarshal(e.Data, &d)
		s := said(d.Value, d.Text, d.Declined) + " via " + string(d.Via)
		if d.Tally != "" {
			s += " (" + d.Tally + ")"
		}
		return s
	case EventAnswered, EventExpired:
		var a Answer
		_ = json.Unmarshal(e.Data, &a)
		s := said(a.Value, a.Text, a.Declined)
		if e.Type == EventExpired {
			if a.Declined {
				s = "nobody decided"
			} else {
				s = "assumed " + s
			}
		} else if a.Source != SourcePerson && a.Source != "" {
			s += " (" + string(a.Source) + ")"
		}
		if len(a.Votes) > 0 {
			s += fmt.Sprintf(", %d vote(s)", len(a.Votes))
		}
		return s
	case EventFailed:
		var f Failure
		_ = json.Unmarshal(e.Data, &f)
		return OneLine(f.Message, 120)
	case EventCallbackDelivered, EventCallbackFailed:
		var d deliveryData
		_ = json.Unmarshal(e.Data, &d)
		if e.Type == EventCallbackFailed {
			return fmt.Sprintf("%s given up after %d attempt(s): %s", d.Kind, d.Attempts, OneLine(d.Error, 100))
		}
		return fmt.Sprintf("%s delivered after %d attempt(s)", d.Kind, d.Attempts)
	case EventCancelled:
		return ""
	case EventReminded:
		var d remindedData
		_ = json.Unmarshal(e.Data, &d)
		s := fmt.Sprintf("reminder %d, %s before the expiry (%s left)", d.Number, d.Before, d.Left.D().Round(time.Second))
		if len(d.Mentions) > 0 {
			s += ": " + OneLine(strings.Join(d.Mentions, ", "), 80)
		}
		return s
	case EventEscalated:
		var d escalatedData
		_ = json.Unmarshal(e.Data, &d)
		var parts []string
		if d.Channel != "" {
			// Not "posted in": the step is recorded when it is due, before (and, for an inbox
			// question, without) any post; a post that fails is on the question's failure.
			parts = append(parts, "channel "+d.Channel)
		}
		if len(d.Answerers) > 0 {
			parts = append(parts, "may answer too: "+OneLine(strings.Join(d.Answerers, ", "), 80))
		}
		return fmt.Sprintf("step %d: %s", d.Step, strings.Join(parts, "; "))
	case EventExtended:
		var d extendedData
		_ = json.Unmarshal(e.Data, &d)
		return fmt.Sprintf("by %s (in all %s), now expires %s", d.By, d.ExtendedBy, d.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return OneLine(string(e.Data), 120) // a type this build does not know yet
}

// said is a value, words or a decline on one line.
func said(v Value, text string, declined bool) string {
	s := OneLine(v.String(), 80)
	switch {
	case declined:
		s = "declined"
	case s == "":
		s = "(no value)"
	}
	if text != "" {
		s += fmt.Sprintf(" (%q)", OneLine(text, 61))
	}
	return s
}
