package storage

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/jmoiron/sqlx"
)

// deliveryRow is a deliveries row as SQL sees it: its tags are the delivery columns.
type deliveryRow struct {
	ID            int64  `db:"id"`
	Kind          string `db:"kind"`
	InquiryKey    string `db:"inquiry_key"`
	Namespace     string `db:"namespace"`
	RunID         string `db:"run_id"`
	Target        string `db:"target"`
	Lane          string `db:"lane"`
	Status        string `db:"status"`
	Attempts      int    `db:"attempts"`
	NextAttemptAt dbTime `db:"next_attempt_at"`
	LastError     string `db:"last_error"`
	CreatedAt     dbTime `db:"created_at"`
	UpdatedAt     dbTime `db:"updated_at"`
	Step          int    `db:"step"`
}

// deliveryTable is the delivery columns; newDeliveryTable those a new delivery is written with
// (the id is the database's).
var deliveryTable, newDeliveryTable = tableOf[deliveryRow](), tableOf[deliveryRow]("id")

func (r *deliveryRow) delivery() inquiry.Delivery {
	return inquiry.Delivery{
		ID: r.ID, Kind: inquiry.DeliveryKind(r.Kind), InquiryKey: r.InquiryKey, Namespace: r.Namespace,
		RunID: r.RunID, Target: r.Target, Lane: r.Lane, Status: inquiry.DeliveryStatus(r.Status),
		Attempts: r.Attempts, NextAttemptAt: r.NextAttemptAt.Time, LastError: r.LastError,
		CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time, Step: r.Step,
	}
}

func deliveries(rows []deliveryRow) []inquiry.Delivery {
	ds := make([]inquiry.Delivery, len(rows))
	for i := range rows {
		ds[i] = rows[i].delivery()
	}
	return ds
}

// deliveryDefaults fill what a delivery leaves empty: the inquiry it follows, and the time.
type deliveryDefaults struct {
	key, namespace, runID string
	now                   time.Time
}

// deliveryBatch bounds the rows of one INSERT (an argument per column each), under every
// dialect's limit on arguments.
const deliveryBatch = 500

// deliveryArgs are the arguments of newDeliveryTable.values(len(ds), …).
func deliveryArgs(ds []inquiry.Delivery, def deliveryDefaults) []any {
	args := make([]any, 0, len(newDeliveryTable.names)*len(ds))
	for _, d := range ds {
		args = append(args, newDeliveryTable.args(newDeliveryRow(d, def))...)
	}
	return args
}

// newDeliveryRow is the row d is written as, with def's defaults.
func newDeliveryRow(d inquiry.Delivery, def deliveryDefaults) *deliveryRow {
	d = withDefaults(d, def)
	return &deliveryRow{Kind: string(d.Kind), InquiryKey: d.InquiryKey,
		Namespace: d.Namespace, RunID: d.RunID, Target: d.Target, Lane: d.Lane, Status: string(d.Status),
		Attempts: d.Attempts, NextAttemptAt: at(d.NextAttemptAt), LastError: d.LastError,
		CreatedAt: at(d.CreatedAt), UpdatedAt: at(d.UpdatedAt), Step: d.Step}
}

// insertDeliveries stores ds with multi-row INSERTs (one for the usual handful). An empty status
// is pending; an empty NextAttemptAt is due at once (at the creation time, def.now when the
// delivery has none). The store keeps no clock of its own: a delivery without a time is refused.
func (s *Store) insertDeliveries(ctx context.Context, x sqlx.ExecerContext, ds []inquiry.Delivery, def deliveryDefaults) error {
	for _, d := range ds {
		if d.CreatedAt.IsZero() && def.now.IsZero() {
			return errNoTime
		}
	}
	for len(ds) > 0 {
		batch := ds[:min(len(ds), deliveryBatch)]
		ds = ds[len(batch):]
		query := `INSERT INTO deliveries (` + newDeliveryTable.cols + `) VALUES ` + newDeliveryTable.values(len(batch), false)
		if _, err := x.ExecContext(ctx, s.q(query), deliveryArgs(batch, def)...); err != nil {
			return err
		}
	}
	return nil
}

func withDefaults(d inquiry.Delivery, def deliveryDefaults) inquiry.Delivery {
	d.InquiryKey = cmp.Or(d.InquiryKey, def.key)
	d.Namespace = cmp.Or(d.Namespace, def.namespace)
	d.RunID = cmp.Or(d.RunID, def.runID)
	d.Status = cmp.Or(d.Status, inquiry.DeliveryPending)
	if d.CreatedAt.IsZero() {
		d.CreatedAt = def.now
	}
	if d.UpdatedAt.IsZero() {
		d.UpdatedAt = d.CreatedAt
	}
	if d.NextAttemptAt.IsZero() {
		d.NextAttemptAt = d.CreatedAt
	}
	return d
}

// EnqueueDeliveries stores deliveries on their own, in one transaction.
func (s *Store) EnqueueDeliveries(ctx context.Context, ds []inquiry.Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	return s.inTx(ctx, "enqueue deliveries", func(tx *sqlx.Tx) error {
		return s.insertDeliveries(ctx, tx, ds, deliveryDefaults{})
	})
}

// claimLock is the PostgreSQL advisory lock that makes claims take turns (see ClaimDeliveries).
const claimLock = 0x696e7175697279 // "inquiry"

// ClaimDeliveries claims up to limit pending deliveries due at now, in id order: it moves their
// NextAttemptAt to now+lease (a claimer that dies releases them when the lease runs out) and
// counts an attempt, in one statement.
//
// A lane's deliveries go out in order: a delivery with a lane is claimed only when no earlier
// pending delivery of its lane is held back — not due yet (a retry, or under another claim's
// lease) or of a kind this claim does not take. So a dispatcher that pushes a rate-limited
// delivery back holds the rest of its channel, claimed or not, and two dispatchers never work
// on one lane at once.
//
// On PostgreSQL the rows are picked FOR UPDATE SKIP LOCKED, and claims take turns on an advisory
// lock held for the few milliseconds of the claim: a claim must see the leases of the claim before
// it for the lane rule to hold across replicas. On SQLite the statement holds the write lock.
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int, kinds ...inquiry.DeliveryKind) ([]inquiry.Delivery, error) {
	out, err := s.ClaimDeliveriesEach(ctx, now, lease, []inquiry.DeliveryClaim{{Limit: limit, Kinds: kinds}})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// ClaimDeliveriesEach makes each of claims as ClaimDeliveries would, one after another: on
// PostgreSQL in one transaction, under one turn of the advisory lock (BEGIN, the lock, a claim
// statement each, COMMIT — where a claim alone is four statements), so that a dispatcher claims
// its classes of work for the price of about one claim. A claim later in the list sees the leases
// of those before it. out[i] is what claims[i] claimed, in id order.
func (s *Store) ClaimDeliveriesEach(ctx context.Context, now time.Time, lease time.Duration, claims []inquiry.DeliveryClaim) ([][]inquiry.Delivery, error) {
	out := make([][]inquiry.Delivery, len(claims))
	queries := make([]string, len(claims))
	args := make([][]any, len(claims))
	for i, c := range claims {
		queries[i], args[i] = s.claimQuery(now, lease, c)
	}
	rows := make([][]deliveryRow, len(claims))
	if s.postgres() {
		err := s.inTx(ctx, "claim due deliveries", func(tx *sqlx.Tx) error {
			if _, err := tx.ExecContext(ctx, s.q(`SELECT pg_advisory_xact_lock(?)`), claimLock); err != nil {
				return err
			}
			for i := range claims {
				rows[i] = nil
				if err := tx.SelectContext(ctx, &rows[i], s.q(queries[i]), args[i]...); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		for i := range claims {
			if err := s.db.SelectContext(ctx, &rows[i], queries[i], args[i]...); err != nil {
				return nil, translate(err, "claim due deliveries")
			}
		}
	}
	for i := range rows {
		out[i] = deliveries(rows[i])
		slices.SortFunc(out[i], func(a, b inquiry.Delivery) int { return cmp.Compare(a.ID, b.ID) })
	}
	return out, nil
}

// claimQuery is the statement of one claim (see ClaimDeliveries) and its arguments: on
// PostgreSQL written with ? placeholders (the transaction rebinds it), on SQLite as it runs.
func (s *Store) claimQuery(now time.Time, lease time.Duration, c inquiry.DeliveryClaim) (string, []any) {
	limit := c.Limit
	if limit <= 0 {
		limit = inquiry.DefaultListLimit
	}
	kindArgs := make([]any, len(c.Kinds))
	for i, k := range c.Kinds {
		kindArgs[i] = string(k)
	}
	pick := `SELECT c.id FROM deliveries c WHERE c.status = 'pending' AND c.next_attempt_at <= ?`
	pickArgs := []any{at(now)}
	held := `e.next_attempt_at > ?`
	heldArgs := []any{at(now)}
	if len(c.Kinds) > 0 {
		pick += ` AND c.kind IN (` + placeholders(len(c.Kinds)) + `)`
		pickArgs = append(pickArgs, kindArgs...)
		held += ` OR e.kind NOT IN (` + placeholders(len(c.Kinds)) + `)`
		heldArgs = append(heldArgs, kindArgs...)
	}
	pick += ` AND (c.lane = '' OR NOT EXISTS (SELECT 1 FROM deliveries e
			WHERE e.status = 'pending' AND e.lane = c.lane AND e.lane <> '' AND e.id < c.id AND (` + held + `)))
		ORDER BY c.id LIMIT ?`
	pickArgs = append(append(pickArgs, heldArgs...), limit)
	setArgs := []any{at(now.Add(lease)), at(now)}
	if s.postgres() {
		return `WITH picked AS (` + pick + ` FOR UPDATE SKIP LOCKED)
			UPDATE deliveries d SET next_attempt_at = ?, attempts = d.attempts + 1, updated_at = ?
			FROM picked WHERE d.id = picked.id
			RETURNING ` + deliveryTable.prefixed("d."), append(pickArgs, setArgs...)
	}
	return `UPDATE deliveries SET next_attempt_at = ?, attempts = attempts + 1, updated_at = ?
			WHERE id IN (` + pick + `)
			RETURNING ` + deliveryTable.cols, append(setArgs, pickArgs...)
}

// CompleteDelivery marks a delivery done.
// A callback's or a resume's is recorded (callback_delivered) in the same transaction.
func (s *Store) CompleteDelivery(ctx context.Context, id int64, now time.Time) error {
	return s.endDelivery(ctx, "complete the delivery", id, true, "", now,
		`UPDATE deliveries SET status = 'done', updated_at = ?`, at(now))
}

// RetryDelivery puts a delivery back for another attempt at next, with the error.
func (s *Store) RetryDelivery(ctx context.Context, id int64, next time.Time, lastErr string, now time.Time) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE deliveries SET status = 'pending', next_attempt_at = ?, last_error = ?, updated_at = ?
		WHERE id = ?`), at(next), lastErr, at(now), id)
	return s.oneRow(res, err, "reschedule the delivery", "no such delivery")
}

// FailDelivery gives a delivery up, keeping the error visible.
// A callback's or a resume's is recorded (callback_failed, with the error) in the same
// transaction.
func (s *Store) FailDelivery(ctx context.Context, id int64, lastErr string, now time.Time) error {
	return s.endDelivery(ctx, "give the delivery up", id, false, lastErr, now,
		`UPDATE deliveries SET status = 'failed', last_error = ?, updated_at = ?`, lastErr, at(now))
}

// ListDeliveries lists the deliveries of an inquiry in id order.
func (s *Store) ListDeliveries(ctx context.Context, inquiryKey string) ([]inquiry.Delivery, error) {
	var rows []deliveryRow
	if err := s.db.SelectContext(ctx, &rows, s.q(`SELECT `+deliveryTable.cols+` FROM deliveries WHERE inquiry_key = ? ORDER BY id`), inquiryKey); err != nil {
		return nil, translate(err, "list deliveries")
	}
	return deliveries(rows), nil
}

// CountDeliveries counts deliveries with status ("" for all).
func (s *Store) CountDeliveries(ctx context.Context, status inquiry.DeliveryStatus) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, s.q(`SELECT count(*) FROM deliveries WHERE ? = '' OR status = ?`), string(status), string(status))
	return n, translate(err, "count deliveries")
}

// insertDeliveriesQuery is the INSERT of n new deliveries, given by deliveryArgs.
func insertDeliveriesQuery(n int) string {
	return `INSERT INTO deliveries (` + newDeliveryTable.cols + `) VALUES ` + newDeliveryTable.values(n, false)
}

// maxValuesRows is the most events one VALUES list inserts on PostgreSQL: the few rows of one
// answer or one delivery's end are the common case; past it (a sweep's hundreds) one array a
// column is one text for every count, where a VALUES list of hundreds of rows would be parsed
// and planned each time, its thousands of arguments converted one by one.
const maxValuesRows = 8
