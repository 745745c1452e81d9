package storage_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/stretchr/testify/require"
)

func enqueue(t *testing.T, b *bundle, n int, kind inquiry.DeliveryKind, at time.Time) {
	t.Helper()
	ds := make([]inquiry.Delivery, n)
	for i := range ds {
		ds[i] = inquiry.Delivery{Kind: kind, InquiryKey: fmt.Sprintf("inq_%d", i), Namespace: "ns", Target: "https://x/cb",
			NextAttemptAt: at, CreatedAt: at}
	}
	require.NoError(t, b.store.EnqueueDeliveries(context.Background(), ds))
}

// TestClaimDeliveriesConcurrently has two claimers drain 200 due deliveries in small batches:
// every delivery is claimed exactly once.
func TestClaimDeliveriesConcurrently(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		const total = 200
		enqueue(t, b, total, inquiry.DeliverCallback, t0.Add(-time.Minute))

		var mu sync.Mutex
		claims := map[int64]int{}
		perClaimer := [2]int{}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for c := range 2 {
			wg.Go(func() {
				for {
					ds, err := b.store.ClaimDeliveries(ctx, t0, time.Minute, 7)
					if err != nil {
						errs[c] = err
						return
					}
					if len(ds) == 0 {
						return
					}
					for i, d := range ds {
						if i > 0 && ds[i-1].ID >= d.ID {
							errs[c] = fmt.Errorf("claims out of id order: %d then %d", ds[i-1].ID, d.ID)
							return
						}
						if d.Attempts != 1 || !d.NextAttemptAt.Equal(t0.Add(time.Minute)) {
							errs[c] = fmt.Errorf("delivery %d claimed with attempts %d, next %s", d.ID, d.Attempts, d.NextAttemptAt)
							return
						}
					}
					mu.Lock()
					for _, d := range ds {
						claims[d.ID]++
					}
					perClaimer[c] += len(ds)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		require.NoError(t, errs[0])
		require.NoError(t, errs[1])
		require.Len(t, claims, total)
		for id, n := range claims {
			require.Equal(t, 1, n, "delivery %d claimed %d times", id, n)
		}
		t.Logf("claimer shares: %v", perClaimer)
		requireDeliveryCount(t, b, inquiry.DeliveryPending, total, "claimed, not finished: still pending under a lease")
	})
}

func TestClaimDeliveriesLifecycle(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		rec := create(t, b.store, newRecord("ns", "", "q"),
			inquiry.Delivery{Kind: inquiry.DeliverPost, Target: "slack", Lane: "C1"},
			inquiry.Delivery{Kind: inquiry.DeliverCallback, Target: "https://x/cb"},
			inquiry.Delivery{Kind: inquiry.DeliverNotice, Target: "slack", NextAttemptAt: t0.Add(time.Hour)})

		// Kinds limit the claim; a delivery not yet due is not claimed.
		ds, err := b.store.ClaimDeliveries(ctx, t0, 30*time.Second, 10, inquiry.DeliverPost, inquiry.DeliverNotice)
		require.NoError(t, err)
		require.Len(t, ds, 1)
		post := ds[0]
		require.Equal(t, inquiry.DeliverPost, post.Kind)
		require.Equal(t, rec.Key, post.InquiryKey)
		require.Equal(t, 1, post.Attempts)
		require.Equal(t, t0.Add(30*time.Second), post.NextAttemptAt)
		require.Equal(t, t0, post.UpdatedAt)

		// Under its lease it is not claimed again; once the lease runs out, it is.
		ds, err = b.store.ClaimDeliveries(ctx, t0.Add(10*time.Second), 30*time.Second, 10, inquiry.DeliverPost)
		require.NoError(t, err)
		require.Empty(t, ds)
		ds, err = b.store.ClaimDeliveries(ctx, t0.Add(31*time.Second), 30*time.Second, 10, inquiry.DeliverPost)
		require.NoError(t, err)
		require.Len(t, ds, 1)
		require.Equal(t, post.ID, ds[0].ID)
		require.Equal(t, 2, ds[0].Attempts)

		// Retry: not due before next, the error kept.
		next := t0.Add(5 * time.Minute)
		require.NoError(t, b.store.RetryDelivery(ctx, post.ID, next, "slack 503", t0.Add(time.Minute)))
		ds, err = b.store.ClaimDeliveries(ctx, next.Add(-time.Second), time.Minute, 10, inquiry.DeliverPost)
		require.NoError(t, err)
		require.Empty(t, ds)
		ds, err = b.store.ClaimDeliveries(ctx, next, time.Minute, 10, inquiry.DeliverPost)
		require.NoError(t, err)
		require.Len(t, ds, 1)
		require.Equal(t, "slack 503", ds[0].LastError)
		require.Equal(t, 3, ds[0].Attempts)

		require.NoError(t, b.store.CompleteDelivery(ctx, post.ID, next))

		// The callback (any kind) fails for good.
		ds, err = b.store.ClaimDeliveries(ctx, t0, time.Minute, 10)
		require.NoError(t, err)
		require.Len(t, ds, 1)
		require.Equal(t, inquiry.DeliverCallback, ds[0].Kind)
		require.NoError(t, b.store.FailDelivery(ctx, ds[0].ID, "410 Gone", t0.Add(time.Minute)))

		// Nothing claimable now; the notice is due in an hour.
		ds, err = b.store.ClaimDeliveries(ctx, t0.Add(59*time.Minute), time.Minute, 10)
		require.NoError(t, err)
		require.Empty(t, ds)
		ds, err = b.store.ClaimDeliveries(ctx, t0.Add(time.Hour), time.Minute, 10)
		require.NoError(t, err)
		require.Len(t, ds, 1)
		require.Equal(t, inquiry.DeliverNotice, ds[0].Kind)

		all, err := b.store.ListDeliveries(ctx, rec.Key)
		require.NoError(t, err)
		require.Len(t, all, 3)
		require.Equal(t, inquiry.DeliveryDone, all[0].Status)
		require.Equal(t, inquiry.DeliveryFailed, all[1].Status)
		require.Equal(t, "410 Gone", all[1].LastError)
		require.Equal(t, inquiry.DeliveryPending, all[2].Status)
		for status, want := range map[inquiry.DeliveryStatus]int{"": 3, inquiry.DeliveryPending: 1, inquiry.DeliveryDone: 1, inquiry.DeliveryFailed: 1} {
			requireDeliveryCount(t, b, status, want, status)
		}
	})
}

// TestClaimDeliveriesKeepsLanesInOrder: a lane's delivery is not claimed while an earlier one of
// its lane is held back (retrying later, under lease, or of a kind not claimed now).
func TestClaimDeliveriesKeepsLanesInOrder(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		var ds []inquiry.Delivery
		for i, lane := range []string{"C1", "C1", "C1", "C2", "", "C1"} {
			ds = append(ds, inquiry.Delivery{Kind: inquiry.DeliverPost, InquiryKey: fmt.Sprintf("inq_%d", i), Lane: lane,
				NextAttemptAt: t0, CreatedAt: t0})
		}
		ds = append(ds, inquiry.Delivery{Kind: inquiry.DeliverUpdate, InquiryKey: "inq_6", Lane: "C1", NextAttemptAt: t0, CreatedAt: t0})
		require.NoError(t, b.store.EnqueueDeliveries(ctx, ds))
		keys := func(ds []inquiry.Delivery) []string {
			var ks []string
			for _, d := range ds {
				ks = append(ks, d.InquiryKey)
			}
			return ks
		}

		// A claim of two takes C1's first two; the next claim may not pass them while they are
		// under lease, so it takes C2's and the laneless one.
		got, err := b.store.ClaimDeliveries(ctx, t0, time.Minute, 2)
		require.NoError(t, err)
		require.Equal(t, []string{"inq_0", "inq_1"}, keys(got))
		first, second := got[0], got[1]
		got, err = b.store.ClaimDeliveries(ctx, t0, time.Minute, 10)
		require.NoError(t, err)
		require.Equal(t, []string{"inq_3", "inq_4"}, keys(got))

		// The first is done; the second is pushed back (a 429): the rest of C1 waits behind it.
		require.NoError(t, b.store.CompleteDelivery(ctx, first.ID, t0))
		require.NoError(t, b.store.RetryDelivery(ctx, second.ID, t0.Add(10*time.Second), "ratelimited", t0))
		got, err = b.store.ClaimDeliveries(ctx, t0.Add(5*time.Second), time.Minute, 10)
		require.NoError(t, err)
		require.Empty(t, got)
		got, err = b.store.ClaimDeliveries(ctx, t0.Add(10*time.Second), time.Minute, 10)
		require.NoError(t, err)
		require.Equal(t, []string{"inq_1", "inq_2", "inq_5", "inq_6"}, keys(got), "due again, in order, all of C1")
		for _, d := range got {
			require.NoError(t, b.store.RetryDelivery(ctx, d.ID, t0.Add(20*time.Second), "", t0))
		}

		// A claim of posts only may not pass the update that comes first in C1: nothing of C1
		// after it is claimed; a claim of updates takes it.
		require.NoError(t, b.store.CompleteDelivery(ctx, second.ID, t0))
		ids := map[string]int64{}
		for _, d := range got {
			ids[d.InquiryKey] = d.ID
		}
		require.NoError(t, b.store.CompleteDelivery(ctx, ids["inq_2"], t0))
		require.NoError(t, b.store.CompleteDelivery(ctx, ids["inq_5"], t0))
		require.NoError(t, b.store.EnqueueDeliveries(ctx, []inquiry.Delivery{{Kind: inquiry.DeliverPost, InquiryKey: "inq_7",
			Lane: "C1", NextAttemptAt: t0, CreatedAt: t0}}))
		got, err = b.store.ClaimDeliveries(ctx, t0.Add(20*time.Second), time.Minute, 10, inquiry.DeliverPost)
		require.NoError(t, err)
		require.Empty(t, got)
		got, err = b.store.ClaimDeliveries(ctx, t0.Add(20*time.Second), time.Minute, 10, inquiry.DeliverUpdate)
		require.NoError(t, err)
		require.Equal(t, []string{"inq_6"}, keys(got))
		require.NoError(t, b.store.FailDelivery(ctx, got[0].ID, "gone", t0))
		got, err = b.store.ClaimDeliveries(ctx, t0.Add(20*time.Second), time.Minute, 10, inquiry.DeliverPost)
		require.NoError(t, err)
		require.Equal(t, []string{"inq_7"}, keys(got), "a delivery given up holds nothing")
	})
}

// TestClaimDeliveriesLanesConcurrently has two dispatchers claim and complete 200 deliveries in
// five lanes: every lane's deliveries are carried out in id order, each once.
func TestClaimDeliveriesLanesConcurrently(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		const total = 200
		ds := make([]inquiry.Delivery, total)
		for i := range ds {
			ds[i] = inquiry.Delivery{Kind: inquiry.DeliverPost, InquiryKey: fmt.Sprintf("inq_%d", i),
				Lane: fmt.Sprintf("C%d", i%5), NextAttemptAt: t0, CreatedAt: t0}
		}
		require.NoError(t, b.store.EnqueueDeliveries(ctx, ds))

		var mu sync.Mutex
		log := map[string][]int64{}
		done := 0
		progress := make(chan struct{}) // closed, and replaced, each time a delivery is done
		deadline := time.Now().Add(time.Minute)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for w := range 2 {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					mu.Lock()
					finished, seen := done == total, progress
					mu.Unlock()
					if finished {
						return
					}
					claimed, err := b.store.ClaimDeliveries(ctx, t0, time.Minute, 7)
					if err != nil {
						errs[w] = err
						return
					}
					if len(claimed) == 0 {
						// The other worker holds what is left: wait until it is done with one.
						select {
						case <-seen:
						case <-time.After(time.Until(deadline)):
						}
						continue
					}
					for _, d := range claimed {
						mu.Lock()
						log[d.Lane] = append(log[d.Lane], d.ID)
						mu.Unlock()
						if err := b.store.CompleteDelivery(ctx, d.ID, t0); err != nil {
							errs[w] = err
							return
						}
						mu.Lock()
						done++
						close(progress)
						progress = make(chan struct{})
						mu.Unlock()
					}
				}
				errs[w] = fmt.Errorf("not finished within a minute")
			})
		}
		wg.Wait()
		require.NoError(t, errs[0])
		require.NoError(t, errs[1])
		n := 0
		for lane, ids := range log {
			require.IsIncreasing(t, ids, "lane %s out of order or twice", lane)
			n += len(ids)
		}
		require.Equal(t, total, n)
	})
}

func TestEnqueueManyDeliveries(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		enqueue(t, b, 1234, inquiry.DeliverCallback, t0) // more than one INSERT's worth
		n, err := b.store.CountDeliveries(context.Background(), inquiry.DeliveryPending)
		require.NoError(t, err)
		require.Equal(t, 1234, n)
		require.NoError(t, b.store.EnqueueDeliveries(context.Background(), nil))
	})
}

// TestClaimDeliveriesEach: one call claims for two classes of work as two claims one after
// another would — each its own kinds and limit — and the next call finds what the first left,
// the lane rule holding: the leased post holds its lane's update back until it is done.
func TestClaimDeliveriesEach(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		due := t0.Add(-time.Minute)
		ds := []inquiry.Delivery{
			{Kind: inquiry.DeliverPost, Lane: "C1"}, {Kind: inquiry.DeliverUpdate, Lane: "C1"},
			{Kind: inquiry.DeliverCallback}, {Kind: inquiry.DeliverResume}, {Kind: inquiry.DeliverNotice, Lane: "C2"},
		}
		for i := range ds {
			ds[i].InquiryKey, ds[i].Namespace, ds[i].Target = fmt.Sprintf("inq_%d", i), "ns", "slack"
			ds[i].NextAttemptAt, ds[i].CreatedAt = due, due
		}
		require.NoError(t, b.store.EnqueueDeliveries(ctx, ds))
		transport := []inquiry.DeliveryKind{inquiry.DeliverPost, inquiry.DeliverUpdate, inquiry.DeliverNotice}
		callbacks := []inquiry.DeliveryKind{inquiry.DeliverCallback, inquiry.DeliverResume}
		kinds := func(ds []inquiry.Delivery) []inquiry.DeliveryKind {
			out := []inquiry.DeliveryKind{}
			for _, d := range ds {
				require.Equal(t, 1, d.Attempts)
				out = append(out, d.Kind)
			}
			return out
		}
		claims := []inquiry.DeliveryClaim{{Limit: 1, Kinds: transport}, {Limit: 1, Kinds: callbacks}}
		got, err := b.store.ClaimDeliveriesEach(ctx, t0, time.Minute, claims)
		require.NoError(t, err)
		require.Len(t, got, 2)
		require.Equal(t, []inquiry.DeliveryKind{inquiry.DeliverPost}, kinds(got[0]), "each its limit")
		require.Equal(t, []inquiry.DeliveryKind{inquiry.DeliverCallback}, kinds(got[1]))
		post := got[0][0]

		got, err = b.store.ClaimDeliveriesEach(ctx, t0, time.Minute, claims)
		require.NoError(t, err)
		require.Equal(t, []inquiry.DeliveryKind{inquiry.DeliverNotice}, kinds(got[0]), "the update waits behind the leased post")
		require.Equal(t, []inquiry.DeliveryKind{inquiry.DeliverResume}, kinds(got[1]))

		// Once the post is done, its update goes.
		require.NoError(t, b.store.CompleteDelivery(ctx, post.ID, t0))
		got, err = b.store.ClaimDeliveriesEach(ctx, t0, time.Minute, claims)
		require.NoError(t, err)
		require.Equal(t, []inquiry.DeliveryKind{inquiry.DeliverUpdate}, kinds(got[0]))
		require.Empty(t, got[1])
	})
}
