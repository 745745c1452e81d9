package slackapp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
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

	r := b.ok(b.fake.Click("U0ALICE01", rec.Slack.Channel, rec.Slack.TS, "Merge"))
	require.Less(t, r.Elapsed, 1500*time.Millisecond, "the click is acked well within Slack's three seconds")
	require.Equal(t, "merge", b.get(rec.Key).Answer.Value.First(), "recorded before the ack")

	// A late click's ephemeral goes out after the ack, however slow Slack is.
	r = b.ok(b.fake.Click("U0BOB0001", rec.Slack.Channel, rec.Slack.TS, "Hold"))
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
	b.ok(b.fake.Click("U0ALICE01", rec.Slack.Channel, rec.Slack.TS, "Hold"))
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
