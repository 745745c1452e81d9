package storage_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
)

// orderedKeys lists the keys of recs in their order (resolvemany_test keysOf sorts them).
func orderedKeys(recs []*inquiry.Record) []string {
	return fieldOf(recs, func(r *inquiry.Record) string { return r.Key })
}

// idsOf lists the asker's ids of recs in their order.
func idsOf(recs []*inquiry.Record) []string {
	return fieldOf(recs, func(r *inquiry.Record) string { return r.ID })
}

func fieldOf(recs []*inquiry.Record, f func(*inquiry.Record) string) []string {
	out := []string{}
	for _, r := range recs {
		out = append(out, f(r))
	}
	return out
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
