package inquiry

import (
	"context"
	"crypto/subtle"
)

// A request a token holds open — an event stream, a long-poll — was let in when it began; a
// revoked token must lose it too (within 15 s, on every replica). The edge holding it asks
// Recheck every few seconds and before it hands over anything more, and is woken at once by
// TokenRevocations when the revocation came through this process.

// Recheck returns nil while held, a token Authenticate let in, still lets requests in, and else
// the refusal Authenticate gives (CodeUnauthenticated, its one sentence). It reads through the
// token cache: what another replica revoked is seen within TokenTTL, and a revocation through
// this process at once. A store that cannot be read is its error: the caller fails closed.
func (s *Service) Recheck(ctx context.Context, held *Token) error {
	if held == nil {
		return errTokenRefused()
	}
	t, err := s.readToken(ctx, held.ID)
	if err != nil {
		return err
	}
	if t == nil || t.RevokedAt != nil || subtle.ConstantTimeCompare(t.SecretHash, held.SecretHash) != 1 {
		return errTokenRefused()
	}
	return nil
}

// TokenRevocations returns a channel that is closed at the next revocation of a token through
// this process (RevokeToken): a holder of requests rechecks them then, rather than at its next
// round. Take it before rechecking, so that a revocation meanwhile is not missed.
func (s *Service) TokenRevocations() <-chan struct{} { return s.Tokens.Revocations() }
