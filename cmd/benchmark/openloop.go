package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// openLoopResult is what an open-loop run measured.
type openLoopResult struct {
	sent, ok  int
	latencies []time.Duration // by request index; -1 for a request that failed or was not sent
	lateStart time.Duration   // the worst lag of a send behind its schedule
	firstErr  string
}

// good is the latencies of the requests that succeeded, those whose index keep accepts (nil:
// all).
func (r openLoopResult) good(keep func(i int) bool) []time.Duration {
	var out []time.Duration
	for i, l := range r.latencies {
		if l >= 0 && (keep == nil || keep(i)) {
			out = append(out, l)
		}
	}
	return out
}

// openLoop sends n requests at a fixed interval, open loop: request i leaves at start + i·interval
// whether or not the earlier ones were answered (each on its own goroutine), so that a slow
// answer cannot hold the next request back and hide its own latency (coordinated omission). A
// request's latency runs from its scheduled time, not from when it actually left. It stops
// sending when ctx ends, and waits for the requests in flight.
func openLoop(ctx context.Context, n int, interval time.Duration, send func(ctx context.Context, i int) error) openLoopResult {
	res := openLoopResult{latencies: make([]time.Duration, n)}
	for i := range res.latencies {
		res.latencies[i] = -1
	}
	var ok atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now().Add(50 * time.Millisecond)
	for i := range n {
		at := start.Add(time.Duration(i) * interval)
		if d := time.Until(at); d > 0 {
			time.Sleep(d)
		}
		if ctx.Err() != nil {
			break
		}
		if lag := time.Since(at); lag > res.lateStart {
			res.lateStart = lag
		}
		res.sent++
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := send(ctx, i); err != nil {
				firstErr.CompareAndSwap(nil, err.Error())
				return
			}
			res.latencies[i] = time.Since(at) // each goroutine writes its own index
			ok.Add(1)
		}()
	}
	wg.Wait()
	res.ok = int(ok.Load())
	if e, _ := firstErr.Load().(string); e != "" {
		res.firstErr = e
	}
	return res
}
