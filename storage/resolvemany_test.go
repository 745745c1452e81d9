package storage_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// expiryItem is the expiry of rec at t, with an update delivery, as the service builds it.
func expiryItem(rec *inquiry.Record, at time.Time) inquiry.ResolveItem {
	a := inquiry.DefaultAnswerFor(&rec.Inquiry)
	a.Source, a.AnsweredAt = inquiry.SourceExpired, at
	return inquiry.ResolveItem{Key: rec.Key, Resolution: inquiry.Resolution{Status: inquiry.StatusExpired, Answer: &a, At: at,
		Deliveries: []inquiry.Delivery{{Kind: inquiry.DeliverUpdate, Target: "slack", Lane: "C1"}}}}
}

// keysOf lists the keys of recs, sorted (orderedKeys keeps their order).
func keysOf(recs []*inquiry.Record) []string {
	out := orderedKeys(recs)
	sort.Strings(out)
	return out
}

// TestResolveMany: one batch resolves every pending inquiry, skips the resolved and the missing,
// enqueues deliveries only for what it resolved, and records the answers of parked runs (with a
// resume for a waiting run), as Resolve does one by one.
func TestResolveMany(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		putRun(t, b, "ns", "run", "https://ci/resume", t0)
		var pending []*inquiry.Record
		for i := range 5 {
			pending = append(pending, create(t, b.store, newRecord("ns", "", fmt.Sprintf("p%d", i))))
		}
		// Two inquiries the run parked on.
		p1 := create(t, b.store, newRecord("ns", "run", "step-1"))
		p2 := create(t, b.store, newRecord("ns", "run", "step-2"))
		for _, p := range []*inquiry.Record{p1, p2} {
			_, _, err := b.store.ParkRun(ctx, "ns", "run", p.Key, t0)
			require.NoError(t, err)
		}
		pending = append(pending, p1, p2)
		// One answered by a person first.
		gone := create(t, b.store, newRecord("ns", "", "gone"))
		_, err := b.store.Resolve(ctx, gone.Key, inquiry.Resolution{Status: inquiry.StatusAnswered,
			Answer: personAnswer("gone", "merge", t0), At: t0})
		require.NoError(t, err)

		at := t0.Add(time.Hour)
		var items []inquiry.ResolveItem
		for _, r := range pending {
			items = append(items, expiryItem(r, at))
		}
		items = append(items, expiryItem(gone, at), inquiry.ResolveItem{Key: "inq_missing",
			Resolution: inquiry.Resolution{Status: inquiry.StatusCancelled, At: at}})
		rand.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })

		got, err := b.store.ResolveMany(ctx, items)
		require.NoError(t, err)
		require.Equal(t, keysOf(pending), keysOf(got))
		for _, r := range got {
			require.Equal(t, inquiry.StatusExpired, r.Status)
			require.Equal(t, inquiry.SourceExpired, r.Answer.Source)
			require.Equal(t, at, *r.ResolvedAt)
			stored, err := b.store.Inquiry(ctx, r.Key)
			require.NoError(t, err)
			require.Equal(t, r, stored)
			ds, err := b.store.ListDeliveries(ctx, r.Key)
			require.NoError(t, err)
			kinds := []inquiry.DeliveryKind{}
			for _, d := range ds {
				kinds = append(kinds, d.Kind)
			}
			if r.RunID == "run" {
				require.Equal(t, []inquiry.DeliveryKind{inquiry.DeliverUpdate, inquiry.DeliverResume}, kinds)
			} else {
				require.Equal(t, []inquiry.DeliveryKind{inquiry.DeliverUpdate}, kinds)
			}
		}

		// The person's answer stands, with no delivery of the batch.
		stored, err := b.store.Inquiry(ctx, gone.Key)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusAnswered, stored.Status)
		ds, err := b.store.ListDeliveries(ctx, gone.Key)
		require.NoError(t, err)
		require.Empty(t, ds)

		// Both parked answers landed in the run, which stays waiting.
		run, err := b.store.Run(ctx, "ns", "run")
		require.NoError(t, err)
		require.Equal(t, inquiry.RunWaiting, run.Status)
		require.Len(t, run.Answers, 2)
		require.Equal(t, inquiry.SourceExpired, run.Answers["step-1"].Source)
		require.Equal(t, inquiry.SourceExpired, run.Answers["step-2"].Source)

		// Again: nothing left to resolve, nothing enqueued.
		got, err = b.store.ResolveMany(ctx, items)
		require.NoError(t, err)
		require.Empty(t, got)
		requireDeliveryCount(t, b, inquiry.DeliveryPending, len(pending)+2)

		// An empty batch is nothing; a resolution to pending is refused.
		got, err = b.store.ResolveMany(ctx, nil)
		require.NoError(t, err)
		require.Empty(t, got)
		_, err = b.store.ResolveMany(ctx, []inquiry.ResolveItem{{Key: pending[0].Key,
			Resolution: inquiry.Resolution{Status: inquiry.StatusPending, At: at}}})
		requireCode(t, err, inquiry.CodeInternal)
	})
}

// TestResolveManyConcurrent: two batches over the same 200 keys, each in its own shuffled order,
// racing on PostgreSQL's row locks (and on the locks of the runs parked on them): every key is
// resolved exactly once, with one set of deliveries, and neither batch dies of a deadlock.
func TestResolveManyConcurrent(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		const n, runs = 200, 4
		for r := range runs {
			putRun(t, b, "ns", fmt.Sprintf("run%d", r), "https://ci/resume", t0)
		}
		var recs []*inquiry.Record
		for i := range n {
			runID := ""
			if i%2 == 0 { // half parked, spread over the runs
				runID = fmt.Sprintf("run%d", i%(2*runs)/2)
			}
			rec := create(t, b.store, newRecord("ns", runID, fmt.Sprintf("q%d", i)))
			if runID != "" {
				_, _, err := b.store.ParkRun(ctx, "ns", runID, rec.Key, t0)
				require.NoError(t, err)
			}
			recs = append(recs, rec)
		}
		for round := range 3 {
			if round > 0 { // fresh inquiries for another race
				recs = recs[:0]
				for i := range n {
					recs = append(recs, create(t, b.store, newRecord("ns", "", fmt.Sprintf("r%d-%d", round, i))))
				}
			}
			var wg sync.WaitGroup
			got := make([][]*inquiry.Record, 2)
			errs := make([]error, 2)
			for w := range 2 {
				items := make([]inquiry.ResolveItem, n)
				for i, r := range recs {
					items[i] = expiryItem(r, t0.Add(time.Duration(w)*time.Second))
				}
				rand.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
				wg.Go(func() { got[w], errs[w] = b.store.ResolveMany(ctx, items) })
			}
			wg.Wait()
			require.NoError(t, errs[0])
			require.NoError(t, errs[1])
			seen := map[string]int{}
			for _, g := range got {
				for _, r := range g {
					seen[r.Key]++
				}
			}
			require.Len(t, seen, n)
			for _, r := range recs {
				require.Equal(t, 1, seen[r.Key], "key %s", r.Key)
				ds, err := b.store.ListDeliveries(ctx, r.Key)
				require.NoError(t, err)
				want := 1
				if r.RunID != "" {
					want = 2 // and the resume
				}
				require.Len(t, ds, want, "key %s", r.Key)
			}
			t.Logf("round %d: %d and %d resolved", round, len(got[0]), len(got[1]))
		}
		for r := range runs {
			run, err := b.store.Run(ctx, "ns", fmt.Sprintf("run%d", r))
			require.NoError(t, err)
			require.Len(t, run.Answers, n/2/runs)
		}
		requirePending(t, b, 0)
	})
}
