package slackapp_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/slackapp"
)

// TestHTTPTransportKeepsConnections: calls made many at a time to one Slack host reuse their
// connections round after round (net/http's default keeps two a host, so each later round
// would dial again all but two).
func TestHTTPTransportKeepsConnections(t *testing.T) {
	t.Parallel()
	var dialled atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialled.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: slackapp.NewHTTPTransport()}
	t.Cleanup(client.CloseIdleConnections)

	const atOnce, rounds = 16, 4
	for range rounds {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range atOnce {
			wg.Go(func() {
				<-start
				res, err := client.Post(srv.URL+"/chat.postEphemeral", "application/json", nil)
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					_ = res.Body.Close()
				}
			})
		}
		close(start)
		wg.Wait()
	}
	// A connection may come back to the pool a moment after the next round has dialled for
	// want of it; the default transport dials about atOnce+(rounds-1)*(atOnce-2).
	require.LessOrEqual(t, int(dialled.Load()), 2*atOnce, "connections dialled for %d rounds of %d calls at once", rounds, atOnce)
}
