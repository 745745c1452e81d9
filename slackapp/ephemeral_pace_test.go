package slackapp

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// Ephemerals go through the channel's pace like every other message: with a pace of one an hour
// and a burst of three, five ephemerals in a channel send three (the others would wait past
// their own ten seconds, so they are dropped at once), the channel's next post must wait its
// turn, and another channel has a pace of its own.
func TestEphemeralsArePacedWithTheChannel(t *testing.T) {
	b := setup(t, func(c *Config) { c.PostInterval, c.PostBurst = time.Hour, 3 })
	b.fake.AddChannel("C2", "other")
	at := where{channel: slackfake.DefaultChannel}
	for i := range 5 {
		b.app.tell(at, "U1", fmt.Sprintf("note %d", i))
	}
	b.settle()
	require.Len(t, b.fake.Calls("chat.postEphemeral"), 3, "the channel's burst, and no more")
	require.Len(t, b.fake.Ephemerals("U1"), 3)

	short, cancel := context.WithTimeout(b.ctx, time.Second)
	defer cancel()
	require.Error(t, b.app.ready(short, slackfake.DefaultChannel), "the ephemerals spent the channel's burst: a post waits its turn")

	b.app.tell(where{channel: "C2"}, "U1", "elsewhere")
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

	b.app.tell(where{channel: slackfake.DefaultChannel}, "U1", "later")
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
	b.app.tell(at, "U1", "first")
	b.settle()
	b.app.tell(at, "U1", "second")
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
	b.app.tell(where{channel: slackfake.DefaultChannel}, "U1", "never")
	b.settle()
	require.Len(t, b.fake.Calls("chat.postEphemeral"), 1, "one call: the next would come after the ephemeral's time")
	require.Empty(t, b.fake.Ephemerals("U1"))

	err := b.app.ready(b.ctx, slackfake.DefaultChannel)
	var ra *inquiry.RetryAfterError
	require.True(t, errors.As(err, &ra), "a post in the channel is turned away while Slack holds it: %v", err)
	require.Greater(t, ra.After, 20*time.Second)
}
