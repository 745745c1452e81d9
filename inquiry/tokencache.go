package inquiry

import (
	"context"
	"sync"
	"time"
)

// TokenTTL is how long the service trusts a token it read from the store: a busy token costs a
// store read a second, not one a request. A token revoked through this process is forgotten at
// once; one revoked elsewhere (another replica, `bot token revoke` on the database) is refused
// by every replica within TokenTTL, since no replica trusts what it read longer than that.
const TokenTTL = time.Second

// MaxCachedTokens bounds the tokens (and the ids found unknown) kept at once.
const MaxCachedTokens = 10_000

// tokenCache is what the service read of tokens lately, by token id: the token, or that the id
// is unknown (so that a flood of made-up tokens costs a read a second per id, and the table stays
// bounded however many ids are made up).
type tokenCache struct {
	mu sync.Mutex
	m  map[string]cachedToken
}

type cachedToken struct {
	t    *Token // nil: no token has the id
	read time.Time
}

// lookup returns what was read of id within TokenTTL of now.
func (c *tokenCache) lookup(id string, now time.Time) (cachedToken, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	if !ok || now.Sub(e.read) >= TokenTTL || now.Before(e.read) {
		return cachedToken{}, false
	}
	return e, true
}

// keep remembers what was read of id at now; a full table first drops what is stale, and is
// emptied when nothing is.
func (c *tokenCache) keep(id string, t *Token, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]cachedToken)
	}
	if len(c.m) >= MaxCachedTokens {
		for k, e := range c.m {
			if now.Sub(e.read) >= TokenTTL {
				delete(c.m, k)
			}
		}
		if len(c.m) >= MaxCachedTokens {
			clear(c.m)
		}
	}
	c.m[id] = cachedToken{t: t, read: now}
}

// forget drops every token with name (a revocation through this process).
func (c *tokenCache) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if e.t != nil && e.t.Name == name {
			delete(c.m, k)
		}
	}
}

// Authenticate is the package's Authenticate over the service's store, trusting what it read
// of a token for TokenTTL (see there).
func (s *Service) Authenticate(ctx context.Context, plain string) (*Token, error) {
	id, _, ok := ParseToken(plain)
	if !ok {
		return Authenticate(ctx, s.Store, plain) // its refusal, one sentence for every bad token
	}
	now := s.Clock()
	if e, ok := s.tokens.lookup(id, now); ok {
		return checkSecret(plain, e.t)
	}
	t, err := s.Store.Token(ctx, id)
	switch {
	case ErrorCode(err) == CodeNotFound:
		s.tokens.keep(id, nil, now)
	case err != nil:
		return nil, err
	default:
		s.tokens.keep(id, t, now)
	}
	return checkSecret(plain, t)
}
