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
		read, a := readBeforeAVote(t, b, "three")
		got, err := b.store.Resolve(ctx, read.Key, inquiry.Resolution{Status: inquiry.StatusExpired, Answer: &a, At: t0.Add(time.Hour)})
		require.NoError(t, err)
		require.Equal(t, []string{"U1", "U2"}, inquiry.Voters(got.Answer.Votes, "merge"))
		again, err := b.store.Inquiry(ctx, read.Key)
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
		var items []inquiry.ResolveItem
		var keys []string
		for _, id := range []string{"batch-three-a", "batch-three-b"} {
			read, a := readBeforeAVote(t, b, id)
			items = append(items, inquiry.ResolveItem{Key: read.Key, Resolution: inquiry.Resolution{Status: inquiry.StatusExpired,
				Answer: &a, At: t0.Add(time.Hour), Expiry: read.ExpiresAt}})
			keys = append(keys, read.Key)
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

// noDecision is a decide of Vote that resolves nothing and enqueues nothing.
func noDecision(*inquiry.Record) (*inquiry.Resolution, []inquiry.Delivery) { return nil, nil }

// readBeforeAVote creates an inquiry that three approvals resolve, with U1's vote, reads it as
// the sweeper does, and then records U2's vote: it returns what was read (one vote) and the
// expired answer the sweeper builds from that read.
func readBeforeAVote(t *testing.T, b *bundle, id string) (*inquiry.Record, inquiry.Answer) {
	t.Helper()
	ctx := context.Background()
	rec := newRecord("ns", "", id)
	three := 3
	rec.Approvals = &three
	rec = create(t, b.store, rec)
	vote := func(by string, at time.Time) inquiry.Vote {
		return inquiry.Vote{By: by, Value: inquiry.One("merge"), At: at, Via: inquiry.ViaAPI}
	}
	_, err := b.store.Vote(ctx, rec.Key, vote("U1", t0), noDecision)
	require.NoError(t, err)
	read, err := b.store.Inquiry(ctx, rec.Key) // what the sweeper read
	require.NoError(t, err)
	require.Len(t, read.Votes, 1)
	_, err = b.store.Vote(ctx, rec.Key, vote("U2", t0.Add(time.Second)), noDecision) // then a vote
	require.NoError(t, err)
	return read, inquiry.Answer{InquiryID: read.ID, Value: read.Default, Source: inquiry.SourceExpired, AnsweredAt: t0.Add(time.Hour), Votes: read.Votes}
}
