package web

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// TestLinkLimitsKeepAHammeredLink: the table is bounded, yet a link past its limit keeps it
// however many other links are opened after it: idle links make room, and past the bound new
// links share one bucket rather than pushing a busy one out.
func TestLinkLimitsKeepAHammeredLink(t *testing.T) {
	t.Parallel()
	ls := newLinkLimits(rate.Every(time.Minute), 2, 10)
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	require.True(t, ls.allow("hammered", now))
	require.True(t, ls.allow("hammered", now))
	require.False(t, ls.allow("hammered", now), "past its burst")

	for i := range 100 { // busy links, far past the bound
		id := fmt.Sprintf("busy%d", i)
		ls.allow(id, now)
		ls.allow(id, now)
	}
	require.LessOrEqual(t, len(ls.m), 10, "the table stays bounded")
	require.False(t, ls.allow("hammered", now), "still past its limit")
	require.False(t, ls.allow("new", now), "new links past the bound share one spent bucket")

	// Two minutes on, every link has its burst again: idle ones go, and a new link has a place.
	later := now.Add(2 * time.Minute)
	require.True(t, ls.allow("new", later))
	require.Len(t, ls.m, 1, "the idle links were dropped")
}
