package slackapp

import (
	"context"
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

// TestSettledTurnsOneInquiryAtATime: while an answer of an inquiry is recorded in its turn,
// another turn of it, or a click awaiting it, waits (and then finds its decision); one of
// another inquiry does not; nobody waits past the bound or a request that ended; and ending a
// turn twice (a deferred end after an early one) frees it once.
func TestSettledTurnsOneInquiryAtATime(t *testing.T) {
	s := newSettled(8, time.Minute)
	s.maxWait = time.Hour // the bound has its own case below
	done := s.turn(t.Context(), "k")

	other := make(chan struct{})
	go func() { s.turn(t.Context(), "other")(); s.await(t.Context(), "other"); close(other) }()
	<-other // another inquiry's turn is free

	found := make(chan *inquiry.Record, 2)
	go func() {
		defer s.turn(t.Context(), "k")()
		rec, _ := s.get("k", time.Now())
		found <- rec
	}()
	go func() {
		s.await(t.Context(), "k")
		rec, _ := s.get("k", time.Now())
		found <- rec
	}()
	select {
	case <-found:
		t.Fatal("a click of k went on while an answer of k was being recorded")
	case <-time.After(50 * time.Millisecond):
	}
	s.put(&inquiry.Record{Key: "k", Status: inquiry.StatusAnswered}, time.Now())
	done()
	done() // twice: no panic, nothing freed twice
	require.NotNil(t, <-found, "the waiting click finds the decision")
	require.NotNil(t, <-found, "the waiting click finds the decision")

	hold := s.turn(t.Context(), "k")
	defer hold()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s.turn(ctx, "k")() // an ended request waits no longer
	s.maxWait = 20 * time.Millisecond
	s.turn(t.Context(), "k")() // nor does one held past the bound: it goes on without a turn
	s.await(t.Context(), "k")
	require.Len(t, s.busy, 1, "only the turn held is busy")
}
