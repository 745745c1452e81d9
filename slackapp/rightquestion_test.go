package slackapp

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// Issue 12 in Slack: expiry is exact for a click and a thread reply, and a run's resume that
// answers its pending question updates the message with who really answered.

// expiringSoon is a merge question that expires d after now by the clock of b's service.
func expiringSoon(b *bundle, id string, d time.Duration) inquiry.Inquiry {
	in := mergeQuestion(id)
	at := b.svc.Clock().Add(d)
	in.ExpiresAt = &at
	return in
}

func TestNoSlackAnswerAfterTheExpiry(t *testing.T) {
	for _, mode := range []string{"http", "socket"} {
		t.Run(mode, func(t *testing.T) {
			storagetest.Each(t, func(t *testing.T, databaseURL string) {
				// The service, the app and the fake keep a clock the test moves: behind the
				// wall clock, so that what the service enqueues is due at once for the
				// dispatcher, which keeps the wall clock.
				var behind atomic.Int64
				behind.Store(int64(time.Hour))
				clock := func() time.Time { return time.Now().Add(-time.Duration(behind.Load())) }
				tweaks := []func(*Config){func(c *Config) { c.Now = clock }}
				if mode == "socket" {
					tweaks = append(tweaks, func(c *Config) { c.AppToken = slackfake.AppToken })
				}
				b := setupOn(t, databaseURL, tweaks...)
				b.svc.Now = clock
				b.fake.SetClock(clock)
				if mode == "socket" {
					b.connectSocket()
				}
				noSlackAnswerAfterTheExpiry(t, b, func(d time.Duration) { behind.Add(-int64(d)) })
			})
		})
	}
}

// noSlackAnswerAfterTheExpiry is TestNoSlackAnswerAfterTheExpiry on b, whose clock advance moves.
func noSlackAnswerAfterTheExpiry(t *testing.T, b *bundle, advance func(time.Duration)) {
	click := b.ask(expiringSoon(b, "click-late", 4*time.Second), inquiry.SlackRef{})
	reply := b.ask(expiringSoon(b, "reply-late", 4*time.Second), inquiry.SlackRef{})
	// Past both expiries, nobody having looked since the posts (a look would expire them); the
	// sweeper never runs here.
	advance(5 * time.Second)

	b.click("U0ALICE01", click, "Merge")
	say := b.ephemeral("U0ALICE01", 1)
	require.Contains(t, say.Text, "expired")
	require.Contains(t, say.Text, "Hold", "the ephemeral says what was assumed")
	b.ok(b.fake.ReplyInThread("U0BOB0001", reply.Slack.Channel, reply.Slack.TS, "merge"))
	require.Contains(t, b.ephemeral("U0BOB0001", 1).Text, "expired")

	for _, rec := range []*inquiry.Record{click, reply} {
		got := b.get(rec.Key)
		require.Equal(t, inquiry.StatusExpired, got.Status)
		require.Equal(t, inquiry.SourceExpired, got.Answer.Source, "no person's answer after expires_at")
		require.Equal(t, "hold", got.Answer.Value.First())
		after := b.updated(got)
		require.False(t, after.HasControls())
		require.NotContains(t, after.AllText(), "U0ALICE01")
	}
}

func TestAResumeUpdatesTheMessageWithTheCaller(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		in := mergeQuestion("r1:merge")
		agent := &inquiry.Token{Name: "agent-a", Namespace: "ns", Scopes: []inquiry.Scope{inquiry.ScopeAsk}}
		res, err := b.svc.AskInRun(inquiry.WithCaller(b.ctx, agent), "r1", inquiry.AskRequest{Inquiry: in,
			Config: &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportSlack}})
		require.NoError(t, err)
		require.Equal(t, inquiry.RunAskWaiting, res.Status)
		rec := b.posted(res.Inquiry.Key)

		late := b.clickPayload("U0ALICE01", rec, "Hold") // built while the buttons are there
		forged := inquiry.Answer{Value: inquiry.One("merge"), Source: inquiry.SourcePerson, AnsweredBy: "U0CTO0001"}
		run, err := b.svc.Resume(inquiry.WithCaller(b.ctx, agent), "r1", map[string]inquiry.Answer{"r1:merge": forged})
		require.NoError(t, err)
		require.Equal(t, inquiry.SourceCaller, run.Answers["r1:merge"].Source)
		require.Equal(t, "agent-a", run.Answers["r1:merge"].AnsweredBy)

		got := b.resolved(rec.Key)
		require.Equal(t, inquiry.SourceCaller, got.Answer.Source)
		after := b.updated(got)
		require.False(t, after.HasControls(), "the buttons are gone: nobody answers it twice")
		require.Contains(t, after.AllText(), "the run's caller `agent-a`")
		require.NotContains(t, after.AllText(), "U0CTO0001")

		// A click after it is told who answered.
		b.ok(b.fake.SendInteraction(late))
		require.Contains(t, b.ephemeral("U0ALICE01", 1).Text, "the run's caller")
	})
}

// A question asked into a thread whose parent does not exist is posted at the top of the channel
// (Slack un-threads it); the record says where it really is, and a reply in its own thread
// answers it.
func TestQuestionIntoAMissingThreadIsAnsweredWhereItLanded(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		rec := b.ask(mergeQuestion("orphan"), inquiry.SlackRef{ThreadTS: "1600000000.000001"})
		require.Empty(t, rec.Slack.ThreadTS, "Slack posted it at the top of the channel")
		b.ok(b.fake.ReplyInThread("U0ALICE01", rec.Slack.Channel, rec.Slack.TS, "hold"))
		got := b.resolved(rec.Key)
		require.Equal(t, "hold", got.Answer.Value.First())
		require.Equal(t, inquiry.SourcePerson, got.Answer.Source)
	})
}
