package inquiry

import (
	"context"
	"maps"
	"slices"
)

// Transport is the channel contract: what a package implements to be one of the places people
// are asked (Slack, Teams, e-mail; the inbox shows nothing). Its parts:
//
//   - post a pending question and say where it landed (Post; the service records it: Slack's in
//     the slack fields, every other channel's as a step-0 Placement);
//   - update every message of it when it changes or resolves (Update: a tally, an extension,
//     the outcome, an expiry), read back through Record.PostedOn and Record.Escalations;
//   - show an answer assumed without asking (Notice);
//   - optionally remind (Reminder) and escalate (Escalator), and find a post whose outcome was
//     lost so nobody sees it twice (PostFinder, ReminderFinder, EscalationFinder);
//   - hand every click, reply or vote to the service (Service.Answer, AnswerRead, Extend) with
//     the Identity the channel verified; the service alone decides who may answer (MayAnswer).
//
// Implementations return errors that wrap ErrUnavailable (see Unavailable) when they cannot
// serve at all — a channel that is gone, a revoked token — so that every retry loop stops at
// once; *RetryAfterError to hold the channel's lane (a 429); anything else is retried. The
// conformance suite internal/channeltest proves a channel keeps the contract.
type Transport interface {
	// Post shows a stored, pending inquiry to people and returns where it landed.
	Post(ctx context.Context, rec *Record) (Posted, error)
	// Update shows a resolved inquiry's outcome where it was posted.
	Update(ctx context.Context, rec *Record) error
	// Notice records, where people read, an answer assumed by policy without asking anybody.
	Notice(ctx context.Context, rec *Record) error
}

// Posted is where a transport showed an inquiry, in the transport's own terms: the place (a
// Slack channel, a mailbox), the thread it sits in if any, the transport's id of the message, and
// a link a person can follow. The record keeps it in its slack fields (channel, thread_ts, ts,
// permalink), the one placement the API shows today; a transport need know nothing of them.
type Posted struct {
	Place, Thread, ID, Link string
}

// ref is the placement as the record keeps it.
func (p Posted) ref() SlackRef {
	return SlackRef{Channel: p.Place, ThreadTS: p.Thread, TS: p.ID, Permalink: p.Link}
}

// Registry seats transports by key. It is wired before the service serves (cmd/bot seats each
// configured transport, then starts serving) and only read after, so it takes no lock: seat
// and release before the first Lookup, never beside one. Lookup never waits: a key nobody
// seated is ErrUnavailable.
type Registry struct {
	m map[string]Transport
}

// NewRegistry returns a registry with the inbox transport seated: its questions wait in the
// store and are answered through the API or the CLI.
func NewRegistry() *Registry {
	r := &Registry{m: map[string]Transport{}}
	r.Register(TransportInbox, Inbox{})
	return r
}

// Register seats t under key, replacing whatever sat there. Seating nil releases key: a seat
// holding nil would let Lookup hand back a nil transport with no error.
func (r *Registry) Register(key string, t Transport) {
	if t == nil {
		r.Release(key)
		return
	}
	r.m[key] = t
}

// Release unseats key. The inbox is never released.
func (r *Registry) Release(key string) {
	if key != TransportInbox {
		delete(r.m, key)
	}
}

// Has reports whether key is seated.
func (r *Registry) Has(key string) bool {
	_, ok := r.m[key]
	return ok
}

// Keys lists the seated keys, sorted.
func (r *Registry) Keys() []string {
	return slices.Sorted(maps.Keys(r.m))
}

// Lookup returns the transport seated under key, or a fatal ErrUnavailable naming the fix.
func (r *Registry) Lookup(key string) (Transport, error) {
	t, ok := r.m[key]
	if !ok {
		if key == TransportSlack {
			return nil, Unavailable("the slack transport is not configured on this server (SLACK_BOT_TOKEN is unset): nobody can be asked through Slack; do not retry, decide without asking or use transport \"inbox\"")
		}
		return nil, Unavailable("no transport %q is available on this server (seated: %v): nobody can be asked through it; do not retry", key, r.Keys())
	}
	return t, nil
}

// Inbox is the transport that shows nothing anywhere: questions wait in the store until somebody
// answers through the API or the CLI.
type Inbox struct{}

// Post does nothing: the store is the inbox.
func (Inbox) Post(context.Context, *Record) (Posted, error) { return Posted{}, nil }

// Update does nothing.
func (Inbox) Update(context.Context, *Record) error { return nil }

// Notice does nothing: the assumption is in the store, where the inbox is read.
func (Inbox) Notice(context.Context, *Record) error { return nil }
