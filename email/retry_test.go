package email_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/email"
	"github.com/inquiry-bot/bot/email/emailtest"
	"github.com/inquiry-bot/bot/inquiry"
)

// TestRetryMailsOnlyWhoWasNotMailed: when the server puts one recipient off (a 4xx) and takes
// the other's message, the retry mails the one it put off, and nobody twice.
func TestRetryMailsOnlyWhoWasNotMailed(t *testing.T) {
	ms := start(t, false)
	putOff := 1
	ms.Refuse(func(to string) error {
		if to == "alice@example.com" && putOff > 0 {
			putOff--
			return emailtest.Reply(451, "greylisted, try again later")
		}
		return nil
	})
	tr := email.New(config(t, ms, emailtest.Password), &links{}, quiet, nil)
	rec := record("alice@example.com", "bob@example.org")
	_, err := tr.Post(inquiry.WithAttempt(context.Background(), 1), rec)
	require.Error(t, err)
	require.False(t, inquiry.Fatal(err), "a 4xx is retried: %v", err)
	_, err = tr.Post(inquiry.WithAttempt(context.Background(), 2), rec)
	require.NoError(t, err)
	got := map[string]int{}
	for _, m := range ms.Messages() {
		got[m.To[0]]++
	}
	require.Equal(t, map[string]int{"alice@example.com": 1, "bob@example.org": 1}, got, "each recipient mailed the question once")
}
