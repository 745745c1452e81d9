package scheduler_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/dispatch"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/internal/wake"
	"github.com/inquiry-bot/bot/scheduler"
	"github.com/inquiry-bot/bot/storage"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// replica is one bot process: its own store connection, service, dispatcher and sweeper.
type replica struct {
	store *storage.Store
	svc   *inquiry.Service
	hub   *wake.Hub // the service's
	disp  *dispatch.Dispatcher
	sched *scheduler.Scheduler
}

func newReplica(t *testing.T, dbURL string, c *testkit.Clock) *replica {
	t.Helper()
	st, err := storage.Open(context.Background(), dbURL)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	svc := inquiry.NewService(st, inquiry.NewRegistry())
	svc.Now, svc.Log = c.Now, quiet
	hub := wake.NewHub()
	svc.Hub = hub
	gw := gateway.New(gateway.Config{
		Service: svc, Logger: quiet, CallbackHosts: []string{"127.0.0.1"},
		CallbackSecret: func() []byte { return []byte("secret") },
	})
	handlers := svc.TransportHandlers()
	maps.Copy(handlers, gw.DeliveryHandlers())
	d := &dispatch.Dispatcher{Store: st, Handlers: handlers, Now: c.Now, Log: quiet}
	return &replica{store: st, svc: svc, hub: hub, disp: d, sched: &scheduler.Scheduler{
		Service: svc, Dispatcher: d, Schedule: "@every 1s", StaleAfter: 10 * time.Minute, Log: quiet,
	}}
}

func choice(id string, expires time.Time, def string) inquiry.AskRequest {
	in := inquiry.Inquiry{ID: id, Kind: inquiry.KindChoice, Question: "Merge now?", ExpiresAt: &expires,
		Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}}}
	if def != "" {
		in.Default = inquiry.One(def)
	}
	return inquiry.AskRequest{Namespace: "ns", Inquiry: in, Config: &inquiry.Config{Policy: inquiry.PolicyAsk}}
}

func TestExpiry(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		c := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
		r := newReplica(t, dbURL, c)
		at := c.Now().Add(time.Hour)
		with, _, err := r.svc.Ask(ctx, choice("with-default", at, "hold"))
		require.NoError(t, err)
		without, _, err := r.svc.Ask(ctx, choice("without-default", at, ""))
		require.NoError(t, err)
		later, _, err := r.svc.Ask(ctx, choice("later", at.Add(time.Second), "merge"))
		require.NoError(t, err)

		c.Add(time.Hour - time.Second)
		st := r.sched.Sweep(ctx)
		require.Equal(t, 0, st.Expired, "one second before its expiry an inquiry is left alone")

		c.Add(time.Second)
		st = r.sched.Sweep(ctx)
		require.Equal(t, 2, st.Expired)

		got, err := r.svc.Get(ctx, with.Key)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusExpired, got.Status)
		require.Equal(t, inquiry.SourceExpired, got.Answer.Source)
		require.False(t, got.Answer.Declined)
		require.Equal(t, "hold", got.Answer.Value.First())

		got, err = r.svc.Get(ctx, without.Key)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusExpired, got.Status)
		require.True(t, got.Answer.Declined, "no default: an expiry is a decline")
		require.Equal(t, inquiry.SourceExpired, got.Answer.Source)

		got, err = r.svc.Get(ctx, later.Key)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusPending, got.Status)

		// A person who answers after the expiry changes nothing.
		_, err = r.svc.Answer(ctx, with.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
		require.ErrorIs(t, err, inquiry.ErrAlreadyResolved)
		require.Contains(t, inquiry.ErrorMessage(err), "expired")
	})
}

// TestExpiryInConcurrentBatches expires more due inquiries than several batches hold, some of
// them at the same instant, with batches resolved at once (Workers) and each read after the
// last one of the batch before: every due inquiry is expired exactly once, with one expired
// event, and the one not yet due is left alone.
func TestExpiryInConcurrentBatches(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		c := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
		r := newReplica(t, dbURL, c)
		r.sched.Batch, r.sched.Workers = 4, 3
		var due []string
		for i := range 23 {
			rec, _, err := r.svc.Ask(ctx, choice(fmt.Sprintf("q%d", i), c.Now().Add(time.Duration(i/5+1)*time.Second), "hold"))
			require.NoError(t, err)
			due = append(due, rec.Key)
		}
		later, _, err := r.svc.Ask(ctx, choice("later", c.Now().Add(time.Hour), "hold"))
		require.NoError(t, err)

		c.Add(time.Minute)
		st := r.sched.Sweep(ctx)
		require.Equal(t, 23, st.Expired)
		require.Zero(t, st.Errors)
		for _, k := range due {
			got, err := r.svc.Get(ctx, k)
			require.NoError(t, err)
			require.Equal(t, inquiry.StatusExpired, got.Status)
			evs, err := r.store.InquiryEvents(ctx, k)
			require.NoError(t, err)
			n := 0
			for _, e := range evs {
				if e.Type == inquiry.EventExpired {
					n++
				}
			}
			require.Equal(t, 1, n, "one expired event for %s", k)
		}
		got, err := r.svc.Get(ctx, later.Key)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusPending, got.Status)
		require.Zero(t, r.sched.Sweep(ctx).Expired, "nothing is left to expire")
	})
}

// refusingWrites is a store whose resolutions all fail, as a database that refuses writes
// (a failover in progress, a full disk) does; it counts the attempts.
type refusingWrites struct {
	inquiry.Store
	attempts atomic.Int64
}

var errRefused = errors.New("the database refuses writes")

func (r *refusingWrites) ResolveMany(context.Context, []inquiry.ResolveItem) ([]*inquiry.Record, error) {
	r.attempts.Add(1)
	return nil, errRefused
}

func (r *refusingWrites) Resolve(context.Context, string, inquiry.Resolution) (*inquiry.Record, error) {
	r.attempts.Add(1)
	return nil, errRefused
}

// TestExpiryEndsWhenNothingCanBeResolved: when every write fails, the sweep stops after the
// batches already under way (each tried whole, then one by one) instead of trying every due
// inquiry of the backlog with its own failure; the next sweep, with writes back, expires them all.
func TestExpiryEndsWhenNothingCanBeResolved(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		c := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
		r := newReplica(t, dbURL, c)
		for i := range 40 {
			_, _, err := r.svc.Ask(ctx, choice(fmt.Sprintf("q%d", i), c.Now().Add(time.Second), "hold"))
			require.NoError(t, err)
		}
		c.Add(time.Minute)

		refusing := &refusingWrites{Store: r.store}
		svc := inquiry.NewService(refusing, inquiry.NewRegistry())
		svc.Now, svc.Log = c.Now, quiet
		sched := &scheduler.Scheduler{Service: svc, Schedule: "@every 1s", Batch: 4, Workers: 2, Log: quiet}
		st := sched.Sweep(ctx)
		require.Zero(t, st.Expired)
		require.NotZero(t, st.Errors)
		// At most the two batches under way and the one handed out as the first failed, each
		// tried once whole and then item by item: 3 × (1 + 4); the backlog is 10 batches (50).
		require.LessOrEqual(t, refusing.attempts.Load(), int64(3*(1+4)), "the sweep tried the whole backlog")

		require.Equal(t, 40, r.sched.Sweep(ctx).Expired, "with writes back, the next sweep expires them all")
	})
}

func TestStaleRunsNeverTouchWaitingOnes(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		c := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
		r := newReplica(t, dbURL, c)
		_, err := r.svc.RegisterRun(asNS(ctx), "parked", &inquiry.Config{Policy: inquiry.PolicyAsk}, "")
		require.NoError(t, err)
		res, err := r.svc.AskInRun(asNS(ctx), "parked", choice("q", c.Now().Add(30*24*time.Hour), "hold"))
		require.NoError(t, err)
		require.Equal(t, inquiry.RunAskWaiting, res.Status)
		_, err = r.svc.RegisterRun(asNS(ctx), "busy", nil, "")
		require.NoError(t, err)

		c.Add(7 * 24 * time.Hour) // a week: both heartbeats are far past BOT_STALE_AFTER
		abandoned := 0
		for i := 0; i < 10; i++ {
			abandoned += r.sched.Sweep(ctx).Abandoned
			c.Add(time.Minute)
		}
		require.Equal(t, 1, abandoned)
		run, err := r.svc.GetRun(asNS(ctx), "parked")
		require.NoError(t, err)
		require.Equal(t, inquiry.RunWaiting, run.Status, "a waiting run is never stale")
		run, err = r.svc.GetRun(asNS(ctx), "busy")
		require.NoError(t, err)
		require.Equal(t, inquiry.RunAbandoned, run.Status)
	})
}

func TestExpiryAnswersAWaitingRun(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		c := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
		r := newReplica(t, dbURL, c)
		resumed := make(chan []byte, 1)
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			b, _ := io.ReadAll(req.Body)
			require.NoError(t, client.Verify([]byte("secret"), req.Header.Get(client.HeaderSignature),
				req.Header.Get(client.HeaderTimestamp), b, time.Now(), 10*365*24*time.Hour))
			resumed <- b
		}))
		defer recv.Close()
		_, err := r.svc.RegisterRun(asNS(ctx), "nightly", &inquiry.Config{Policy: inquiry.PolicyAsk}, recv.URL+"/resume")
		require.NoError(t, err)
		res, err := r.svc.AskInRun(asNS(ctx), "nightly", choice("tone", c.Now().Add(time.Hour), "hold"))
		require.NoError(t, err)
		require.Equal(t, inquiry.RunAskWaiting, res.Status)

		c.Add(2 * time.Hour)
		require.Equal(t, 1, r.sched.Sweep(ctx).Expired)
		run, err := r.svc.GetRun(asNS(ctx), "nightly")
		require.NoError(t, err)
		require.Equal(t, "hold", run.Answers["tone"].Value.First())
		require.Equal(t, inquiry.SourceExpired, run.Answers["tone"].Source)
		testkit.Eventually(t, 20*time.Second, "the run's resume_url called", func() bool {
			_, err := r.disp.Drain(ctx)
			require.NoError(t, err)
			return len(resumed) > 0
		})
		require.Contains(t, string(<-resumed), `"source":"expired"`)
	})
}

func TestTwoSweepersResolveAndCallBackOnce(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		c := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
		a, b := newReplica(t, dbURL, c), newReplica(t, dbURL, c)

		var mu sync.Mutex
		calls := map[string]int{}
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			var rec inquiry.Record
			body, _ := io.ReadAll(req.Body)
			if err := json.Unmarshal(body, &rec); err != nil {
				t.Errorf("callback body: %v", err)
			}
			mu.Lock()
			calls[rec.Key]++
			mu.Unlock()
		}))
		defer recv.Close()

		const n = 1000
		due := c.Now().Add(time.Minute)
		keys := make([]string, 0, n)
		for i := 0; i < n; i++ {
			req := choice(fmt.Sprintf("q%04d", i), due, "hold")
			req.CallbackURL = recv.URL + "/cb"
			rec, _, err := a.svc.Ask(ctx, req)
			require.NoError(t, err)
			keys = append(keys, rec.Key)
		}
		c.Add(2 * time.Minute)

		var wg sync.WaitGroup
		stats := make([]scheduler.Stats, 2)
		for i, r := range []*replica{a, b} {
			wg.Add(1)
			go func(i int, r *replica) {
				defer wg.Done()
				stats[i] = r.sched.Sweep(ctx)
			}(i, r)
		}
		wg.Wait()
		require.Equal(t, n, stats[0].Expired+stats[1].Expired, "each inquiry resolved exactly once: %+v", stats)
		require.Zero(t, stats[0].Errors+stats[1].Errors)

		// Both replicas carry out deliveries side by side until every callback is in.
		deadline := time.Now().Add(60 * time.Second)
		for {
			mu.Lock()
			got := len(calls)
			mu.Unlock()
			if got == n || time.Now().After(deadline) {
				break
			}
			wg.Add(2)
			for _, r := range []*replica{a, b} {
				go func(r *replica) { defer wg.Done(); _, _ = r.disp.Drain(ctx) }(r)
			}
			wg.Wait()
		}
		mu.Lock()
		defer mu.Unlock()
		require.Len(t, calls, n, "every callback delivered")
		for _, k := range keys {
			require.Equal(t, 1, calls[k], "callback of %s delivered exactly once", k)
		}
		for _, k := range keys[:10] {
			rec, err := a.svc.Get(ctx, k)
			require.NoError(t, err)
			require.Equal(t, inquiry.StatusExpired, rec.Status)
		}
	})
}

func TestStartRunsTheSweepOnSchedule(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := testkit.NewClock(time.Now().UTC())
	r := newReplica(t, storagetest.SQLiteURL(t), c)
	ran := make(chan string, 10)
	r.sched.Observe = func(job string, _ int, _ time.Duration, _ error) { ran <- job }
	r.sched.Schedule = "@every 1s"
	require.NoError(t, r.sched.Start(ctx))
	defer r.sched.Stop(ctx)
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("the sweep did not run on its schedule")
	}
	require.Error(t, (&scheduler.Scheduler{Service: r.svc, Schedule: "whenever"}).Start(ctx))
}

func TestLongPollWakesAcrossReplicas(t *testing.T) {
	if os.Getenv(storagetest.Env) == "" {
		t.Skip("two replicas share a database on PostgreSQL only: set TEST_DATABASE_URL")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dbURL := storagetest.PostgresURL(t)
	c := testkit.NewClock(time.Now().UTC())
	a, b := newReplica(t, dbURL, c), newReplica(t, dbURL, c)
	listening := make(chan struct{}, 2)
	for _, r := range []*replica{a, b} {
		go func(r *replica) {
			_ = r.store.Listen(ctx, func(key string) {
				if key == "" { // Listen's "re-check everything": it is subscribed
					select {
					case listening <- struct{}{}:
					default:
					}
				}
				r.svc.Hub.Wake(key)
			})
		}(r)
	}
	for range 2 {
		select {
		case <-listening:
		case <-time.After(20 * time.Second):
			t.Fatal("the replicas did not subscribe to notifications within 20s")
		}
	}
	rec, _, err := a.svc.Ask(ctx, choice("wake", c.Now().Add(time.Hour), "hold"))
	require.NoError(t, err)

	woke := make(chan time.Time, 1)
	go func() {
		got, err := a.svc.Wait(ctx, rec.Key, 30*time.Second)
		if err == nil && got.Status == inquiry.StatusAnswered {
			woke <- time.Now()
		}
		close(woke)
	}()
	testkit.Eventually(t, 20*time.Second, "the waiter on replica A subscribed", func() bool { return a.hub.Waiters() == 1 })
	_, err = b.svc.Answer(ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	answered := time.Now()
	select {
	case at, ok := <-woke:
		require.True(t, ok, "the waiter on replica A saw the answer")
		// Woken by NOTIFY, not by the 30 s timeout: generous bound, far below any polling.
		require.Less(t, at.Sub(answered), 5*time.Second)
	case <-time.After(10 * time.Second):
		t.Fatal("a waiter on one replica was not woken by an answer recorded on another")
	}
}

func TestRetentionDeletesOldResolvedInquiries(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		c := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
		r := newReplica(t, dbURL, c)
		r.sched.Retention = 90 * 24 * time.Hour
		old, _, err := r.svc.Ask(ctx, choice("old", c.Now().Add(time.Hour), "hold"))
		require.NoError(t, err)
		_, err = r.svc.Answer(ctx, old.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
		require.NoError(t, err)
		stillPending, _, err := r.svc.Ask(ctx, choice("pending", c.Now().Add(365*24*time.Hour), "hold"))
		require.NoError(t, err)

		c.Add(89 * 24 * time.Hour)
		recent, _, err := r.svc.Ask(ctx, choice("recent", c.Now().Add(time.Hour), "hold"))
		require.NoError(t, err)
		_, err = r.svc.Answer(ctx, recent.Key, inquiry.Reply{Value: inquiry.One("hold")}, inquiry.SlackUser("U1", nil))
		require.NoError(t, err)
		require.Zero(t, r.sched.Sweep(ctx).Deleted, "89 days old is kept")

		c.Add(2 * 24 * time.Hour)
		require.Equal(t, 1, r.sched.Sweep(ctx).Deleted)
		_, err = r.svc.Get(ctx, old.Key)
		require.ErrorIs(t, err, inquiry.ErrNotFound, "resolved 91 days ago: deleted")
		_, err = r.svc.Get(ctx, recent.Key)
		require.NoError(t, err, "resolved 2 days ago: kept")
		got, err := r.svc.Get(ctx, stillPending.Key)
		require.NoError(t, err, "a pending inquiry is never deleted, however old")
		require.Equal(t, inquiry.StatusPending, got.Status)
	})
}

// asNS is ctx with an ask token of namespace "ns" as the caller: the namespace runs live in.
func asNS(ctx context.Context) context.Context {
	return inquiry.WithCaller(ctx, &inquiry.Token{Name: "ns", Namespace: "ns", Scopes: []inquiry.Scope{inquiry.ScopeAsk}})
}
