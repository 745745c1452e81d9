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

// ServiceBackend asks through the ask service in-process, as the token it was built for: its
// namespace owns the questions, and it sees only its own namespace's questions unless it may
// answer (as the gateway rules for GET /v1/inquiries/{key}).
type ServiceBackend struct {
	Service *inquiry.Service
	Token   *inquiry.Token
}

// Ask implements Backend.
func (b ServiceBackend) Ask(ctx context.Context, req client.AskRequest) (*inquiry.Record, bool, error) {
	if !b.Token.Has(inquiry.ScopeAsk) {
		return nil, false, inquiry.Errorf(inquiry.CodeForbidden, "token %q lacks the ask scope asking needs: use a token created with `bot token create --scope ask`", b.Token.Name)
	}
	if req.CallbackURL != "" {
		// The SSRF guard of callback URLs lives at the HTTP edge; the tools never send one.
		return nil, false, inquiry.FieldErrorf(inquiry.CodeBadRequest, "callback_url", "callback_url is not taken here: ask through POST /v1/inquiries to be called back")
	}
	in := inquiry.Inquiry{
		ID: req.ID, RunID: req.RunID, Kind: req.Kind, Question: req.Question, Context: req.Context,
		Options: req.Options, Multiple: req.Multiple, AllowText: req.AllowText, Default: req.Default,
		ExpiresAt: req.ExpiresAt,
	}
	ask := inquiry.AskRequest{
		Namespace: b.Token.Namespace,
		Inquiry:   in,
		ExpiresIn: req.ExpiresIn,
		Config:    req.Config,
		AskedBy:   b.Token.Name,
		Wait:      inquiry.ClampWait(req.Wait),
	}
	if req.Slack != nil {
		ask.Slack = inquiry.SlackRef{Channel: req.Slack.Channel, ThreadTS: req.Slack.ThreadTS, Answerers: req.Slack.Answerers}
	}
	return b.Service.Ask(ctx, ask)
}

// Get implements Backend.
func (b ServiceBackend) Get(ctx context.Context, key string, wait time.Duration) (*inquiry.Record, error) {
	if !b.Token.Has(inquiry.ScopeAsk) && !b.Token.Has(inquiry.ScopeAnswer) {
		return nil, inquiry.Errorf(inquiry.CodeForbidden, "token %q lacks the ask or answer scope reading a question needs: use a token created with `bot token create --scope ask`", b.Token.Name)
	}
	rec, err := b.Service.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if err := inquiry.Visible(rec, b.Token.Namespace, b.Token.SeesAll()); err != nil {
		return nil, err
	}
	if rec.Status == inquiry.StatusPending && wait > 0 {
		return b.Service.Wait(ctx, key, wait)
	}
	return rec, nil
}
