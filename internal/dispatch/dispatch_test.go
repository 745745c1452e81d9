package dispatch_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/dispatch"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/storage"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// Issue 14 item 2 (the README's Limits): a slow callback receiver holds only its own deliveries.
// These tests drive the dispatcher with handlers that block until the test lets them go, so what
// they check is causal (a post made while a callback is still in its handler), never a duration.
// waitFor is the only clock: a bound on something that must happen, not a measure.

// waitFor is how long a test waits for something that must happen; past it, it fails.
const waitFor = 10 * time.Second

func openStore(t *testing.T, databaseURL string) *storage.Store {
	t.Helper()
	st, err := storage.Open(context.Background(), databaseURL)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// running starts d.Run and stops it when the test ends (before the store closes).
func running(t *testing.T, d *dispatch.Dispatcher) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

// enqueue stores deliveries, due at their CreatedAt (now when unset).
func enqueue(t *testing.T, st *storage.Store, ds ...inquiry.Delivery) {
	t.Helper()
	for i := range ds {
		if ds[i].CreatedAt.IsZero() {
			ds[i].CreatedAt = time.Now()
		}
	}
	require.NoError(t, st.EnqueueDeliveries(context.Background(), ds))
}

// deliveryOf is the one delivery stored for key.
func deliveryOf(t *testing.T, st *storage.Store, key string) inquiry.Delivery {
	t.Helper()
	ds, err := st.ListDeliveries(context.Background(), key)
	require.NoError(t, err)
	require.Len(t, ds, 1, "deliveries of %s", key)
	return ds[0]
}

// eventuallyStored waits until the delivery of key is as cond wants it.
func eventuallyStored(t *testing.T, st *storage.Store, key, what string, cond func(inquiry.Delivery) bool) {
	t.Helper()
	testkit.Eventually(t, waitFor, what+" (delivery of "+key+")", func() bool { return cond(deliveryOf(t, st, key)) })
}

func receive[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(waitFor):
		t.Fatalf("%s: not within %s", what, waitFor)
		panic("unreachable")
	}
}

// gate is a handler that blocks every delivery until the test lets it go, and counts how many it
// holds at once.
type gate struct {
	entered chan string   // the inquiry key of each attempt that starts
	release chan struct{} // a send lets one attempt finish; closing it lets every one
	now     atomic.Int32  // attempts in the handler
	most    atomic.Int32  // the most at once
}

func newGate() *gate {
	return &gate{entered: make(chan string, 100), release: make(chan struct{})}
}

func (g *gate) handle(ctx context.Context, d inquiry.Delivery) error {
	n := g.now.Add(1)
	defer g.now.Add(-1)
	for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
	}
	g.entered <- d.InquiryKey
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// recorder is a handler that records the keys it delivered, in order.
type recorder struct {
	mu   sync.Mutex
	keys []string
	done chan string
}

func newRecorder() *recorder { return &recorder{done: make(chan string, 100)} }

func (r *recorder) handle(_ context.Context, d inquiry.Delivery) error {
	r.mu.Lock()
	r.keys = append(r.keys, d.InquiryKey)
	r.mu.Unlock()
	r.done <- d.InquiryKey
	return nil
}

// A callback whose receiver never answers is in its handler; Slack posts for three channels and
// another receiver's callback, enqueued after it, are all carried out while it still hangs.
// Before, Drain waited for the slowest delivery of its batch, so every post waited for the hung
// callback (up to its 10 s timeout, and again for each of its 20 attempts).
func TestSlowCallbackHoldsOnlyItsOwnDelivery(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		st := openStore(t, databaseURL)
		hung, posts := newGate(), newRecorder()
		d := &dispatch.Dispatcher{Store: st, Log: quietLog, Poll: time.Hour, Handlers: map[inquiry.DeliveryKind]inquiry.DeliveryHandler{
			inquiry.DeliverPost: posts.handle,
			inquiry.DeliverCallback: func(ctx context.Context, d inquiry.Delivery) error {
				if d.Target == "http://hung.example/cb" {
					return hung.handle(ctx, d)
				}
				return posts.handle(ctx, d)
			},
		}}
		stop := running(t, d)
		defer close(hung.release) // let the hung attempt go before Run stops (cleanups run after)

		enqueue(t, st, inquiry.Delivery{Kind: inquiry.DeliverCallback, InquiryKey: "hung", Target: "http://hung.example/cb"})
		d.Kick()
		receive(t, hung.entered, "the hung callback attempted")

		want := map[string]bool{"healthy-callback": true}
		enqueue(t, st, inquiry.Delivery{Kind: inquiry.DeliverCallback, InquiryKey: "healthy-callback", Target: "http://ok.example/cb"})
		for _, ch := range []string{"C1", "C2", "C3"} {
			enqueue(t, st, inquiry.Delivery{Kind: inquiry.DeliverPost, InquiryKey: "post-" + ch, Target: "slack", Lane: ch})
			want["post-"+ch] = true
		}
		d.Kick()
		for range want {
			k := receive(t, posts.done, "every other delivery carried out while the callback hangs (they waited for it)")
			require.True(t, want[k], "delivered %s", k)
			delete(want, k)
		}
		require.EqualValues(t, 1, hung.now.Load(), "the hung callback is still in its handler")
		require.Equal(t, inquiry.DeliveryPending, deliveryOf(t, st, "hung").Status)
		for _, k := range []string{"healthy-callback", "post-C1", "post-C2", "post-C3"} {
			eventuallyStored(t, st, k, k+" recorded done", func(d inquiry.Delivery) bool { return d.Status == inquiry.DeliveryDone })
		}

		hung.release <- struct{}{}
		eventuallyStored(t, st, "hung", "the hung callback done once its receiver answers", func(d inquiry.Delivery) bool {
			return d.Status == inquiry.DeliveryDone
		})
		stop()
	})
}

// At most MaxLanes lanes of a class run at once; a class at its bound does not hold the other:
// with two callbacks hanging (the bound), a post goes out, and the other callbacks wait their turn
// rather than being claimed and left to wait under a running lease.
func TestDispatcherBoundsRunningLanes(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		st := openStore(t, databaseURL)
		hung, posts := newGate(), newRecorder()
		d := &dispatch.Dispatcher{Store: st, Log: quietLog, Poll: time.Hour, MaxLanes: 2,
			Handlers: map[inquiry.DeliveryKind]inquiry.DeliveryHandler{inquiry.DeliverPost: posts.handle, inquiry.DeliverCallback: hung.handle}}
		const n = 5
		keys := []string{"cb-0", "cb-1", "cb-2", "cb-3", "cb-4"}
		for _, k := range keys {
			enqueue(t, st, inquiry.Delivery{Kind: inquiry.DeliverCallback, InquiryKey: k, Target: "http://hung.example/cb"})
		}
		running(t, d)
		receive(t, hung.entered, "a callback attempted")
		receive(t, hung.entered, "a second callback attempted")

		enqueue(t, st, inquiry.Delivery{Kind: inquiry.DeliverPost, InquiryKey: "post", Target: "slack", Lane: "C1"})
		d.Kick()
		require.Equal(t, "post", receive(t, posts.done, "the post made while the callbacks are at their bound"))
		claimed := 0
		for _, k := range keys {
			if deliveryOf(t, st, k).Attempts > 0 {
				claimed++
			}
		}
		require.Equal(t, 2, claimed, "only as many callbacks claimed as may run")

		for i := 2; i < n; i++ {
			hung.release <- struct{}{} // one ends: another takes its place
			receive(t, hung.entered, "a waiting callback attempted once another ended")
		}
		hung.release <- struct{}{}
		hung.release <- struct{}{}
		for _, k := range keys {
			eventuallyStored(t, st, k, k+" done", func(d inquiry.Delivery) bool { return d.Status == inquiry.DeliveryDone })
			require.Equal(t, 1, deliveryOf(t, st, k).Attempts, "%s attempted once", k)
		}
		require.EqualValues(t, 2, hung.most.Load(), "callbacks in their handler at once")
	})
}

// While Run runs, Drain (the sweep's) starts what it claims and returns: a sweep is not held by a
// slow receiver, and Run waits for what it started when it stops.
func TestDrainBesideRunDoesNotWait(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		st := openStore(t, databaseURL)
		hung := newGate()
		d := &dispatch.Dispatcher{Store: st, Log: quietLog, Poll: time.Hour,
			Handlers: map[inquiry.DeliveryKind]inquiry.DeliveryHandler{inquiry.DeliverCallback: hung.handle}}
		enqueue(t, st, inquiry.Delivery{Kind: inquiry.DeliverCallback, InquiryKey: "first", Target: "http://hung.example/cb"})
		stop := running(t, d) // its first claim takes "first"; Poll is an hour and nobody kicks
		require.Equal(t, "first", receive(t, hung.entered, "Run's claim attempted"))

		enqueue(t, st, inquiry.Delivery{Kind: inquiry.DeliverCallback, InquiryKey: "second", Target: "http://hung.example/cb"})
		drained := make(chan int, 1)
		go func() {
			n, err := d.Drain(context.Background())
			if err != nil {
				t.Errorf("drain: %v", err)
			}
			drained <- n
		}()
		require.Equal(t, 1, receive(t, drained, "Drain returned while what it claimed hangs"))
		require.Equal(t, "second", receive(t, hung.entered, "Drain's claim attempted"))

		stop() // both hang until Run's context ends; Run returns after them
		require.Zero(t, hung.now.Load(), "no attempt still in its handler after Run returned")
		for _, k := range []string{"first", "second"} {
			got := deliveryOf(t, st, k)
			require.Equal(t, inquiry.DeliveryPending, got.Status, "%s is retried after the shutdown", k)
			require.Contains(t, got.LastError, "context canceled")
		}
	})
}

// claimLog is a store that records, in order, which class of work each claim asked for ("T" for
// the transports' kinds, "C" for the callbacks') and sends it on made when made is set, and counts
// the callbacks claimed.
type claimLog struct {
	inquiry.Store
	mu        sync.Mutex
	claims    []string
	made      chan string
	callbacks atomic.Int64
}

func (c *claimLog) ClaimDeliveriesEach(ctx context.Context, now time.Time, lease time.Duration, claims []inquiry.DeliveryClaim) ([][]inquiry.Delivery, error) {
	out, err := c.Store.ClaimDeliveriesEach(ctx, now, lease, claims)
	for _, ds := range out {
		for _, d := range ds {
			if d.Kind == inquiry.DeliverCallback {
				c.callbacks.Add(1)
			}
		}
	}
	for _, cl := range claims {
		class := "T"
		if slices.Contains(cl.Kinds, inquiry.DeliverCallback) {
			class = "C"
		}
		c.mu.Lock()
		c.claims = append(c.claims, class)
		c.mu.Unlock()
		if c.made != nil {
			c.made <- class
		}
	}
	return out, err
}

// A kick names the kinds of work enqueued, and a lane that ends asks for its own class: a Slack
// update claims the transports' work, twice (the kick, then the lane's end), and never the
// callbacks' — each claim is four round trips to PostgreSQL, and a click in Slack used to cost
// four of them, two for callbacks nobody had asked for (cmd/benchmark, row 3c).
func TestAKickClaimsOnlyTheClassItNames(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		st := &claimLog{Store: openStore(t, databaseURL), made: make(chan string, 100)}
		posts := newRecorder()
		d := &dispatch.Dispatcher{Store: st, Log: quietLog, Poll: time.Hour, Handlers: map[inquiry.DeliveryKind]inquiry.DeliveryHandler{
			inquiry.DeliverUpdate: posts.handle, inquiry.DeliverCallback: posts.handle}}
		running(t, d)
		require.Equal(t, "T", receive(t, st.made, "the first claim, of transports"))
		require.Equal(t, "C", receive(t, st.made, "the first claim, of callbacks"))

		for _, one := range []struct {
			d     inquiry.Delivery
			class string
		}{
			{inquiry.Delivery{Kind: inquiry.DeliverUpdate, InquiryKey: "update", Target: "slack", Lane: "C1"}, "T"},
			{inquiry.Delivery{Kind: inquiry.DeliverCallback, InquiryKey: "callback", Target: "http://receiver.example/cb"}, "C"},
		} {
			one.d.CreatedAt = time.Now()
			require.NoError(t, st.EnqueueDeliveries(context.Background(), []inquiry.Delivery{one.d}))
			d.Kick(one.d.Kind)
			require.Equal(t, one.class, receive(t, st.made, "the kick's claim"), one.d.InquiryKey)
			require.Equal(t, one.d.InquiryKey, receive(t, posts.done, "the delivery carried out"))
			require.Equal(t, one.class, receive(t, st.made, "the claim after the lane ended"), one.d.InquiryKey)
			// A claim of the other class in the lane's round would come before the next kick's.
			d.Kick(one.d.Kind)
			require.Equal(t, one.class, receive(t, st.made, "the next kick's claim, after the lane's round"), one.d.InquiryKey)
		}

		d.Kick() // no kinds: every class
		require.Equal(t, "T", receive(t, st.made, "a kick of every class, transports"))
		require.Equal(t, "C", receive(t, st.made, "a kick of every class, callbacks"))
		st.mu.Lock()
		defer st.mu.Unlock()
		require.Equal(t, []string{"T", "C", "T", "T", "T", "C", "C", "C", "T", "C"}, st.claims)
	})
}

// A backlog of one class keeps Run claiming that class; work of the other that falls due by the
// clock alone (a retry whose backoff ran out), which only the poll finds, must still go out
// within about a poll, not once the backlog is all claimed. (Found by a review: a kick of one
// class held up the other's retries for as long as callbacks kept coming.)
func TestABacklogOfOneClassDoesNotHoldTheOthersPoll(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		const n = 1500
		st := &claimLog{Store: openStore(t, databaseURL)}
		updated := make(chan int64, 1)
		d := &dispatch.Dispatcher{Store: st, Log: quietLog, Batch: 1, Poll: 20 * time.Millisecond,
			Handlers: map[inquiry.DeliveryKind]inquiry.DeliveryHandler{
				inquiry.DeliverCallback: func(context.Context, inquiry.Delivery) error { return nil },
				inquiry.DeliverUpdate: func(context.Context, inquiry.Delivery) error {
					updated <- st.callbacks.Load()
					return nil
				},
			}}
		running(t, d)
		now := time.Now()
		ds := make([]inquiry.Delivery, 0, n+1)
		for i := range n {
			ds = append(ds, inquiry.Delivery{Kind: inquiry.DeliverCallback, InquiryKey: fmt.Sprintf("cb%d", i),
				Target: "http://receiver.example/cb", CreatedAt: now})
		}
		// A Slack update being retried: due 300 ms from now, and nobody kicks for it.
		ds = append(ds, inquiry.Delivery{Kind: inquiry.DeliverUpdate, InquiryKey: "update", Target: "slack",
			Lane: "C1", CreatedAt: now, NextAttemptAt: now.Add(300 * time.Millisecond)})
		require.NoError(t, st.EnqueueDeliveries(context.Background(), ds))
		d.Kick(inquiry.DeliverCallback)
		claimed := receive(t, updated, "the update")
		require.Less(t, claimed, int64(n), "the update waited for the callbacks' whole backlog to be claimed")
	})
}

// A delivery whose attempt outlasts its lease becomes due again while it is still in its handler,
// and so do those claimed behind it. The claim that takes them again in this process must not
// start it a second time, nor start the next deliveries of its lane beside it: the lane carries
// them out after the one in flight, under the new claim's lease.
func TestLaneInFlightIsNotStartedTwice(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		st := openStore(t, databaseURL)
		c := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
		slow, posts := newGate(), newRecorder()
		var beside atomic.Bool // the second post started while the first was in its handler
		d := &dispatch.Dispatcher{Store: st, Log: quietLog, Poll: time.Hour, Now: c.Now, Lease: time.Minute,
			Handlers: map[inquiry.DeliveryKind]inquiry.DeliveryHandler{inquiry.DeliverPost: func(ctx context.Context, d inquiry.Delivery) error {
				if d.InquiryKey == "first" {
					return slow.handle(ctx, d)
				}
				if slow.now.Load() > 0 {
					beside.Store(true)
				}
				return posts.handle(ctx, d)
			}}}
		at := c.Now()
		enqueue(t, st, inquiry.Delivery{Kind: inquiry.DeliverPost, InquiryKey: "first", Lane: "C1", CreatedAt: at},
			inquiry.Delivery{Kind: inquiry.DeliverPost, InquiryKey: "behind", Lane: "C1", CreatedAt: at})
		running(t, d)
		defer close(slow.release)
		receive(t, slow.entered, "the first post attempted")

		c.Add(2 * time.Minute) // its lease has run out while it is in its handler
		enqueue(t, st, inquiry.Delivery{Kind: inquiry.DeliverPost, InquiryKey: "second", Lane: "C1", CreatedAt: c.Now()})
		d.Kick()
		eventuallyStored(t, st, "second", "the second post claimed", func(d inquiry.Delivery) bool { return d.Attempts == 1 })
		require.Equal(t, 2, deliveryOf(t, st, "first").Attempts, "the first claimed again")
		require.Equal(t, 2, deliveryOf(t, st, "behind").Attempts, "the one behind it claimed again")
		select {
		case k := <-slow.entered:
			t.Fatalf("%s started a second time while its first attempt runs", k)
		case k := <-posts.done:
			t.Fatalf("%s started beside the first post of its lane", k)
		default:
		}

		slow.release <- struct{}{}
		require.Equal(t, "behind", receive(t, posts.done, "the post behind the first, after it"))
		require.Equal(t, "second", receive(t, posts.done, "the second post after it"))
		for _, k := range []string{"first", "behind", "second"} {
			eventuallyStored(t, st, k, k+" done", func(d inquiry.Delivery) bool { return d.Status == inquiry.DeliveryDone })
		}
		require.EqualValues(t, 1, slow.most.Load())
		require.Empty(t, slow.entered, "the first post attempted once")
		require.False(t, beside.Load(), "the second post started while the first was in its handler")
	})
}

// A lane still running once half its lease is gone claims the rest again for a whole lease before
// its next delivery; past three quarters it stops, and the next claim takes the rest, once.
func TestLaneRenewsItsLease(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		st := openStore(t, databaseURL)
		c := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
		const lease = time.Minute
		var seen []inquiry.Delivery
		d := &dispatch.Dispatcher{Store: st, Log: quietLog, Now: c.Now, Lease: lease,
			Handlers: map[inquiry.DeliveryKind]inquiry.DeliveryHandler{inquiry.DeliverPost: func(_ context.Context, d inquiry.Delivery) error {
				seen = append(seen, deliveryOf(t, st, d.InquiryKey))
				switch d.InquiryKey {
				case "a":
					c.Add(40 * time.Second) // past half the lease: the rest is renewed
				case "b":
					c.Add(20 * time.Second) // 20 s into the renewed lease, under half: nothing to do
				case "c":
					c.Add(30 * time.Second) // 50 s in, past three quarters: d is left to the next claim
				}
				return nil
			}}}
		at := c.Now()
		for _, k := range []string{"a", "b", "c", "d"} {
			enqueue(t, st, inquiry.Delivery{Kind: inquiry.DeliverPost, InquiryKey: k, Lane: "C1", CreatedAt: at})
		}
		n, err := d.Drain(context.Background())
		require.NoError(t, err)
		require.Equal(t, 4, n)
		require.Len(t, seen, 3, "a, b and c; d is left")
		require.True(t, seen[1].NextAttemptAt.Equal(at.Add(40*time.Second+lease)), "b renewed for a whole lease: %s", seen[1].NextAttemptAt)
		require.Equal(t, inquiry.DeliveryPending, deliveryOf(t, st, "d").Status)

		n, err = d.Drain(context.Background())
		require.NoError(t, err)
		require.Zero(t, n, "d is under the renewed lease")
		c.Add(lease)
		n, err = d.Drain(context.Background())
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Len(t, seen, 4)
		require.Equal(t, "d", seen[3].InquiryKey)
		for _, k := range []string{"a", "b", "c", "d"} {
			require.Equal(t, inquiry.DeliveryDone, deliveryOf(t, st, k).Status, k)
		}
	})
}
