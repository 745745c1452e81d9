package storage_test

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
	"github.com/stretchr/testify/require"
)

// orderedKeys lists the keys of recs in their order (keysOf sorts them).
func orderedKeys(recs []*inquiry.Record) []string {
	return fieldOf(recs, func(r *inquiry.Record) string { return r.Key })
}

// idsOf lists the asker's ids of recs in their order.
func idsOf(recs []*inquiry.Record) []string {
	return fieldOf(recs, func(r *inquiry.Record) string { return r.ID })
}

// fieldOf lists f of each of recs, in their order (never nil).
func fieldOf(recs []*inquiry.Record, f func(*inquiry.Record) string) []string {
	out := []string{}
	for _, r := range recs {
		out = append(out, f(r))
	}
	return out
}

func TestCreateInquiry(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		rec := newRecord("team-a", "deploy-42", "deploy-42:merge")
		rec.CreatedAt = t0.Add(123456789 * time.Nanosecond) // cut to microseconds on the way in
		got, created, err := b.store.CreateInquiry(ctx, rec, []inquiry.Delivery{
			{Kind: inquiry.DeliverPost, Target: inquiry.TransportSlack, Lane: "C1"},
		})
		require.NoError(t, err)
		require.True(t, created)

		want := *rec
		want.CreatedAt = t0.Add(123456 * time.Microsecond)
		require.Equal(t, &want, got)

		byKey, err := b.store.Inquiry(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, got, byKey)
		byID, err := b.store.InquiryByID(ctx, "team-a", "deploy-42", "deploy-42:merge")
		require.NoError(t, err)
		require.Equal(t, got, byID)

		ds, err := b.store.ListDeliveries(ctx, rec.Key)
		require.NoError(t, err)
		require.Len(t, ds, 1)
		d := ds[0]
		require.NotZero(t, d.ID)
		require.Equal(t, inquiry.Delivery{ID: d.ID, Kind: inquiry.DeliverPost, InquiryKey: rec.Key,
			Namespace: "team-a", RunID: "deploy-42", Target: "slack", Lane: "C1",
			Status: inquiry.DeliveryPending, NextAttemptAt: want.CreatedAt, CreatedAt: want.CreatedAt,
			UpdatedAt: want.CreatedAt}, d)

		requirePending(t, b, 1)
	})
}

func TestCreateInquiryShapes(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		// A Text with no run, no expiry, no options; a multiple Choice with a list default; a
		// record resolved at once by policy default, as the ask service stores it.
		text := &inquiry.Record{Key: nextKey(), Namespace: "ns", CreatedAt: t0, Status: inquiry.StatusPending,
			Inquiry: inquiry.Inquiry{ID: "why", Kind: inquiry.KindText, Question: "Why?"}}
		multi := newRecord("ns", "r", "pick")
		multi.Multiple, multi.Default = true, inquiry.Many("merge", "hold")
		resolvedAt := t0
		assumed := newRecord("ns", "r", "assumed")
		assumed.Status, assumed.ResolvedAt = inquiry.StatusAnswered, &resolvedAt
		assumed.Answer = &inquiry.Answer{InquiryID: "assumed", Value: inquiry.One("hold"), Source: inquiry.SourceDefault, AnsweredAt: t0}
		failed := newRecord("ns", "r", "failed")
		failed.Status, failed.ResolvedAt = inquiry.StatusFailed, &resolvedAt
		failed.Failure = &inquiry.Failure{Code: inquiry.CodeUnavailable, Message: "channel gone", Fatal: true}

		for _, rec := range []*inquiry.Record{text, multi, assumed, failed} {
			got := create(t, b.store, rec)
			require.Equal(t, rec, got)
			read, err := b.store.Inquiry(ctx, rec.Key)
			require.NoError(t, err)
			require.Equal(t, rec, read, rec.ID)
		}
		requirePending(t, b, 2)
	})
}

// TestCreateInquiryDeliveries creates inquiries with few and with many deliveries (PostgreSQL
// stores up to eight in one statement, more in a transaction; batches of 500 per INSERT).
func TestCreateInquiryDeliveries(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		for _, n := range []int{0, 1, 2, 8, 9, 600} {
			ds := make([]inquiry.Delivery, n)
			for i := range ds {
				ds[i] = inquiry.Delivery{Kind: inquiry.DeliverCallback, Target: fmt.Sprintf("https://x/%d", i)}
			}
			for range 2 { // twice: a second create of the same shape goes the same way
				rec := newRecord("ns", "", fmt.Sprintf("q%d-%s", n, nextKey()))
				create(t, b.store, rec, ds...)
				got, err := b.store.ListDeliveries(ctx, rec.Key)
				require.NoError(t, err)
				require.Len(t, got, n)
				for i, d := range got {
					require.Equal(t, fmt.Sprintf("https://x/%d", i), d.Target)
					require.Equal(t, rec.Key, d.InquiryKey)
				}
				// Asked again: no delivery is written twice.
				_, created, err := b.store.CreateInquiry(ctx, rec, ds)
				require.NoError(t, err)
				require.False(t, created)
				got, err = b.store.ListDeliveries(ctx, rec.Key)
				require.NoError(t, err)
				require.Len(t, got, n)
			}
		}
	})
}

func TestCreateInquiryWithoutKey(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		rec := newRecord("ns", "", "q")
		rec.Key = ""
		got := create(t, b.store, rec)
		require.Regexp(t, `^inq_[a-z2-7]{29}$`, got.Key)
		require.Empty(t, rec.Key, "the caller's record is not modified")
	})
}

func TestAskedOnce(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		first := create(t, b.store, newRecord("ns", "run-1", "step"), inquiry.Delivery{Kind: inquiry.DeliverPost})

		// The same id and content, asked again (a re-entry: a new key, a new expiry).
		again := newRecord("ns", "run-1", "step")
		later := t0.Add(5 * time.Hour)
		again.ExpiresAt, again.CreatedAt = &later, t0.Add(time.Minute)
		got, created, err := b.store.CreateInquiry(ctx, again, []inquiry.Delivery{{Kind: inquiry.DeliverPost}})
		require.NoError(t, err)
		require.False(t, created)
		require.Equal(t, first, got)
		ds, err := b.store.ListDeliveries(ctx, again.Key)
		require.NoError(t, err)
		require.Empty(t, ds, "nothing is written for a re-entry")
		ds, err = b.store.ListDeliveries(ctx, first.Key)
		require.NoError(t, err)
		require.Len(t, ds, 1)

		// Answered since: still the same record, answer and all.
		_, err = b.store.Resolve(ctx, first.Key, inquiry.Resolution{Status: inquiry.StatusAnswered,
			Answer: personAnswer("step", "merge", t0), At: t0})
		require.NoError(t, err)
		got, created, err = b.store.CreateInquiry(ctx, newRecord("ns", "run-1", "step"), nil)
		require.NoError(t, err)
		require.False(t, created)
		require.Equal(t, inquiry.StatusAnswered, got.Status)
		require.Equal(t, "merge", got.Answer.Value.First())

		// The same id with other content is a conflict.
		changed := newRecord("ns", "run-1", "step")
		changed.Question = "Merge later?"
		got, created, err = b.store.CreateInquiry(ctx, changed, nil)
		requireCode(t, err, inquiry.CodeIDConflict)
		require.Nil(t, got)
		require.False(t, created)
		require.Equal(t, "id", inquiry.ErrorField(err))

		// The same id under another run or namespace, or with no run, is another inquiry.
		for _, rec := range []*inquiry.Record{newRecord("ns", "run-2", "step"), newRecord("other", "run-1", "step"), newRecord("ns", "", "step")} {
			got := create(t, b.store, rec)
			require.Equal(t, rec.Key, got.Key)
		}
		_, err = b.store.InquiryByID(ctx, "other", "run-1", "step")
		require.NoError(t, err)
	})
}

func TestAskedOnceConcurrently(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		const n = 10
		var wg sync.WaitGroup
		keys := make([]string, n)
		createdCount := make([]bool, n)
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				got, created, err := b.store.CreateInquiry(ctx, newRecord("ns", "run", "same"), []inquiry.Delivery{{Kind: inquiry.DeliverPost}})
				errs[i], createdCount[i] = err, created
				if got != nil {
					keys[i] = got.Key
				}
			})
		}
		wg.Wait()
		winners := 0
		for i := range n {
			require.NoError(t, errs[i])
			require.Equal(t, keys[0], keys[i])
			if createdCount[i] {
				winners++
			}
		}
		require.Equal(t, 1, winners)
		requireDeliveryCount(t, b, "", 1)
	})
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		_, err := b.store.Inquiry(ctx, "inq_nope")
		requireCode(t, err, inquiry.CodeNotFound)
		require.ErrorIs(t, err, inquiry.ErrNotFound)
		_, err = b.store.InquiryByID(ctx, "ns", "", "nope")
		require.ErrorIs(t, err, inquiry.ErrNotFound)
		rec, err := b.store.Resolve(ctx, "inq_nope", inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0})
		require.ErrorIs(t, err, inquiry.ErrNotFound)
		require.Nil(t, rec)
		require.ErrorIs(t, b.store.SetPosted(ctx, "inq_nope", inquiry.SlackRef{TS: "1"}), inquiry.ErrNotFound)
		_, err = b.store.Run(ctx, "ns", "nope")
		require.ErrorIs(t, err, inquiry.ErrNotFound)
		_, err = b.store.Heartbeat(ctx, "ns", "nope", t0)
		require.ErrorIs(t, err, inquiry.ErrNotFound)
		_, err = b.store.RecordAnswers(ctx, "ns", "nope", nil, inquiry.RunRunning, t0)
		require.ErrorIs(t, err, inquiry.ErrNotFound)
		_, err = b.store.FinishRun(ctx, "ns", "nope", inquiry.RunCompleted, t0)
		require.ErrorIs(t, err, inquiry.ErrNotFound)
		_, _, err = b.store.ParkRun(ctx, "ns", "nope", "inq_nope", t0)
		require.ErrorIs(t, err, inquiry.ErrNotFound)
		require.ErrorIs(t, b.store.CompleteDelivery(ctx, 4242, t0), inquiry.ErrNotFound)
		require.ErrorIs(t, b.store.RetryDelivery(ctx, 4242, t0, "x", t0), inquiry.ErrNotFound)
		require.ErrorIs(t, b.store.FailDelivery(ctx, 4242, "x", t0), inquiry.ErrNotFound)
		_, err = b.store.Token(ctx, "nope")
		require.ErrorIs(t, err, inquiry.ErrNotFound)
		require.ErrorIs(t, b.store.RevokeToken(ctx, "nope", t0), inquiry.ErrNotFound)
		_, err = b.store.Setting(ctx, "nope")
		require.ErrorIs(t, err, inquiry.ErrNotFound)
	})
}

func TestListInquiries(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		// Nine inquiries a minute apart, alternating namespaces; the last two share a creation
		// time, so the key breaks the tie.
		var recs []*inquiry.Record
		for i := range 9 {
			ns := []string{"a", "b"}[i%2]
			rec := newRecord(ns, fmt.Sprintf("run-%d", i%3), fmt.Sprintf("q%d", i))
			rec.Key = fmt.Sprintf("inq_list_%d", i)
			rec.CreatedAt = t0.Add(time.Duration(min(i, 7)) * time.Minute)
			recs = append(recs, create(t, b.store, rec))
		}
		_, err := b.store.Resolve(ctx, recs[4].Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0.Add(time.Hour)})
		require.NoError(t, err)

		// All of them, three to a page.
		var pages [][]string
		cursor := ""
		for {
			page, next, err := b.store.ListInquiries(ctx, inquiry.ListFilter{Limit: 3, Cursor: cursor})
			require.NoError(t, err)
			pages = append(pages, idsOf(page))
			if next == "" {
				break
			}
			cursor = next
		}
		require.Equal(t, [][]string{{"q8", "q7", "q6"}, {"q5", "q4", "q3"}, {"q2", "q1", "q0"}}, pages)

		// Filters.
		got, next, err := b.store.ListInquiries(ctx, inquiry.ListFilter{Namespace: "a"})
		require.NoError(t, err)
		require.Equal(t, []string{"q8", "q6", "q4", "q2", "q0"}, idsOf(got))
		require.Empty(t, next)
		got, _, err = b.store.ListInquiries(ctx, inquiry.ListFilter{Namespace: "a", Status: inquiry.StatusPending, Limit: 2})
		require.NoError(t, err)
		require.Equal(t, []string{"q8", "q6"}, idsOf(got))
		got, _, err = b.store.ListInquiries(ctx, inquiry.ListFilter{Namespace: "b", RunID: "run-1"})
		require.NoError(t, err)
		require.Equal(t, []string{"q7", "q1"}, idsOf(got))
		got, _, err = b.store.ListInquiries(ctx, inquiry.ListFilter{Status: inquiry.StatusCancelled})
		require.NoError(t, err)
		require.Equal(t, []string{"q4"}, idsOf(got))
		newest, _, err := b.store.ListInquiries(ctx, inquiry.ListFilter{Limit: 1})
		require.NoError(t, err)
		require.Equal(t, recs[8:9], newest, "a listed record is the whole record")

		// A page through a filter keeps the filter.
		page1, next, err := b.store.ListInquiries(ctx, inquiry.ListFilter{Namespace: "b", Limit: 2})
		require.NoError(t, err)
		require.Equal(t, []string{"q7", "q5"}, idsOf(page1))
		page2, next, err := b.store.ListInquiries(ctx, inquiry.ListFilter{Namespace: "b", Limit: 2, Cursor: next})
		require.NoError(t, err)
		require.Equal(t, []string{"q3", "q1"}, idsOf(page2))
		require.Empty(t, next, "nothing after the last page")

		for _, bad := range []string{"not base64!", "bm9waXBl", "eHx5"} {
			_, _, err = b.store.ListInquiries(ctx, inquiry.ListFilter{Cursor: bad})
			requireCode(t, err, inquiry.CodeBadRequest)
			require.Equal(t, "cursor", inquiry.ErrorField(err))
		}
	})
}

func TestSetPosted(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		rec := create(t, b.store, newRecord("ns", "", "q"))
		require.NoError(t, b.store.SetPosted(ctx, rec.Key, inquiry.SlackRef{Channel: "C9", TS: "1700000000.000100", Permalink: "https://slack/p1"}))
		got, err := b.store.Inquiry(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, inquiry.SlackRef{Channel: "C9", TS: "1700000000.000100", Permalink: "https://slack/p1",
			Answerers: []string{"U1", "S2"}}, got.Slack)
		// Empty fields keep what is stored.
		require.NoError(t, b.store.SetPosted(ctx, rec.Key, inquiry.SlackRef{ThreadTS: "1699.1"}))
		got, err = b.store.Inquiry(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, "C9", got.Slack.Channel)
		require.Equal(t, "1699.1", got.Slack.ThreadTS)
		require.Equal(t, "1700000000.000100", got.Slack.TS)
	})
}

func TestResolveFirstAnswerWins(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		rec := create(t, b.store, newRecord("ns", "run", "q"), inquiry.Delivery{Kind: inquiry.DeliverPost})
		const n = 20
		var wg sync.WaitGroup
		recs := make([]*inquiry.Record, n)
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				a := personAnswer("q", []string{"merge", "hold"}[i%2], t0.Add(time.Duration(i)*time.Second))
				a.AnsweredBy = fmt.Sprintf("U%d", i)
				recs[i], errs[i] = b.store.Resolve(ctx, rec.Key, inquiry.Resolution{
					Status: inquiry.StatusAnswered, Answer: a, At: t0.Add(time.Duration(i) * time.Second),
					Deliveries: []inquiry.Delivery{{Kind: inquiry.DeliverUpdate, Target: "slack", Lane: "C1"}},
				})
			})
		}
		wg.Wait()

		winner := -1
		for i := range n {
			if errs[i] == nil {
				require.Equal(t, -1, winner, "two resolutions won")
				winner = i
			}
		}
		require.NotEqual(t, -1, winner, "no resolution won")
		won := recs[winner]
		require.Equal(t, inquiry.StatusAnswered, won.Status)
		require.Equal(t, fmt.Sprintf("U%d", winner), won.Answer.AnsweredBy)
		for i := range n {
			if i == winner {
				continue
			}
			requireCode(t, errs[i], inquiry.CodeAlreadyResolved)
			require.ErrorIs(t, errs[i], inquiry.ErrAlreadyResolved)
			require.NotNil(t, recs[i], "a late resolution gets the record as it stands")
			require.Equal(t, won, recs[i])
		}

		// Only the winner's deliveries were enqueued.
		ds, err := b.store.ListDeliveries(ctx, rec.Key)
		require.NoError(t, err)
		require.Len(t, ds, 2)
		require.Equal(t, inquiry.DeliverPost, ds[0].Kind)
		require.Equal(t, inquiry.DeliverUpdate, ds[1].Kind)
		require.Equal(t, won.ResolvedAt.UTC(), ds[1].CreatedAt)

		stored, err := b.store.Inquiry(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, won, stored)
		requirePending(t, b, 0)
	})
}

func TestResolveOutcomes(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		// Expired with the default.
		exp := create(t, b.store, newRecord("ns", "", "exp"))
		a := inquiry.DefaultAnswerFor(&exp.Inquiry)
		a.Source, a.AnsweredAt = inquiry.SourceExpired, t0
		got, err := b.store.Resolve(ctx, exp.Key, inquiry.Resolution{Status: inquiry.StatusExpired, Answer: &a, At: t0})
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusExpired, got.Status)
		require.Equal(t, &a, got.Answer)
		require.Equal(t, t0, *got.ResolvedAt)

		// Failed, with the failure kept.
		fail := create(t, b.store, newRecord("ns", "", "fail"))
		f := &inquiry.Failure{Code: inquiry.CodeUnavailable, Message: "channel_not_found: invite the bot", Fatal: true}
		got, err = b.store.Resolve(ctx, fail.Key, inquiry.Resolution{Status: inquiry.StatusFailed, Failure: f, At: t0})
		require.NoError(t, err)
		require.Equal(t, f, got.Failure)
		require.Nil(t, got.Answer)

		// A resolution to pending is refused.
		p := create(t, b.store, newRecord("ns", "", "p"))
		_, err = b.store.Resolve(ctx, p.Key, inquiry.Resolution{Status: inquiry.StatusPending, At: t0})
		requireCode(t, err, inquiry.CodeInternal)

		// Cancelling something already answered is already_resolved, with the record.
		got, err = b.store.Resolve(ctx, exp.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0})
		requireCode(t, err, inquiry.CodeAlreadyResolved)
		require.Equal(t, inquiry.StatusExpired, got.Status)
	})
}

func TestDueInquiries(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		mk := func(id string, expires *time.Time) *inquiry.Record {
			rec := newRecord("ns", "", id)
			rec.ExpiresAt = expires
			return create(t, b.store, rec)
		}
		ptr := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
		mk("at-t0", ptr(0))
		mk("later", ptr(time.Second))
		mk("two-hours-ago", ptr(-2*time.Hour))
		mk("never", nil)
		mk("an-hour-ago", ptr(-time.Hour))
		mk("a-microsecond-ago", ptr(-time.Microsecond))
		gone := mk("resolved", ptr(-3*time.Hour))
		_, err := b.store.Resolve(ctx, gone.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0})
		require.NoError(t, err)

		ids := func(now time.Time, limit int) []string {
			recs, err := b.store.DueInquiries(ctx, now, nil, limit)
			require.NoError(t, err)
			return idsOf(recs)
		}
		require.Equal(t, []string{"two-hours-ago", "an-hour-ago", "a-microsecond-ago", "at-t0"}, ids(t0, 10))
		require.Equal(t, []string{"two-hours-ago", "an-hour-ago"}, ids(t0, 2))
		// One second before, the one expiring at t0 is not due yet.
		require.Equal(t, []string{"two-hours-ago", "an-hour-ago"}, ids(t0.Add(-time.Second), 10))
		require.Equal(t, []string{"two-hours-ago", "an-hour-ago", "a-microsecond-ago", "at-t0", "later"}, ids(t0.Add(time.Second), 10))
		require.Empty(t, ids(t0.Add(-4*time.Hour), 10))
	})
}

// TestDueInquiriesAfterACursor pages through the due inquiries as the sweeper does, each page
// after the last record of the one before: every due inquiry once, in (expiry, key) order,
// including several that expire at the same instant, which the key orders.
func TestDueInquiriesAfterACursor(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		var want []string
		for i := range 7 {
			rec := newRecord("ns", "", fmt.Sprintf("due-%d", i))
			exp := t0.Add(-time.Duration(i/3) * time.Minute) // three at t0, three a minute ago, one two minutes ago
			rec.ExpiresAt = &exp
			want = append(want, create(t, b.store, rec).Key)
		}
		later := newRecord("ns", "", "later")
		exp := t0.Add(time.Minute)
		later.ExpiresAt = &exp
		create(t, b.store, later)
		byDue := map[string]time.Time{}
		for _, k := range want {
			rec, err := b.store.Inquiry(ctx, k)
			require.NoError(t, err)
			byDue[k] = *rec.ExpiresAt
		}
		slices.SortFunc(want, func(a, c string) int {
			return cmp.Or(byDue[a].Compare(byDue[c]), strings.Compare(a, c))
		})

		var got []string
		var after *inquiry.Record
		for range 10 {
			page, err := b.store.DueInquiries(ctx, t0, after, 2)
			require.NoError(t, err)
			for _, rec := range page {
				got = append(got, rec.Key)
			}
			if len(page) < 2 {
				break
			}
			after = page[len(page)-1]
		}
		require.Equal(t, want, got, "every due inquiry once, in (expiry, key) order, and not the one due later")

		// A page taken while the one before is being resolved does not hold its inquiries.
		first, err := b.store.DueInquiries(ctx, t0, nil, 3)
		require.NoError(t, err)
		next, err := b.store.DueInquiries(ctx, t0, first[2], 3)
		require.NoError(t, err)
		require.Equal(t, want[3:6], orderedKeys(next))
	})
}

// TestDueInquiriesUsesPartialIndex shows the due query is answered from the partial index on the
// expiry of pending rows, with a hundred thousand pending rows in the table (ten thousand on
// SQLite, whose planner does not weigh row counts the same way, to keep the test quick).
func TestDueInquiriesUsesPartialIndex(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		fillForPlanner(t, b, []sqlStep{
			{`INSERT INTO inquiries (key, namespace, id, kind, question, status, created_at, expires_at)
				SELECT 'bulk_' || g, 'bulk', 'q' || g, 'text', 'Why?', 'pending', $1::timestamptz, $1::timestamptz + g * interval '1 second'
				FROM generate_series(1, 100000) AS g`, []any{storage.TimeArg(t0)}},
			{`INSERT INTO inquiries (key, namespace, id, kind, question, status, created_at, expires_at, resolved_at)
				SELECT 'done_' || g, 'bulk', 'd' || g, 'text', 'Why?', 'answered', $1::timestamptz, $1::timestamptz, $1::timestamptz
				FROM generate_series(1, 100000) AS g`, []any{storage.TimeArg(t0)}},
		}, []sqlStep{
			{`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 10000)
				INSERT INTO inquiries (key, namespace, id, kind, question, status, created_at, expires_at)
				SELECT 'bulk_' || n, 'bulk', 'q' || n, 'text', 'Why?', 'pending', ?,
					strftime('%Y-%m-%dT%H:%M:%f000Z', ?, '+' || n || ' seconds')
				FROM g`, []any{storage.TimeArg(t0), t0.Format("2006-01-02 15:04:05")}},
		})
		plan, err := storage.ExplainDue(ctx, b.store, t0.Add(10*time.Second), 100)
		require.NoError(t, err)
		t.Logf("plan:\n%s", plan)
		require.Contains(t, plan, "inquiries_due")
		if b.postgres() {
			require.Contains(t, plan, "Index")
			require.NotContains(t, plan, "Seq Scan")
		} else {
			require.NotContains(t, plan, "SCAN inquiries\n")
			require.NotContains(t, plan, "TEMP B-TREE", "no sort: the index gives the order")
		}
		after, err := storage.ExplainDueAfter(ctx, b.store, t0.Add(10*time.Second), t0.Add(5*time.Second), "bulk_5", 100)
		require.NoError(t, err)
		t.Logf("plan after a cursor:\n%s", after)
		require.Contains(t, after, "inquiries_due")
		if b.postgres() {
			require.NotContains(t, after, "Seq Scan")
			require.NotContains(t, after, "Sort", "no sort: the index gives the order")
			require.Regexp(t, `Index Cond: .*ROW\(expires_at, key\) >`, after, "the cursor starts the index range, not a filter")
		} else {
			require.Contains(t, after, "(expires_at,key)>", "the cursor starts the index range, not a filter")
			require.NotContains(t, after, "SCAN inquiries\n")
			require.NotContains(t, after, "TEMP B-TREE", "no sort: the index gives the order")
		}
		// And the query finds the ten due rows, in order.
		due, err := b.store.DueInquiries(ctx, t0.Add(10*time.Second), nil, 100)
		require.NoError(t, err)
		require.Len(t, due, 10)
		require.Equal(t, "q1", due[0].ID)
		require.Equal(t, "q10", due[9].ID)
	})
}

func TestDeleteResolvedBefore(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		old := create(t, b.store, newRecord("ns", "", "old"), inquiry.Delivery{Kind: inquiry.DeliverPost})
		recent := create(t, b.store, newRecord("ns", "", "recent"))
		pending := create(t, b.store, newRecord("ns", "", "pending"))
		_, err := b.store.Resolve(ctx, old.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0.Add(-48 * time.Hour),
			Deliveries: []inquiry.Delivery{{Kind: inquiry.DeliverUpdate}}})
		require.NoError(t, err)
		_, err = b.store.Resolve(ctx, recent.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0})
		require.NoError(t, err)
		ds, err := b.store.ListDeliveries(ctx, old.Key)
		require.NoError(t, err)
		require.NoError(t, b.store.CompleteDelivery(ctx, ds[0].ID, t0.Add(-47*time.Hour))) // done long ago
		// ds[1] stays pending: retention never drops work still to do.

		n, err := b.store.DeleteResolvedBefore(ctx, t0.Add(-24*time.Hour))
		require.NoError(t, err)
		require.Equal(t, 1, n)
		_, err = b.store.Inquiry(ctx, old.Key)
		require.ErrorIs(t, err, inquiry.ErrNotFound)
		for _, k := range []string{recent.Key, pending.Key} {
			_, err = b.store.Inquiry(ctx, k)
			require.NoError(t, err)
		}
		left, err := b.store.ListDeliveries(ctx, old.Key)
		require.NoError(t, err)
		require.Len(t, left, 1)
		require.Equal(t, inquiry.DeliverUpdate, left[0].Kind)
	})
}

func TestListen(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if !b.postgres() {
			// One process: the service wakes its own waiters. Listen has nothing to do.
			require.NoError(t, b.store.Listen(ctx, func(string) { t.Error("no notification on SQLite") }))
			return
		}
		keys := make(chan string, 16)
		done := make(chan error, 1)
		go func() { done <- b.store.Listen(ctx, func(k string) { keys <- k }) }()
		next := func() string {
			select {
			case k := <-keys:
				return k
			case <-time.After(10 * time.Second):
				t.Fatal("no notification within 10 seconds")
				return ""
			}
		}
		require.Equal(t, "", next(), "subscribed: re-check everything")

		rec := create(t, b.store, newRecord("ns", "", "q"))
		_, err := b.store.Resolve(ctx, rec.Key, inquiry.Resolution{Status: inquiry.StatusAnswered, Answer: personAnswer("q", "merge", t0), At: t0})
		require.NoError(t, err)
		require.Equal(t, rec.Key, next())

		// A lost resolution announces nothing.
		_, err = b.store.Resolve(ctx, rec.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0})
		require.ErrorIs(t, err, inquiry.ErrAlreadyResolved)
		other := create(t, b.store, newRecord("ns", "", "q2"))
		_, err = b.store.Resolve(ctx, other.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0})
		require.NoError(t, err)
		require.Equal(t, other.Key, next())

		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("Listen did not return after its context ended")
		}
	})
}

// Listen on an unreachable server keeps trying until its context ends, and then returns.
func TestListenUnreachable(t *testing.T) {
	t.Parallel()
	s, err := storage.OpenUnmigrated("postgres://postgres@127.0.0.1:" + closedPort(t) + "/x?sslmode=disable")
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	require.NoError(t, s.Listen(ctx, func(string) { t.Error("nothing to hear") }))
}

// TestPendingInThread: a reply in a thread may answer the pending inquiries posted in it — the
// thread's root message, or a message posted into the thread — newest first; nothing resolved,
// nothing not yet posted, nothing of another channel or another thread.
func TestPendingInThread(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		const root = "1700000000.000100"
		mk := func(id string, after time.Duration, ref inquiry.SlackRef) *inquiry.Record {
			rec := newRecord("ns", "", id)
			rec.CreatedAt = t0.Add(after)
			rec.Slack = ref
			return create(t, b.store, rec)
		}
		a := mk("a-root", 0, inquiry.SlackRef{Channel: "C1", TS: root})
		bb := mk("b-in-a", time.Minute, inquiry.SlackRef{Channel: "C1", ThreadTS: root, TS: "1700000000.000200"})
		c := mk("c-in-a", 2*time.Minute, inquiry.SlackRef{Channel: "C1", ThreadTS: root, TS: "1700000000.000300"})
		_, err := b.store.Resolve(ctx, c.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0})
		require.NoError(t, err)
		mk("d-not-posted", 3*time.Minute, inquiry.SlackRef{Channel: "C1", ThreadTS: root})
		mk("e-other-channel", 4*time.Minute, inquiry.SlackRef{Channel: "C2", ThreadTS: root, TS: "1700000000.000400"})
		mk("f-other-root", 5*time.Minute, inquiry.SlackRef{Channel: "C1", TS: "1700000000.000500"})
		mk("g-in-f", 6*time.Minute, inquiry.SlackRef{Channel: "C1", ThreadTS: "1700000000.000500", TS: "1700000000.000600"})
		// Two posted into a thread whose root is no inquiry (a person's message), created at the
		// same instant: the key breaks the tie, descending.
		h1 := mk("h1-in-talk", 7*time.Minute, inquiry.SlackRef{Channel: "C1", ThreadTS: "1700000000.000050", TS: "1700000000.000700"})
		h2 := mk("h2-in-talk", 7*time.Minute, inquiry.SlackRef{Channel: "C1", ThreadTS: "1700000000.000050", TS: "1700000000.000800"})

		got, err := b.store.PendingInThread(ctx, "C1", root, 20)
		require.NoError(t, err)
		require.Equal(t, []string{bb.Key, a.Key}, orderedKeys(got), "newest first: the one posted into the thread, then its root")
		require.Equal(t, "b-in-a", got[0].ID)
		require.Equal(t, root, got[0].Slack.ThreadTS)

		got, err = b.store.PendingInThread(ctx, "C1", root, 1)
		require.NoError(t, err)
		require.Equal(t, []string{bb.Key}, orderedKeys(got), "bounded by limit")

		got, err = b.store.PendingInThread(ctx, "C1", "1700000000.000050", 20)
		require.NoError(t, err)
		want := []string{h1.Key, h2.Key}
		if h1.Key < h2.Key {
			want = []string{h2.Key, h1.Key}
		}
		require.Equal(t, want, orderedKeys(got), "a thread whose root is no inquiry: the ones posted into it")

		for _, probe := range []struct{ channel, ts string }{
			{"C2", "1700000000.000050"}, // no inquiry there
			{"C1", "1700000000.000200"}, // b's own message is no thread root
			{"C1", ""},                  // not a thread
			{"C3", root},
		} {
			got, err = b.store.PendingInThread(ctx, probe.channel, probe.ts, 20)
			require.NoError(t, err)
			require.Empty(t, got, "%+v", probe)
		}

		// Once answered, a root no longer counts.
		_, err = b.store.Resolve(ctx, bb.Key, inquiry.Resolution{Status: inquiry.StatusAnswered, At: t0,
			Answer: personAnswer("b-in-a", "hold", t0)})
		require.NoError(t, err)
		got, err = b.store.PendingInThread(ctx, "C1", root, 20)
		require.NoError(t, err)
		require.Equal(t, []string{a.Key}, orderedKeys(got))
	})
}

// TestPendingInThreadUsesIndexes shows the thread lookup is answered from indexes — the posted
// message (channel, ts) for the root and the partial index of pending messages posted into a
// thread — with a hundred thousand pending posted rows (ten thousand on SQLite), half of them
// posted into threads.
func TestPendingInThreadUsesIndexes(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		fillForPlanner(t, b, []sqlStep{
			{`INSERT INTO inquiries (key, namespace, id, kind, question, status, created_at,
					slack_channel, slack_ts, slack_thread_ts)
				SELECT 'bulk_' || g, 'bulk', 'q' || g, 'text', 'Why?', 'pending', $1::timestamptz + g * interval '1 second',
					'C' || (g % 50), '1700000000.' || lpad(g::text, 6, '0'),
					CASE WHEN g % 2 = 0 THEN '1700000000.' || lpad((g - 1)::text, 6, '0') ELSE '' END
				FROM generate_series(1, 100000) AS g`, []any{storage.TimeArg(t0)}},
		}, []sqlStep{
			{`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 10000)
				INSERT INTO inquiries (key, namespace, id, kind, question, status, created_at, slack_channel, slack_ts, slack_thread_ts)
				SELECT 'bulk_' || n, 'bulk', 'q' || n, 'text', 'Why?', 'pending',
					strftime('%Y-%m-%dT%H:%M:%f000Z', ?, '+' || n || ' seconds'),
					'C' || (n % 50), printf('1700000000.%06d', n),
					CASE WHEN n % 2 = 0 THEN printf('1700000000.%06d', n - 1) ELSE '' END
				FROM g`, []any{t0.Format("2006-01-02 15:04:05")}},
		})
		// Row 4241 (channel C41) is a root; row 4242 (channel C42) was posted into thread 4241 of
		// C42 — no root there. In C41 only the root is found.
		thread := "1700000000.004241"
		plan, err := storage.ExplainPendingInThread(ctx, b.store, "C41", thread, 20)
		require.NoError(t, err)
		t.Logf("plan:\n%s", plan)
		require.Contains(t, plan, "inquiries_slack_message", "the root is found by its message")
		require.Contains(t, plan, "inquiries_thread_pending", "the messages posted into the thread by the partial index")
		if b.postgres() {
			require.NotContains(t, plan, "Seq Scan")
		} else {
			require.NotRegexp(t, `(?m)^SCAN inquiries`, plan, "no full scan")
		}
		got, err := b.store.PendingInThread(ctx, "C41", thread, 20)
		require.NoError(t, err)
		require.Equal(t, []string{"q4241"}, idsOf(got))
		got, err = b.store.PendingInThread(ctx, "C42", thread, 20)
		require.NoError(t, err)
		require.Equal(t, []string{"q4242"}, idsOf(got))
	})
}

// TestListInquiriesByChannel: the channel filter finds a channel's inquiries however many newer
// ones wait elsewhere, and combines with the others; "" means any channel.
func TestListInquiriesByChannel(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		mine := newRecord("ns", "", "mine")
		mine.Slack = inquiry.SlackRef{Channel: "C_MINE", TS: "1700000000.000001"}
		mine = create(t, b.store, mine)
		for i := range 150 {
			rec := newRecord("ns", "", fmt.Sprintf("elsewhere-%d", i))
			rec.CreatedAt = t0.Add(time.Duration(i+1) * time.Second)
			rec.Slack = inquiry.SlackRef{Channel: "C_ELSE", TS: fmt.Sprintf("1700000001.%06d", i)}
			create(t, b.store, rec)
		}
		got, _, err := b.store.ListInquiries(ctx, inquiry.ListFilter{Status: inquiry.StatusPending, Channel: "C_MINE", Limit: 20})
		require.NoError(t, err)
		require.Equal(t, []string{mine.Key}, orderedKeys(got))

		got, next, err := b.store.ListInquiries(ctx, inquiry.ListFilter{Namespace: "ns", Channel: "C_ELSE", Limit: 100})
		require.NoError(t, err)
		require.Len(t, got, 100)
		require.Equal(t, "elsewhere-149", got[0].ID)
		got, next, err = b.store.ListInquiries(ctx, inquiry.ListFilter{Namespace: "ns", Channel: "C_ELSE", Limit: 100, Cursor: next})
		require.NoError(t, err)
		require.Len(t, got, 50)
		require.Empty(t, next)

		got, _, err = b.store.ListInquiries(ctx, inquiry.ListFilter{Namespace: "other", Channel: "C_MINE"})
		require.NoError(t, err)
		require.Empty(t, got)
		got, _, err = b.store.ListInquiries(ctx, inquiry.ListFilter{Channel: "C_NONE"})
		require.NoError(t, err)
		require.Empty(t, got)
		got, _, err = b.store.ListInquiries(ctx, inquiry.ListFilter{Limit: 500})
		require.NoError(t, err)
		require.Len(t, got, 151, "no channel: every channel")
	})
}

// TestNoClockOfItsOwn: the store takes every time from its caller (the service's clock, which
// tests move), so that no stored time disagrees with what the service decided: a record, a
// resolution or a delivery without a time is refused; a record's deliveries take its creation
// time; a record without a key gets one of inquiry.NewKey's.
func TestNoClockOfItsOwn(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		clock := t0.Add(42*time.Minute + 7*time.Microsecond)

		untimed := newRecord("ns", "run", "untimed")
		untimed.CreatedAt = time.Time{}
		_, _, err := b.store.CreateInquiry(ctx, untimed, nil)
		require.Error(t, err)

		rec := newRecord("ns", "run", "clocked")
		rec.Key, rec.CreatedAt = "", clock
		got := create(t, b.store, rec, inquiry.Delivery{Kind: inquiry.DeliverPost, Target: "https://example.com/cb"})
		require.Equal(t, clock, got.CreatedAt)
		require.Regexp(t, regexp.MustCompile(`^inq_[a-z2-7]{29}$`), got.Key)
		ds, err := b.store.ListDeliveries(ctx, got.Key)
		require.NoError(t, err)
		require.Len(t, ds, 1)
		require.Equal(t, clock, ds[0].CreatedAt)
		require.Equal(t, clock, ds[0].NextAttemptAt)

		_, err = b.store.Resolve(ctx, got.Key, inquiry.Resolution{Status: inquiry.StatusCancelled})
		require.Error(t, err)
		res, err := b.store.Resolve(ctx, got.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: clock})
		require.NoError(t, err)
		require.Equal(t, clock, *res.ResolvedAt)

		err = b.store.EnqueueDeliveries(ctx, []inquiry.Delivery{{Kind: inquiry.DeliverPost,
			InquiryKey: "inq_enqueued", Target: "https://example.com/cb"}})
		require.Error(t, err)
		ds, err = b.store.ListDeliveries(ctx, "inq_enqueued")
		require.NoError(t, err)
		require.Empty(t, ds, "a refused enqueue stores nothing")
	})
}
