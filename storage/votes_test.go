package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestExpiryTakesTheVotesOfTheLockedRow: the sweeper builds an expiry from a record it read
// without a lock; a vote committed after that read and before the expiry is still one given in
// time, so the expired answer carries the votes the row holds when it resolves, not the stale
// ones it was built with.
func TestExpiryTakesTheVotesOfTheLockedRow(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		rec := newRecord("ns", "", "three")
		three := 3
		rec.Approvals = &three
		rec = create(t, b.store, rec)
		none := func(*inquiry.Record) (*inquiry.Resolution, []inquiry.Delivery) { return nil, nil }
		vote := func(by string, at time.Time) inquiry.Vote {
			return inquiry.Vote{By: by, Value: inquiry.One("merge"), At: at, Via: inquiry.ViaAPI}
		}
		_, err := b.store.Vote(ctx, rec.Key, vote("U1", t0), none)
		require.NoError(t, err)
		read, err := b.store.Inquiry(ctx, rec.Key) // what the sweeper read
		require.NoError(t, err)
		require.Len(t, read.Votes, 1)
		_, err = b.store.Vote(ctx, rec.Key, vote("U2", t0.Add(time.Second)), none) // then a vote
		require.NoError(t, err)

		a := inquiry.Answer{InquiryID: read.ID, Value: read.Default, Source: inquiry.SourceExpired, AnsweredAt: t0.Add(time.Hour), Votes: read.Votes}
		got, err := b.store.Resolve(ctx, rec.Key, inquiry.Resolution{Status: inquiry.StatusExpired, Answer: &a, At: t0.Add(time.Hour)})
		require.NoError(t, err)
		require.Equal(t, []string{"U1", "U2"}, inquiry.Voters(got.Answer.Votes, "merge"))
		again, err := b.store.Inquiry(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, []string{"U1", "U2"}, inquiry.Voters(again.Answer.Votes, "merge"), "as stored")
	})
}

// TestBatchExpiryTakesTheVotesOfTheLockedRow: the votes rule in the sweeper's batch (ResolveMany,
// several items: on PostgreSQL the rows locked first, then one UPDATE over arrays), with the
// expiry's Resolution.Expiry set as the service sets it: a vote committed after the sweeper's
// read is in the expired answer, and a vote does not make the expiry lose.
func TestBatchExpiryTakesTheVotesOfTheLockedRow(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		none := func(*inquiry.Record) (*inquiry.Resolution, []inquiry.Delivery) { return nil, nil }
		vote := func(by string, at time.Time) inquiry.Vote {
			return inquiry.Vote{By: by, Value: inquiry.One("merge"), At: at, Via: inquiry.ViaAPI}
		}
		var items []inquiry.ResolveItem
		var keys []string
		for _, id := range []string{"batch-three-a", "batch-three-b"} {
			rec := newRecord("ns", "", id)
			three := 3
			rec.Approvals = &three
			rec = create(t, b.store, rec)
			_, err := b.store.Vote(ctx, rec.Key, vote("U1", t0), none)
			require.NoError(t, err)
			read, err := b.store.Inquiry(ctx, rec.Key) // what the sweeper read
			require.NoError(t, err)
			_, err = b.store.Vote(ctx, rec.Key, vote("U2", t0.Add(time.Second)), none) // then a vote
			require.NoError(t, err)
			a := inquiry.Answer{InquiryID: read.ID, Value: read.Default, Source: inquiry.SourceExpired, AnsweredAt: t0.Add(time.Hour), Votes: read.Votes}
			items = append(items, inquiry.ResolveItem{Key: rec.Key, Resolution: inquiry.Resolution{Status: inquiry.StatusExpired,
				Answer: &a, At: t0.Add(time.Hour), Expiry: read.ExpiresAt}})
			keys = append(keys, rec.Key)
		}
		got, err := b.store.ResolveMany(ctx, items)
		require.NoError(t, err)
		require.Len(t, got, 2)
		for i, r := range got {
			require.Equal(t, []string{"U1", "U2"}, inquiry.Voters(r.Answer.Votes, "merge"))
			again, err := b.store.Inquiry(ctx, keys[i])
			require.NoError(t, err)
			require.Equal(t, []string{"U1", "U2"}, inquiry.Voters(again.Answer.Votes, "merge"), "as stored")
		}
	})
}
