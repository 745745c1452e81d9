package inquiry

import "context"

// callerKey is the context key of the caller: the token an edge authenticated.
type callerKey struct{}

// WithCaller returns ctx carrying tok as the caller: the edge that authenticated a request puts
// it there once, and everything the request reaches reads who is asking from it (CallerFrom),
// the way benbjohnson/wtf carries its user.
func WithCaller(ctx context.Context, tok *Token) context.Context {
	return context.WithValue(ctx, callerKey{}, tok)
}

// CallerFrom returns the caller ctx carries, or nil when nobody authenticated (the sweeper, a
// Slack payload, whose person is named by Slack).
func CallerFrom(ctx context.Context) *Token {
	tok, _ := ctx.Value(callerKey{}).(*Token)
	return tok
}
