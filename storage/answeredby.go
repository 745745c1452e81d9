package storage

import (
	"context"
	"slices"

	"github.com/jmoiron/sqlx"

	"github.com/inquiry-bot/bot/inquiry"
)

// Bounds of AnsweredBy.
const (
	defaultAnsweredLimit = 10
	maxAnsweredLimit     = 50
)

// queryAnsweredBy reads the newest answered and voted events of one actor through the partial
// index events_answered_by (migration 00012), whose predicate it repeats literally. A person who
// changed a vote has several events for one inquiry, so a few more than asked for are read.
// Arguments: actor, limit.
const queryAnsweredBy = `SELECT inquiry_key FROM events
	WHERE actor = ? AND type IN ('answered', 'voted') AND actor <> ''
	ORDER BY id DESC LIMIT ?`

// AnsweredBy returns the inquiries who answered or voted in lately, whatever became of them,
// the one answered last first, at most limit of them (10 when limit <= 0, never more than 50).
// It reads the record of events, so it goes back as far as events are retained. An empty who is
// nobody: nothing.
func (s *Store) AnsweredBy(ctx context.Context, who string, limit int) ([]*inquiry.Record, error) {
	if who == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = defaultAnsweredLimit
	}
	limit = min(limit, maxAnsweredLimit)
	var keys []string
	if err := s.db.SelectContext(ctx, &keys, s.q(queryAnsweredBy), who, 4*limit); err != nil {
		return nil, translate(err, "find what a person answered")
	}
	var order []string // distinct, newest first
	for _, k := range keys {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
		if len(order) == limit {
			break
		}
	}
	if len(order) == 0 {
		return nil, nil
	}
	query, args, err := sqlx.In(`SELECT `+inquiryTable.cols+` FROM inquiries WHERE key IN (?)`, order)
	if err != nil {
		return nil, translate(err, "find what a person answered")
	}
	var rows []inquiryRow
	err = s.db.SelectContext(ctx, &rows, s.q(query), args...)
	recs, err := decode(rows, err, (*inquiryRow).record)
	if err != nil {
		return nil, translate(err, "find what a person answered")
	}
	// Retention may have deleted an inquiry whose events linger for a moment: it is left out.
	slices.SortFunc(recs, func(a, b *inquiry.Record) int { return slices.Index(order, a.Key) - slices.Index(order, b.Key) })
	return recs, nil
}
