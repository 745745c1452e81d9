package storage

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/inquiry-bot/bot/inquiry"
)

// Group commit of creates (issue 18). A create that finds fewer than the store's width of
// batches committing is written alone, at once, exactly as before: a lone create waits for
// nothing. One that finds them all busy joins a queue, and whoever's commit ends next takes up
// to maxCreateBatch queued creates and writes them in ONE transaction — an INSERT of the
// inquiries (ON CONFLICT DO NOTHING RETURNING key), then the deliveries and the created events
// of those it inserted; on PostgreSQL all of it one statement over arrays (batchQueryPG), on
// SQLite multi-row INSERTs — so that one commit (one WAL flush, one fsync) acknowledges them
// all. So a batch gathers exactly what arrived while the previous one was committing,
// and no create ever waits on a timer.
//
// The semantics of a create alone are kept inside a batch: creates of the same (namespace,
// run_id, id) in one batch are one insert, and the others of the group are answered as if
// they had come after it (the same inquiry, not created, or id_conflict for other content); a
// row that met one already stored is resolved one by one as a lone create is. Each request is
// answered only after its batch committed. A batch whose transaction fails is not half
// applied — it rolled back — and each of its creates is then tried again alone, so the row
// that broke it gets its own error and the others their rows (or each its 503 while the
// database is away).

// maxCreateBatch bounds the creates of one transaction: on SQLite 64 inquiries are about 2,300
// arguments, far under its limit (on PostgreSQL a batch is 55 arrays whatever its size), and
// past a few dozen the commit is no longer what a create waits for.
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

	taken bool          // taken out of the queue into a batch (under committer.mu)
	done  chan struct{} // closed when rec, created and err are set
	rec   *inquiry.Record
	// created: this request inserted the inquiry.
	created bool
	err     error
}

func (r *createReq) finish(rec *inquiry.Record, created bool, err error) {
	r.rec, r.created, r.err = rec, created, err
	close(r.done)
}

// committer gathers the creates of a store into batches.
type committer struct {
	mu    sync.Mutex
	width int // batches (or lone creates) committing at once; 0 is taken as 1
	busy  int // committing now
	queue []*createReq

	batches, rows atomic.Int64 // batches of more than one create committed, and their creates
	alone         atomic.Int64 // creates written alone: a free slot, a batch of one, a full queue

	onBatch func() // tests only: run as a batch's transaction starts
}

// CreateCounts is how a store's creates were committed since it was opened: Alone, each in a
// statement or transaction of its own (a commit slot was free, its batch held only it, or the
// queue was full), and in Batches of more than one, Batched creates in all. They show whether
// group commit forms batches under a load (the gateway's create benchmark reports them).
type CreateCounts struct {
	Alone, Batches, Batched int64
}

// CreateCounts returns how this store's creates were committed so far.
func (s *Store) CreateCounts() CreateCounts {
	return CreateCounts{Alone: s.gc.alone.Load(), Batches: s.gc.batches.Load(), Batched: s.gc.rows.Load()}
}

// createWidth is how many batches (or lone creates) commit at once: one, on both dialects. On
// SQLite one writer commits at a time anyway. On PostgreSQL a second slot let a second create
// go alone or a second, smaller batch go while the first waited for its WAL flush; on this
// project's two cores, where row 1 of cmd/benchmark is bound by CPU and not by the flush, it cost
// more than it gave: in BenchmarkCreateThroughGateway/postgres (32 clients) two slots wrote 3–5 %
// of creates alone and the rest in batches of 12, one slot 0.4–0.9 % alone and batches of 16, for
// 12 % less CPU in the bot's process per create and more creates a second (2026-12-01). Four
// slots had made batches smaller still and PostgreSQL's CPU per create higher. A batch of up to
// maxCreateBatch waits for at most one commit before its own.
func (s *Store) createWidth() int {
	return 1
}

// create stores r, alone or in a batch, and returns its outcome.
func (s *Store) create(r *createReq) (*inquiry.Record, bool, error) {
	c := &s.gc
	c.mu.Lock()
	if c.width == 0 {
		c.width = s.createWidth()
	}
	if c.busy < c.width || len(c.queue) >= maxCreateQueue {
		alone := c.busy < c.width
		if alone {
			c.busy++
		}
		c.mu.Unlock()
		c.alone.Add(1)
		rec, created, err := s.createAlone(r.ctx, r, false)
		if alone {
			s.committed()
		}
		return rec, created, err
	}
	r.done = make(chan struct{})
	c.queue = append(c.queue, r)
	c.mu.Unlock()
	select {
	case <-r.done:
		return r.rec, r.created, r.err
	case <-r.ctx.Done():
		c.mu.Lock()
		if !r.taken {
			// Not in a batch yet: it leaves the queue, and nothing of it is written.
			c.queue = slices.DeleteFunc(c.queue, func(q *createReq) bool { return q == r })
		}
		c.mu.Unlock()
		// Taken: its batch goes on for the others; whether this one's row is in, as with a
		// lone create cancelled during its commit, the caller cannot tell.
		return nil, false, translate(r.ctx.Err(), "create the inquiry")
	}
}

// committed ends one commit slot: the creates queued meanwhile, if any, become the next
// batch, committed on a goroutine of its own so that the caller is answered now.
func (s *Store) committed() {
	c := &s.gc
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy--
	s.startBatchLocked()
}

// startBatchLocked starts a batch of the queued creates when a slot is free. Call with
// gc.mu held.
func (s *Store) startBatchLocked() {
	c := &s.gc
	if len(c.queue) == 0 || c.busy >= c.width {
		return
	}
	n := min(len(c.queue), maxCreateBatch)
	batch := slices.Clone(c.queue[:n])
	c.queue = slices.Delete(c.queue, 0, n)
	for _, r := range batch {
		r.taken = true
	}
	c.busy++
	go func() {
		s.commitBatch(batch)
		s.committed()
	}()
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
		r := live[0]
		s.gc.alone.Add(1)
		r.finish(s.createAlone(r.ctx, r, false))
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
	if s.gc.onBatch != nil {
		s.gc.onBatch()
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
	s.gc.batches.Add(1)
	s.gc.rows.Add(int64(len(live)))
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
// events of those it inserted, and returns the keys it inserted. On PostgreSQL that is
// insertBatchPG; on SQLite multi-row INSERTs in a transaction.
func (s *Store) insertBatch(ctx context.Context, leaders []*createReq) (map[string]bool, error) {
	if s.postgres() {
		return s.insertBatchPG(ctx, leaders)
	}
	inserted := make(map[string]bool, len(leaders))
	err := s.inTx(ctx, "create the inquiries", func(tx *sqlx.Tx) error {
		args := make([]any, 0, len(inquiryTable.names)*len(leaders))
		for _, l := range leaders {
			args = append(args, inquiryTable.args(l.row)...)
		}
		query := `INSERT INTO inquiries (` + inquiryTable.cols + `) VALUES ` + inquiryTable.values(len(leaders), false) + `
			ON CONFLICT (namespace, run_id, id) DO NOTHING RETURNING key`
		st, err := s.batchStmt(ctx, tx, query)
		if err != nil {
			return err
		}
		rows, err := st.QueryxContext(ctx, args...)
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
		if len(evs) == 0 || len(evs) > maxCreateBatch {
			return s.insertEvents(ctx, tx, evs) // a rare size (creates resolved at once): not worth a statement kept
		}
		st, err = s.batchStmt(ctx, tx, `INSERT INTO events (`+newEventTable.cols+`) VALUES `+newEventTable.values(len(evs), false))
		if err != nil {
			return err
		}
		_, err = st.ExecContext(ctx, eventArgs(evs)...)
		return err
	})
	return inserted, err
}

// batchStmt is query prepared on tx: SQLite's multi-row INSERTs of a batch (PostgreSQL's batch
// is the one prepared statement batchQueryPG).
func (s *Store) batchStmt(ctx context.Context, tx *sqlx.Tx, query string) (*sqlx.Stmt, error) {
	return tx.PreparexContext(ctx, s.q(query))
}

// insertDeliveryArgs inserts n deliveries given by their arguments (deliveryArgs).
func (s *Store) insertDeliveryArgs(ctx context.Context, tx *sqlx.Tx, n int, args []any) error {
	if n == 0 {
		return nil
	}
	query := `INSERT INTO deliveries (` + newDeliveryTable.cols + `) VALUES ` + newDeliveryTable.values(n, false)
	if n > maxCreateBatch {
		_, err := tx.ExecContext(ctx, s.q(query), args...) // a rare size: not worth a statement kept
		return err
	}
	st, err := s.batchStmt(ctx, tx, query)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}

// batchQueryPG is a batch's one statement on PostgreSQL, whatever its size: the inquiries, the
// deliveries and the events each come as one array per column (pgArrays), unnested into rows.
// It is one statement in a transaction of its own (one round trip, no BEGIN or COMMIT), one
// prepared shape instead of one per row count, and the arguments are a few dozen arrays rather
// than a few thousand values. As in the lone create's statement (createQueries), the deliveries
// and events are written only for the inquiries the first insert inserted; ARRAY(SELECT key FROM
// ins) is computed once, before either of them writes a row, so the inquiries' insert — the one
// part that may wait, on a concurrent insert of the same (namespace, run_id, id) — is over
// before the events' numbering takes its lock (migration 00008), as when the events came last in
// the transaction.
var batchQueryPG = `WITH ins AS (
	INSERT INTO inquiries (` + inquiryTable.cols + `) SELECT * FROM unnest(` + inquiryTable.arrayMarks() + `)
	ON CONFLICT (namespace, run_id, id) DO NOTHING RETURNING key
), dl AS (
	INSERT INTO deliveries (` + newDeliveryTable.cols + `)
	SELECT * FROM unnest(` + newDeliveryTable.arrayMarks() + `) AS v (` + newDeliveryTable.cols + `)
	WHERE v.inquiry_key = ANY (ARRAY(SELECT key FROM ins))
), ev AS (
	INSERT INTO events (` + newEventTable.cols + `)
	SELECT * FROM unnest(` + newEventTable.arrayMarks() + `) AS v (` + newEventTable.cols + `)
	WHERE v.inquiry_key = ANY (ARRAY(SELECT key FROM ins))
)
SELECT key FROM ins`

// insertBatchPG is insertBatch on PostgreSQL: batchQueryPG.
func (s *Store) insertBatchPG(ctx context.Context, leaders []*createReq) (map[string]bool, error) {
	const step = "create the inquiries"
	rows := make([]*inquiryRow, len(leaders))
	var drows []*deliveryRow
	var erows []*eventRow
	for i, l := range leaders {
		rows[i] = l.row
		for _, d := range l.deliveries {
			drows = append(drows, newDeliveryRow(d, l.def))
		}
		for _, e := range l.evs {
			erows = append(erows, newEventRow(e))
		}
	}
	args := inquiryTable.pgArrays(rows)
	args = append(args, newDeliveryTable.pgArrays(drows)...)
	args = append(args, newEventTable.pgArrays(erows)...)
	st, err := s.prepared(ctx, batchQueryPG)
	if err != nil {
		return nil, translate(err, step)
	}
	res, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, translate(err, step)
	}
	defer res.Close()
	inserted := make(map[string]bool, len(leaders))
	for res.Next() {
		var key string
		if err := res.Scan(&key); err != nil {
			return nil, translate(err, step)
		}
		inserted[key] = true
	}
	if err := res.Err(); err != nil {
		return nil, translate(err, step)
	}
	return inserted, translate(res.Close(), step)
}

// arrayMarks is one placeholder per column, each cast to an array of its column's type:
// "?::text[], ?::boolean[], …", the arguments pgArrays gives.
func (t table[R]) arrayMarks() string {
	marks := make([]string, len(t.names))
	for i, typed := range strings.Split(t.typed, ", ") {
		marks[i] = typed + "[]"
	}
	return strings.Join(marks, ", ")
}

// pgArrays are rows as PostgreSQL arrays, one a column (in column order, see pgArray): the
// arguments of arrayMarks. The columns are read in place, through pointers to the fields, so
// no value is copied into an interface of its own.
func (t table[R]) pgArrays(rows []*R) []any {
	cols := make([][]byte, len(t.fields))
	for i := range cols {
		cols[i] = append(make([]byte, 0, 2+24*len(rows)), '{')
	}
	for j, row := range rows {
		v := reflect.ValueOf(row).Elem()
		for i, f := range t.fields {
			if j > 0 {
				cols[i] = append(cols[i], ',')
			}
			cols[i] = appendArrayItem(cols[i], v.FieldByIndex(f).Addr().Interface())
		}
	}
	args := make([]any, len(cols))
	for i, c := range cols {
		args[i] = string(append(c, '}'))
	}
	return args
}

// appendArrayItem appends v, a pointer to a column's value, to b as an item of a
// PostgreSQL array literal: NULL, or the text the value is sent as alone (driver.Valuer's, a
// time in timeLayout), double-quoted with its quotes and backslashes escaped. Quoted text is
// read by the input function of the array's item type, as a lone argument is.
func appendArrayItem(b []byte, v any) []byte {
	switch v := v.(type) {
	case *string:
		return appendArrayText(b, *v)
	case *bool:
		return appendArrayBool(b, *v)
	case *int:
		return strconv.AppendInt(b, int64(*v), 10)
	case *int64:
		return strconv.AppendInt(b, *v, 10)
	case *dbTime:
		return appendArrayTime(b, v.Time)
	case *nullTime:
		return appendArrayNullTime(b, *v)
	case *jsonCol:
		return appendArrayJSON(b, *v)
	}
	panic(fmt.Sprintf("storage: no array item of a %T", v)) // pgTypes has a type this does not
}

// appendArrayTime appends t as dbTime sends it.
func appendArrayTime(b []byte, t time.Time) []byte {
	return append(appendTimeLayout(append(b, '"'), norm(t)), '"')
}

// appendTimeLayout appends t (in UTC) in timeLayout, digit by digit for the years 0 to 9999
// (a batch writes a few times a row, and AppendFormat reads its layout every time).
func appendTimeLayout(b []byte, t time.Time) []byte {
	year, month, day := t.Date()
	if year < 0 || year > 9999 || t.Location() != time.UTC {
		return t.AppendFormat(b, timeLayout)
	}
	hour, minute, sec := t.Clock()
	digits := func(b []byte, v, n int) []byte {
		for d := n - 1; d >= 0; d-- {
			b = append(b, 0)
		}
		for i := len(b) - 1; i >= len(b)-n; i-- {
			b[i] = byte('0' + v%10)
			v /= 10
		}
		return b
	}
	b = append(digits(b, year, 4), '-')
	b = append(digits(b, int(month), 2), '-')
	b = append(digits(b, day, 2), 'T')
	b = append(digits(b, hour, 2), ':')
	b = append(digits(b, minute, 2), ':')
	b = append(digits(b, sec, 2), '.')
	return append(digits(b, t.Nanosecond()/1000, 6), 'Z')
}

// appendArrayNullTime appends t as nullTime sends it: NULL, or the time.
func appendArrayNullTime(b []byte, t nullTime) []byte {
	if !t.Valid {
		return append(b, "NULL"...)
	}
	return appendArrayTime(b, t.T)
}

// appendArrayJSON appends j as jsonCol sends it: NULL, or its text.
func appendArrayJSON(b []byte, j jsonCol) []byte {
	if j == nil {
		return append(b, "NULL"...)
	}
	return appendArrayText(b, j)
}

func appendArrayBool(b []byte, v bool) []byte {
	if v {
		return append(b, 't')
	}
	return append(b, 'f')
}

// appendArrayText appends s double-quoted, as an array literal quotes an item.
func appendArrayText[T string | jsonCol](b []byte, s T) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}
