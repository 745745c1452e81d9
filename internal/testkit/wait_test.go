package testkit

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// fataler records a failure instead of ending the test.
type fataler struct{ failed string }

func (f *fataler) Helper() {}
func (f *fataler) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
}

func TestEventually(t *testing.T) {
	// A condition that comes to hold on another goroutine is awaited.
	var ready atomic.Bool
	go ready.Store(true)
	var f fataler
	Eventually(&f, time.Minute, "ready", ready.Load)
	if f.failed != "" || !ready.Load() {
		t.Fatalf("returned with ready %v, failure %q", ready.Load(), f.failed)
	}

	// One that never holds fails, saying what was awaited, once the bound passes.
	looks := 0
	Eventually(&f, 30*time.Millisecond, "the answer", func() bool { looks++; return false })
	if f.failed != "the answer: not within 30ms" {
		t.Errorf("failure %q, want %q", f.failed, "the answer: not within 30ms")
	}
	if looks < 2 {
		t.Errorf("looked %d times, want again and again", looks)
	}
}
