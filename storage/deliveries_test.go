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
		pending, err := b.store.CountDeliveries(ctx, inquiry.DeliveryPending)
		require.NoError(t, err)
		require.Equal(t, total, pending, "claimed, not finished: still pending under a lease")
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
			n, err := b.store.CountDeliveries(ctx, status)
			require.NoError(t, err)
			require.Equal(t, want, n, status)
		}
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
