//go:build standby

// This file runs only with -tags standby and a real hot standby (TEST_STANDBY_URL): a test that
// skipped in every ordinary run would count as passing while it proved nothing.

package storage_test

import (
	"context"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// StandbyEnv names a hot standby of the TEST_DATABASE_URL server (any database on it; the test
// reads the database it made on the primary there), for TestStandbyIsUnavailable.
const StandbyEnv = "TEST_STANDBY_URL"

// onStandby is primaryURL's database on the standby, once the standby has replayed everything
// the primary wrote so far.
func onStandby(t *testing.T, primary *sqlx.DB, primaryURL, standbyURL string) string {
	t.Helper()
	var lsn string
	require.NoError(t, primary.Get(&lsn, "SELECT pg_current_wal_lsn()::text"))
	standby, err := sqlx.Open("postgres", standbyURL)
	require.NoError(t, err)
	defer standby.Close()
	// Replication has no event to wait on: the standby's replay position is the condition.
	require.Eventually(t, func() bool {
		var caught bool
		err := standby.Get(&caught, "SELECT pg_is_in_recovery() AND pg_last_wal_replay_lsn() >= $1::pg_lsn", lsn)
		return err == nil && caught
	}, 30*time.Second, 20*time.Millisecond, "the standby at %s does not replay the primary", storage.RedactURL(standbyURL))
	p, err := url.Parse(primaryURL)
	require.NoError(t, err)
	s, err := url.Parse(standbyURL)
	require.NoError(t, err)
	s.Path = p.Path
	return s.String()
}

// TestStandbyIsUnavailable: a store on a hot standby (what a fail-over leaves a replica pointing
// at for a moment) answers every write storage_unavailable, a passing fault with the sentence to
// retry, never internal; reads are served. A write in a transaction meets the standby at BEGIN
// (lib/pq begins READ WRITE: 0A000), one outside a transaction at the statement (25006). It
// needs a real standby: set TEST_STANDBY_URL.
func TestStandbyIsUnavailable(t *testing.T) {
	standbyURL := os.Getenv(StandbyEnv)
	if standbyURL == "" || os.Getenv(storagetest.Env) == "" {
		t.Fatal("needs PostgreSQL with a hot standby: set " + storagetest.Env + " and " + StandbyEnv)
	}
	t.Parallel()
	ctx := context.Background()
	primary := openBundle(t, storagetest.PostgresURL(t))
	pending := create(t, primary.store, newRecord("ns", "", "q"))
	run, err := primary.store.PutRun(ctx, &inquiry.Run{ID: "r", Namespace: "ns", Status: inquiry.RunRunning}, t0)
	require.NoError(t, err)
	require.NoError(t, primary.store.EnqueueDeliveries(ctx, []inquiry.Delivery{{Kind: inquiry.DeliverCallback,
		InquiryKey: pending.Key, Namespace: "ns", Target: "https://example.com/cb", NextAttemptAt: t0, CreatedAt: t0}}))
	ds, err := primary.store.ListDeliveries(ctx, pending.Key)
	require.NoError(t, err)
	require.NotEmpty(t, ds)

	standby, err := storage.Open(ctx, onStandby(t, primary.db, primary.url, standbyURL)) // migrated already: nothing to write
	require.NoError(t, err)
	t.Cleanup(func() { standby.Close() })
	got, err := standby.Inquiry(ctx, pending.Key)
	require.NoError(t, err, "reads are served")
	require.Equal(t, pending.Key, got.Key)
	require.NoError(t, standby.Ping(ctx))

	answer := personAnswer("q", "merge", t0.Add(time.Minute))
	for name, write := range map[string]func() error{
		"create an inquiry": func() error { _, _, err := standby.CreateInquiry(ctx, newRecord("ns", "", "q2"), nil); return err },
		"resolve": func() error {
			_, err := standby.Resolve(ctx, pending.Key, inquiry.Resolution{Status: inquiry.StatusAnswered, Answer: answer, At: t0.Add(time.Minute)})
			return err
		},
		"resolve many": func() error {
			_, err := standby.ResolveMany(ctx, []inquiry.ResolveItem{{Key: pending.Key, Resolution: inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0}}})
			return err
		},
		"note a failure": func() error {
			return standby.NoteFailure(ctx, pending.Key, inquiry.Failure{Code: "x", Message: "x"})
		},
		"set posted": func() error { return standby.SetPosted(ctx, pending.Key, inquiry.SlackRef{Channel: "C1", TS: "1.2"}) },
		"add placement": func() error {
			return standby.AddPlacement(ctx, pending.Key, inquiry.Placement{Step: 1, Channel: "C1", TS: "1.3"})
		},
		"enqueue":        func() error { return standby.EnqueueDeliveries(ctx, ds[:1]) },
		"claim":          func() error { _, err := standby.ClaimDeliveries(ctx, t0.Add(time.Hour), time.Minute, 10); return err },
		"complete":       func() error { return standby.CompleteDelivery(ctx, ds[0].ID, t0) },
		"retry delivery": func() error { return standby.RetryDelivery(ctx, ds[0].ID, t0.Add(time.Hour), "x", t0) },
		"put a run": func() error {
			_, err := standby.PutRun(ctx, &inquiry.Run{ID: "r2", Namespace: "ns", Status: inquiry.RunRunning}, t0)
			return err
		},
		"heartbeat": func() error { _, err := standby.Heartbeat(ctx, "ns", run.ID, t0.Add(time.Minute)); return err },
		"finish a run": func() error {
			_, err := standby.FinishRun(ctx, "ns", run.ID, inquiry.RunCompleted, t0.Add(time.Minute))
			return err
		},
		"abandon stale":   func() error { _, err := standby.AbandonStale(ctx, t0.Add(time.Hour), t0.Add(time.Hour)); return err },
		"delete resolved": func() error { _, err := standby.DeleteResolvedBefore(ctx, t0.Add(time.Hour)); return err },
		"create a token": func() error {
			return standby.CreateToken(ctx, &inquiry.Token{ID: "tid", Name: "n", Namespace: "n", Scopes: []inquiry.Scope{inquiry.ScopeAsk}, SecretHash: make([]byte, 32), CreatedAt: t0})
		},
		"init a setting": func() error { _, err := standby.InitSetting(ctx, "callback_secret", "s"); return err },
		"revoke links":   func() error { return standby.RevokeLinks(ctx, pending.Key, "a@example.com", t0) },
		"vote": func() error {
			_, err := standby.Vote(ctx, pending.Key, inquiry.Vote{By: "U1", Value: inquiry.One("merge"), At: t0.Add(time.Minute)},
				func(*inquiry.Record) (*inquiry.Resolution, []inquiry.Delivery) { return nil, nil })
			return err
		},
	} {
		err := write()
		require.Equal(t, inquiry.CodeStorageUnavailable, inquiry.ErrorCode(err), "%s: %v", name, err)
		require.False(t, inquiry.Fatal(err), name)
		require.Equal(t, "the database cannot be reached right now; retry in a few seconds", inquiry.ErrorMessage(err), name)
	}
	stored, err := primary.store.Inquiry(ctx, pending.Key)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, stored.Status, "nothing was written")
}
