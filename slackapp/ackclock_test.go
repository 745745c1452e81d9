package slackapp

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// slowAck puts the app behind a handler that makes the next slow requests late: each waits until
// Slack, with its clock set to ackTimeout, hung up on it — an app that does its work before it
// acks — and only then reaches the app. The last of them gives Slack back its three seconds, so
// that what follows (Slack's retry, the next click) is judged by Slack's own clock. wait waits
// until the app served every late request.
func slowAck(b *bundle, ackTimeout time.Duration) (slow *atomic.Int64, wait func()) {
	b.fake.SetAckTimeout(ackTimeout)
	slow = &atomic.Int64{}
	var wg sync.WaitGroup
	h := b.app.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := slow.Add(-1); n >= 0 {
			wg.Add(1)
			defer wg.Done()
			if n == 0 {
				b.fake.SetAckTimeout(0)
			}
			body, err := io.ReadAll(r.Body) // read, so that the server notices the hang-up
			require.NoError(b.t, err)
			r.Body = io.NopCloser(bytes.NewReader(body))
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
				b.t.Errorf("Slack did not hang up on a late answer")
			}
		}
		h.ServeHTTP(w, r)
	}))
	b.t.Cleanup(srv.Close)
	b.fake.SetAppURL(srv.URL)
	return slow, wg.Wait
}

// Slack's clock, with the real app: a click acked after Slack's time failed — the person saw an
// error and clicks again — and a thread reply acked after it is delivered again, with
// X-Slack-Retry-Num: 1, and answers once.
func TestSlowAckFailsAsInSlack(t *testing.T) {
	const ackTimeout = 300 * time.Millisecond

	t.Run("click", func(t *testing.T) {
		b := setup(t)
		rec := b.ask(mergeQuestion("slow-click"), inquiry.SlackRef{})
		slow, wait := slowAck(b, ackTimeout)
		slow.Store(1)
		_, err := b.fake.Click("U0ALICE01", rec.Slack.Channel, rec.Slack.TS, "Merge")
		require.ErrorIs(t, err, slackfake.ErrNotAcked)
		failed := b.fake.TakeTimeouts()
		require.Len(t, failed, 1)
		require.Equal(t, slackfake.KindInteraction, failed[0].Kind)
		require.Equal(t, "block_actions", failed[0].Type)
		wait()

		// The person saw the error and clicks again: the question is answered, once, by them.
		r, err := b.fake.Click("U0ALICE01", rec.Slack.Channel, rec.Slack.TS, "Merge")
		if err == nil {
			require.Equal(t, http.StatusOK, r.Status)
			t.Logf("the click Slack gave up on did not answer (its request was cut at the deadline); the second did")
		} else {
			require.ErrorContains(t, err, "no such button", "the late click answered, and the buttons are gone")
			t.Logf("the click Slack gave up on was served late; the buttons were gone for the second")
		}
		got := b.resolved(rec.Key)
		require.Equal(t, inquiry.StatusAnswered, got.Status)
		require.Equal(t, "merge", got.Answer.Value.First())
		require.Equal(t, "U0ALICE01", got.Answer.AnsweredBy)
		b.updated(got)
		require.Empty(t, b.fake.Timeouts())
	})

	t.Run("thread reply", func(t *testing.T) {
		b := setup(t)
		rec := b.ask(mergeQuestion("slow-reply"), inquiry.SlackRef{})
		slow, wait := slowAck(b, ackTimeout)
		slow.Store(1)
		r := b.ok(b.fake.ReplyInThread("U0ALICE01", rec.Slack.Channel, rec.Slack.TS, "merge"))
		require.Equal(t, 1, r.RetryNum, "Slack's retry was acked")
		timeouts := b.fake.TakeTimeouts()
		require.Len(t, timeouts, 1)
		require.Equal(t, slackfake.KindEvent, timeouts[0].Kind)
		require.Equal(t, "Slack delivered it again with X-Slack-Retry-Num: 1", timeouts[0].Outcome)
		wait()

		got := b.resolved(rec.Key)
		require.Equal(t, "merge", got.Answer.Value.First())
		require.Equal(t, "U0ALICE01", got.Answer.AnsweredBy)
		m := b.updated(got)
		b.settle()
		m, _ = b.fake.Message(m.Channel, m.TS)
		require.Equal(t, 1, m.Edits, "answered and shown once, though delivered twice")
		require.Empty(t, b.fake.Ephemerals("U0ALICE01"))
	})
}
