package inquiry

import (
	"testing"
	"time"
)

// TestMessageDeliveriesKeepTheirInquirysOrder: the messages of one inquiry go out in order — in
// its Slack channel's lane, or, with no channel (email), in a lane of the inquiry's own — so
// that an outcome never runs before the question it updates has been recorded as sent. Callbacks
// stay unordered (no lane: the dispatcher gives each a lane of its own).
func TestMessageDeliveriesKeepTheirInquirysOrder(t *testing.T) {
	s := &Service{}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	mail := &Record{Key: "inq_mail"}
	slack := &Record{Key: "inq_slack", Slack: SlackRef{Channel: "C1"}}
	for _, kind := range []DeliveryKind{DeliverPost, DeliverUpdate, DeliverRemind} {
		if got := s.delivery(mail, kind, "email", now); got.Lane != "inq_mail" {
			t.Errorf("%s of a mailed inquiry: lane %q, want the inquiry's own", kind, got.Lane)
		}
		if got := s.delivery(slack, kind, "slack", now); got.Lane != "C1" {
			t.Errorf("%s of a Slack inquiry: lane %q, want its channel's", kind, got.Lane)
		}
	}
	if got := s.delivery(mail, DeliverCallback, "", now); got.Lane != "" {
		t.Errorf("a callback in lane %q: one slow receiver would hold what shares it", got.Lane)
	}
}
