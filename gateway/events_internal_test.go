package gateway

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// captured is a response writer that keeps what was written and says when it flushed.
type captured struct {
	mu      sync.Mutex
	body    strings.Builder
	flushed chan string // what was written by each flush
	header  http.Header
}

func newCaptured() *captured {
	return &captured{flushed: make(chan string, 100), header: http.Header{}}
}

func (c *captured) Header() http.Header { return c.header }
func (c *captured) WriteHeader(int)     {}
func (c *captured) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.body.Write(p)
}
func (c *captured) Flush() {
	c.mu.Lock()
	out := c.body.String()
	c.mu.Unlock()
	c.flushed <- out
}

func eventsFrom(first, n int64) []inquiry.Event {
	var evs []inquiry.Event
	for id := first; id < first+n; id++ {
		evs = append(evs, inquiry.Event{ID: id, InquiryKey: fmt.Sprintf("inq_%d", id), Type: inquiry.EventCreated, Data: []byte(`{}`)})
	}
	return evs
}

// TestStreamKeepsAliveAndReadsOnWhileBatchesAreFull: an idle stream sends its comment line;
// a full batch is followed by the next read at once, without waiting for a wake-up; each batch
// is flushed as it is written.
func TestStreamKeepsAliveAndReadsOnWhileBatchesAreFull(t *testing.T) {
	t.Parallel()
	w := newCaptured()
	st := stream{w: w, rc: http.NewResponseController(w), keepAlive: 10 * time.Millisecond, fallback: time.Hour}
	var reads []int64
	read := func(after int64) ([]inquiry.Event, error) {
		reads = append(reads, after)
		if after < 2*inquiry.MaxEventBatch { // two full batches, then the rest
			return eventsFrom(after+1, inquiry.MaxEventBatch), nil
		}
		if after == 2*inquiry.MaxEventBatch {
			return eventsFrom(after+1, 3), nil
		}
		return nil, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	woken := make(chan struct{}, 1)
	woken <- struct{}{} // one wake-up: the rest is read on because the batches are full
	go func() { done <- st.follow(ctx, 0, nil, read, woken, nil) }()

	var out string
	for !strings.Contains(out, ": keep-alive\n\n") {
		select {
		case out = <-w.flushed:
		case <-time.After(20 * time.Second):
			t.Fatal("no keep-alive")
		}
	}
	cancel()
	require.NoError(t, <-done)
	require.Equal(t, []int64{0, inquiry.MaxEventBatch, 2 * inquiry.MaxEventBatch}, reads[:3], "a full batch is read on at once")
	for id := 1; id <= 2*inquiry.MaxEventBatch+3; id++ {
		require.Contains(t, out, fmt.Sprintf("id: %d\nevent: created\ndata: {\"id\":\"%d\",\"inquiry_key\":\"inq_%d\"", id, id, id))
	}
	require.Equal(t, 2*inquiry.MaxEventBatch+3, strings.Count(out, "\nevent: "), "each event once")
}
