package storage_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/stretchr/testify/require"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		admin := &inquiry.Token{ID: "tok_admin", Name: "admin", Namespace: "admin", Scopes: []inquiry.Scope{inquiry.ScopeAdmin},
			SecretHash: []byte{0, 1, 2, 0xff}, CreatedAt: t0}
		ci := &inquiry.Token{ID: "tok_ci", Name: "ci", Namespace: "deploys", Scopes: []inquiry.Scope{inquiry.ScopeAsk, inquiry.ScopeAnswer},
			SecretHash: []byte("hash"), CreatedAt: t0.Add(time.Minute)}
		require.NoError(t, b.store.CreateToken(ctx, admin))
		require.NoError(t, b.store.CreateToken(ctx, ci))

		got, err := b.store.Token(ctx, "tok_ci")
		require.NoError(t, err)
		require.Equal(t, ci, got)

		dup := *ci
		dup.ID = "tok_other"
		err = b.store.CreateToken(ctx, &dup)
		requireCode(t, err, inquiry.CodeIDConflict)
		require.Contains(t, inquiry.ErrorMessage(err), `"ci"`)

		n, err := b.store.CountTokens(ctx)
		require.NoError(t, err)
		require.Equal(t, 2, n)

		require.NoError(t, b.store.RevokeToken(ctx, "ci", t0.Add(time.Hour)))
		require.NoError(t, b.store.RevokeToken(ctx, "ci", t0.Add(2*time.Hour)), "revoking twice is fine")
		got, err = b.store.Token(ctx, "tok_ci")
		require.NoError(t, err)
		require.Equal(t, t0.Add(time.Hour), *got.RevokedAt, "the first revocation stands")
		n, err = b.store.CountTokens(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)

		all, err := b.store.ListTokens(ctx)
		require.NoError(t, err)
		require.Len(t, all, 2)
		require.Equal(t, "admin", all[0].Name)
		require.Equal(t, "ci", all[1].Name)
		require.NotNil(t, all[1].RevokedAt)
	})
}

func TestSettings(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		_, err := b.store.Setting(ctx, "callback_secret")
		require.ErrorIs(t, err, inquiry.ErrNotFound)

		// Replicas starting together: every one reads the first value stored.
		const n = 8
		got := make([]string, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { got[i], errs[i] = b.store.InitSetting(ctx, "callback_secret", string(rune('a'+i))) })
		}
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i])
			require.Equal(t, got[0], got[i])
		}
		v, err := b.store.InitSetting(ctx, "callback_secret", "later")
		require.NoError(t, err)
		require.Equal(t, got[0], v)
		v, err = b.store.Setting(ctx, "callback_secret")
		require.NoError(t, err)
		require.Equal(t, got[0], v)
	})
}
