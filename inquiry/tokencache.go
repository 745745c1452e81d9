package inquiry

import (
	"context"
	"time"
)

// TokenTTL is how long the service trusts a token it read from the store: a busy token costs a
// store read a second, not one a request. A token revoked through this process is forgotten at
// once; one revoked elsewhere (another replica, `bot token revoke` on the database) is refused
// by every replica within TokenTTL, since no replica trusts what it read longer than that.
const TokenTTL = time.Second

// MaxCachedTokens bounds the tokens (and the ids found unknown) kept at once.
const MaxCachedTokens = 10_000

// TokenCache is what the service reads tokens through (internal/tokencache): what it read of an
// id lately, or, on a miss, load's read of the store — a nil token when no token has the id.
// Forget drops the tokens a revocation through this process names and closes the channel
// Revocations returned, so that whoever holds requests open rechecks them at once.
type TokenCache interface {
	Get(ctx context.Context, id string, now time.Time, load func(context.Context, string) (*Token, error)) (*Token, error)
	Forget(drop func(*Token) bool)
	Revocations() <-chan struct{}
}

// Authenticate is the package's Authenticate over the service's store, trusting what it read
// of a token for TokenTTL (see there).
func (s *Service) Authenticate(ctx context.Context, plain string) (*Token, error) {
	id, _, ok := ParseToken(plain)
	if !ok {
		return Authenticate(ctx, s.Store, plain) // its refusal, one sentence for every bad token
	}
	t, err := s.readToken(ctx, id)
	if err != nil {
		return nil, err
	}
	return checkSecret(plain, t)
}

// readToken reads id through the token cache: nil when no token has it.
func (s *Service) readToken(ctx context.Context, id string) (*Token, error) {
	return s.Tokens.Get(ctx, id, s.Clock(), func(ctx context.Context, id string) (*Token, error) {
		t, err := s.Store.Token(ctx, id)
		if ErrorCode(err) == CodeNotFound {
			return nil, nil // checkSecret refuses a nil token with the one sentence
		}
		return t, err
	})
}
