package storagetest

import (
	"context"
	"sync/atomic"

	"github.com/inquiry-bot/bot/inquiry"
)

// Counting is a store that counts its reads of inquiries by key and of tokens, for the tests of
// what may not read the store again (the token cache, a park that trusts its caller's read).
type Counting struct {
	inquiry.Store
	Inquiries, Tokens atomic.Int64
}

// Inquiry counts a read of an inquiry by key.
func (c *Counting) Inquiry(ctx context.Context, key string) (*inquiry.Record, error) {
	c.Inquiries.Add(1)
	return c.Store.Inquiry(ctx, key)
}

// Token counts a read of a token.
func (c *Counting) Token(ctx context.Context, id string) (*inquiry.Token, error) {
	c.Tokens.Add(1)
	return c.Store.Token(ctx, id)
}
