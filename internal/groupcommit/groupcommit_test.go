package groupcommit_test

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/inquiry-bot/bot/internal/groupcommit"
)

// recorder keeps what the committer wrote, alone and in batches.
type recorder struct {
	mu      sync.Mutex
	alone   []int
	batches [][]int
}

func newCommitter(r *recorder, maxBatch, maxQueue int) *groupcommit.Committer[int] {
	return groupcommit.New(maxBatch, maxQueue,
		func(v int) { r.mu.Lock(); r.alone = append(r.alone, v); r.mu.Unlock() },
		func(vs []int) { r.mu.Lock(); r.batches = append(r.batches, vs); r.mu.Unlock() })
}

// queue starts Do(v) for each of vs, each only once the one before is queued, and returns the
// channel each Do's error arrives on.
func queue(t *testing.T, c *groupcommit.Committer[int], ctx context.Context, vs ...int) []chan error {
	t.Helper()
	out := make([]chan error, len(vs))
	base := c.Queued()
	for i, v := range vs {
		out[i] = make(chan error, 1)
		go func() { out[i] <- c.Do(ctx, v) }()
		for c.Queued() != base+i+1 {
			// Queued takes the committer's lock: this waits for the goroutine's Do, not for time.
			select {
			case err := <-out[i]:
				t.Fatalf("Do(%d) returned %v before it was queued", v, err)
			default:
				runtime.Gosched()
			}
		}
	}
	return out
}

func TestLoneWriteGoesAlone(t *testing.T) {
	var r recorder
	c := newCommitter(&r, 4, 100)
	if err := c.Do(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	if len(r.alone) != 1 || r.alone[0] != 7 || len(r.batches) != 0 {
		t.Fatalf("alone %v, batches %v: want 7 alone", r.alone, r.batches)
	}
}

func TestQueuedWritesShareBatchesInOrder(t *testing.T) {
	var r recorder
	c := newCommitter(&r, 3, 100)
	release := c.Hold()
	out := queue(t, c, context.Background(), 1, 2, 3, 4, 5)
	release()
	for i, ch := range out {
		if err := <-ch; err != nil {
			t.Fatalf("Do(%d): %v", i+1, err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.batches) != 2 || len(r.batches[0]) != 3 || len(r.batches[1]) != 2 ||
		r.batches[0][0] != 1 || r.batches[0][2] != 3 || r.batches[1][0] != 4 || r.batches[1][1] != 5 {
		t.Fatalf("batches %v: want [1 2 3] [4 5]", r.batches)
	}
	if len(r.alone) != 0 {
		t.Fatalf("alone %v: want none", r.alone)
	}
}

func TestCancelledWriteLeavesTheQueue(t *testing.T) {
	var r recorder
	c := newCommitter(&r, 8, 100)
	release := c.Hold()
	ctx, cancel := context.WithCancel(context.Background())
	kept := queue(t, c, context.Background(), 1)
	gone := queue(t, c, ctx, 2)
	cancel()
	if err := <-gone[0]; err != context.Canceled {
		t.Fatalf("cancelled Do: %v, want context.Canceled", err)
	}
	if n := c.Queued(); n != 1 {
		t.Fatalf("queued %d after the cancel, want 1", n)
	}
	release()
	if err := <-kept[0]; err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.batches) != 1 || len(r.batches[0]) != 1 || r.batches[0][0] != 1 {
		t.Fatalf("batches %v: want [1] only", r.batches)
	}
}

func TestFullQueueWritesAlone(t *testing.T) {
	var r recorder
	c := newCommitter(&r, 8, 1)
	release := c.Hold()
	defer release()
	queue(t, c, context.Background(), 1)
	if err := c.Do(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.alone) != 1 || r.alone[0] != 2 {
		t.Fatalf("alone %v: want 2, written past the full queue", r.alone)
	}
}
