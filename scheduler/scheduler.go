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
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/inquiry-bot/bot/inquiry"
)

// Stats is what one sweep did.
type Stats struct {
	Expired    int
	Reminded   int // inquiries whose reminder or escalation step was due (DESIGN §14)
	Abandoned  int
	Deliveries int
	Deleted    int
	Errors     int
	Duration   time.Duration
}

// Scheduler owns the jobs.
type Scheduler struct {
	Service    *inquiry.Service
	Dispatcher *inquiry.Dispatcher // nil: no delivery sweep
	// Schedule is the cron spec of the sweep (seconds allowed, descriptors like "@every 15s").
	Schedule   string
	StaleAfter time.Duration
	Retention  time.Duration // 0: keep everything
	// Batch bounds how many due inquiries one claim takes.
	Batch int
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
func (s *Scheduler) expire(ctx context.Context) (expired, errs int) {
	start := time.Now()
	batch := s.Batch
	if batch <= 0 {
		batch = 500
	}
	defer func() { s.observe("expire", expired, time.Since(start), nil) }()
	for ctx.Err() == nil {
		due, err := s.Service.Store.DueInquiries(ctx, s.Service.Clock(), batch)
		if err != nil {
			if ctx.Err() == nil {
				s.log().Warn("find due inquiries", "err", err)
			}
			return expired, errs + 1
		}
		// One transaction per batch; an inquiry another replica (or a person) resolved first is
		// skipped by the conditional update.
		n, err := s.Service.ExpireMany(ctx, due)
		if err == nil {
			expired += n
		} else {
			if ctx.Err() != nil {
				return expired, errs + 1
			}
			// The batch failed as a whole: expire its inquiries one by one, so that one that
			// cannot be resolved does not hold the others back.
			s.log().Warn("expire inquiries", "count", len(due), "err", err)
			progress := 0
			for _, rec := range due {
				_, err := s.Service.Expire(ctx, rec)
				switch inquiry.ErrorCode(err) {
				case "":
					expired++
					progress++
				case inquiry.CodeAlreadyResolved, inquiry.CodeNotFound:
					progress++ // another replica (or a person) was first
				default:
					errs++
					s.log().Warn("expire inquiry", "key", rec.Key, "err", err)
				}
			}
			if progress == 0 {
				return expired, errs
			}
		}
		if len(due) < batch {
			return expired, errs
		}
	}
	return expired, errs
}
