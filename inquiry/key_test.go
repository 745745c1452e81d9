package inquiry_test

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestKeysSortByTheirTime: a key made later sorts after one made earlier, to the millisecond,
// so that the indexes a create writes (the key's, the events' by key) grow at their end instead of
// at random pages; and two keys of the same millisecond still differ in their random part.
func TestKeysSortByTheirTime(t *testing.T) {
	shape := regexp.MustCompile(`^inq_[2-7a-z]{29}$`)
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var keys []string
	for _, at := range []time.Time{start, start.Add(time.Millisecond), start.Add(2 * time.Millisecond),
		start.Add(time.Second), start.Add(time.Hour), start.AddDate(0, 0, 1), start.AddDate(1, 0, 0),
		start.AddDate(1000, 0, 0)} {
		k := inquiry.NewKey(at)
		require.Regexp(t, shape, k)
		keys = append(keys, k)
	}
	require.True(t, slices.IsSorted(keys), "keys in the order they were made: %q", keys)

	same := map[string]bool{}
	for range 1000 {
		k := inquiry.NewKey(start)
		require.Equal(t, keys[0][:13], k[:13], "the time part of one millisecond is one")
		require.False(t, same[k], "two keys of one millisecond are the same: %s", k)
		same[k] = true
	}
	require.Regexp(t, shape, inquiry.NewKey(time.Unix(-5, 0)), "a time before 1970 still makes a key")
}

// TestKeysPastTheirTimeRange: the time part holds 45 bits of milliseconds, which end in the year
// 3084; a key made after that sorts with the last millisecond it can spell, never before earlier
// keys.
func TestKeysPastTheirTimeRange(t *testing.T) {
	last := time.UnixMilli(1<<45 - 1)
	require.Equal(t, 3084, last.UTC().Year())
	inRange, past := inquiry.NewKey(last.Add(-time.Millisecond)), inquiry.NewKey(last.AddDate(1, 0, 0))
	require.Less(t, inRange[:13], past[:13], "a key past the range sorts after one inside it")
	require.Equal(t, inquiry.NewKey(last)[:13], past[:13], "past the range, the time part stays at its last millisecond")
	require.Less(t, inquiry.NewKey(time.Unix(-5, 0)), inquiry.NewKey(time.Unix(0, 0).Add(time.Millisecond)), "a time before 1970 sorts first")
}
