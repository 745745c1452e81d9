package storage

import (
	"context"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/inquiry-bot/bot/inquiry"
)

// queryDeadlinesDue finds pending inquiries whose next reminder or escalation step is due. It
// repeats the predicate of the partial index inquiries_deadline_due (migration 00009) literally
// so that both planners use it.
var queryDeadlinesDue = `SELECT ` + inquiryTable.cols + ` FROM inquiries
	WHERE status = 'pending' AND next_deadline_at IS NOT NULL AND next_deadline_at <= ?
	ORDER BY next_deadline_at LIMIT ?`

// setProgress stores what was done of an inquiry's deadlines (and, for an extension, its expiry).
const setProgress = `UPDATE inquiries SET reminders = ?, remind_step = ?, escalation = ?, extended_by = ?,
	next_deadline_at = ?, expires_at = COALESCE(?, expires_at) WHERE key = ? AND status = 'pending'`

// ClaimDeadlines claims up to limit pending inquiries with a reminder or escalation step due at
// now and applies plan's work to each in one transaction: the progress, the deliveries, the
// events. On PostgreSQL the rows are picked FOR UPDATE SKIP LOCKED, so two sweepers take
// disjoint inquiries and each row's progress is advanced by one of them only; on SQLite the
// transaction holds the one write lock. Either way a reminder is enqueued once.
func (s *Store) ClaimDeadlines(ctx context.Context, now time.Time, limit int, plan func(rec *inquiry.Record) inquiry.DeadlineWork) (int, error) {
	if limit <= 0 {
		limit = inquiry.DefaultListLimit
	}
	query := queryDeadlinesDue
	if s.postgres() {
		query += ` FOR UPDATE SKIP LOCKED`
	}
	n := 0
	err := s.inTx(ctx, "claim due reminders and escalations", func(tx *sqlx.Tx) error {
		var rows []inquiryRow
		if err := tx.SelectContext(ctx, &rows, s.q(query), at(now), limit); err != nil {
			return err
		}
		recs, err := decode(rows, nil, (*inquiryRow).record)
		if err != nil {
			return err
		}
		n = len(recs)
		var evs []inquiry.Event
		for _, rec := range recs {
			w := plan(rec)
			if err := s.storeProgress(ctx, tx, rec, nil, &w); err != nil {
				return err
			}
			evs = append(evs, w.Events...)
		}
		return s.insertEvents(ctx, tx, evs) // last: see insertEvents
	})
	if err == nil && n > 0 {
		s.recorded()
	}
	return n, err
}

// storeProgress writes w (and a new expiry, when not nil) on rec's row, and enqueues w's
// deliveries; the caller appends w's events last.
func (s *Store) storeProgress(ctx context.Context, tx *sqlx.Tx, rec *inquiry.Record, expires *time.Time, w *inquiry.DeadlineWork) error {
	p := w.Progress
	if _, err := tx.ExecContext(ctx, s.q(setProgress), p.Reminders, p.RemindStep, p.Escalation, int64(p.ExtendedBy),
		atPtr(p.Next), atPtr(expires), rec.Key); err != nil {
		return err
	}
	return s.insertDeliveries(ctx, tx, w.Deliveries, deliveryDefaults{key: rec.Key, namespace: rec.Namespace, runID: rec.RunID, now: s.workTime(w)})
}

// workTime is the time of w's events (the store keeps no clock), for deliveries without one.
func (s *Store) workTime(w *inquiry.DeadlineWork) time.Time {
	for _, e := range w.Events {
		return e.At
	}
	return time.Time{}
}

// UpdateDeadlines applies change to the pending inquiry with key under its row's lock: the new
// expiry, the progress, the deliveries and the events, in one transaction.
func (s *Store) UpdateDeadlines(ctx context.Context, key string, change func(rec *inquiry.Record) (*time.Time, *inquiry.DeadlineWork)) (*inquiry.Record, error) {
	var out *inquiry.Record
	var lost error
	changed := false
	err := s.inTx(ctx, "change the deadline", func(tx *sqlx.Tx) error {
		rec, resolved, err := s.lockPending(ctx, tx, key)
		if err != nil || resolved != nil {
			out, lost = rec, resolved
			return err
		}
		expires, w := change(rec)
		if w == nil {
			out = rec
			return nil
		}
		if err := s.storeProgress(ctx, tx, rec, expires, w); err != nil {
			return err
		}
		if out, err = s.inquiryWhere(ctx, tx, "key = ?", key); err != nil {
			return err
		}
		changed = true
		return s.insertEvents(ctx, tx, w.Events) // last: see insertEvents
	})
	if err != nil {
		return nil, err
	}
	if changed {
		s.recorded()
	}
	return out, lost
}

// AddPlacement records one more message that shows the inquiry — the question on a channel other
// than Slack (step 0), or an escalation step's — once per channel and step, under the row's lock so
// that concurrent steps never lose one another's, and indexes the message by (channel, ts) so that
// a reply in its thread answers the inquiry. A question's post is on the record (a posted event
// naming the channel), as SetPosted's is.
func (s *Store) AddPlacement(ctx context.Context, key string, p inquiry.Placement) error {
	return s.inTx(ctx, "record where the inquiry was shown", func(tx *sqlx.Tx) error {
		rec, err := s.inquiryWhere(ctx, tx, "key = ?"+s.forUpdate(), key)
		if err != nil {
			return err
		}
		// A retried post or escalation records nothing new.
		if slices.ContainsFunc(rec.Placements, func(q inquiry.Placement) bool { return q.Step == p.Step && q.On(viaOf(p)) }) {
			return nil
		}
		text, err := jsonText(append(rec.Placements, p))
		if err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, s.q(`UPDATE inquiries SET placements = ? WHERE key = ?`), text, key); err != nil {
			return err
		}
		if p.Channel != "" && p.TS != "" {
			// Found by a reply in its thread (PendingInThread); a message is one inquiry's, so a
			// repeat of the same message is nothing new.
			if _, err = tx.ExecContext(ctx, s.q(`INSERT INTO placements (channel, ts, inquiry_key) VALUES (?, ?, ?)
				ON CONFLICT (channel, ts) DO NOTHING`), p.Channel, p.TS, key); err != nil {
				return err
			}
		}
		if p.Step != 0 {
			return nil
		}
		// When its post was claimed, as SetPosted reads it: the time the channel took it.
		var claimed nullTime
		if err := tx.GetContext(ctx, &claimed, s.q(`SELECT max(updated_at) FROM deliveries WHERE inquiry_key = ? AND kind = ? AND target = ?`),
			key, string(inquiry.DeliverPost), viaOf(p)); err != nil {
			return err
		}
		when := rec.CreatedAt
		if claimed.Valid {
			when = claimed.T
		}
		return s.insertEvents(ctx, tx, []inquiry.Event{inquiry.PlacedEvent(rec, p, when)}) // last: see insertEvents
	})
}

// viaOf is the channel that posted p: Slack when it names none.
func viaOf(p inquiry.Placement) string {
	if p.Via == "" {
		return inquiry.TransportSlack
	}
	return p.Via
}
