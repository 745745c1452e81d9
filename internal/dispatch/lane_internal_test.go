package dispatch

import (
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestUnorderedWorkRunsInLanesOfItsOwn: a delivery in no lane (a callback) is a lane of its own,
// so that one slow receiver never holds another; one in a lane runs in it.
func TestUnorderedWorkRunsInLanesOfItsOwn(t *testing.T) {
	a := inquiry.Delivery{ID: 1, Kind: inquiry.DeliverCallback}
	b := inquiry.Delivery{ID: 2, Kind: inquiry.DeliverCallback}
	if laneKey(a) == laneKey(b) {
		t.Errorf("two callbacks share lane %q: one slow receiver would hold the other", laneKey(a))
	}
	if got := laneKey(inquiry.Delivery{ID: 3, Lane: "C1"}); got != "C1" {
		t.Errorf("a post of channel C1 in lane %q, want C1", got)
	}
}
