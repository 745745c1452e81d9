package main

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The loop is open: every request is sent while the first is still unanswered (a closed loop
// would never send the second, and this test would hang rather than pass).
func TestOpenLoopDoesNotWaitForAnswers(t *testing.T) {
	const n = 20
	last := make(chan struct{})
	res := openLoop(context.Background(), n, 0, func(_ context.Context, i int) error {
		if i == n-1 {
			close(last)
			return nil
		}
		select {
		case <-last: // answered only once the last request has been sent
			return nil
		case <-time.After(time.Minute):
			return errors.New("the last request was never sent while this one was in flight")
		}
	})
	if res.sent != n || res.ok != n || res.firstErr != "" {
		t.Fatalf("sent %d, ok %d, first error %q; want %d, %d, none", res.sent, res.ok, res.firstErr, n, n)
	}
	if got := len(res.good(nil)); got != n {
		t.Fatalf("%d latencies, want %d", got, n)
	}
}

// A failed request has no latency, and good keeps only the indices asked for.
func TestOpenLoopFailuresAndFilter(t *testing.T) {
	res := openLoop(context.Background(), 10, 0, func(_ context.Context, i int) error {
		if i%2 == 1 {
			return errors.New("odd")
		}
		return nil
	})
	if res.ok != 5 || res.firstErr != "odd" {
		t.Fatalf("ok %d, first error %q; want 5, odd", res.ok, res.firstErr)
	}
	if got := len(res.good(nil)); got != 5 {
		t.Fatalf("%d good latencies, want 5", got)
	}
	if got := len(res.good(func(i int) bool { return i < 4 })); got != 2 {
		t.Fatalf("%d good latencies among the first 4, want 2", got)
	}
}

// Each message gets exactly one first click, and duplicates only press a message whose first
// click was sent before them.
func TestClickTarget(t *testing.T) {
	for _, c := range []struct{ n, clicks int }{{600, 3000}, {2000, 10000}, {7, 7}, {3, 10}} {
		firsts := map[int]int{}
		firstAt := map[int]int{}
		for i := range c.clicks {
			m := clickTarget(i, c.n, c.clicks)
			if m < 0 || m >= c.n {
				t.Fatalf("n %d clicks %d: click %d presses message %d", c.n, c.clicks, i, m)
			}
			if isFirstClick(i, c.n, c.clicks) {
				firsts[m]++
				firstAt[m] = i
				continue
			}
			if at, ok := firstAt[m]; !ok || at > i {
				t.Fatalf("n %d clicks %d: duplicate click %d on message %d before its first", c.n, c.clicks, i, m)
			}
		}
		for m := range c.n {
			if firsts[m] != 1 {
				t.Fatalf("n %d clicks %d: message %d has %d first clicks, want 1", c.n, c.clicks, m, firsts[m])
			}
		}
	}
}
