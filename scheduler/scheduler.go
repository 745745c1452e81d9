// Package scheduler runs the cron jobs of the inquiry bot on robfig/cron/v3: the expiry sweep
// (an inquiry nobody answered in time gets its default, or a decline, labelled expired), the
// deadline sweep (reminders and escalation steps that are due are claimed and sent once), the
// stale-run sweep (a running run whose heartbeat stopped is abandoned; a waiting run is never
// touched), the delivery sweep (work left behind by a crash or a failure is retried), and
// retention (old resolved inquiries are deleted).
//
// Every job is safe with several replicas running at once: claims are SKIP LOCKED selects or
// conditional updates in the store, so no inquiry is resolved twice and no delivery sent twice.
package scheduler

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/dispatch"
)

// Stats is what one sweep did.
type Stats struct {
	Expired    int
	Reminded   int // inquiries whose reminder or escalation step was due (the README's Deadlines)
	Abandoned  int
	Deliveries int
	Deleted    int
	Errors     int
	Duration   time.Duration
}

// Scheduler owns the jobs.
type Scheduler struct {
	Service    *inquiry.Service
	Dispatcher *dispatch.Dispatcher // nil: no delivery sweep
	// Schedule is the cron spec of the sweep (seconds allowed, descriptors like "@every 15s").
	Schedule   string
	StaleAfter time.Duration
	Retention  time.Duration // 0: keep everything
	// Batch bounds how many due inquiries one transaction of the expiry sweep resolves (0: 500).
	Batch int
	// Workers is how many such batches the expiry sweep resolves at once (0: 2).
	Workers int
	// Observe, when set, hears each job's figures (for metrics).
	Observe func(job string, count int, d time.Duration, err error)
	Log     *slog.Logger

	mu   sync.Mutex // one sweep at a time in this process
	cron *cron.Cron
}

// Parser accepts five fields, an optional leading seconds field, and descriptors.
var Parser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

func (s *Scheduler) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// Start schedules the sweep. Stop ends it.
func (s *Scheduler) Start(ctx context.Context) error {
	s.cron = cron.New(cron.WithParser(Parser), cron.WithChain(cron.SkipIfStillRunning(cron.DiscardLogger)))
	if _, err := s.cron.AddFunc(s.Schedule, func() { s.Sweep(ctx) }); err != nil {
		return err
	}
	s.cron.Start()
	return nil
}

// Stop stops scheduling and waits for a running sweep to finish, or for ctx to end.
func (s *Scheduler) Stop(ctx context.Context) {
	if s.cron == nil {
		return
	}
	select {
	case <-s.cron.Stop().Done():
	case <-ctx.Done():
	}
}

// Sweep runs every job once: expiry, stale runs, deliveries, retention.
func (s *Scheduler) Sweep(ctx context.Context) Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	var st Stats
	st.Expired, st.Errors = s.expire(ctx)
	// After the expiry, so that nothing is reminded of an inquiry that has just expired.
	st.Reminded = s.job(ctx, "deadlines", func() (int, error) { return s.Service.SweepDeadlines(ctx, s.Batch) })
	st.Abandoned = s.job(ctx, "stale", func() (int, error) {
		if s.StaleAfter <= 0 {
			return 0, nil
		}
		return s.Service.SweepStale(ctx, s.StaleAfter)
	})
	st.Deliveries = s.job(ctx, "deliveries", func() (int, error) {
		if s.Dispatcher == nil {
			return 0, nil
		}
		return s.Dispatcher.Drain(ctx)
	})
	st.Deleted = s.job(ctx, "retention", func() (int, error) {
		if s.Retention <= 0 {
			return 0, nil
		}
		return s.Service.Store.DeleteResolvedBefore(ctx, s.Service.Clock().Add(-s.Retention))
	})
	st.Duration = time.Since(start)
	s.log().Info("sweep", "expired", st.Expired, "reminded", st.Reminded, "abandoned", st.Abandoned, "deliveries", st.Deliveries,
		"deleted", st.Deleted, "errors", st.Errors, "duration_ms", float64(st.Duration.Microseconds())/1000)
	s.observe("sweep", st.Expired+st.Abandoned+st.Deliveries+st.Deleted, st.Duration, nil)
	return st
}

func (s *Scheduler) job(ctx context.Context, name string, f func() (int, error)) int {
	start := time.Now()
	n, err := f()
	s.observe(name, n, time.Since(start), err)
	if err != nil && ctx.Err() == nil {
		s.log().Warn("sweep job failed", "job", name, "err", err)
	}
	return n
}

func (s *Scheduler) observe(job string, n int, d time.Duration, err error) {
	if s.Observe != nil {
		s.Observe(job, n, d, err)
	}
}

// expire resolves every due inquiry with its default (or a decline), batch after batch, each
// batch in one transaction. An inquiry another replica resolved first is skipped: the
// conditional update decides.
//
// A reader takes the due inquiries a batch at a time, each read after the last inquiry of the
// one before (a keyset cursor: a batch still being resolved is not read again), and Workers
// batches are resolved at once, each in its own transaction. A batch's work is about half this
// process's (decoding the records, building the defaults and events) and half the database's
// (the UPDATE, the events' INSERT, the commit), so while one batch waits on the database the next
// is read and another built (row 6c of cmd/benchmark). The batches hold disjoint rows, so they
// never wait on one another's locks. An inquiry that could not be resolved is left behind by the
// cursor, for the next sweep; a batch none of whose inquiries could be resolved ends the sweep.
func (s *Scheduler) expire(ctx context.Context) (expired, errs int) {
	start := time.Now()
	batch := cmp.Or(max(s.Batch, 0), 500)
	workers := cmp.Or(max(s.Workers, 0), defaultExpireWorkers)
	defer func() { s.observe("expire", expired, time.Since(start), nil) }()
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		batches = make(chan []*inquiry.Record) // the reader is at most one batch ahead
		// failing is set by a batch that could not expire any of its inquiries one by one
		// either (the database refuses writes: a failover, a full disk): the sweep ends there
		// rather than trying every due inquiry of the backlog, each with its own failure.
		failing atomic.Bool
	)
	for range workers {
		wg.Go(func() {
			for due := range batches {
				if failing.Load() {
					continue // drained, not tried: the next sweep reads them again
				}
				n, e, moved := s.expireBatch(ctx, due)
				if !moved && e > 0 {
					failing.Store(true)
				}
				mu.Lock()
				expired, errs = expired+n, errs+e
				mu.Unlock()
			}
		})
	}
	readErrs := 0
	var after *inquiry.Record
	for ctx.Err() == nil && !failing.Load() {
		due, err := s.Service.Store.DueInquiries(ctx, s.Service.Clock(), after, batch)
		if err != nil {
			if ctx.Err() == nil {
				s.log().Warn("find due inquiries", "err", err)
			}
			readErrs++
			break
		}
		if len(due) == 0 {
			break
		}
		batches <- due
		if len(due) < batch {
			break
		}
		after = due[len(due)-1]
	}
	close(batches)
	wg.Wait()
	return expired, errs + readErrs
}

// defaultExpireWorkers is how many batches the expiry sweep resolves at once: two keep this
// process and the database busy at the same time.
const defaultExpireWorkers = 2

// expireBatch expires due in one transaction, or, if the batch fails as a whole, its inquiries
// one by one, so that one that cannot be resolved does not hold the others back. It returns how
// many it expired, how many failed, and whether any of them moved (expired, or resolved first
// by someone else).
func (s *Scheduler) expireBatch(ctx context.Context, due []*inquiry.Record) (expired, errs int, moved bool) {
	n, err := s.Service.ExpireMany(ctx, due)
	if err == nil {
		return n, 0, true
	}
	if ctx.Err() != nil {
		return 0, 1, false
	}
	s.log().Warn("expire inquiries", "count", len(due), "err", err)
	for _, rec := range due {
		if ctx.Err() != nil {
			return expired, errs + 1, moved
		}
		_, err := s.Service.Expire(ctx, rec)
		switch inquiry.ErrorCode(err) {
		case "":
			expired++
			moved = true
		case inquiry.CodeAlreadyResolved, inquiry.CodeNotFound:
			moved = true // another replica (or a person) was first
		default:
			errs++
			s.log().Warn("expire inquiry", "key", rec.Key, "err", err)
		}
	}
	return expired, errs, moved
}
