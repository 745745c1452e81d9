package storage

import (
	"context"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// DB exposes the pool to tests that need raw SQL (bulk rows, EXPLAIN, NOTIFY probes).
func DB(s *Store) *sqlx.DB { return s.db }

// OpenUnmigrated builds a Store without touching the database.
func OpenUnmigrated(databaseURL string) (*Store, error) { return open(databaseURL) }

// ExplainDue returns the plan of the very query DueInquiries runs.
func ExplainDue(ctx context.Context, s *Store, now time.Time, limit int) (string, error) {
	return explain(ctx, s, queryDue, at(now), limit)
}

// ExplainDueAfter returns the plan of the query DueInquiries runs after a cursor.
func ExplainDueAfter(ctx context.Context, s *Store, now, exp time.Time, key string, limit int) (string, error) {
	return explain(ctx, s, queryDueAfter, at(now), at(exp), key, limit)
}

// explain returns the plan of query with args, one line a row, in the dialect's own words.
func explain(ctx context.Context, s *Store, query string, args ...any) (string, error) {
	prefix := "EXPLAIN QUERY PLAN "
	if s.postgres() {
		prefix = "EXPLAIN "
	}
	rows, err := s.db.QueryContext(ctx, s.q(prefix+query), args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		var parts []string
		for _, v := range vals {
			switch v := v.(type) {
			case []byte:
				parts = append(parts, string(v))
			case string:
				parts = append(parts, v)
			}
		}
		lines = append(lines, strings.Join(parts, " "))
	}
	return strings.Join(lines, "\n"), rows.Err()
}

// TimeArg is how the store writes a time into SQL.
func TimeArg(t time.Time) any { return at(t) }

// ExplainPendingInThread returns the plan of the very query PendingInThread runs.
func ExplainPendingInThread(ctx context.Context, s *Store, channel, threadTS string, limit int) (string, error) {
	return explain(ctx, s, queryPendingInThread, channel, threadTS, channel, threadTS, channel, threadTS, limit)
}

// Columns are the columns the store reads and writes, by table, as its row structs' tags name them.
func Columns() map[string][]string {
	return map[string][]string{"inquiries": resolvedTable.names, "deliveries": deliveryTable.names,
		"runs": runTable.names, "tokens": tokenTable.names}
}

// HoldCreates makes every create queue, as if a commit were running, until release is called: a
// test then knows which creates share a batch, and in what order. Only where the store batches
// (Batches).
func HoldCreates(s *Store) (release func()) { return s.gc.Hold() }

// Batches reports whether the store gathers creates into batches (SQLite).
func Batches(s *Store) bool { return s.gc != nil }

// QueuedCreates is how many creates wait for a batch.
func QueuedCreates(s *Store) int { return s.gc.Queued() }

// CreateBatches is how many batches of more than one create committed, and their creates.
func CreateBatches(s *Store) (batches, rows int64) {
	return s.counts.batches.Load(), s.counts.rows.Load()
}

// OnBatch runs f as each batch of creates starts its transaction (set it before the creates).
func OnBatch(s *Store, f func()) { s.onBatch = f }
