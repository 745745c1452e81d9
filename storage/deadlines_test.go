package storage_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// withDeadlines is newRecord with a reminder 30m before its expiry (due at t0+90m), a step, and
// an extension allowed.
func withDeadlines(id string) *inquiry.Record {
	rec := newRecord("ns", "", id)
	rec.Remind = []inquiry.Duration{inquiry.Duration(30 * time.Minute)}
	rec.Escalate = []inquiry.Step{{After: inquiry.Duration(time.Hour), Channel: "C2", Answerers: []string{"S1"}, Mention: true}}
	rec.Extend = &inquiry.Extension{By: inquiry.Duration(time.Hour), Max: inquiry.Duration(2 * time.Hour)}
	rec.Progress = inquiry.StartProgress(rec, t0)
	return rec
}

// TestDeadlinesRoundTrip: what an asker set and what was done of it read back as written.
func TestDeadlinesRoundTrip(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		rec := create(t, b.store, withDeadlines("round-trip"))
		require.Equal(t, t0.Add(time.Hour), *rec.Next, "the step comes first")
		got, err := b.store.Inquiry(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, rec.Deadlines, got.Deadlines)
		require.Equal(t, rec.Progress, got.Progress)

		require.NoError(t, b.store.AddPlacement(ctx, rec.Key, inquiry.Placement{Step: 1, Channel: "C2", TS: "1.2"}))
		require.NoError(t, b.store.AddPlacement(ctx, rec.Key, inquiry.Placement{Step: 1, Channel: "C2", TS: "9.9"}), "a step's second placement is ignored")
		got, err = b.store.Inquiry(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, []inquiry.Placement{{Step: 1, Channel: "C2", TS: "1.2"}}, got.Placements)
	})
}

// TestPendingInThreadOfAnEscalation: a reply in the thread of the message an escalation step
// posted finds the inquiry, as one under its first message does; once it resolves, no more.
func TestPendingInThreadOfAnEscalation(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		rec := withDeadlines("escalated-thread")
		rec.Slack = inquiry.SlackRef{Channel: "C1", TS: "1700000000.000100"}
		rec = create(t, b.store, rec)
		other := withDeadlines("other")
		other.Slack = inquiry.SlackRef{Channel: "C1", TS: "1700000000.000900"}
		create(t, b.store, other)

		got, err := b.store.PendingInThread(ctx, "C2", "1700000000.000200", 20)
		require.NoError(t, err)
		require.Empty(t, got, "nothing posted there yet")

		require.NoError(t, b.store.AddPlacement(ctx, rec.Key, inquiry.Placement{Step: 1, Channel: "C2", TS: "1700000000.000200"}))
		require.NoError(t, b.store.AddPlacement(ctx, rec.Key, inquiry.Placement{Step: 1, Channel: "C2", TS: "1700000000.000200"}), "a repeat is nothing new")
		got, err = b.store.PendingInThread(ctx, "C2", "1700000000.000200", 20)
		require.NoError(t, err)
		require.Equal(t, []string{rec.Key}, orderedKeys(got), "the escalated message's thread finds its inquiry")
		got, err = b.store.PendingInThread(ctx, "C1", "1700000000.000100", 20)
		require.NoError(t, err)
		require.Equal(t, []string{rec.Key}, orderedKeys(got), "and the first message's thread still does, once")
		for _, probe := range []struct{ channel, ts string }{
			{"C1", "1700000000.000200"}, // the ts in another channel
			{"C2", "1700000000.000100"}, // the first message's ts in the escalation's channel
		} {
			got, err = b.store.PendingInThread(ctx, probe.channel, probe.ts, 20)
			require.NoError(t, err)
			require.Empty(t, got, "%+v", probe)
		}

		_, err = b.store.Resolve(ctx, rec.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0})
		require.NoError(t, err)
		got, err = b.store.PendingInThread(ctx, "C2", "1700000000.000200", 20)
		require.NoError(t, err)
		require.Empty(t, got, "a resolved inquiry is answered nowhere")

		n, err := b.store.DeleteResolvedBefore(ctx, t0.Add(time.Hour))
		require.NoError(t, err, "retention deletes an escalated inquiry, its placements with it")
		require.Equal(t, 1, n)
	})
}

// TestClaimDeadlinesOnce: concurrent claimers over the same due inquiries take each once, and
// an inquiry not due, or no longer pending, is not taken.
func TestClaimDeadlinesOnce(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		const n = 60
		for i := range n {
			create(t, b.store, withDeadlines("due-"+string(rune('a'+i%26))+string(rune('a'+i/26))))
		}
		done := create(t, b.store, withDeadlines("answered"))
		_, err := b.store.Resolve(ctx, done.Key, inquiry.Resolution{Status: inquiry.StatusAnswered,
			Answer: personAnswer(done.ID, "merge", t0), At: t0})
		require.NoError(t, err)

		n0, err := b.store.ClaimDeadlines(ctx, t0.Add(59*time.Minute), 100, func(*inquiry.Record) inquiry.DeadlineWork {
			t.Error("claimed before it is due")
			return inquiry.DeadlineWork{}
		})
		require.NoError(t, err)
		require.Zero(t, n0)

		var mu sync.Mutex
		seen := map[string]int{}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					got, err := b.store.ClaimDeadlines(ctx, t0.Add(time.Hour), 7, func(rec *inquiry.Record) inquiry.DeadlineWork {
						mu.Lock()
						seen[rec.Key]++
						mu.Unlock()
						p := rec.Progress
						p.Escalation++
						p.Next = nil
						return inquiry.DeadlineWork{Progress: p, Deliveries: []inquiry.Delivery{{Kind: inquiry.DeliverEscalate, Target: "slack", Step: 1,
							CreatedAt: t0.Add(time.Hour)}}}
					})
					if err != nil {
						t.Error(err)
						return
					}
					if got == 0 {
						return
					}
				}
			})
		}
		wg.Wait()
		require.Len(t, seen, n, "every due inquiry claimed, the answered one not")
		for k, c := range seen {
			require.Equal(t, 1, c, "%s claimed once", k)
		}
		require.NotContains(t, seen, done.Key)
		ds, err := b.store.ListDeliveries(ctx, done.Key)
		require.NoError(t, err)
		require.Empty(t, ds)
	})
}
