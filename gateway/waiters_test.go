//go:build !race

// The race detector's instrumentation gives every frame more room, so the stack a waiting
// long-poll uses is not the one a production build's does: this file is built without -race.

package gateway_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

// TestLongPollWaiterStack holds long-polls open on the hardened server, as `bot serve` serves
// them, and checks what the goroutine stacks of a waiting one come to after a collection: the
// handler's and net/http's background read, 8 kB and 4 kB. The middlewares keep their work out
// of the frames that stay on the stack across c.Next (see requestLog): a middleware or a route
// that holds a larger frame across the wait keeps the handler's stack at 16 kB — 80 MB more for
// 10,000 waiters (cmd/benchmark, row 5) — and fails this test. The margin is thin: 128 bytes
// more held across the wait in getInquiry still shrink, 192 do not. Not parallel: it reads the
// process's stack total, which no other test may move meanwhile.
func TestLongPollWaiterStack(t *testing.T) {
	const n = 300
	bd := setup(t, withPolicy(inquiry.PolicyAsk), withoutDispatcher())
	ln, err := gateway.Listen("127.0.0.1:0", gateway.Limits{MaxConns: 2 * n})
	require.NoError(t, err)
	hs := gateway.NewHTTPServer(bd.srv.Handler(), gateway.Limits{})
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	addr := ln.Addr().String()

	ctx := context.Background()
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	before := settledStack()
	for i := range n {
		rec, _, err := bd.svc.Ask(ctx, inquiry.AskRequest{Namespace: "team-a", Inquiry: inquiry.Inquiry{
			ID: fmt.Sprintf("stack-%d", i), Kind: inquiry.KindConfirm, Question: "Deploy now?"}})
		require.NoError(t, err)
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		conns = append(conns, c)
		_, err = io.WriteString(c, "GET /v1/inquiries/"+rec.Key+"?wait=55 HTTP/1.0\r\nHost: "+addr+"\r\nAuthorization: Bearer "+bd.askA+"\r\n\r\n")
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return bd.hub.Waiters() == n }, 60*time.Second, 20*time.Millisecond,
		"every long-poll subscribes to the hub")
	during := settledStack()
	perWaiter := (int64(during) - int64(before)) / n
	t.Logf("goroutine stack per parked long-poll: %d B (%d waiters)", perWaiter, n)
	require.Greater(t, perWaiter, int64(4<<10), "the waiters hold their goroutines (the measurement sees them)")
	require.LessOrEqual(t, perWaiter, int64(14<<10),
		"a parked long-poll's goroutines hold %d B of stack: more than 8 kB (handler) + 4 kB (background read); a frame kept across c.Next or Service.Wait has grown", perWaiter)
}

// settledStack is the goroutine stack in use once collections have shrunk what they can: it
// collects until the figure stops falling (a goroutine still on its way to park is not shrunk).
func settledStack() uint64 {
	var m runtime.MemStats
	last := ^uint64(0)
	for range 20 {
		runtime.GC()
		runtime.ReadMemStats(&m)
		if m.StackInuse >= last {
			break
		}
		last = m.StackInuse
		time.Sleep(20 * time.Millisecond) // between collections, not a wait for an event: the loop ends once they stop helping
	}
	return m.StackInuse
}
