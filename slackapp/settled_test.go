package slackapp

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestSettledKeepsOnlyResolvedForAWhile: the cache of resolved inquiries never holds a pending
// one (it may still change), forgets an entry after its TTL, and once full forgets the oldest
// first, never more than its size in entries or in bytes.
func TestSettledKeepsOnlyResolvedForAWhile(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	rec := func(key string, st inquiry.Status) *inquiry.Record {
		return &inquiry.Record{Key: key, Status: st}
	}
	s := newSettled(3, 1<<20, time.Minute)

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

	// In bytes: a record of many long votes pushes out what it needs room for, one larger
	// than the whole cache is not kept.
	long := strings.Repeat("é", 2000)
	big := rec("big", inquiry.StatusAnswered)
	for range 20 {
		big.Votes = append(big.Votes, inquiry.Vote{By: "U", Text: long})
	}
	small := approxBytes(rec("x", inquiry.StatusAnswered))
	b := newSettled(100, approxBytes(big)+5*small, time.Minute)
	for i := range 10 {
		b.put(rec(fmt.Sprint("s", i), inquiry.StatusAnswered), now)
	}
	b.put(big, now)
	_, ok = b.get("big", now)
	require.True(t, ok)
	require.LessOrEqual(t, b.bytes, b.maxBytes)
	b.put(rec("big2", inquiry.StatusAnswered), now)
	huge := rec("huge", inquiry.StatusAnswered)
	huge.Votes = slices.Repeat(big.Votes, 4)
	b.put(huge, now)
	_, ok = b.get("huge", now)
	require.False(t, ok, "larger than the cache: not kept")
	_, ok = b.get("big", now)
	require.True(t, ok, "and nothing pushed out for it")
	n := 0
	for i := range 10 {
		if _, ok := b.get(fmt.Sprint("s", i), now); ok {
			n++
		}
	}
	require.Less(t, n, 10, "the oldest small ones made room for the big one")
	require.Equal(t, b.order.Len(), len(b.recs))
}
