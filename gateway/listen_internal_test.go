package gateway

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
