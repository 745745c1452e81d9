package ratelimit_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/internal/ratelimit"
)

var start = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

func allowed(t *ratelimit.Table, key string, now time.Time) bool {
	_, ok := t.Take(key, now)
	return ok
}

// TestTableKeepsAHammeredKey: the table is bounded, yet a key past its limit keeps it however
// many other keys come after it: idle keys make room, and past the bound new keys share one
// bucket rather than pushing a busy one out.
func TestTableKeepsAHammeredKey(t *testing.T) {
	t.Parallel()
	tb := ratelimit.New(rate.Every(time.Minute), 2, 10)
	require.True(t, allowed(tb, "hammered", start))
	require.True(t, allowed(tb, "hammered", start))
	wait, ok := tb.Take("hammered", start)
	require.False(t, ok, "past its burst")
	require.Equal(t, time.Minute, wait, "the wait is until the next token")

	for i := range 100 { // busy keys, far past the bound
		id := fmt.Sprintf("busy%d", i)
		allowed(tb, id, start)
		allowed(tb, id, start)
	}
	require.LessOrEqual(t, tb.Len(), 10, "the table stays bounded")
	require.False(t, allowed(tb, "hammered", start), "still past its limit")
	require.False(t, allowed(tb, "new", start), "new keys past the bound share one spent bucket")

	// Two minutes on, every key has its burst again: idle ones go, and a new key has a place.
	later := start.Add(2 * time.Minute)
	require.True(t, allowed(tb, "new", later))
	require.Equal(t, 1, tb.Len(), "the idle keys were dropped")
}

// TestTableHoldKeepsAnEntry: a key holding a long-poll is not idle, however full its bucket; the
// cap counts holds, and a release (even twice) gives one place back.
func TestTableHoldKeepsAnEntry(t *testing.T) {
	t.Parallel()
	tb := ratelimit.New(10, 5, 10)
	release, ok := tb.Hold("a", 1, start)
	require.True(t, ok)
	_, ok = tb.Hold("a", 1, start)
	require.False(t, ok, "a holds its one place")
	require.True(t, allowed(tb, "b", start))

	allowed(tb, "c", start.Add(2*time.Minute)) // a sweep
	require.True(t, tb.Has("a"), "a key holding a long-poll keeps its entry")
	require.False(t, tb.Has("b"))

	release()
	release()
	again, ok := tb.Hold("a", 1, start.Add(2*time.Minute))
	require.True(t, ok, "the place is back")
	again()
}

// TestTableNoLimitKeepsNothing: with rate.Inf nothing is refused and Take remembers no key.
func TestTableNoLimitKeepsNothing(t *testing.T) {
	t.Parallel()
	tb := ratelimit.New(rate.Inf, 0, 10)
	for range 1000 {
		require.True(t, allowed(tb, "k", start))
	}
	require.Zero(t, tb.Len())
}
