package gateway_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

// The sentence every refused bearer token gets, the held request of a revoked one too.
const refusedToken = "the bearer token is missing, unknown or revoked"

// requireRefusedToken checks r is the bearer check's 401: its code, its sentence, its header.
func requireRefusedToken(t *testing.T, r resp, what string) {
	t.Helper()
	e := r.errorOf(t, http.StatusUnauthorized, inquiry.CodeUnauthenticated)
	require.Contains(t, e["message"], refusedToken, what)
	require.Contains(t, r.header.Get("WWW-Authenticate"), `error="invalid_token"`, what)
	require.Empty(t, r.header.Get("Location"), "%s: nothing of the answer it would have had", what)
}

// requireEnds waits for f's stream to end and returns every event it had received.
func (f *follower) requireEnds(t *testing.T, what string) []sse {
	t.Helper()
	select {
	case <-f.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: the stream of a revoked token is still open", what)
	}
	var got []sse
	for {
		select {
		case e := <-f.events:
			got = append(got, e)
		default:
			return got
		}
	}
}

// TestRevokedTokenLosesItsStream: a token revoked while its event stream is open gets no event
// recorded after the revocation — the question of a new inquiry least of all — and its stream
// ends; another token's stream goes on.
func TestRevokedTokenLosesItsStream(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withoutDispatcher())
		gateway.SetTokenRecheck(b.srv, time.Hour) // the revocation through this server is what ends it
		doomed := b.token("doomed-admin", "ops", inquiry.ScopeAdmin)
		f := b.follow(t, doomed, "", "")
		other := b.follow(t, b.admin, "", "")
		first := str(b.ask(b.askA, confirm("before"), http.StatusCreated)["key"])
		require.Equal(t, first, f.next(t).InquiryKey, "the stream works before the revocation")
		require.Equal(t, first, other.next(t).InquiryKey)

		requireStatus(t, b.do("POST", "/v1/tokens/doomed-admin/revoke", b.admin, nil), http.StatusOK)
		secret := str(b.ask(b.askA, confirm("after", "question", "Rotate the root key of prod?"), http.StatusCreated)["key"])
		require.Equal(t, secret, other.next(t).InquiryKey, "another token's stream goes on")
		for _, e := range f.requireEnds(t, "revoked through this server") {
			require.NotEqual(t, secret, e.InquiryKey, "an event recorded after the revocation reached the revoked token")
		}
	})
}

// TestRevokedTokenLosesItsLongPolls: a token revoked while it waits — a GET with wait, a create
// with wait, a run's ask with wait — has each wait answered 401 with the bearer check's
// sentence, not the inquiry.
func TestRevokedTokenLosesItsLongPolls(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withoutDispatcher())
		gateway.SetTokenRecheck(b.srv, time.Hour)
		doomed := b.token("doomed", "team-a", inquiry.ScopeAsk)
		key := str(b.ask(doomed, confirm("held"), http.StatusCreated)["key"])
		requireStatus(t, b.do("POST", "/v1/runs", doomed, map[string]any{"id": "deploy-7"}), http.StatusCreated)

		var wg sync.WaitGroup
		var get, create, ask resp
		wg.Go(func() { get = b.do("GET", "/v1/inquiries/"+key+"?wait=50", doomed, nil) })
		wg.Go(func() { create = b.do("POST", "/v1/inquiries", doomed, confirm("waited", "wait", 50)) })
		wg.Go(func() {
			ask = b.do("POST", "/v1/runs/deploy-7/ask", doomed, confirm("deploy-7:go", "kind", "confirm", "wait", 50))
		})
		require.Eventually(t, func() bool { return b.hub.Waiters() == 3 }, 20*time.Second, 5*time.Millisecond, "the three wait")
		requireStatus(t, b.do("POST", "/v1/tokens/doomed/revoke", b.admin, nil), http.StatusOK)
		wg.Wait()
		requireRefusedToken(t, get, "GET with wait")
		requireRefusedToken(t, create, "create with wait")
		requireRefusedToken(t, ask, "run ask with wait")
	})
}

// TestRevokedTokenLosesItsLongPollAsBotServes: the same of a long-poll on the hardened server.
func TestRevokedTokenLosesItsLongPollAsBotServes(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher())
	gateway.SetTokenRecheck(b.srv, time.Hour)
	addr := serveAsBot(t, b, gateway.Limits{})
	doomed := b.token("doomed", "team-a", inquiry.ScopeAsk)
	key := str(b.ask(doomed, confirm("held"), http.StatusCreated)["key"])
	got := make(chan resp, 1)
	go func() { got <- getFrom(t, "http://"+addr, "/v1/inquiries/"+key+"?wait=50", doomed) }()
	require.Eventually(t, func() bool { return b.hub.Waiters() == 1 }, 20*time.Second, 5*time.Millisecond)
	requireStatus(t, b.do("POST", "/v1/tokens/doomed/revoke", b.admin, nil), http.StatusOK)
	requireRefusedToken(t, <-got, "GET with wait on the hardened server")
	require.Eventually(t, func() bool { return b.hub.Waiters() == 0 }, 20*time.Second, 5*time.Millisecond)
}

// TestRevokedElsewhereLosesWhatItHolds: a token revoked on another replica (or with bot token
// revoke on the database) loses its stream and its long-polls on this one at its next recheck,
// which reads the token from the database — however many notifications were lost, since nothing
// is notified.
func TestRevokedElsewhereLosesWhatItHolds(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		a := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withoutDispatcher())
		other := replica(t, a)
		gateway.SetTokenRecheck(other.srv, 50*time.Millisecond)
		doomed := a.token("doomed-admin", "ops", inquiry.ScopeAdmin)
		f := other.follow(t, doomed, "", "")
		key := str(a.ask(a.askA, confirm("held"), http.StatusCreated)["key"])
		got := make(chan resp, 1)
		go func() { got <- other.do("GET", "/v1/inquiries/"+key+"?wait=50", doomed, nil) }()
		require.Eventually(t, func() bool { return other.hub.Waiters() == 1 }, 20*time.Second, 5*time.Millisecond)

		requireStatus(t, a.do("POST", "/v1/tokens/doomed-admin/revoke", a.admin, nil), http.StatusOK)
		requireRefusedToken(t, <-got, "GET with wait on the other replica")
		f.requireEnds(t, "revoked on the other replica")
		// And no new request either, as before.
		other.do("GET", "/v1/inquiries/"+key, doomed, nil).errorOf(t, http.StatusUnauthorized, inquiry.CodeUnauthenticated)
	})
}

// TestTokenRecheckWithinTheBound: a held request's token is rechecked often enough, and read
// fresh enough, that a revocation anywhere reaches it within 15 s.
func TestTokenRecheckWithinTheBound(t *testing.T) {
	require.LessOrEqual(t, gateway.TokenRecheck, 10*time.Second, "a margin of 5 s under 15 s")
}

// TestRevokedBetweenRoundsGetsNothing: a token revoked where this server hears nothing of it
// (on the database), whose held requests' next round is far off, still gets nothing more: the
// answer a long-poll was about to hand over, on either server, is the bearer check's 401, and
// the events a stream was about to write end it instead.
func TestRevokedBetweenRoundsGetsNothing(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withoutDispatcher())
		gateway.SetTokenRecheck(b.srv, time.Hour)
		addr := serveAsBot(t, b, gateway.Limits{})
		doomed := b.token("doomed-admin", "ops", inquiry.ScopeAdmin)
		f := b.follow(t, doomed, "", "")
		key := str(b.ask(b.askA, confirm("held"), http.StatusCreated)["key"])
		require.Equal(t, key, f.next(t).InquiryKey)
		var wg sync.WaitGroup
		var onTest, asBot resp
		wg.Go(func() { onTest = b.do("GET", "/v1/inquiries/"+key+"?wait=50", doomed, nil) })
		wg.Go(func() { asBot = getFrom(t, "http://"+addr, "/v1/inquiries/"+key+"?wait=50", doomed) })
		require.Eventually(t, func() bool { return b.hub.Waiters() == 2 }, 20*time.Second, 5*time.Millisecond)

		require.NoError(t, b.store.RevokeToken(context.Background(), "doomed-admin", time.Now()))
		requireStatus(t, b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "yes"}), http.StatusOK)
		wg.Wait()
		requireRefusedToken(t, onTest, "GET with wait")
		requireRefusedToken(t, asBot, "GET with wait on the hardened server")
		require.Empty(t, f.requireEnds(t, "events about to be written"), "the answer's event reached the revoked token")
	})
}

// failingTokens fails every read of a token while failing is set, as a database that cannot be
// reached does.
type failingTokens struct {
	inquiry.Store
	failing atomic.Bool
}

func (f *failingTokens) Token(ctx context.Context, id string) (*inquiry.Token, error) {
	if f.failing.Load() {
		return nil, inquiry.Errorf(inquiry.CodeStorageUnavailable, "the database cannot be reached right now: retry in a few seconds")
	}
	return f.Store.Token(ctx, id)
}

// TestHeldTokenUnreadableFailsClosed: when the server cannot read a held request's token again
// for two rounds, it cannot tell a revoked token from a good one, and the long-poll ends with
// the store's passing fault (503, Retry-After) rather than waiting on unchecked.
func TestHeldTokenUnreadableFailsClosed(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		store := &failingTokens{}
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withoutDispatcher(),
			withStore(func(s inquiry.Store) inquiry.Store { store.Store = s; return store }))
		gateway.SetTokenRecheck(b.srv, 50*time.Millisecond)
		key := str(b.ask(b.askA, confirm("held"), http.StatusCreated)["key"])
		got := make(chan resp, 1)
		go func() { got <- b.do("GET", "/v1/inquiries/"+key+"?wait=50", b.askA, nil) }()
		require.Eventually(t, func() bool { return b.hub.Waiters() == 1 }, 20*time.Second, 5*time.Millisecond)
		store.failing.Store(true)
		r := <-got
		r.errorOf(t, http.StatusServiceUnavailable, inquiry.CodeStorageUnavailable)
		require.NotEmpty(t, r.header.Get("Retry-After"))
	})
}
