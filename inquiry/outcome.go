package inquiry

import (
	"fmt"
	"time"
)

// How a deadline and a resolution read, for every edge that tells a person in words (Slack's
// context line, a mailed question and its outcome, the CLI's list).

// Assumed is what will be assumed when nobody answers in: its default by its labels, or
// "declined (no default)".
func Assumed(in *Inquiry) string {
	if in.HasDefault() {
		return RenderValue(in, in.Default)
	}
	return "declined (no default)"
}

// Until says how long d is from now on, rounded for a person: "in 45m", "in 2h 5m", "in 3d 4h",
// "in less than a minute", or "now" for no time at all.
func Until(d time.Duration) string {
	switch {
	case d <= 0:
		return "now"
	case d < time.Minute:
		return "in less than a minute"
	}
	return "in " + span(d)
}

// span is d of a minute or more, rounded to the minute below a day and to the hour from a day:
// "45m", "2h", "2h 5m", "1d", "3d 4h".
func span(d time.Duration) string {
	d = d.Round(time.Minute)
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh %dm", h, m)
	default:
		days, h := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour)
		if h == 0 {
			return fmt.Sprintf("%dd", days)
		}
		return fmt.Sprintf("%dd %dh", days, h)
	}
}

// Deadline says when an expiry falls, seen at now: "expires in 2h (2026-12-01 15:04 UTC)", or
// "expired at 2026-12-01 15:04 UTC" once it has passed.
func Deadline(at, now time.Time) string {
	stamp := at.UTC().Format("2006-01-02 15:04 MST")
	if !at.After(now) {
		return "expired at " + stamp
	}
	return "expires " + Until(at.Sub(now)) + " (" + stamp + ")"
}

// Outcome says on one line what became of a resolved inquiry: what was decided and by whom (the
// team's tally for one that took several people), what was assumed when nobody answered in
// time, that the asker cancelled it, or why it failed.
func Outcome(rec *Record) string {
	in := &rec.Inquiry
	switch rec.Status {
	case StatusAnswered, StatusExpired:
		if said, ok := DecidedBy(in, rec.Answer); ok {
			return RenderValue(in, rec.Answer.Value) + " — " + said
		}
		return RenderAnswer(in, rec.Answer) // it marks assumptions, by policy or expiry
	case StatusCancelled:
		return "cancelled by the asker"
	case StatusFailed:
		if rec.Failure != nil {
			return "failed: " + rec.Failure.Message
		}
		return "failed"
	}
	return string(rec.Status)
}
