package gateway_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

// BenchmarkLongPollWaiters holds BENCH_WAITERS (default 2,000) long-polls open at once against
// the gateway in this process — each GET /v1/inquiries/{key}?wait=55 on its own connection, on
// its own pending inquiry — and reports what the server side holds per waiter: Go heap in use
// (after a GC) and goroutine stack. With BENCH_HEAPPROFILE=FILE it writes the heap profile
// taken while they all wait (every allocation recorded), with BENCH_GOROUTINEPROFILE=FILE the
// goroutine profile. cmd/benchmark's row 5 measures the real `bot serve`; this exists to
// be profiled (client and server share this process's open-file limit: keep BENCH_WAITERS under
// half of it):
//
//	BENCH_WAITERS=5000 BENCH_HEAPPROFILE=heap.out go test -run '^$' -bench LongPollWaiters -benchtime 1x ./gateway
//
// With BENCH_POSTGRES=1 the store is PostgreSQL (TEST_DATABASE_URL), as in row 5. It is never
// part of a plain go test run.
func BenchmarkLongPollWaiters(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("BENCH_WAITERS")); err == nil && v > 0 {
		n = v
	}
	if os.Getenv("BENCH_HEAPPROFILE") != "" {
		// Every allocation recorded: a waiter's few kB would otherwise fall between samples.
		runtime.MemProfileRate = 1
	}
	opts := []option{withPolicy(inquiry.PolicyAsk), withoutDispatcher()}
	if os.Getenv("BENCH_POSTGRES") != "" {
		opts = append(opts, withDB(adminURL())) // as cmd/benchmark's row 5 runs the bot
	}
	bd := setup(b, opts...)
	// Served as `bot serve` serves: on the hardened listener (the connection cap) and
	// with NewHTTPServer's timeouts, not httptest's bare server.
	ln, err := gateway.Listen("127.0.0.1:0", gateway.Limits{MaxConns: n + 100})
	if err != nil {
		b.Fatal(err)
	}
	hs := gateway.NewHTTPServer(bd.srv.Handler(), gateway.Limits{})
	go func() { _ = hs.Serve(ln) }()
	b.Cleanup(func() { _ = hs.Close() })
	ctx := context.Background()
	keys := make([]string, n)
	for i := range keys {
		rec, _, err := bd.svc.Ask(ctx, inquiry.AskRequest{Namespace: "team-a", Inquiry: inquiry.Inquiry{
			ID: fmt.Sprintf("wait-%d", i), Kind: inquiry.KindConfirm, Question: "Deploy now?"}})
		if err != nil {
			b.Fatal(err)
		}
		keys[i] = rec.Key
	}
	addr := ln.Addr().String()
	for b.Loop() {
		before := memNow()
		conns := make([]net.Conn, 0, n)
		for _, key := range keys {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			conns = append(conns, c)
			req := "GET /v1/inquiries/" + key + "?wait=55 HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + bd.askA + "\r\n\r\n"
			if _, err := io.WriteString(c, req); err != nil {
				b.Fatal(err)
			}
		}
		require.Eventually(b, func() bool { return bd.hub.Waiters() >= n }, 40*time.Second, 10*time.Millisecond, "%d long-polls waiting", n)
		during := memNow()
		settled := memNow() // a second collection empties sync.Pool's victim cache (see memNow)
		if path := os.Getenv("BENCH_HEAPPROFILE"); path != "" {
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.WriteHeapProfile(f); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
		if path := os.Getenv("BENCH_GOROUTINEPROFILE"); path != "" {
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.Lookup("goroutine").WriteTo(f, 0); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
		b.ReportMetric(float64(during.heap-before.heap)/float64(n), "heap-B/waiter")
		b.ReportMetric(float64(int64(settled.heap)-int64(before.heap))/float64(n), "heap2gc-B/waiter")
		b.ReportMetric(float64(during.stack-before.stack)/float64(n), "stack-B/waiter")
		b.ReportMetric(float64(during.goroutines-before.goroutines)/float64(n), "goroutines/waiter")
		for _, c := range conns {
			c.Close()
		}
		require.Eventually(b, func() bool { return bd.hub.Waiters() == 0 }, 20*time.Second, 10*time.Millisecond, "the closed long-polls gone")
	}
}

type memSample struct {
	heap, stack uint64
	goroutines  int
}

// memNow is the heap in use after a full GC, the goroutine stacks, and the goroutines. What
// pools hold survives one collection (in sync.Pool's victim cache): gin's pool of contexts keeps
// each the last request it served, as many as were in
// flight at once, which a burst of dials makes hundreds. heap2gc-B/waiter is measured after a
// second collection, without them.
func memNow() memSample {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memSample{heap: m.HeapInuse, stack: m.StackInuse, goroutines: runtime.NumGoroutine()}
}
