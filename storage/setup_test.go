package storage_test

import (
	"context"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
	"github.com/inquiry-bot/bot/storage/storagetest"
	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"
)

// t0 is the pinned "now" of the tests.
var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// bundle is what a test of the suite gets: a fresh, migrated store of its own.
type bundle struct {
	store *storage.Store
	db    *sqlx.DB // the same database, for raw SQL
	url   string   // the store's DATABASE_URL
}

func (b *bundle) postgres() bool { return b.store.Dialect() == storage.DialectPostgres }

// each runs fn against SQLite in a temporary directory, always, and against PostgreSQL when
// TEST_DATABASE_URL is set — which must then be reachable: a failure to connect fails the test,
// it never skips. Every run gets a database of its own (storagetest), so tests run in parallel,
// commit, and LISTEN without seeing each other.
func each(t *testing.T, fn func(t *testing.T, b *bundle)) {
	t.Helper()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		fn(t, openBundle(t, databaseURL))
	})
}

// openBundle opens and migrates the store; it is closed when the test ends (before storagetest
// drops the database).
func openBundle(t testing.TB, u string) *bundle {
	t.Helper()
	s, err := storage.Open(context.Background(), u)
	require.NoError(t, err, "open the test database")
	t.Cleanup(func() { s.Close() })
	return &bundle{store: s, db: storage.DB(s), url: u}
}

// requireStands fails the test unless the inquiry with key stands as status with no delivery
// (what a batch that lost it left), and returns it as stored.
func requireStands(t *testing.T, b *bundle, key string, status inquiry.Status) *inquiry.Record {
	t.Helper()
	stored, err := b.store.Inquiry(context.Background(), key)
	require.NoError(t, err)
	require.Equal(t, status, stored.Status)
	ds, err := b.store.ListDeliveries(context.Background(), key)
	require.NoError(t, err)
	require.Empty(t, ds)
	return stored
}

// nextKey makes keys distinct across the tests of a run.
var keyMu sync.Mutex
var keySeq int

func nextKey() string {
	keyMu.Lock()
	defer keyMu.Unlock()
	keySeq++
	return "inq_test" + hex.EncodeToString([]byte{byte(keySeq >> 16), byte(keySeq >> 8), byte(keySeq)})
}

// newRecord is a pending Choice inquiry created at t0.
func newRecord(namespace, runID, id string) *inquiry.Record {
	exp := t0.Add(2 * time.Hour)
	return &inquiry.Record{
		Key: nextKey(),
		Inquiry: inquiry.Inquiry{
			ID: id, RunID: runID, Kind: inquiry.KindChoice, Question: "Merge now?",
			Context: "CI is green.",
			Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold", Description: "wait a day"}},
			Default: inquiry.One("hold"), ExpiresAt: &exp,
		},
		Namespace:   namespace,
		Config:      inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportSlack},
		Status:      inquiry.StatusPending,
		Slack:       inquiry.SlackRef{Channel: "C1", Answerers: []string{"U1", "S2"}},
		CallbackURL: "https://example.com/cb",
		CreatedAt:   t0,
	}
}

// create stores rec and fails the test on error.
func create(t *testing.T, s *storage.Store, rec *inquiry.Record, ds ...inquiry.Delivery) *inquiry.Record {
	t.Helper()
	got, created, err := s.CreateInquiry(context.Background(), rec, ds)
	require.NoError(t, err)
	require.True(t, created)
	return got
}

// personAnswer is an answer by a person at t.
func personAnswer(id, value string, at time.Time) *inquiry.Answer {
	return &inquiry.Answer{InquiryID: id, Value: inquiry.One(value), AnsweredBy: "U1",
		Source: inquiry.SourcePerson, AnsweredAt: at}
}

// requirePending checks the store counts want pending inquiries.
func requirePending(t *testing.T, b *bundle, want int) {
	t.Helper()
	n, err := b.store.CountPending(context.Background())
	require.NoError(t, err)
	require.Equal(t, want, n)
}

// requireDeliveryCount checks the store counts want deliveries of the status ("" for any).
func requireDeliveryCount(t *testing.T, b *bundle, status inquiry.DeliveryStatus, want int, msgAndArgs ...any) {
	t.Helper()
	n, err := b.store.CountDeliveries(context.Background(), status)
	require.NoError(t, err)
	require.Equal(t, want, n, msgAndArgs...)
}

// sqlStep is one statement and its arguments.
type sqlStep struct {
	query string
	args  []any
}

// fillForPlanner runs the steps of the store's dialect (bulk inserts), then ANALYZE, so that
// the planner weighs the rows as it would a real table's.
func fillForPlanner(t *testing.T, b *bundle, postgres, sqlite []sqlStep) {
	t.Helper()
	steps, analyze := sqlite, "ANALYZE"
	if b.postgres() {
		steps, analyze = postgres, "ANALYZE inquiries"
	}
	for _, s := range append(steps, sqlStep{query: analyze}) {
		_, err := b.db.ExecContext(context.Background(), s.query, s.args...)
		require.NoError(t, err, s.query)
	}
}

// requireCode checks err carries code.
func requireCode(t *testing.T, err error, code inquiry.Code) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, inquiry.ErrorCode(err), "error: %v", err)
}
