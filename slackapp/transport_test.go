package slackapp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

func TestFortyPostsUnderRateLimitsKeepOrder(t *testing.T) {
	b := setup(t)
	const channel = "C0BUSY0001"
	b.fake.AddChannel(channel, "busy")
	b.fake.RateLimitEvery(7, time.Second, "chat.postMessage")

	var keys []string
	for i := range 40 {
		rec := b.askNoWait(mergeQuestion(fmt.Sprintf("fan-out-%02d", i)), inquiry.SlackRef{Channel: channel})
		keys = append(keys, rec.Key)
	}
	for _, k := range keys {
		rec := b.posted(k)
		require.Equal(t, channel, rec.Slack.Channel)
	}

	msgs := b.fake.BotMessages(channel)
	require.Len(t, msgs, 40, "every inquiry posted exactly once")
	var got []string
	for i, m := range msgs {
		got = append(got, keyOf(t, m))
		rec := b.get(got[i])
		require.Equal(t, m.TS, rec.Slack.TS, "the stored ts is the message's")
	}
	require.Equal(t, keys, got, "posted in the order asked")

	var limited int
	for _, c := range b.fake.Calls("chat.postMessage") {
		if c.Status == http.StatusTooManyRequests {
			limited++
		}
	}
	require.Positive(t, limited, "Slack did rate-limit")
}

func TestPermanentErrorsFailTheInquiry(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(f *slackfake.Server)
		channel string
		want    []string
	}{
		{"channel not found", nil, "C0GONE0001", []string{"channel_not_found", "C0GONE0001", "/invite @bot"}},
		{"not in channel", func(f *slackfake.Server) { f.AddChannel("C0PRIV0001", "priv"); f.RemoveBot("C0PRIV0001") }, "C0PRIV0001",
			[]string{"not_in_channel", "/invite @bot", "chat:write.public"}},
		{"archived", func(f *slackfake.Server) { f.AddChannel("C0OLD00001", "old"); f.ArchiveChannel("C0OLD00001") }, "C0OLD00001",
			[]string{"is_archived", "unarchive"}},
		{"token revoked", func(f *slackfake.Server) { f.RevokeToken() }, "", []string{"token_revoked", "reinstall"}},
		{"missing scope", func(f *slackfake.Server) { f.FailNext("chat.postMessage", "missing_scope") }, "",
			[]string{"missing_scope", "chat:write", "reinstall"}},
		{"invalid blocks", func(f *slackfake.Server) { f.FailNext("chat.postMessage", "invalid_blocks") }, "",
			[]string{"invalid_blocks", "malformed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := setup(t)
			if tt.prepare != nil {
				tt.prepare(b.fake)
			}
			rec := b.askNoWait(mergeQuestion("doomed"), inquiry.SlackRef{Channel: tt.channel})
			got := b.resolved(rec.Key)
			require.Equal(t, inquiry.StatusFailed, got.Status)
			require.NotNil(t, got.Failure)
			require.True(t, got.Failure.Fatal)
			require.Equal(t, inquiry.CodeUnavailable, got.Failure.Code)
			for _, w := range tt.want {
				require.Contains(t, got.Failure.Message, w)
			}
			require.Eventually(t, func() bool {
				ds, err := b.store.ListDeliveries(b.ctx, rec.Key)
				require.NoError(t, err)
				for _, d := range ds {
					if d.Kind == inquiry.DeliverPost {
						return d.Status == inquiry.DeliveryFailed
					}
				}
				return false
			}, 5*time.Second, 10*time.Millisecond, "the post is given up at once")
			require.Len(t, b.fake.Calls("chat.postMessage"), 1, "a permanent error is not retried")
		})
	}
}

func TestTransientErrorsAreRetried(t *testing.T) {
	b := setup(t)
	b.fake.FailNextStatus("chat.postMessage", http.StatusServiceUnavailable)
	b.fake.FailNext("chat.postMessage", "internal_error")
	b.fake.FailNext("chat.getPermalink", "ratelimited") // the permalink is a nicety: no repost for it
	rec := b.askNoWait(mergeQuestion("flaky"), inquiry.SlackRef{})
	got := b.posted(rec.Key)
	require.Equal(t, inquiry.StatusPending, got.Status)
	require.Empty(t, got.Slack.Permalink)
	require.Len(t, b.fake.BotMessages(slackfake.DefaultChannel), 1, "posted once")
	require.Len(t, b.fake.Calls("chat.postMessage"), 3)
}

func TestAckFastWhileSlackIsSlow(t *testing.T) {
	b := setup(t)
	rec := b.ask(mergeQuestion("slow"), inquiry.SlackRef{})
	b.fake.SetLatency(5 * time.Second)

	r := b.click("U0ALICE01", rec, "Merge")
	require.Less(t, r.Elapsed, 1500*time.Millisecond, "the click is acked well within Slack's three seconds")
	require.Equal(t, "merge", b.get(rec.Key).Answer.Value.First(), "recorded before the ack")

	// A late click's ephemeral goes out after the ack, however slow Slack is.
	r = b.click("U0BOB0001", rec, "Hold")
	require.Less(t, r.Elapsed, 1500*time.Millisecond)
	b.fake.SetLatency(0)
}

func TestNoticeInThread(t *testing.T) {
	b := setup(t)
	parent := b.ask(mergeQuestion("parent"), inquiry.SlackRef{})
	rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: mergeQuestion("assumed"),
		Config: &inquiry.Config{Policy: inquiry.PolicyDefault},
		Slack:  &inquiry.SlackTarget{Channel: parent.Slack.Channel, ThreadTS: parent.Slack.TS}})
	require.NoError(t, err)
	require.Equal(t, inquiry.SourceDefault, rec.Answer.Source)
	require.Eventually(t, func() bool {
		for _, m := range b.fake.Messages(parent.Slack.Channel) {
			if m.ThreadTS == parent.Slack.TS && m.BotID != "" && strings.Contains(m.Text, "Nobody was asked") {
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "the assumption is noted in the thread")
}

func TestPostInThread(t *testing.T) {
	b := setup(t)
	parent := b.ask(mergeQuestion("top"), inquiry.SlackRef{})
	rec := b.ask(mergeQuestion("in-thread"), inquiry.SlackRef{ThreadTS: parent.Slack.TS})
	m, ok := b.fake.Message(rec.Slack.Channel, rec.Slack.TS)
	require.True(t, ok)
	require.Equal(t, parent.Slack.TS, m.ThreadTS)
	require.Equal(t, parent.Slack.TS, rec.Slack.ThreadTS)
	require.Contains(t, rec.Slack.Permalink, "thread_ts="+parent.Slack.TS)
	b.click("U0ALICE01", rec, "Hold")
	require.Equal(t, "hold", b.resolved(rec.Key).Answer.Value.First())
}

func TestPacingPerChannel(t *testing.T) {
	p := &pacer{every: rate.Every(100 * time.Millisecond), burst: 3, lanes: map[string]*rate.Limiter{}}
	ctx := context.Background()
	start := time.Now()
	for range 5 {
		require.NoError(t, p.wait(ctx, "C1"))
	}
	require.GreaterOrEqual(t, time.Since(start), 190*time.Millisecond, "a burst of three, then one every 100 ms")

	require.NoError(t, p.wait(ctx, "C2"))
	require.InDelta(t, 2, p.lanes["C2"].Tokens(), 0.5, "another channel is paced on its own")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	require.Error(t, p.wait(cctx, "C1"), "a waiting post gives up with its context")

	b := setup(t, func(c *Config) { c.PostInterval, c.PostBurst = 0, 0 })
	require.Equal(t, rate.Every(time.Second), b.app.pace.every, "about one message a second per channel")
	require.Equal(t, 3, b.app.pace.burst)
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		fatal     bool
		after     time.Duration // a *RetryAfterError with this wait
		sentences []string
	}{
		{"rate limited", &slack.RateLimitedError{RetryAfter: 7 * time.Second}, false, 7 * time.Second, nil},
		{"429 without Retry-After", slack.StatusCodeError{Code: 429, Status: "429 Too Many Requests"}, false, 30 * time.Second, nil},
		{"503", slack.StatusCodeError{Code: 503, Status: "503 Service Unavailable"}, false, 0, nil},
		{"network", errors.New("dial tcp: connection refused"), false, 0, nil},
		{"internal_error", slack.SlackErrorResponse{Err: "internal_error"}, false, 0, nil},
		{"fatal_error", slack.SlackErrorResponse{Err: "fatal_error"}, false, 0, nil},
		{"an unknown code", slack.SlackErrorResponse{Err: "something_new"}, false, 0, nil},
		{"channel_not_found", slack.SlackErrorResponse{Err: "channel_not_found"}, true, 0, []string{"channel_not_found: ", "C1", "/invite"}},
		{"not_in_channel", slack.SlackErrorResponse{Err: "not_in_channel"}, true, 0, []string{"/invite @bot"}},
		{"is_archived", slack.SlackErrorResponse{Err: "is_archived"}, true, 0, []string{"archived"}},
		{"invalid_auth", slack.SlackErrorResponse{Err: "invalid_auth"}, true, 0, []string{"SLACK_BOT_TOKEN"}},
		{"account_inactive", slack.SlackErrorResponse{Err: "account_inactive"}, true, 0, []string{"reinstall"}},
		{"token_revoked", slack.SlackErrorResponse{Err: "token_revoked"}, true, 0, []string{"reinstall"}},
		{"missing_scope", slack.SlackErrorResponse{Err: "missing_scope", Needed: "chat:write.public"}, true, 0, []string{"chat:write.public"}},
		{"invalid_blocks", slack.SlackErrorResponse{Err: "invalid_blocks", ResponseMetadata: slack.ResponseMetadata{Messages: []string{"[ERROR] no more than 50 items allowed"}}},
			true, 0, []string{"50 items"}},
		{"msg_too_long", slack.SlackErrorResponse{Err: "msg_too_long"}, true, 0, nil},
		{"no_text", slack.SlackErrorResponse{Err: "no_text"}, true, 0, nil},
		{"message_not_found", slack.SlackErrorResponse{Err: "message_not_found"}, true, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := classify("post inquiry k to channel C1", "C1", fmt.Errorf("wrapped: %w", tt.err))
			require.Equal(t, tt.fatal, inquiry.Fatal(err), "%v", err)
			var ra *inquiry.RetryAfterError
			if tt.after > 0 {
				require.ErrorAs(t, err, &ra)
				require.Equal(t, tt.after, ra.After)
			} else {
				require.False(t, errors.As(err, &ra))
			}
			for _, s := range tt.sentences {
				require.Contains(t, inquiry.ErrorMessage(err), s)
			}
			require.ErrorContains(t, err, tt.err.Error(), "the cause stays in the error for logs")
			var se slack.SlackErrorResponse
			require.Equal(t, errors.As(tt.err, &se), errors.As(err, &se), "a Slack error stays reachable")
		})
	}
}

// Ephemerals go through the channel's pace like every other message: with a pace of one an hour
// and a burst of three, five ephemerals in a channel send three (the others would wait past
// their own ten seconds, so they are dropped at once), the channel's next post must wait its
// turn, and another channel has a pace of its own.
func TestEphemeralsArePacedWithTheChannel(t *testing.T) {
	b := setup(t, func(c *Config) { c.PostInterval, c.PostBurst = time.Hour, 3 })
	b.fake.AddChannel("C2", "other")
	at := where{channel: slackfake.DefaultChannel}
	for i := range 5 {
		b.app.tell(at, "U1", say(fmt.Sprintf("note %d", i)))
	}
	b.settle()
	require.Len(t, b.fake.Calls("chat.postEphemeral"), 3, "the channel's burst, and no more")
	require.Len(t, b.fake.Ephemerals("U1"), 3)

	short, cancel := context.WithTimeout(b.ctx, time.Second)
	defer cancel()
	require.Error(t, b.app.ready(short, slackfake.DefaultChannel), "the ephemerals spent the channel's burst: a post waits its turn")

	b.app.tell(where{channel: "C2"}, "U1", say("elsewhere"))
	b.settle()
	require.Len(t, b.fake.Calls("chat.postEphemeral"), 4, "another channel is paced on its own")
}

// An ephemeral in a channel Slack rate-limited (a 429 on a post) waits until Slack's
// Retry-After has passed before it calls Slack.
func TestEphemeralWaitsOutTheChannelHold(t *testing.T) {
	b := setup(t)
	b.fake.RateLimitEvery(1, time.Second, "chat.postMessage")
	b.askNoWait(mergeQuestion("q1"), inquiry.SlackRef{})
	require.Eventually(t, func() bool { return b.app.holds.left(slackfake.DefaultChannel) > 0 },
		10*time.Second, 5*time.Millisecond, "the 429 holds the channel")
	b.fake.RateLimitEvery(0, 0)
	limited := b.fake.Calls("chat.postMessage")[0]
	require.Equal(t, 429, limited.Status)

	b.app.tell(where{channel: slackfake.DefaultChannel}, "U1", say("later"))
	b.settle()
	calls := b.fake.Calls("chat.postEphemeral")
	require.Len(t, calls, 1)
	require.False(t, calls[0].At.Before(limited.At.Add(time.Second)),
		"the ephemeral went out %s after the 429 that asked for 1s", calls[0].At.Sub(limited.At))
	require.Len(t, b.fake.Ephemerals("U1"), 1)
}

// A 429 on an ephemeral holds the channel for Retry-After, and the ephemeral is sent again once
// it has passed, within its own ten seconds.
func TestEphemeral429IsRetriedAfterRetryAfter(t *testing.T) {
	b := setup(t)
	b.fake.RateLimitEvery(2, time.Second, "chat.postEphemeral") // the second call answers 429
	at := where{channel: slackfake.DefaultChannel}
	b.app.tell(at, "U1", say("first"))
	b.settle()
	b.app.tell(at, "U1", say("second"))
	b.settle()

	calls := b.fake.Calls("chat.postEphemeral")
	require.Len(t, calls, 3)
	require.Equal(t, []int{200, 429, 200}, []int{calls[0].Status, calls[1].Status, calls[2].Status})
	require.False(t, calls[2].At.Before(calls[1].At.Add(time.Second)),
		"sent again %s after a 429 that asked for 1s", calls[2].At.Sub(calls[1].At))
	es := b.fake.Ephemerals("U1")
	require.Len(t, es, 2)
	require.Equal(t, "second", es[1].Text)
}

// A Retry-After longer than an ephemeral may wait drops it at once, without calling Slack again,
// and holds the channel's posts too.
func TestEphemeralLongRetryAfterHoldsTheChannel(t *testing.T) {
	b := setup(t)
	b.fake.RateLimitEvery(1, 30*time.Second, "chat.postEphemeral")
	b.app.tell(where{channel: slackfake.DefaultChannel}, "U1", say("never"))
	b.settle()
	require.Len(t, b.fake.Calls("chat.postEphemeral"), 1, "one call: the next would come after the ephemeral's time")
	require.Empty(t, b.fake.Ephemerals("U1"))

	err := b.app.ready(b.ctx, slackfake.DefaultChannel)
	var ra *inquiry.RetryAfterError
	require.True(t, errors.As(err, &ra), "a post in the channel is turned away while Slack holds it: %v", err)
	require.Greater(t, ra.After, 20*time.Second)
}

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
