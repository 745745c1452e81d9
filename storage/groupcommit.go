package storage

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/groupcommit"
)

// Group commit of creates, on SQLite (issue 18; internal/groupcommit draws its lifecycle). A
// create that finds no other committing is written alone, at once: a lone create waits for
// nothing. One that finds a commit running joins a queue, and when that commit ends the queued
// creates — up to maxCreateBatch — are written in ONE transaction: a multi-row INSERT of the
// inquiries (ON CONFLICT DO NOTHING RETURNING key), then the deliveries and the created events of
// those it inserted, so that one commit (one WAL flush, one fsync) acknowledges them all.
//
// Only SQLite batches: there one writer commits at a time and each commit waits for its fsync,
// and batching bought 4.0× the creates a second with 32 clients (cmd/benchmark row m,
// 2026-12-04: 3,984/s against 987/s). On PostgreSQL, whose own commits already share WAL
// flushes, it bought 1.23× (2,079/s against 1,684/s), under the 1.5× a piece of machinery must buy
// to stay, so a create there is its one statement (createQueries), one a request.
//
// The semantics of a create alone are kept inside a batch: creates of the same (namespace,
// run_id, id) in one batch are one insert, and the others of the group are answered as if
// they had come after it (the same inquiry, not created, or id_conflict for other content); a
// row that met one already stored is resolved one by one as a lone create is. Each request is
// answered only after its batch committed. A batch whose transaction fails is not half
// applied — it rolled back — and each of its creates is then tried again alone, so the row
// that broke it gets its own error and the others their rows (or each its 503 while the
// database is away).

// maxCreateBatch bounds the creates of one transaction: 64 inquiries are about 2,300 arguments,
// far under SQLite's limit, and past a few dozen the commit is no longer what a create waits for.
const maxCreateBatch = 64

// maxCreateQueue bounds the creates waiting for a batch; past it a create is written alone
// (the connection pool then bounds them, as before group commit).
const maxCreateQueue = 4096

// batchTimeout bounds one batch's transaction. It runs on a context of its own: the creates in
// it belong to different requests, and the cancellation of one must not fail the others.
const batchTimeout = 30 * time.Second

// createReq is one CreateInquiry on its way to the database.
type createReq struct {
	ctx        context.Context
	in         inquiry.Record // the record as stored: key, status, creation time filled in
	row        *inquiryRow
	stored     *inquiry.Record // what CreateInquiry returns when it inserted
	deliveries []inquiry.Delivery
	def        deliveryDefaults
	evs        []inquiry.Event

	// The outcome, set by the write (alone or in a batch) before its Do returns.
	rec *inquiry.Record
	// created: this request inserted the inquiry.
	created bool
	err     error
}

func (r *createReq) finish(rec *inquiry.Record, created bool, err error) {
	r.rec, r.created, r.err = rec, created, err
}

// createCounts counts how a store's creates were committed.
type createCounts struct {
	batches, rows atomic.Int64 // batches of more than one create committed, and their creates
	alone         atomic.Int64 // creates written alone: a free commit, a batch of one, a full queue
}

// CreateCounts is how a store's creates were committed since it was opened: Alone, each in a
// statement or transaction of its own (nothing else was committing, its batch held only it, the
// queue was full, or the store does not batch), and in Batches of more than one, Batched creates
// in all. They show whether group commit forms batches under a load (the gateway's create
// benchmark reports them).
type CreateCounts struct {
	Alone, Batches, Batched int64
}

// CreateCounts returns how this store's creates were committed so far.
func (s *Store) CreateCounts() CreateCounts {
	return CreateCounts{Alone: s.counts.alone.Load(), Batches: s.counts.batches.Load(), Batched: s.counts.rows.Load()}
}

// newCommitter is the store's group commit of creates, on SQLite unless switched off; nil writes
// each create alone.
func (s *Store) newCommitter() *groupcommit.Committer[*createReq] {
	if s.postgres() || s.noGroupCommit {
		return nil
	}
	return groupcommit.New(maxCreateBatch, maxCreateQueue, s.createOne, s.commitBatch)
}

// create stores r, alone or in a batch, and returns its outcome.
func (s *Store) create(r *createReq) (*inquiry.Record, bool, error) {
	if s.gc == nil {
		s.counts.alone.Add(1)
		return s.createAlone(r.ctx, r, false)
	}
	if err := s.gc.Do(r.ctx, r); err != nil {
		// Taken into a batch already, it goes on for the others; whether this one's row is in,
		// as with a lone create cancelled during its commit, the caller cannot tell.
		return nil, false, translate(err, "create the inquiry")
	}
	return r.rec, r.created, r.err
}

// createOne writes r alone: nothing else was committing, or the queue was full.
func (s *Store) createOne(r *createReq) {
	s.counts.alone.Add(1)
	r.finish(s.createAlone(r.ctx, r, false))
}

// groupKey is what makes two creates the same inquiry: its (namespace, run_id, id).
type groupKey struct{ namespace, runID, id string }

// commitBatch writes the batch in one transaction and answers each of its creates.
func (s *Store) commitBatch(batch []*createReq) {
	live := batch[:0:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.finish(nil, false, translate(err, "create the inquiry")) // gone before its batch: not written
			continue
		}
		live = append(live, r)
	}
	switch len(live) {
	case 0:
		return
	case 1:
		s.createOne(live[0])
		return
	}
	// The first of each (namespace, run_id, id) is inserted; the others follow it.
	var leaders []*createReq
	follows := map[*createReq]*createReq{}
	first := map[groupKey]*createReq{}
	for _, r := range live {
		k := groupKey{r.in.Namespace, r.in.RunID, r.in.ID}
		if l, ok := first[k]; ok {
			follows[r] = l
			continue
		}
		first[k] = r
		leaders = append(leaders, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	if s.onBatch != nil {
		s.onBatch()
	}
	inserted, err := s.insertBatch(ctx, leaders)
	if err != nil {
		// Rolled back, whatever broke it: each create again alone, on its own context.
		var wg sync.WaitGroup
		for _, r := range live {
			wg.Go(func() { r.finish(s.createAlone(r.ctx, r, true)) })
		}
		wg.Wait()
		return
	}
	s.counts.batches.Add(1)
	s.counts.rows.Add(int64(len(live)))
	if len(inserted) > 0 {
		s.recorded()
	}
	for _, l := range leaders {
		if inserted[l.in.Key] {
			l.finish(l.stored, true, nil)
			continue
		}
		// It met a row committed before: resolved as a lone create resolves it.
		l.finish(s.resolveTaken(l.ctx, l, false))
	}
	for _, r := range live {
		l, ok := follows[r]
		if !ok {
			continue
		}
		switch {
		case l.err != nil:
			r.finish(s.createAlone(r.ctx, r, false)) // the leader's error is its own: this one alone
		case inquiry.SameContent(&l.rec.Inquiry, &r.in.Inquiry):
			r.finish(l.rec, false, nil) // asked once: as if it came right after its leader
		default:
			r.finish(nil, false, idConflict(r.in.ID))
		}
	}
}

// insertBatch inserts the leaders' inquiries in one transaction, with the deliveries and
// events of those it inserted, as multi-row INSERTs, and returns the keys it inserted.
func (s *Store) insertBatch(ctx context.Context, leaders []*createReq) (map[string]bool, error) {
	inserted := make(map[string]bool, len(leaders))
	err := s.inTx(ctx, "create the inquiries", func(tx *sqlx.Tx) error {
		args := make([]any, 0, len(inquiryTable.names)*len(leaders))
		for _, l := range leaders {
			args = append(args, inquiryTable.args(l.row)...)
		}
		query := `INSERT INTO inquiries (` + inquiryTable.cols + `) VALUES ` + inquiryTable.values(len(leaders), false) + `
			ON CONFLICT (namespace, run_id, id) DO NOTHING RETURNING key`
		rows, err := tx.QueryxContext(ctx, s.q(query), args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var key string
			if err := rows.Scan(&key); err != nil {
				rows.Close()
				return err
			}
			inserted[key] = true
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		var dargs []any
		var ndl int
		var evs []inquiry.Event
		for _, l := range leaders {
			if !inserted[l.in.Key] {
				continue
			}
			for _, d := range l.deliveries {
				dargs = append(dargs, deliveryArgs([]inquiry.Delivery{d}, l.def)...)
				ndl++
				if ndl == deliveryBatch {
					if err := s.insertDeliveryArgs(ctx, tx, ndl, dargs); err != nil {
						return err
					}
					dargs, ndl = dargs[:0], 0
				}
			}
			evs = append(evs, l.evs...)
		}
		if err := s.insertDeliveryArgs(ctx, tx, ndl, dargs); err != nil {
			return err
		}
		// Last: see insertEvents.
		return s.insertEvents(ctx, tx, evs)
	})
	return inserted, err
}

// insertDeliveryArgs inserts n deliveries given by their arguments (deliveryArgs).
func (s *Store) insertDeliveryArgs(ctx context.Context, tx *sqlx.Tx, n int, args []any) error {
	if n == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, s.q(insertDeliveriesQuery(n)), args...)
	return err
}
