package inquiry

import (
	"context"
	"crypto/subtle"
)

// A request a token holds open — an event stream, a long-poll — was let in when it began; a
// revoked token must lose it too (within 15 s, on every replica). The edge holding it asks
// Recheck every few seconds and before it hands over anything more, and is woken at once by
// TokenRevocations when the revocation came through this process.

// Notifier is what the service is given to tell the holders of requests that a token was
// revoked through this process (internal/wake.Signal): Fire closes the channel Next returned.
type Notifier interface {
	Fire()
	Next() <-chan struct{}
}

// Authenticate is the package's Authenticate over the service's store: every request reads its
// token, so a revocation anywhere refuses it from the next request on.
func (s *Service) Authenticate(ctx context.Context, plain string) (*Token, error) {
	return Authenticate(ctx, s.Store, plain)
}

// Recheck returns nil while held, a token Authenticate let in, still lets requests in, and else
// the refusal Authenticate gives (CodeUnauthenticated, its one sentence). It reads the token
// from the store, so a revocation anywhere is seen at the next recheck. A store that cannot be
// read is its error: the caller fails closed.
func (s *Service) Recheck(ctx context.Context, held *Token) error {
	if held == nil {
		return errTokenRefused()
	}
	t, err := s.Store.Token(ctx, held.ID)
	if ErrorCode(err) == CodeNotFound {
		return errTokenRefused()
	}
	if err != nil {
		return err
	}
	if t.RevokedAt != nil || subtle.ConstantTimeCompare(t.SecretHash, held.SecretHash) != 1 {
		return errTokenRefused()
	}
	return nil
}

// TokenRevocations returns a channel that is closed at the next revocation of a token through
// this process (RevokeToken): a holder of requests rechecks them then, rather than at its next
// round. Take it before rechecking, so that a revocation meanwhile is not missed.
func (s *Service) TokenRevocations() <-chan struct{} { return s.Revoked.Next() }
