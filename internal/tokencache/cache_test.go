package tokencache_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/internal/tokencache"
)

type tok struct{ name string }

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// counted is a load that counts its calls and returns v.
func counted(n *atomic.Int32, v *tok) func(context.Context, string) (*tok, error) {
	return func(context.Context, string) (*tok, error) { n.Add(1); return v, nil }
}

func TestAnIDIsReadOnceATTL(t *testing.T) {
	c := tokencache.New[*tok](time.Second, 10)
	var n atomic.Int32
	a := &tok{"a"}
	for _, at := range []time.Duration{0, 500 * time.Millisecond, 999 * time.Millisecond} {
		if got, _ := c.Get(context.Background(), "id", t0.Add(at), counted(&n, a)); got != a {
			t.Fatalf("at %s: got %v", at, got)
		}
	}
	if n.Load() != 1 {
		t.Fatalf("reads within the TTL: %d, want 1", n.Load())
	}
	c.Get(context.Background(), "id", t0.Add(time.Second), counted(&n, a))
	c.Get(context.Background(), "id", t0.Add(-time.Second), counted(&n, a)) // a clock moved back
	if n.Load() != 3 {
		t.Fatalf("reads past the TTL and before the read: %d, want 3", n.Load())
	}
	// An unknown id (nil) is kept too: a flood of made-up ids costs a read a TTL each.
	c.Get(context.Background(), "nobody", t0, counted(&n, nil))
	c.Get(context.Background(), "nobody", t0, counted(&n, nil))
	if n.Load() != 4 {
		t.Fatalf("reads of an unknown id: %d, want 1 more", n.Load()-3)
	}
}

func TestATTLOfZeroReadsEveryTime(t *testing.T) {
	c := tokencache.New[*tok](0, 0)
	var n atomic.Int32
	for range 3 {
		c.Get(context.Background(), "id", t0, counted(&n, &tok{"a"}))
	}
	if n.Load() != 3 {
		t.Fatalf("reads: %d, want 3", n.Load())
	}
}

func TestForgetDropsTheRevokedAndWakesHolders(t *testing.T) {
	c := tokencache.New[*tok](time.Hour, 10)
	var n atomic.Int32
	a, b := &tok{"a"}, &tok{"b"}
	c.Get(context.Background(), "ida", t0, counted(&n, a))
	c.Get(context.Background(), "idb", t0, counted(&n, b))
	revoked := c.Revocations()
	c.Forget(func(x *tok) bool { return x.name == "a" })
	select {
	case <-revoked:
	default:
		t.Fatal("the revocation did not close the channel taken before it")
	}
	c.Get(context.Background(), "ida", t0, counted(&n, a))
	c.Get(context.Background(), "idb", t0, counted(&n, b))
	if n.Load() != 3 {
		t.Fatalf("reads: %d, want 3 (a read again, b kept)", n.Load())
	}
}

// A read under way when a revocation comes may have found the token before it: it is not kept,
// and a miss after the revocation reads again rather than waiting for it.
func TestAReadUnderWayIsNotKeptPastARevocation(t *testing.T) {
	c := tokencache.New[*tok](time.Hour, 10)
	a := &tok{"a"}
	entered, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		c.Get(context.Background(), "ida", t0, func(context.Context, string) (*tok, error) {
			close(entered)
			<-release
			return a, nil
		})
	})
	<-entered
	c.Forget(func(x *tok) bool { return x.name == "a" })
	var n atomic.Int32
	c.Get(context.Background(), "ida", t0, counted(&n, nil)) // revoked: the store says so now
	close(release)
	wg.Wait()
	if got, _ := c.Get(context.Background(), "ida", t0, counted(&n, nil)); got != nil {
		t.Fatal("the read from before the revocation was kept")
	}
	if n.Load() != 1 {
		t.Fatalf("reads after the revocation: %d, want 1", n.Load())
	}
}

// Misses of one id that come together share one read.
func TestConcurrentMissesShareOneRead(t *testing.T) {
	c := tokencache.New[*tok](time.Hour, 10)
	var n atomic.Int32
	release := make(chan struct{})
	load := func(context.Context, string) (*tok, error) { n.Add(1); <-release; return &tok{"a"}, nil }
	var wg sync.WaitGroup
	first := make(chan struct{})
	wg.Go(func() {
		c.Get(context.Background(), "id", t0, func(ctx context.Context, id string) (*tok, error) {
			close(first)
			return load(ctx, id)
		})
	})
	<-first
	for range 10 {
		wg.Go(func() { c.Get(context.Background(), "id", t0, load) })
	}
	close(release)
	wg.Wait()
	if n.Load() != 1 {
		t.Fatalf("reads: %d, want 1", n.Load())
	}
}
