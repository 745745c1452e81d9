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
	"github.com/inquiry-bot/bot/storage"
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
		requireStands(t, b, gone.Key, inquiry.StatusAnswered)

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

// TestResolveManyWonAndLost: one batch whose items win and lose side by side — pending
// inquiries, one a person answered first, one cancelled first, a key given twice (its first item
// decides, as when each item was its own update) and a key that is not there. Only the winners
// come back, in key order, each with its own answer, time, deliveries and one event of how it
// resolved; the losers keep what resolved them, with no delivery or event of the batch.
func TestResolveManyWonAndLost(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		var pending []*inquiry.Record
		for i := range 6 {
			pending = append(pending, create(t, b.store, newRecord("ns", "", fmt.Sprintf("w%d", i))))
		}
		answered := create(t, b.store, newRecord("ns", "", "answered"))
		_, err := b.store.Resolve(ctx, answered.Key, inquiry.Resolution{Status: inquiry.StatusAnswered,
			Answer: personAnswer("answered", "merge", t0), At: t0})
		require.NoError(t, err)
		cancelled := create(t, b.store, newRecord("ns", "", "cancelled"))
		_, err = b.store.Resolve(ctx, cancelled.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0})
		require.NoError(t, err)

		var items []inquiry.ResolveItem
		want := map[string]time.Time{}
		for i, r := range pending {
			at := t0.Add(time.Duration(i+1) * time.Minute) // each its own time
			items = append(items, expiryItem(r, at))
			want[r.Key] = at
		}
		// The twice-given key: an answer first, then an expiry; the answer is the one.
		twice := pending[2]
		items[2] = inquiry.ResolveItem{Key: twice.Key, Resolution: inquiry.Resolution{Status: inquiry.StatusAnswered,
			Answer: personAnswer(twice.ID, "merge", want[twice.Key]), At: want[twice.Key],
			Deliveries: []inquiry.Delivery{{Kind: inquiry.DeliverCallback, Target: "https://ci/hook"}}}}
		items = append(items, expiryItem(twice, t0.Add(time.Hour)),
			expiryItem(answered, t0.Add(time.Hour)), expiryItem(cancelled, t0.Add(time.Hour)),
			inquiry.ResolveItem{Key: "inq_not_there", Resolution: inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0}})
		before, err := b.store.LastEventID(ctx)
		require.NoError(t, err)

		got, err := b.store.ResolveMany(ctx, items)
		require.NoError(t, err)
		require.Equal(t, keysOf(pending), orderedKeys(got), "the winners, in key order")
		for _, r := range got {
			require.Equal(t, want[r.Key], *r.ResolvedAt)
			stored, err := b.store.Inquiry(ctx, r.Key)
			require.NoError(t, err)
			require.Equal(t, r, stored)
			ds, err := b.store.ListDeliveries(ctx, r.Key)
			require.NoError(t, err)
			require.Len(t, ds, 1, "key %s", r.Key)
			require.Equal(t, want[r.Key], ds[0].CreatedAt)
			if r.Key == twice.Key {
				require.Equal(t, inquiry.StatusAnswered, r.Status)
				require.Equal(t, inquiry.SourcePerson, r.Answer.Source)
				require.Equal(t, inquiry.DeliverCallback, ds[0].Kind)
				continue
			}
			require.Equal(t, inquiry.StatusExpired, r.Status)
			require.Equal(t, inquiry.SourceExpired, r.Answer.Source)
			require.Equal(t, inquiry.DeliverUpdate, ds[0].Kind)
		}
		for key, status := range map[string]inquiry.Status{answered.Key: inquiry.StatusAnswered, cancelled.Key: inquiry.StatusCancelled} {
			require.Equal(t, t0, *requireStands(t, b, key, status).ResolvedAt)
		}
		evs, err := b.store.EventsAfter(ctx, before, "", 100)
		require.NoError(t, err)
		perKey := map[string][]inquiry.EventType{}
		for _, e := range evs {
			perKey[e.InquiryKey] = append(perKey[e.InquiryKey], e.Type)
		}
		require.Len(t, perKey, len(pending), "events only of the winners: %v", perKey)
		for _, r := range got {
			require.Len(t, perKey[r.Key], 1, "key %s", r.Key)
		}
	})
}

// TestResolveManyRacesResolve: a batch expiring 100 inquiries while people answer 50 of them one
// by one with Resolve. Each inquiry is resolved exactly once — by the batch, or by the person,
// whose Resolve then returns it, and otherwise gets CodeAlreadyResolved with the expiry — with
// one set of deliveries; nothing deadlocks.
func TestResolveManyRacesResolve(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		const n = 100
		for round := range 3 {
			var recs []*inquiry.Record
			for i := range n {
				recs = append(recs, create(t, b.store, newRecord("ns", "", fmt.Sprintf("race%d-%d", round, i))))
			}
			items := make([]inquiry.ResolveItem, n)
			for i, r := range recs {
				items[i] = expiryItem(r, t0.Add(time.Hour))
			}
			rand.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
			var wg sync.WaitGroup
			var batch []*inquiry.Record
			var batchErr error
			byPerson := make([]*inquiry.Record, n)
			personErr := make([]error, n)
			wg.Go(func() { batch, batchErr = b.store.ResolveMany(ctx, items) })
			for i := n - 1; i >= 0; i -= 2 { // half of them, from the other end
				wg.Go(func() {
					byPerson[i], personErr[i] = b.store.Resolve(ctx, recs[i].Key, inquiry.Resolution{Status: inquiry.StatusAnswered,
						Answer: personAnswer(recs[i].ID, "merge", t0), At: t0,
						Deliveries: []inquiry.Delivery{{Kind: inquiry.DeliverUpdate, Target: "slack", Lane: "C1"}}})
				})
			}
			wg.Wait()
			require.NoError(t, batchErr)
			expired := map[string]bool{}
			for _, r := range batch {
				expired[r.Key] = true
			}
			people := 0
			for i, r := range recs {
				stored, err := b.store.Inquiry(ctx, r.Key)
				require.NoError(t, err)
				switch {
				case i%2 == 0: // nobody answered it: the batch did
					require.True(t, expired[r.Key], "key %s", r.Key)
				case personErr[i] == nil:
					people++
					require.False(t, expired[r.Key], "key %s resolved twice", r.Key)
					require.Equal(t, inquiry.StatusAnswered, stored.Status)
					require.Equal(t, stored, byPerson[i])
				default:
					requireCode(t, personErr[i], inquiry.CodeAlreadyResolved)
					require.True(t, expired[r.Key], "key %s", r.Key)
					require.Equal(t, inquiry.StatusExpired, byPerson[i].Status)
				}
				if expired[r.Key] {
					require.Equal(t, inquiry.StatusExpired, stored.Status)
				}
				ds, err := b.store.ListDeliveries(ctx, r.Key)
				require.NoError(t, err)
				require.Len(t, ds, 1, "key %s", r.Key)
			}
			t.Logf("round %d: %d expired by the batch, %d answered by people", round, len(batch), people)
		}
		requirePending(t, b, 0)
	})
}

// TestExpiryLosesToExtend: the sweeper reads an inquiry due (without a lock), an Extend commits
// a later expiry, and then the sweeper's expiry arrives — in a batch, or alone. The extension
// wins: the expiry was of an expires_at the inquiry no longer has (Resolution.Expiry), so
// nothing is resolved, no delivery is enqueued, and Resolve says CodeAlreadyResolved with the
// record as it stands (still pending), which the service reads as "not due after all". An
// expiry of the expires_at the row holds still resolves.
func TestExpiryLosesToExtend(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		read := []*inquiry.Record{
			create(t, b.store, newRecord("ns", "", "ext1")),
			create(t, b.store, newRecord("ns", "", "ext2")),
		}
		kept := create(t, b.store, newRecord("ns", "", "ext3"))
		for _, r := range read {
			_, err := b.store.UpdateDeadlines(ctx, r.Key, func(cur *inquiry.Record) (*time.Time, *inquiry.DeadlineWork) {
				exp := cur.ExpiresAt.Add(time.Hour)
				return &exp, &inquiry.DeadlineWork{}
			})
			require.NoError(t, err)
		}
		expiry := func(rec *inquiry.Record, at time.Time) inquiry.ResolveItem {
			it := expiryItem(rec, at)
			it.Resolution.Expiry = rec.ExpiresAt // what the sweeper read
			return it
		}
		at := t0.Add(2 * time.Hour)
		got, err := b.store.ResolveMany(ctx, []inquiry.ResolveItem{expiry(read[0], at), expiry(read[1], at), expiry(kept, at)})
		require.NoError(t, err)
		require.Equal(t, []string{kept.Key}, orderedKeys(got), "only the inquiry that was not extended expires")

		out, err := b.store.Resolve(ctx, read[0].Key, expiry(read[0], at).Resolution)
		require.Equal(t, inquiry.CodeAlreadyResolved, inquiry.ErrorCode(err))
		require.Equal(t, inquiry.StatusPending, out.Status)
		require.Equal(t, read[0].ExpiresAt.Add(time.Hour), *out.ExpiresAt)
		for _, r := range read {
			requireStands(t, b, r.Key, inquiry.StatusPending)
		}

		// The expiry of the extended expiry resolves it.
		cur, err := b.store.Inquiry(ctx, read[1].Key)
		require.NoError(t, err)
		out, err = b.store.Resolve(ctx, cur.Key, expiry(cur, at.Add(time.Hour)).Resolution)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusExpired, out.Status)
	})
}

// TestResolutionTextAsSent: answers and failures whose text an array literal must quote —
// quotes, backslashes, braces, commas, blanks, the word NULL, nothing, characters beyond ASCII,
// a NUL escaped in JSON, tabs and newlines — are stored exactly as sent by a batch (on PostgreSQL
// each column one array) and by a lone Resolve, and read back as the resolution returned them.
func TestResolutionTextAsSent(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		odd := []string{`say "hi"`, `back\slash \"`, `{a,b}`, ` blanks `, `NULL`, `null`, "", "café ⌘ 漢字", "nul \x00 here", `\x00`, "tab\tand\nline", `}"{`}
		var items []inquiry.ResolveItem
		var recs []*inquiry.Record
		for i, text := range odd {
			rec := create(t, b.store, newRecord("ns", "", fmt.Sprintf("text%d", i)))
			recs = append(recs, rec)
			at := t0.Add(time.Duration(i) * time.Second)
			r := inquiry.Resolution{Status: inquiry.StatusAnswered, At: at, Answer: &inquiry.Answer{InquiryID: rec.ID,
				Value: inquiry.One("merge"), AnsweredBy: text, Text: text, Source: inquiry.SourcePerson, AnsweredAt: at}}
			if i%3 == 2 {
				r = inquiry.Resolution{Status: inquiry.StatusFailed, At: at,
					Failure: &inquiry.Failure{Code: inquiry.CodeUnavailable, Message: text, Fatal: true}}
			}
			items = append(items, inquiry.ResolveItem{Key: rec.Key, Resolution: r})
		}
		got, err := b.store.ResolveMany(ctx, items[1:])
		require.NoError(t, err)
		require.Len(t, got, len(items)-1)
		one, err := b.store.Resolve(ctx, items[0].Key, items[0].Resolution)
		require.NoError(t, err)
		got = append(got, one)
		for _, r := range got {
			stored, err := b.store.Inquiry(ctx, r.Key)
			require.NoError(t, err)
			require.Equal(t, r, stored)
			var want inquiry.Resolution
			for _, it := range items {
				if it.Key == r.Key {
					want = it.Resolution
				}
			}
			require.Equal(t, want.Status, stored.Status)
			require.Equal(t, want.Answer, stored.Answer, "key %s", r.Key)
			require.Equal(t, want.Failure, stored.Failure, "key %s", r.Key)
		}
	})
}

// TestResolutionsOnATinyPool: with a pool of two connections, many resolutions at once — batches
// over the same keys, people one by one, and claims of the deliveries they enqueue — all finish:
// no transaction waits on the pool for a second connection while holding row locks others wait
// on.
func TestResolutionsOnATinyPool(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		s := openBundle(t, b.url).store // a store of its own, for its tiny pool
		storage.DB(s).SetMaxOpenConns(2)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		const n = 40
		var recs []*inquiry.Record
		for i := range n {
			recs = append(recs, create(t, s, newRecord("ns", "", fmt.Sprintf("tiny%d", i))))
		}
		var wg sync.WaitGroup
		errs := make(chan error, 4*n)
		for w := range 4 {
			wg.Go(func() {
				items := make([]inquiry.ResolveItem, n)
				for i, r := range recs {
					items[i] = expiryItem(r, t0.Add(time.Duration(w)*time.Minute))
				}
				_, err := s.ResolveMany(ctx, items)
				errs <- err
			})
		}
		for i := range n {
			wg.Go(func() {
				_, err := s.Resolve(ctx, recs[i].Key, inquiry.Resolution{Status: inquiry.StatusAnswered,
					Answer: personAnswer(recs[i].ID, "merge", t0), At: t0,
					Deliveries: []inquiry.Delivery{{Kind: inquiry.DeliverUpdate, Target: "slack", Lane: "C1"}}})
				if inquiry.ErrorCode(err) == inquiry.CodeAlreadyResolved {
					err = nil
				}
				errs <- err
			})
			if i%8 == 0 {
				wg.Go(func() {
					_, err := s.ClaimDeliveriesEach(ctx, t0, time.Minute, []inquiry.DeliveryClaim{{Limit: 5}, {Limit: 5, Kinds: []inquiry.DeliveryKind{inquiry.DeliverUpdate}}})
					errs <- err
				})
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		require.Equal(t, 0, count(t, b, `SELECT count(*) FROM inquiries WHERE status = 'pending' AND id LIKE 'tiny%'`))
		require.Equal(t, n, count(t, b, `SELECT count(*) FROM deliveries WHERE inquiry_key IN (SELECT key FROM inquiries WHERE id LIKE 'tiny%')`), "one set of deliveries each")
	})
}

// TestTwoReplicasRaceAnswerCancelExpiry: two stores on one database (two replicas), and for each
// inquiry a person's answer on one, a cancel and a sweeper's batch of expiries on the other, all
// at once. Each inquiry is resolved once: one winner, whose deliveries alone are enqueued and
// whose resolution alone is on the record; every loser gets CodeAlreadyResolved with the
// winner's record, never an acknowledgement of its own.
func TestTwoReplicasRaceAnswerCancelExpiry(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		other := openBundle(t, b.url).store
		ctx := context.Background()
		const n = 20
		var recs []*inquiry.Record
		for i := range n {
			recs = append(recs, create(t, b.store, newRecord("ns", "", fmt.Sprintf("trio%d", i))))
		}
		before, err := b.store.LastEventID(ctx)
		require.NoError(t, err)
		items := make([]inquiry.ResolveItem, n)
		for i, r := range recs {
			items[i] = expiryItem(r, t0.Add(time.Hour))
			items[i].Resolution.Expiry = r.ExpiresAt
		}
		answers := make([]*inquiry.Record, n)
		answerErr := make([]error, n)
		cancels := make([]*inquiry.Record, n)
		cancelErr := make([]error, n)
		var batch []*inquiry.Record
		var batchErr error
		var wg sync.WaitGroup
		wg.Go(func() { batch, batchErr = other.ResolveMany(ctx, items) })
		for i := range n {
			wg.Go(func() {
				answers[i], answerErr[i] = b.store.Resolve(ctx, recs[i].Key, inquiry.Resolution{Status: inquiry.StatusAnswered,
					Answer: personAnswer(recs[i].ID, "merge", t0), At: t0,
					Deliveries: []inquiry.Delivery{{Kind: inquiry.DeliverCallback, Target: "https://ci/hook"}}})
			})
			wg.Go(func() {
				cancels[i], cancelErr[i] = other.Resolve(ctx, recs[i].Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0})
			})
		}
		wg.Wait()
		require.NoError(t, batchErr)
		byBatch := map[string]bool{}
		for _, r := range batch {
			byBatch[r.Key] = true
		}
		evs, err := b.store.EventsAfter(ctx, before, "", 1000)
		require.NoError(t, err)
		perKey := map[string]int{}
		for _, e := range evs {
			perKey[e.InquiryKey]++
		}
		for i, r := range recs {
			stored, err := b.store.Inquiry(ctx, r.Key)
			require.NoError(t, err)
			wins := 0
			for _, o := range []struct {
				rec *inquiry.Record
				err error
			}{{answers[i], answerErr[i]}, {cancels[i], cancelErr[i]}} {
				if o.err == nil {
					wins++
					require.Equal(t, stored, o.rec)
					continue
				}
				require.Equal(t, inquiry.CodeAlreadyResolved, inquiry.ErrorCode(o.err), "%v", o.err)
				require.Equal(t, stored.Status, o.rec.Status, "a loser sees the winner")
			}
			if byBatch[r.Key] {
				wins++
				require.Equal(t, inquiry.StatusExpired, stored.Status)
			}
			require.Equal(t, 1, wins, "inquiry %s resolved once", r.Key)
			ds, err := b.store.ListDeliveries(ctx, r.Key)
			require.NoError(t, err)
			switch stored.Status {
			case inquiry.StatusAnswered:
				require.Len(t, ds, 1)
				require.Equal(t, inquiry.DeliverCallback, ds[0].Kind)
			case inquiry.StatusExpired:
				require.Len(t, ds, 1)
				require.Equal(t, inquiry.DeliverUpdate, ds[0].Kind)
			default:
				require.Equal(t, inquiry.StatusCancelled, stored.Status)
				require.Empty(t, ds)
			}
			require.Equal(t, 1, perKey[r.Key], "one resolution on the record of %s", r.Key)
		}
	})
}

// sweeperExpiry is the expiry of rec at at as the service builds it (Service.expiry): the
// default or a decline, the votes read, the expiry it was decided on, and rec as the read.
func sweeperExpiry(rec *inquiry.Record, at time.Time) inquiry.ResolveItem {
	a := inquiry.DefaultAnswerFor(&rec.Inquiry)
	a.Source, a.AnsweredAt, a.Votes = inquiry.SourceExpired, at, rec.Votes
	return inquiry.ResolveItem{Key: rec.Key, Read: rec, Resolution: inquiry.Resolution{Status: inquiry.StatusExpired,
		Answer: &a, At: at, Expiry: rec.ExpiresAt, Deliveries: []inquiry.Delivery{{Kind: inquiry.DeliverUpdate, Target: "slack", Lane: "C1"}}}}
}

// TestResolveManyWithTheRecordRead: a batch whose items carry the record their caller read
// (ResolveItem.Read, as the sweeper's expiries do) returns, for each inquiry it resolved, exactly
// the record a fresh read returns — whatever the inquiry is (a default, a decline, approvals,
// email, deadlines, an asker), whatever changed on its row between the read and the batch (a
// post, a vote, a failure noted, reminders, an escalation's placement, a run parked on it), and
// whatever it resolved to (expired, failed, answered, cancelled). What it must skip it skips (an
// Extend since, a person first), the records read are left as they were, and a Read of another
// inquiry is not used.
func TestResolveManyWithTheRecordRead(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		putRun(t, b, "ns", "run", "https://ci/resume", t0)
		two, three := 2, 3
		recs := map[string]*inquiry.Record{}
		add := func(id string, change func(r *inquiry.Record)) {
			r := newRecord("ns", "", id)
			if change != nil {
				change(r)
			}
			recs[id] = create(t, b.store, r)
		}
		for _, id := range []string{"plain", "posted", "noted", "placed", "parked", "extended", "gone", "failed", "answered", "cancelled"} {
			add(id, nil)
		}
		add("decline", func(r *inquiry.Record) {
			r.Kind, r.Options, r.Default, r.AllowText = inquiry.KindText, nil, inquiry.Value{}, true
			r.Config.Transport, r.CallbackURL, r.Slack = inquiry.TransportInbox, "", inquiry.SlackRef{}
		})
		add("approvals", func(r *inquiry.Record) {
			r.Kind, r.Options, r.Default = inquiry.KindConfirm, nil, inquiry.One("no")
			r.Approvals, r.RequestedBy, r.AskedBy = &two, []string{"U9"}, "ci-token"
			r.Email = &inquiry.EmailTarget{To: []string{"ops@example.com"}}
			r.Remind = []inquiry.Duration{inquiry.Duration(time.Hour)}
		})
		add("voted", func(r *inquiry.Record) { r.Approvals = &three })
		add("progressed", func(r *inquiry.Record) { r.Remind = []inquiry.Duration{inquiry.Duration(time.Hour)} })
		none := func(*inquiry.Record) (*inquiry.Resolution, []inquiry.Delivery) { return nil, nil }
		vote := func(by string, at time.Time) inquiry.Vote {
			return inquiry.Vote{By: by, Value: inquiry.One("merge"), At: at, Via: inquiry.ViaAPI}
		}
		_, err := b.store.Vote(ctx, recs["voted"].Key, vote("U1", t0), none)
		require.NoError(t, err)

		// The sweeper's read, twice: one to resolve with, one to hold it to.
		now := t0.Add(3 * time.Hour)
		read, err := b.store.DueInquiries(ctx, now, nil, 100)
		require.NoError(t, err)
		kept, err := b.store.DueInquiries(ctx, now, nil, 100)
		require.NoError(t, err)
		require.Len(t, read, len(recs))
		require.Equal(t, kept, read)
		byID := map[string]*inquiry.Record{}
		for _, r := range read {
			byID[r.ID] = r
		}

		// What changes on the rows after the read.
		require.NoError(t, b.store.SetPosted(ctx, byID["posted"].Key, inquiry.SlackRef{Channel: "C2", TS: "1700000000.000100",
			ThreadTS: "1700000000.000001", Permalink: "https://slack/p", Answerers: []string{"U7"}}))
		_, err = b.store.Vote(ctx, byID["voted"].Key, vote("U2", t0.Add(time.Second)), none)
		require.NoError(t, err)
		require.NoError(t, b.store.NoteFailure(ctx, byID["noted"].Key, inquiry.Failure{Code: inquiry.CodeUnavailable, Message: "slack is down"}))
		next := t0.Add(90 * time.Minute)
		_, err = b.store.UpdateDeadlines(ctx, byID["progressed"].Key, func(*inquiry.Record) (*time.Time, *inquiry.DeadlineWork) {
			return nil, &inquiry.DeadlineWork{Progress: inquiry.Progress{Reminders: 1, RemindStep: 1, Next: &next}}
		})
		require.NoError(t, err)
		require.NoError(t, b.store.AddPlacement(ctx, byID["placed"].Key, inquiry.Placement{Step: 1, Channel: "C3", TS: "1700000000.000200"}))
		_, _, err = b.store.ParkRun(ctx, "ns", "run", byID["parked"].Key, t0.Add(time.Minute))
		require.NoError(t, err)
		later := t0.Add(5 * time.Hour)
		_, err = b.store.UpdateDeadlines(ctx, byID["extended"].Key, func(*inquiry.Record) (*time.Time, *inquiry.DeadlineWork) {
			return &later, &inquiry.DeadlineWork{Progress: inquiry.Progress{ExtendedBy: inquiry.Duration(3 * time.Hour)}}
		})
		require.NoError(t, err)
		_, err = b.store.Resolve(ctx, byID["gone"].Key, inquiry.Resolution{Status: inquiry.StatusAnswered,
			Answer: personAnswer("gone", "merge", t0), At: t0})
		require.NoError(t, err)

		at := now.Add(time.Second)
		var items []inquiry.ResolveItem
		for _, r := range read {
			it := sweeperExpiry(r, at)
			switch r.ID {
			case "failed":
				it.Resolution = inquiry.Resolution{Status: inquiry.StatusFailed, At: at,
					Failure: &inquiry.Failure{Code: inquiry.CodeUnavailable, Message: `the "slack" transport is off`, Fatal: true}}
			case "answered":
				it.Resolution = inquiry.Resolution{Status: inquiry.StatusAnswered, Answer: personAnswer("answered", "merge", at), At: at}
			case "cancelled":
				it.Resolution = inquiry.Resolution{Status: inquiry.StatusCancelled, At: at}
			}
			items = append(items, it)
		}
		rand.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		got, err := b.store.ResolveMany(ctx, items)
		require.NoError(t, err)
		require.Len(t, got, len(recs)-2, "all but the extended and the gone")
		gotByID := map[string]*inquiry.Record{}
		for _, r := range got {
			gotByID[r.ID] = r
			stored, err := b.store.Inquiry(ctx, r.Key)
			require.NoError(t, err)
			require.Equal(t, stored, r, "inquiry %s", r.ID)
		}
		require.Equal(t, kept, read, "the records read are left as they were")
		require.NotContains(t, gotByID, "extended")
		require.NotContains(t, gotByID, "gone")
		require.Equal(t, "1700000000.000100", gotByID["posted"].Slack.TS)
		require.Equal(t, []string{"U7"}, gotByID["posted"].Slack.Answerers)
		require.Equal(t, []string{"U1", "U2"}, inquiry.Voters(gotByID["voted"].Answer.Votes, "merge"))
		require.Nil(t, gotByID["noted"].Failure, "an expiry records no failure")
		require.Equal(t, 1, gotByID["progressed"].Reminders)
		require.Len(t, gotByID["placed"].Placements, 1)
		require.True(t, gotByID["decline"].Answer.Declined)
		require.Equal(t, inquiry.StatusFailed, gotByID["failed"].Status)
		require.Equal(t, `the "slack" transport is off`, gotByID["failed"].Failure.Message)
		require.Equal(t, inquiry.StatusCancelled, gotByID["cancelled"].Status)
		run, err := b.store.Run(ctx, "ns", "run")
		require.NoError(t, err)
		require.Contains(t, run.Answers, byID["parked"].ID, "the parked run has the answer")
		ext, err := b.store.Inquiry(ctx, byID["extended"].Key)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusPending, ext.Status)

		// The batch's events (more than one VALUES list holds), in key order, each what
		// the record as stored says.
		evs, err := b.store.EventsAfter(ctx, 0, "ns", 1000)
		require.NoError(t, err)
		var batchEvs []inquiry.Event
		for _, e := range evs {
			if e.At.Equal(at) {
				batchEvs = append(batchEvs, e)
			}
		}
		require.Len(t, batchEvs, len(got))
		for i, e := range batchEvs {
			require.Equal(t, got[i].Key, e.InquiryKey, "event %d in key order", i)
			want, ok := inquiry.ResolvedEvent(got[i], nil)
			require.True(t, ok)
			e.ID = 0
			require.Equal(t, want, e)
		}

		// A Read of another inquiry is not taken for this one's.
		x := create(t, b.store, newRecord("ns", "", "x"))
		y := create(t, b.store, newRecord("ns", "", "y"))
		y.Question = "not what x asked"
		got, err = b.store.ResolveMany(ctx, []inquiry.ResolveItem{{Key: x.Key, Read: y,
			Resolution: inquiry.Resolution{Status: inquiry.StatusCancelled, At: at}}})
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.Equal(t, "Merge now?", got[0].Question)
		stored, err := b.store.Inquiry(ctx, x.Key)
		require.NoError(t, err)
		require.Equal(t, stored, got[0])
	})
}
