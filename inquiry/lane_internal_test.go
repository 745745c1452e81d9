package inquiry

import (
	"testing"
	"time"
)

// TestMessageDeliveriesKeepTheirInquirysOrder: the messages of one inquiry go out in order — in
// its Slack channel's lane, or, with no channel (email), in a lane of the inquiry's own — so
// that an outcome never runs before the question it updates has been recorded as sent. Callbacks
// stay unordered (a lane each).
func TestMessageDeliveriesKeepTheirInquirysOrder(t *testing.T) {
	s := &Service{}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	mail := &Record{Key: "inq_mail"}
	slack := &Record{Key: "inq_slack", Slack: SlackRef{Channel: "C1"}}
	for _, kind := range []DeliveryKind{DeliverPost, DeliverUpdate, DeliverRemind} {
		if got := s.delivery(mail, kind, "email", now); laneKey(got) != "inq_mail" {
			t.Errorf("%s of a mailed inquiry: lane %q, want the inquiry's own", kind, laneKey(got))
		}
		if got := s.delivery(slack, kind, "slack", now); laneKey(got) != "C1" {
			t.Errorf("%s of a Slack inquiry: lane %q, want its channel's", kind, laneKey(got))
		}
	}
	a, b := s.delivery(mail, DeliverCallback, "", now), s.delivery(mail, DeliverCallback, "", now)
	a.ID, b.ID = 1, 2
	if laneKey(a) == laneKey(b) {
		t.Errorf("two callbacks share lane %q: one slow receiver would hold the other", laneKey(a))
	}
}
