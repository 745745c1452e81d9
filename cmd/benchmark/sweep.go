package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/dispatch"
	"github.com/inquiry-bot/bot/scheduler"
	"github.com/inquiry-bot/bot/storage"
)

// sweepResult is what the sweeper measurement found.
type sweepResult struct {
	small, big         int           // pending inquiries of the two idle sweeps
	idleSmall, idleBig time.Duration // median of a whole idle Sweep
	dueSmall, dueBig   time.Duration // median of DueInquiries alone
	expireN            int
	expired            int
	expire             time.Duration // one Sweep that expires expireN due inquiries
	commitFloor        time.Duration // expireN one-row UPDATE transactions from one connection
	floorN             int           // how many the floor ran (scaled to expireN)
	concurrent         time.Duration // the experiment: expireN expired by expireWorkers at once
	concurrentN        int
	batched            time.Duration // expireN rows resolved by UPDATEs of 500 keys each
	// idleDeliveries is the idle sweep over big pending inquiries and as many finished
	// deliveries (the posts those questions took); idleDeliveriesNoIndex the same without the
	// index retention's delete of finished deliveries uses (as before migration 00004).
	idleDeliveries, idleDeliveriesNoIndex time.Duration
	retentionPlan, retentionPlanNoIndex   string
}

// returningCols is what Resolve reads back of a resolved inquiry.
const returningCols = `key, namespace, run_id, id, kind, question, context, options, multiple, allow_text,
	default_value, expires_at, policy, transport, status, answer, slack_channel, slack_thread_ts, slack_ts,
	slack_permalink, slack_answerers, callback_url, failure, created_at, resolved_at, parked_run`

// expireWorkers is how many Service.Expire calls the concurrency experiment runs at once.
const expireWorkers = 16

// measureSweeps runs the scheduler's Sweep in this process, as `bot serve` runs it (the store,
// the service, a dispatcher, stale runs and retention on), against a database of its own:
// idle over small then big pending inquiries (bulk-inserted, expiring in the future), then
// expiring expireN due ones among them.
func measureSweeps(ctx context.Context, dbURL string, small, big, expireN, reps int) (sweepResult, error) {
	res := sweepResult{small: small, big: big, expireN: expireN}
	st, err := storage.Open(ctx, dbURL)
	if err != nil {
		return res, err
	}
	defer st.Close()
	raw, err := sql.Open("postgres", dbURL)
	if err != nil {
		return res, err
	}
	defer raw.Close()
	raw.SetMaxOpenConns(2)

	// The bot logs every expiry as JSON; here the lines are formatted and dropped.
	quiet := slog.New(slog.NewJSONHandler(io.Discard, nil))
	svc := inquiry.NewService(st, inquiry.NewRegistry())
	svc.Log = quiet
	sch := &scheduler.Scheduler{
		Service: svc, Dispatcher: &dispatch.Dispatcher{Store: st, Handlers: svc.TransportHandlers(), Log: quiet},
		StaleAfter: 10 * time.Minute, Retention: 2160 * time.Hour, Log: quiet,
	}
	future := time.Now().Add(30 * 24 * time.Hour)

	idle := func() (sweep, due time.Duration, err error) {
		var sweeps, dues []time.Duration
		for i := range reps + 2 {
			s := sch.Sweep(ctx)
			if s.Errors > 0 || s.Expired > 0 {
				return 0, 0, fmt.Errorf("an idle sweep did something: %+v", s)
			}
			t := time.Now()
			rows, err := st.DueInquiries(ctx, svc.Clock(), nil, 500)
			d := time.Since(t)
			if err != nil {
				return 0, 0, err
			}
			if len(rows) != 0 {
				return 0, 0, fmt.Errorf("%d inquiries are due in an idle sweep", len(rows))
			}
			if i >= 2 { // two warm-ups
				sweeps, dues = append(sweeps, s.Duration), append(dues, d)
			}
		}
		return median(sweeps), median(dues), nil
	}
	analyze := func() error {
		_, err := raw.ExecContext(ctx, "VACUUM ANALYZE inquiries")
		return err
	}

	progress("  inserting %d pending inquiries", small)
	if err := bulkPending(ctx, raw, 1, small, "bench", future); err != nil {
		return res, err
	}
	if err := analyze(); err != nil {
		return res, err
	}
	if res.idleSmall, res.dueSmall, err = idle(); err != nil {
		return res, err
	}
	progress("  inserting %d more pending inquiries (%d in all)", big-small, big)
	if err := bulkPending(ctx, raw, small+1, big, "bench", future); err != nil {
		return res, err
	}
	if err := analyze(); err != nil {
		return res, err
	}
	if res.idleBig, res.dueBig, err = idle(); err != nil {
		return res, err
	}

	progress("  expiring %d due inquiries among %d pending", expireN, big)
	if err := bulkPending(ctx, raw, 1, expireN, "due", time.Now().Add(-time.Hour)); err != nil {
		return res, err
	}
	if err := analyze(); err != nil {
		return res, err
	}
	s := sch.Sweep(ctx)
	res.expired, res.expire = s.Expired, s.Duration
	if s.Errors > 0 {
		return res, fmt.Errorf("the expiring sweep had %d errors", s.Errors)
	}

	// The experiment: what expiring with a worker pool would take — the same count of due
	// inquiries, each still resolved by its own Service.Expire (its own transaction), expireWorkers
	// at a time, so that PostgreSQL commits them in groups.
	progress("  experiment: expiring %d due inquiries %d at a time", expireN, expireWorkers)
	if err := bulkPending(ctx, raw, 1, expireN, "due2", time.Now().Add(-time.Hour)); err != nil {
		return res, err
	}
	if err := analyze(); err != nil {
		return res, err
	}
	t := time.Now()
	for range expireN/500 + 2 { // bounded: batches of 500
		due, err := st.DueInquiries(ctx, svc.Clock(), nil, 500)
		if err != nil {
			return res, err
		}
		if len(due) == 0 {
			break
		}
		var n atomic.Int64
		eachIndex(ctx, expireWorkers, len(due), func(i int) {
			if _, err := svc.Expire(ctx, due[i]); err == nil {
				n.Add(1)
			}
		})
		res.concurrentN += int(n.Load())
	}
	res.concurrent = time.Since(t)

	// The floor of resolving one inquiry per transaction, one after another: one-row UPDATE
	// transactions on the same table, from one connection, with nothing else in them; floorN of
	// them, scaled to expireN.
	res.floorN = min(expireN, 2000)
	progress("  %d one-row UPDATE transactions (the commit floor)", res.floorN)
	conn, err := raw.Conn(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Close()
	t = time.Now()
	for i := 1; i <= res.floorN; i++ {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return res, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE inquiries SET resolved_at = now() WHERE key = $1`, fmt.Sprintf("inq_bench_%d", i)); err != nil {
			tx.Rollback()
			return res, err
		}
		if err := tx.Commit(); err != nil {
			return res, err
		}
	}
	res.commitFloor = time.Since(t) * time.Duration(expireN) / time.Duration(res.floorN)

	// The floor of a batched resolution: expireN pending rows moved to expired with an answer by
	// UPDATEs of 500 keys each, a transaction each, RETURNING the rows as Resolve does.
	progress("  %d rows resolved by UPDATEs of 500 keys (the batched floor)", expireN)
	t = time.Now()
	for lo := 1; lo <= expireN; lo += 500 {
		keys := make([]string, 0, 500)
		for i := lo; i < lo+500 && i <= expireN; i++ {
			keys = append(keys, fmt.Sprintf("inq_bench_%d", i))
		}
		rows, err := raw.QueryContext(ctx, `UPDATE inquiries SET status = 'expired',
				answer = '{"value":"hold","source":"expired"}', resolved_at = now()
			WHERE key = ANY($1) AND status = 'pending' RETURNING `+returningCols, pq.Array(keys))
		if err != nil {
			return res, err
		}
		for rows.Next() {
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return res, err
		}
	}
	res.batched = time.Since(t)

	// The idle sweep again, now with as many finished deliveries as pending inquiries — the posts
	// that showed big questions in Slack, done a day ago and kept until retention — with the
	// bot's schema (since migration 00004 an index serves retention's DELETE of finished
	// deliveries), then without that index, as before the migration: the bound.
	progress("  inserting %d finished deliveries", big)
	const chunk = 200_000
	for lo := 1; lo <= big; lo += chunk {
		hi := min(big, lo+chunk-1)
		if _, err := raw.ExecContext(ctx, `INSERT INTO deliveries (kind, inquiry_key, namespace, run_id, target,
				lane, status, attempts, next_attempt_at, last_error, created_at, updated_at)
			SELECT 'post', 'inq_bench_' || g, 'bench', '', 'slack', 'C0DEPLOYS', 'done', 1, $3::timestamptz, '',
				$3::timestamptz, $3::timestamptz
			FROM generate_series($1::int, $2::int) AS g`, lo, hi, time.Now().Add(-24*time.Hour).UTC()); err != nil {
			return res, err
		}
	}
	if _, err := raw.ExecContext(ctx, "VACUUM ANALYZE deliveries"); err != nil {
		return res, err
	}
	retentionPlan := func() string {
		var plan []string
		rows, err := raw.QueryContext(ctx, `EXPLAIN DELETE FROM deliveries WHERE status <> 'pending' AND updated_at < $1`, time.Now().Add(-2160*time.Hour).UTC())
		if err != nil {
			return err.Error()
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if rows.Scan(&line) == nil {
				plan = append(plan, strings.TrimSpace(line))
			}
		}
		return strings.Join(plan, "; ")
	}
	if res.idleDeliveries, _, err = idle(); err != nil {
		return res, err
	}
	res.retentionPlan = retentionPlan()
	if _, err := raw.ExecContext(ctx, `DROP INDEX IF EXISTS deliveries_finished`); err != nil {
		return res, err
	}
	if _, err := raw.ExecContext(ctx, "ANALYZE deliveries"); err != nil {
		return res, err
	}
	if res.idleDeliveriesNoIndex, _, err = idle(); err != nil {
		return res, err
	}
	res.retentionPlanNoIndex = retentionPlan()
	return res, nil
}
