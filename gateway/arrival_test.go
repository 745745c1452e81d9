package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/gateway"
)

// These tests come from a review of the arrival cap (Limits.MaxArriving, issue 18 row 5).

// serveArrivingWith serves h on a listener of l whose connections hold their place among the
// arriving for hold; it returns the listener, the server and what Serve returned (once it has).
func serveArrivingWith(t *testing.T, l gateway.Limits, hold time.Duration, h http.Handler) (net.Listener, *http.Server, <-chan error) {
	t.Helper()
	ln, err := gateway.Listen("127.0.0.1:0", l)
	require.NoError(t, err)
	gateway.SetArrivalHold(ln, hold)
	srv := gateway.NewHTTPServer(h, l)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln, srv, served
}

// dialSilent dials n connections that send nothing, closed at the test's end.
func dialSilent(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	var cs []net.Conn
	for range n {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		cs = append(cs, c)
	}
	return cs
}

// TestSilentConnectionsKeepNoOneOut: clients that connect and send nothing (a slow-loris, or
// a byte a second) must not keep a client with a whole request out. Today each holds a place
// among the arriving for its whole hold, so MaxArriving of them, renewed once a hold, lock every
// new client out: with the production hold of one second, 3,000 silent connections made a
// plain GET wait 3–11 s (p50 7.2 s; 1 ms before the cap), past Slack's 3 s for an ack. Here the
// hold is longer than the test so that only the silence decides: the client is let in only
// once net/http's header timeout has closed the silent connections.
func TestSilentConnectionsKeepNoOneOut(t *testing.T) {
	t.Parallel()
	const arriving = 2
	l := gateway.Limits{MaxArriving: arriving, HeaderTimeout: 2 * time.Second}
	ln, _, _ := serveArrivingWith(t, l, time.Hour, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "ok")
	}))
	addr := ln.Addr().String()
	silent := dialSilent(t, addr, arriving)

	replies, _ := exchange(t, addr, 20*time.Second, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.Equal(t, []int{200}, statuses(replies))
	for i, c := range silent {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(50*time.Millisecond)))
		_, err := c.Read(make([]byte, 1))
		require.True(t, errors.Is(err, os.ErrDeadlineExceeded),
			"silent connection %d was closed by the server (%v) before the whole request was served: the silent connections kept it out until their header timeout", i, err)
	}
}

// TestSilentConnectionsKeepNoOneOutAtDefaultHold is the same at the production hold (one
// second): four silent connections ahead of a client in the kernel's backlog, with room for one
// arriving, keep it out for four holds, longer than the two seconds after which net/http's
// header timeout closes the first of them. Were silence to hold no place, it would be served at
// once, beside four connections still open.
func TestSilentConnectionsKeepNoOneOutAtDefaultHold(t *testing.T) {
	t.Parallel()
	addr := serveHardened(t, gateway.Limits{MaxArriving: 1, HeaderTimeout: 2 * time.Second}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "ok")
	}))
	silent := dialSilent(t, addr, 4)

	replies, _ := exchange(t, addr, 20*time.Second, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.Equal(t, []int{200}, statuses(replies))
	require.NoError(t, silent[0].SetReadDeadline(time.Now().Add(50*time.Millisecond)))
	_, err := silent[0].Read(make([]byte, 1))
	require.True(t, errors.Is(err, os.ErrDeadlineExceeded),
		"the first silent connection was closed by its header timeout (%v) before the whole request behind it was served", err)
}

// TestServeEndsWhileAcceptWaitsForPlace: a shutdown while every place among the arriving is
// held (Accept waiting for one) ends Serve, as bot serve's drain needs.
func TestServeEndsWhileAcceptWaitsForPlace(t *testing.T) {
	t.Parallel()
	const arriving = 1
	ln, srv, served := serveArrivingWith(t, gateway.Limits{MaxArriving: arriving}, time.Hour, http.NotFoundHandler())
	dialSilent(t, ln.Addr().String(), arriving+1) // the place taken, one more in the backlog

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_ = srv.Shutdown(ctx) // gives up on the silent connection, which it waits for 5 s
	select {
	case err := <-served:
		require.ErrorIs(t, err, http.ErrServerClosed)
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return within 10s of Shutdown while Accept waited for a place")
	}
}
