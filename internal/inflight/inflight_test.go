package inflight_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/internal/inflight"
)

// TestWaitersShareTheLeadersOutcome: a caller for a key in flight gets the leader's outcome,
// shared, without running its own fn; once the flight ended the key is free again.
func TestWaitersShareTheLeadersOutcome(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := inflight.New[string]()
		release := make(chan struct{})
		type out struct {
			v      string
			err    error
			shared bool
		}
		lead, wait := make(chan out, 1), make(chan out, 1)
		go func() {
			v, err, shared := g.Do(t.Context(), "k", func() (string, error) { <-release; return "first", nil })
			lead <- out{v, err, shared}
		}()
		synctest.Wait()
		go func() {
			v, err, shared := g.Do(t.Context(), "k", func() (string, error) { t.Error("the second fn ran"); return "", nil })
			wait <- out{v, err, shared}
		}()
		synctest.Wait()
		require.Equal(t, 2, g.Waiting("k"))
		close(release)
		require.Equal(t, out{"first", nil, false}, <-lead)
		require.Equal(t, out{"first", nil, true}, <-wait)
		require.Zero(t, g.Waiting("k"))

		v, err, shared := g.Do(t.Context(), "k", func() (string, error) { return "again", nil })
		require.NoError(t, err)
		require.False(t, shared)
		require.Equal(t, "again", v)
	})
}

// TestAWaiterWhoseContextEndsStopsWaiting: the waiter gets its context's error, the leader goes
// on, and other keys are not held by either.
func TestAWaiterWhoseContextEndsStopsWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := inflight.New[int]()
		release := make(chan struct{})
		done := make(chan int, 1)
		go func() {
			v, _, _ := g.Do(t.Context(), "k", func() (int, error) { <-release; return 1, nil })
			done <- v
		}()
		synctest.Wait()
		ctx, cancel := context.WithCancel(t.Context())
		waited := make(chan error, 1)
		go func() {
			_, err, shared := g.Do(ctx, "k", func() (int, error) { return 2, nil })
			require.True(t, shared)
			waited <- err
		}()
		synctest.Wait()
		cancel()
		require.ErrorIs(t, <-waited, context.Canceled)
		v, err, shared := g.Do(t.Context(), "other", func() (int, error) { return 3, nil })
		require.Equal(t, 3, v)
		require.NoError(t, err)
		require.False(t, shared)
		close(release)
		require.Equal(t, 1, <-done)
	})
}

// TestAPanicFreesTheKey: a leader whose fn panics panics on (the HTTP server recovers it), its
// waiters get ErrNoOutcome, and the key is free for the next caller.
func TestAPanicFreesTheKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := inflight.New[int]()
		release := make(chan struct{})
		recovered := make(chan any, 1)
		go func() {
			defer func() { recovered <- recover() }()
			_, _, _ = g.Do(t.Context(), "k", func() (int, error) { <-release; panic("a bug") })
		}()
		synctest.Wait()
		waited := make(chan error, 1)
		go func() {
			_, err, _ := g.Do(t.Context(), "k", func() (int, error) { return 0, nil })
			waited <- err
		}()
		synctest.Wait()
		close(release)
		require.Equal(t, "a bug", <-recovered)
		require.True(t, errors.Is(<-waited, inflight.ErrNoOutcome))
		require.Zero(t, g.Waiting("k"))
	})
}
