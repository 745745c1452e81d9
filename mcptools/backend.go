package mcptools

import (
	"context"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// Backend is where the tools ask and read questions. *client.Client is one (over the HTTP API,
// for `bot mcp`); ServiceBackend is another (in-process, for the server's /mcp endpoint).
type Backend interface {
	// Ask puts an inquiry and waits up to req.Wait for its answer. The same id and content
	// return the existing inquiry as it stands (asked once, answered once); created reports a
	// new pending one.
	Ask(ctx context.Context, req client.AskRequest) (rec *inquiry.Record, created bool, err error)
	// Get returns the inquiry with the server key, waiting up to wait while it is pending.
	Get(ctx context.Context, key string, wait time.Duration) (*inquiry.Record, error)
}

var (
	_ Backend = (*client.Client)(nil)
	_ Backend = ServiceBackend{}
)

// ServiceBackend asks through the ask service in-process, as the token it was built for (the
// caller the gateway authenticated for /mcp): the service puts the questions in its namespace
// and shows it what it may see.
type ServiceBackend struct {
	Service *inquiry.Service
	Token   *inquiry.Token
}

// Ask implements Backend.
func (b ServiceBackend) Ask(ctx context.Context, req client.AskRequest) (*inquiry.Record, bool, error) {
	if req.CallbackURL != "" {
		// The SSRF guard of callback URLs lives at the HTTP edge; the tools never send one.
		return nil, false, inquiry.FieldErrorf(inquiry.CodeBadRequest, "callback_url", "callback_url is not taken here: ask through POST /v1/inquiries to be called back")
	}
	rec, created, err := b.Service.Ask(inquiry.WithCaller(ctx, b.Token), req)
	return b.linked(rec), created, err
}

// linked gives rec the answer links a response of the API carries (the gateway's present does
// the same for `bot mcp`'s records).
func (b ServiceBackend) linked(rec *inquiry.Record) *inquiry.Record {
	if rec != nil {
		rec.Links = b.Service.AnswerLinks(rec)
	}
	return rec
}

// Get implements Backend.
func (b ServiceBackend) Get(ctx context.Context, key string, wait time.Duration) (*inquiry.Record, error) {
	ctx = inquiry.WithCaller(ctx, b.Token)
	var rec *inquiry.Record
	var err error
	if wait > 0 {
		rec, err = b.Service.Wait(ctx, key, wait)
	} else {
		rec, err = b.Service.Get(ctx, key)
	}
	return b.linked(rec), err
}
