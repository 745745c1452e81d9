package inquiry

import (
	"context"
	"errors"
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
	mu       sync.Mutex
	m        map[string]cachedToken
	inflight map[string]*tokenRead // reads under way, by id: concurrent misses share one
	gen      uint64                // revocations through this process (forget) so far
	revoked  chan struct{}         // closed, and replaced, by the next forget (TokenRevocations)
}

// errTokenReadUnfinished is what the waiters of a token read that panicked get.
var errTokenReadUnfinished = errors.New("read the token: the store's read did not finish")

// tokenRead is one store read of a token that concurrent misses of its id wait for, so that a
// burst of requests with a token not yet read (10,000 long-polls at once) costs one read, not
// one each.
type tokenRead struct {
	done chan struct{}
	t    *Token
	err  error
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

// keep remembers what was read of id at now, by a read that began at revocation count gen,
// unless a revocation came since; a full table first drops what is stale, and is emptied when
// nothing is.
func (c *tokenCache) keep(id string, t *Token, now time.Time, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
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

// revocations is the channel the next forget closes.
func (c *tokenCache) revocations() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.revoked == nil {
		c.revoked = make(chan struct{})
	}
	return c.revoked
}

// forget drops every token with name (a revocation through this process), and wakes whoever
// holds requests open (TokenRevocations).
func (c *tokenCache) forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if c.revoked != nil {
		close(c.revoked)
		c.revoked = nil
	}
	// A read under way may have found the token before it was revoked: a miss from now on reads
	// again rather than waiting for that read's result.
	clear(c.inflight)
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
	t, err := s.readToken(ctx, id, now)
	if err != nil {
		return nil, err
	}
	return checkSecret(plain, t)
}

// readToken reads id from the store and keeps what it found, or waits for a read of id already
// under way and takes its result. A waiter whose ctx ends stops waiting; the read itself does
// not end with its first caller's ctx, since others may be waiting for it. What a read found is
// not kept when a revocation through this process came while it ran (it may predate it), and a
// miss after that revocation does not wait for it but reads again.
func (s *Service) readToken(ctx context.Context, id string, now time.Time) (*Token, error) {
	c := &s.tokens
	c.mu.Lock()
	if r, ok := c.inflight[id]; ok {
		c.mu.Unlock()
		select {
		case <-r.done:
			return r.t, r.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r := &tokenRead{done: make(chan struct{})}
	if c.inflight == nil {
		c.inflight = make(map[string]*tokenRead)
	}
	c.inflight[id] = r
	gen := c.gen
	c.mu.Unlock()
	// Ended even when the read panics (recovered above): otherwise every later miss of id would
	// wait for it until its request ends. Its waiters then have an error, not a refusal.
	r.err = errTokenReadUnfinished
	defer func() {
		c.mu.Lock()
		if c.inflight[id] == r { // not when a revocation dropped it, and a later miss began its own
			delete(c.inflight, id)
		}
		c.mu.Unlock()
		close(r.done)
	}()

	t, err := s.Store.Token(context.WithoutCancel(ctx), id)
	switch {
	case ErrorCode(err) == CodeNotFound:
		c.keep(id, nil, now, gen) // checkSecret refuses a nil token with the one sentence
		r.err = nil
	case err != nil:
		r.err = err
	default:
		c.keep(id, t, now, gen)
		r.t, r.err = t, nil
	}
	return r.t, r.err
}
