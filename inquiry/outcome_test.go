package inquiry_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

func TestUntil(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		-time.Minute:                    "now",
		20 * time.Second:                "in less than a minute",
		45 * time.Minute:                "in 45m",
		2 * time.Hour:                   "in 2h",
		2*time.Hour - 20*time.Second:    "in 2h",
		2*time.Hour + 30*time.Minute:    "in 2h 30m",
		24 * time.Hour:                  "in 1d",
		3*24*time.Hour + 4*time.Hour:    "in 3d 4h",
		26*time.Hour + 30*time.Minute:   "in 1d 2h",
		90*time.Minute + 29*time.Second: "in 1h 30m",
	} {
		if got := inquiry.Until(d); got != want {
			t.Errorf("Until(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestDeadlineAndAssumed(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	require.Equal(t, "expires in 2h 5m (2026-12-01 14:05 UTC)", inquiry.Deadline(now.Add(125*time.Minute), now))
	require.Equal(t, "expired at 2026-12-01 11:00 UTC", inquiry.Deadline(now.Add(-time.Hour), now))
	require.Equal(t, "expired at 2026-12-01 12:00 UTC", inquiry.Deadline(now, now), "the instant of the expiry is past it")

	in := &inquiry.Inquiry{Kind: inquiry.KindChoice, Options: []inquiry.Option{{Value: "hold", Label: "Hold"}, {Value: "go", Label: "Go"}}}
	require.Equal(t, "declined (no default)", inquiry.Assumed(in))
	in.Default = inquiry.One("hold")
	require.Equal(t, "Hold", inquiry.Assumed(in), "by its label")
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	confirm := inquiry.Inquiry{Kind: inquiry.KindConfirm, Question: "Merge?"}
	for _, tc := range []struct {
		name string
		rec  inquiry.Record
		want string
	}{
		{"answered", inquiry.Record{Inquiry: confirm, Status: inquiry.StatusAnswered,
			Answer: &inquiry.Answer{Value: inquiry.One("yes"), AnsweredBy: "U1", Source: inquiry.SourcePerson}}, "Yes by U1"},
		{"expired into its default", inquiry.Record{Inquiry: confirm, Status: inquiry.StatusExpired,
			Answer: &inquiry.Answer{Value: inquiry.One("no"), Source: inquiry.SourceExpired}}, "No (assumed: nobody answered in time)"},
		{"expired declined", inquiry.Record{Inquiry: confirm, Status: inquiry.StatusExpired,
			Answer: &inquiry.Answer{Declined: true, Source: inquiry.SourceExpired}}, "expired: nobody decided"},
		{"cancelled", inquiry.Record{Inquiry: confirm, Status: inquiry.StatusCancelled}, "cancelled by the asker"},
		{"failed", inquiry.Record{Inquiry: confirm, Status: inquiry.StatusFailed,
			Failure: &inquiry.Failure{Message: "the mail server refused it"}}, "failed: the mail server refused it"},
		{"a team's", inquiry.Record{Inquiry: inquiry.Inquiry{Kind: inquiry.KindConfirm, Approval: inquiry.Approval{Approvals: new(2)}},
			Status: inquiry.StatusAnswered, Answer: &inquiry.Answer{Value: inquiry.One("yes"), AnsweredBy: "U2", Source: inquiry.SourcePerson,
				Votes: []inquiry.Vote{{By: "U1", Value: inquiry.One("yes"), At: at}, {By: "U2", Value: inquiry.One("yes"), At: at}}}},
			"Yes — approved by U1 and U2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, inquiry.Outcome(&tc.rec))
		})
	}
}

func TestValidateEmail(t *testing.T) {
	t.Parallel()
	to := func(addrs ...string) *inquiry.EmailTarget { return &inquiry.EmailTarget{To: addrs} }
	require.NoError(t, inquiry.ValidateEmail(nil, inquiry.TransportSlack))
	require.NoError(t, inquiry.ValidateEmail(to("alice@example.com", "bob@example.org"), inquiry.TransportEmail))
	require.NoError(t, inquiry.ValidateEmail(to("alice@example.com"), inquiry.TransportSlack), "mailed beside Slack (fan-out)")

	many := make([]string, inquiry.MaxEmailRecipients+1)
	for i := range many {
		many[i] = string(rune('a'+i)) + "@example.com"
	}
	for _, tc := range []struct {
		name      string
		target    *inquiry.EmailTarget
		transport string
		field     string
		says      string
	}{
		{"nobody to mail", nil, inquiry.TransportEmail, "email.to", "name the recipients in email.to"},
		{"empty list", to(), inquiry.TransportEmail, "email.to", "name the recipients in email.to"},
		{"nobody beside another transport", to(), inquiry.TransportSlack, "email.to", "or leave email out"},
		{"too many", to(many...), inquiry.TransportEmail, "email.to", "at most 20"},
		{"a display name", to("Alice <alice@example.com>"), inquiry.TransportEmail, "email.to[0]", "one plain address"},
		{"no domain", to("alice"), inquiry.TransportEmail, "email.to[0]", "is not an email address"},
		{"a list", to("a@example.com, b@example.com"), inquiry.TransportEmail, "email.to[0]", "character U+0020"},
		{"a header break", to("a@example.com\r\nBcc: x@evil.test"), inquiry.TransportEmail, "email.to[0]", "character U+000D"},
		{"twice", to("alice@example.com", "Alice@Example.com"), inquiry.TransportEmail, "email.to[1]", "name each recipient once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := inquiry.ValidateEmail(tc.target, tc.transport)
			require.Error(t, err)
			require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err))
			var e *inquiry.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, tc.field, e.Field)
			require.Contains(t, err.Error(), tc.says)
		})
	}
}
