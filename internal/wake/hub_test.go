package wake_test

import (
	"testing"

	"github.com/inquiry-bot/bot/internal/wake"
)

func woken(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestAWakeReachesTheWaitersOfItsKey(t *testing.T) {
	h := wake.NewHub()
	a1, end1 := h.Subscribe("a")
	a2, end2 := h.Subscribe("a")
	b, endB := h.Subscribe("b")
	if n := h.Waiters(); n != 3 {
		t.Fatalf("waiters: %d, want 3", n)
	}
	h.Wake("a")
	h.Wake("a") // one pending wake is enough: a second never blocks
	if !woken(a1) || !woken(a2) || woken(b) {
		t.Fatal("a wake of a reaches a's waiters, and only them")
	}
	h.Wake("")
	if !woken(a1) || !woken(a2) || !woken(b) {
		t.Fatal("a wake of every key reaches every waiter")
	}
	end1()
	end2()
	end1() // ending twice is harmless
	if n := h.Waiters(); n != 1 {
		t.Fatalf("waiters after two ended: %d, want 1", n)
	}
	h.Wake("a")
	if woken(a1) {
		t.Fatal("an ended subscription is not woken")
	}
	endB()
	if n := h.Waiters(); n != 0 {
		t.Fatalf("waiters after all ended: %d, want 0", n)
	}
}

func TestCloseIsSeenByEveryWaitNowAndLater(t *testing.T) {
	h := wake.NewHub()
	select {
	case <-h.Closing():
		t.Fatal("closing before Close")
	default:
	}
	h.Close()
	h.Close() // twice is harmless: shutdown may call it from two places
	select {
	case <-h.Closing():
	default:
		t.Fatal("not closing after Close")
	}
}

func TestASignalFiresWhatWasTakenBefore(t *testing.T) {
	var s wake.Signal
	before := s.Next()
	s.Fire()
	select {
	case <-before:
	default:
		t.Fatal("Fire did not close the channel taken before it")
	}
	after := s.Next()
	select {
	case <-after:
		t.Fatal("the channel taken after a Fire is closed already")
	default:
	}
	s.Fire()
	s.Fire() // with nobody waiting, harmless
	select {
	case <-after:
	default:
		t.Fatal("the second Fire did not close the channel taken after the first")
	}
}
