package main

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// percentile is the nearest-rank p-th percentile (0 < p <= 100) of ds; 0 for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

// median is the 50th percentile.
func median(ds []time.Duration) time.Duration { return percentile(ds, 50) }

// ms formats a duration in milliseconds with a sensible precision.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f ms", v)
	default:
		return fmt.Sprintf("%.2f ms", v)
	}
}

// mb formats bytes in MiB.
func mb(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/(1<<20)) }

// ns formats nanoseconds per operation.
func ns(v float64) string {
	switch {
	case v >= 10000:
		return fmt.Sprintf("%.1f µs/op", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0f ns/op", v)
	default:
		return fmt.Sprintf("%.1f ns/op", v)
	}
}

// ratio formats a/b.
func ratio(a, b float64) string {
	if b == 0 || math.IsNaN(a/b) || math.IsInf(a/b, 0) {
		return "—"
	}
	switch r := a / b; {
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	case r >= 0.01:
		return fmt.Sprintf("%.2f", r)
	default:
		return fmt.Sprintf("%.4f", r)
	}
}

// yes says whether a target is met.
func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// thousands formats an integer with thin separators: 1,000,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	out := ""
	for len(s) > 3 {
		out = "," + s[len(s)-3:] + out
		s = s[:len(s)-3]
	}
	return s + out
}
