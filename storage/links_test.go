package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLinkRevocations: a revocation is kept per inquiry and recipient, a later one moves it on,
// an earlier one (a replica behind) does not move it back.
func TestLinkRevocations(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		_, ok, err := b.store.LinksRevokedAt(ctx, "inq_a", "alice@example.com")
		require.NoError(t, err)
		require.False(t, ok, "never revoked")

		at := t0.Add(time.Hour).Add(123 * time.Microsecond)
		require.NoError(t, b.store.RevokeLinks(ctx, "inq_a", "alice@example.com", at))
		got, ok, err := b.store.LinksRevokedAt(ctx, "inq_a", "alice@example.com")
		require.NoError(t, err)
		require.True(t, ok)
		require.True(t, at.Equal(got), "kept to the microsecond: %s", got)

		for _, other := range [][2]string{{"inq_a", ""}, {"inq_a", "bob@example.com"}, {"inq_b", "alice@example.com"}} {
			_, ok, err := b.store.LinksRevokedAt(ctx, other[0], other[1])
			require.NoError(t, err)
			require.False(t, ok, "%v is not revoked", other)
		}

		require.NoError(t, b.store.RevokeLinks(ctx, "inq_a", "alice@example.com", at.Add(-time.Minute)))
		got, _, _ = b.store.LinksRevokedAt(ctx, "inq_a", "alice@example.com")
		require.True(t, at.Equal(got), "an earlier revocation does not move it back")
		later := at.Add(time.Minute)
		require.NoError(t, b.store.RevokeLinks(ctx, "inq_a", "alice@example.com", later))
		got, _, _ = b.store.LinksRevokedAt(ctx, "inq_a", "alice@example.com")
		require.True(t, later.Equal(got))
	})
}
