package gateway

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestBackgroundReadHoldsNoBuffer: while net/http's one-byte background read waits on a
// connection (for as long as a handler runs: a long-poll's 55 s), the connection holds no
// read-ahead buffer; the byte that ends the wait (a pipelined request's first) is judged with
// the rest of its head and handed over in order.
func TestBackgroundReadHoldsNoBuffer(t *testing.T) {
	t.Parallel()
	lim := Limits{}.withDefaults()
	server, client := net.Pipe()
	t.Cleanup(func() { server.Close(); client.Close() })
	lc := &limitedConn{Conn: server, lim: &lim, f: framer{lim: &lim}}

	first := "GET /v1/inquiries/inq_a?wait=55 HTTP/1.1\r\nHost: x\r\n\r\n"
	second := "GET /v1/inquiries/inq_b HTTP/1.1\r\nHost: x\r\n\r\n"
	go func() { _, _ = io.WriteString(client, first) }()
	buf := make([]byte, 4096)
	n, err := lc.Read(buf)
	require.NoError(t, err)
	require.Equal(t, first, string(buf[:n]))

	got := make(chan string, 1)
	go func() {
		var one [1]byte
		n, err := lc.Read(one[:])
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(one[:n])
	}()
	// Only once the background read waits on the network may the buffer be looked at.
	require.Eventually(t, func() bool {
		lc.mu.Lock()
		defer lc.mu.Unlock()
		return lc.in == nil
	}, 10*time.Second, time.Millisecond, "the waiting connection gave its read-ahead buffer back")

	go func() { _, _ = io.WriteString(client, second) }()
	require.Equal(t, "G", <-got)
	rest := ""
	for len(rest) < len(second)-1 {
		n, err := lc.Read(buf)
		require.NoError(t, err)
		rest += string(buf[:n])
	}
	require.Equal(t, second[1:], rest, "the pipelined request follows its first byte, judged whole")
}

// TestParkedAnswerPanicIsRecovered: a fault while a parked long-poll is answered (here the
// service missing when the answer asks whether the hub is closing) does not end the process, as
// gin's recovery keeps a fault on the goroutine path from doing: the waiter slot is given back
// once, the connection closed, and the long-poll no longer counted as parked.
func TestParkedAnswerPanicIsRecovered(t *testing.T) {
	t.Parallel()
	lim := Limits{}.withDefaults()
	server, client := net.Pipe()
	t.Cleanup(func() { server.Close(); client.Close() })
	var log bytes.Buffer
	s := &Server{log: slog.New(slog.NewTextHandler(&log, nil))}
	released := 0
	p := &parked{s: s, conn: &limitedConn{Conn: server, lim: &lim, f: framer{lim: &lim}, release: func() {}},
		key: "inq_x", ctx: context.Background(), release: func() { released++ }}
	s.parkers.add(p)

	done := make(chan struct{})
	go func() {
		defer close(done)
		p.answer(nil, inquiry.Errorf(inquiry.CodeNotFound, "no such inquiry: check the key"))
	}()
	_, err := client.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "the connection is closed")
	<-done
	require.Equal(t, 1, released, "the waiter slot is given back once")
	require.Zero(t, s.Parked())
	require.Contains(t, log.String(), "panic answering a parked long-poll")
}
