package storage

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/inquiry-bot/bot/inquiry"
)

// Vote records v in the pending inquiry with key, in place of an earlier vote of the same
// person, under the inquiry row's lock (FOR UPDATE on PostgreSQL; SQLite's one writer), so that
// concurrent voters each see every vote before theirs. decide then says, from the record with
// its votes, whether they resolve it — applied in the same transaction as Resolve applies it —
// and what to enqueue when they do not (the message update showing the tally). A vote on an
// inquiry no longer pending is not recorded: CodeAlreadyResolved with the record. The vote, and
// the resolution it decides, are on the inquiry's record of events.
func (s *Store) Vote(ctx context.Context, key string, v inquiry.Vote,
	decide func(rec *inquiry.Record) (*inquiry.Resolution, []inquiry.Delivery)) (*inquiry.Record, error) {
	var out *inquiry.Record
	var lost error
	err := s.inTx(ctx, "record the vote", func(tx *sqlx.Tx) error {
		rec, resolved, err := s.lockPending(ctx, tx, key)
		if err != nil || resolved != nil {
			out, lost = rec, resolved
			return err
		}
		rec.Votes = inquiry.WithVote(rec.Votes, v)
		votes, err := jsonText(rec.Votes)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE inquiries SET votes = ? WHERE key = ?`), votes, key); err != nil {
			return err
		}
		voted := inquiry.VotedEvent(rec, v)
		r, ds := decide(rec)
		if r == nil {
			out = rec
			if err := s.insertDeliveries(ctx, tx, ds, deliveryDefaults{key: rec.Key, namespace: rec.Namespace, runID: rec.RunID, now: v.At}); err != nil {
				return err
			}
			return s.insertEvents(ctx, tx, []inquiry.Event{voted}) // last: see insertEvents
		}
		items, err := prepareResolutions([]inquiry.ResolveItem{{Key: key, Resolution: *r}})
		if err != nil {
			return err
		}
		won, err := s.resolveTx(ctx, tx, items, []inquiry.Event{voted})
		if err != nil {
			return err
		}
		out = won[0] // the row is locked and pending: this resolution is the one
		return nil
	})
	if err != nil {
		return nil, err
	}
	if lost == nil {
		s.recorded()
	}
	return out, lost
}

// lockPending reads the inquiry with key under its row's lock (FOR UPDATE on PostgreSQL;
// SQLite's one writer) for a change only a pending inquiry takes: resolved is
// CodeAlreadyResolved, with the record, when it is no longer pending.
func (s *Store) lockPending(ctx context.Context, tx *sqlx.Tx, key string) (rec *inquiry.Record, resolved, err error) {
	if rec, err = s.inquiryWhere(ctx, tx, "key = ?"+s.forUpdate(), key); err == nil && rec.Status != inquiry.StatusPending {
		resolved = inquiry.AlreadyResolved(rec)
	}
	return rec, resolved, err
}
