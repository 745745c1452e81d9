package gateway_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestRevokedTokenRefused: a token revoked through this server is refused from the very next
// request, and so is one revoked elsewhere (another replica, bot token revoke on the database):
// every request reads its token.
func TestRevokedTokenRefused(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db))
		doomed := b.token("doomed", "team-a", inquiry.ScopeAsk)
		requireStatus(t, b.do("GET", "/v1/inquiries", doomed, nil), http.StatusOK) // read and trusted
		requireStatus(t, b.do("POST", "/v1/tokens/doomed/revoke", b.admin, nil), http.StatusOK)
		b.do("GET", "/v1/inquiries", doomed, nil).errorOf(t, http.StatusUnauthorized, inquiry.CodeUnauthenticated)

		elsewhere := b.token("elsewhere", "team-a", inquiry.ScopeAsk)
		requireStatus(t, b.do("GET", "/v1/inquiries", elsewhere, nil), http.StatusOK)
		require.NoError(t, b.store.RevokeToken(context.Background(), "elsewhere", time.Now()))
		b.do("GET", "/v1/inquiries", elsewhere, nil).errorOf(t, http.StatusUnauthorized, inquiry.CodeUnauthenticated)
	})
}

func requireStatus(t *testing.T, r resp, status int) {
	t.Helper()
	require.Equal(t, status, r.status, "body: %s", r.body)
}

// staleTokens reads a token of name from the store at once and then holds what it read until
// open is closed, so that a revocation can come between the read and its result; read is
// closed after the first such read.
type staleTokens struct {
	inquiry.Store
	name string
	once sync.Once
	read chan struct{}
	open chan struct{}
}

func (s *staleTokens) Token(ctx context.Context, id string) (*inquiry.Token, error) {
	t, err := s.Store.Token(ctx, id)
	if err == nil && t.Name == s.name {
		s.once.Do(func() { close(s.read) })
		<-s.open
	}
	return t, err
}

// TestRevocationDuringSharedTokenRead: a request that misses a token after it was revoked
// through this server is refused, even while a read of the token made before the revocation is
// still under way (it must not share that read's result).
func TestRevocationDuringSharedTokenRead(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		stale := &staleTokens{name: "doomed", read: make(chan struct{}), open: make(chan struct{})}
		b := setup(t, withDB(db), withStore(func(s inquiry.Store) inquiry.Store { stale.Store = s; return stale }))
		doomed := b.token("doomed", "team-a", inquiry.ScopeAsk)
		first := make(chan resp, 1)
		go func() { first <- b.do("GET", "/v1/inquiries", doomed, nil) }()
		<-stale.read // its read found the token not revoked, and is held
		requireStatus(t, b.do("POST", "/v1/tokens/doomed/revoke", b.admin, nil), http.StatusOK)
		after := make(chan resp, 1)
		go func() { after <- b.do("GET", "/v1/inquiries", doomed, nil) }()
		time.Sleep(200 * time.Millisecond) // room to reach a shared read, were there one (the bug): a slower machine only makes the check weaker, never wrong
		close(stale.open)
		<-first // it began before the revocation: either answer is right
		(<-after).errorOf(t, http.StatusUnauthorized, inquiry.CodeUnauthenticated)
	})
}

// panickyTokens panics on the first token read.
type panickyTokens struct {
	inquiry.Store
	once atomic.Bool
}

func (p *panickyTokens) Token(ctx context.Context, id string) (*inquiry.Token, error) {
	if p.once.CompareAndSwap(false, true) {
		panic("the store's first token read fails")
	}
	return p.Store.Token(ctx, id)
}

// TestTokenReadPanicLeavesNoReadBehind: a token read that panics (answered 500 by recovery)
// leaves no read under way behind it for the next requests with the token to wait for forever.
func TestTokenReadPanicLeavesNoReadBehind(t *testing.T) {
	panicky := &panickyTokens{}
	b := setup(t, withStore(func(s inquiry.Store) inquiry.Store { panicky.Store = s; return panicky }))
	require.Equal(t, http.StatusInternalServerError, b.do("GET", "/v1/inquiries", b.askA, nil).status)
	next := make(chan int, 1)
	go func() { next <- b.do("GET", "/v1/inquiries", b.askA, nil).status }()
	select {
	case st := <-next:
		require.Equal(t, http.StatusOK, st)
	case <-time.After(10 * time.Second):
		t.Fatal("the next request with the token waits for the read that panicked")
	}
}
