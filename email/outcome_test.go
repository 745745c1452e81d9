package email_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/email"
	"github.com/inquiry-bot/bot/email/emailtest"
	"github.com/inquiry-bot/bot/inquiry"
)

// TestUpdateMailsEveryEnding: the outcome is mailed after an expiry (what was assumed), a
// cancellation and a failure alike, each saying what became of the question, with no link.
func TestUpdateMailsEveryEnding(t *testing.T) {
	assumed := inquiry.Answer{Value: inquiry.One("no"), Source: inquiry.SourceExpired, AnsweredAt: now}
	for _, c := range []struct {
		name   string
		status inquiry.Status
		answer *inquiry.Answer
		fail   *inquiry.Failure
		says   string
	}{
		{"expired", inquiry.StatusExpired, &assumed, nil, "Outcome: No (assumed: nobody answered in time)"},
		{"cancelled", inquiry.StatusCancelled, nil, nil, "Outcome: cancelled by the asker"},
		{"failed", inquiry.StatusFailed, nil, &inquiry.Failure{Code: inquiry.CodeUnavailable, Message: "the channel was archived: ask again elsewhere"}, "Outcome: failed: the channel was archived"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms := start(t, false)
			tr := email.New(config(t, ms, emailtest.Password), &links{}, quiet, func() time.Time { return now })
			rec := record("alice@example.com")
			rec.Status, rec.Answer, rec.Failure = c.status, c.answer, c.fail
			require.NoError(t, tr.Update(context.Background(), rec))
			got := ms.Messages()
			require.Len(t, got, 1)
			require.Contains(t, got[0].Text, c.says)
			require.Contains(t, got[0].HTML, c.says[len("Outcome: "):])
			require.NotContains(t, got[0].Text, "/a/", "a settled question's mail carries no link")
			require.Equal(t, "Re: Question: Merge <script>alert(1)</script> #42?", got[0].Header.Get("Subject"))
		})
	}
}
