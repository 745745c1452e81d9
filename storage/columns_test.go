package storage_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
	"github.com/stretchr/testify/require"
)

// TestColumnsAreTheSchema: the row structs' tags, from which the store makes every column list,
// name exactly the columns the migrations make, on both dialects. A column added to one and not
// the other fails here.
func TestColumnsAreTheSchema(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		for table, cols := range storage.Columns() {
			rows, err := b.db.Query("SELECT * FROM " + table + " LIMIT 0")
			require.NoError(t, err, table)
			got, err := rows.Columns()
			require.NoError(t, rows.Close())
			require.NoError(t, err, table)
			require.ElementsMatch(t, got, cols, "the columns of %s", table)
		}
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
		require.Regexp(t, regexp.MustCompile(`^inq_[a-z2-7]{20}$`), got.Key)
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
