package email_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/email"
	"github.com/inquiry-bot/bot/email/emailtest"
	"github.com/inquiry-bot/bot/inquiry"
)

// TestNoHeaderInjection: a question that carries line breaks and would-be headers reaches the
// subject on one line; the message goes to its one recipient and no header of the question's
// making is added. An address with a line break never passes Validate, so never reaches Post.
func TestNoHeaderInjection(t *testing.T) {
	ms := start(t, false)
	tr := email.New(config(t, ms, emailtest.Password), &links{}, quiet, func() time.Time { return now })
	rec := record("alice@example.com")
	rec.Question = "Deploy?\r\nBcc: mallory@evil.example\r\nX-Injected: yes\n\nbody"
	_, err := tr.Post(context.Background(), rec)
	require.NoError(t, err)
	got := ms.Messages()
	require.Len(t, got, 1)
	require.Equal(t, []string{"alice@example.com"}, got[0].To)
	require.Empty(t, got[0].Header.Get("Bcc"))
	require.Empty(t, got[0].Header.Get("X-Injected"))
	require.Equal(t, "Question: Deploy? Bcc: mallory@evil.example X-Injected: yes body", got[0].Header.Get("Subject"))

	for _, addr := range []string{"alice@example.com\r\nBcc: mallory@evil.example", "alice@example.com,mallory@evil.example", `"a\r\nb"@example.com`} {
		err := inquiry.ValidateEmail(&inquiry.EmailTarget{To: []string{addr}}, inquiry.TransportEmail)
		require.Error(t, err, "%q", addr)
		require.True(t, strings.HasPrefix(inquiry.ErrorField(err), "email.to"), "%q: %v", addr, err)
	}
}
