package slackapp

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestSettledKeepsOnlyResolvedForAWhile: the cache of resolved inquiries never holds a pending
// one (it may still change), forgets an entry after its TTL, and once full forgets the oldest
// first, never more than its size.
func TestSettledKeepsOnlyResolvedForAWhile(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	rec := func(key string, st inquiry.Status) *inquiry.Record {
		return &inquiry.Record{Key: key, Status: st}
	}
	s := newSettled(3, time.Minute)

	s.put(rec("p", inquiry.StatusPending), now)
	_, ok := s.get("p", now)
	require.False(t, ok, "a pending inquiry is not remembered")
	s.put(nil, now) // an error's nil record: nothing

	s.put(rec("a", inquiry.StatusAnswered), now)
	got, ok := s.get("a", now.Add(59*time.Second))
	require.True(t, ok)
	require.Equal(t, "a", got.Key)
	_, ok = s.get("a", now.Add(time.Minute))
	require.False(t, ok, "forgotten after its TTL")

	for i := range 5 {
		s.put(rec(fmt.Sprint("k", i), inquiry.StatusExpired), now)
	}
	require.Len(t, s.recs, 3)
	for i, want := range []bool{false, false, true, true, true} {
		_, ok := s.get(fmt.Sprint("k", i), now)
		require.Equal(t, want, ok, "k%d", i)
	}
	s.put(rec("k4", inquiry.StatusExpired), now) // again: no second slot
	s.put(rec("k5", inquiry.StatusCancelled), now)
	_, ok = s.get("k2", now)
	require.False(t, ok, "the oldest goes first")
	for _, k := range []string{"k3", "k4", "k5"} {
		_, ok := s.get(k, now)
		require.True(t, ok, k)
	}
}
