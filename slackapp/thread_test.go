package slackapp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// eachStoreAndMode runs fn over HTTP and over Socket Mode, each on SQLite and, when
// TEST_DATABASE_URL is set, on PostgreSQL: subtests http/sqlite, http/postgres, socket/sqlite,
// socket/postgres, each with a bundle (and a database) of its own.
func eachStoreAndMode(t *testing.T, fn func(t *testing.T, b *bundle)) {
	t.Helper()
	for _, mode := range []string{"http", "socket"} {
		t.Run(mode, func(t *testing.T) {
			storagetest.Each(t, func(t *testing.T, databaseURL string) {
				if mode == "http" {
					fn(t, setupOn(t, databaseURL))
					return
				}
				b := setupOn(t, databaseURL, func(c *Config) { c.AppToken = slackfake.AppToken })
				b.connectSocket()
				fn(t, b)
			})
		})
	}
}

// connectSocket runs the app over Socket Mode until the test ends; from then on the person
// reaches the app only through the socket.
func (b *bundle) connectSocket() {
	b.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.app.RunSocketMode(ctx) }()
	b.t.Cleanup(func() {
		cancel()
		require.NoError(b.t, <-done)
	})
	require.NoError(b.t, b.fake.WaitSocket(10*time.Second))
	b.fake.SetAppURL("http://127.0.0.1:1")
}

// personSays posts text as user at the top of the channel and returns its ts.
func (b *bundle) personSays(user, channel, text string) string {
	b.t.Helper()
	b.ok(b.fake.Say(user, channel, text))
	msgs := b.fake.Messages(channel)
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.User == user && m.ThreadTS == "" {
			return m.TS
		}
	}
	b.t.Fatalf("the message of %s is not in %s", user, channel)
	return ""
}

// shipQuestion is a Choice whose question needs escaping in mrkdwn.
func shipQuestion(id string) inquiry.Inquiry {
	return inquiry.Inquiry{
		ID: id, Kind: inquiry.KindChoice, Question: "Ship the canary to <eu> & us?",
		Options: []inquiry.Option{{Value: "ship", Label: "Ship"}, {Value: "hold", Label: "Hold"}},
	}
}

// A question posted into an existing thread — whose root is a person's message, no inquiry — is
// answered by a reply in that thread. Before: the reply was looked up by the thread's root
// only, found nothing, and was dropped without a word.
func TestThreadReplyAnswersQuestionPostedIntoThread(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		ch := slackfake.DefaultChannel
		root := b.personSays("U0CAROL01", ch, "Deploying 4.2 to production now")
		rec := b.ask(mergeQuestion("into-thread"), inquiry.SlackRef{ThreadTS: root})
		require.Equal(t, root, rec.Slack.ThreadTS)
		require.NotEqual(t, root, rec.Slack.TS)

		b.ok(b.fake.ReplyInThread("U0ALICE01", ch, root, "Hold"))
		got := b.resolved(rec.Key)
		require.Equal(t, inquiry.StatusAnswered, got.Status)
		require.Equal(t, "hold", got.Answer.Value.First())
		require.Equal(t, "U0ALICE01", got.Answer.AnsweredBy)
		require.Equal(t, inquiry.SourcePerson, got.Answer.Source)
		require.False(t, b.updated(got).HasControls())
		b.settle()
		require.Empty(t, b.fake.Ephemerals("U0ALICE01"), "the thread's only question: nothing to explain")
	})
}

// Question B posted into question A's thread, both pending: a reply "Hold" (valid for both)
// answers B, the newest, A stays pending, and the person is told which question it answered. An
// invalid reply is judged against the newest. Before: the reply went to A, the thread's root —
// "Hold" meant for B answered A.
func TestThreadReplyAnswersNewestQuestionOfThread(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		a := b.ask(mergeQuestion("a"), inquiry.SlackRef{})
		ch, root := a.Slack.Channel, a.Slack.TS
		bq := b.ask(shipQuestion("b"), inquiry.SlackRef{ThreadTS: root})
		require.Contains(t, bq.Slack.Permalink, "thread_ts="+root)

		b.ok(b.fake.ReplyInThread("U0ALICE01", ch, root, "Hold"))
		got := b.resolved(bq.Key)
		require.Equal(t, "hold", got.Answer.Value.First())
		require.Equal(t, "U0ALICE01", got.Answer.AnsweredBy)
		b.noAnswer(a.Key)
		e := b.ephemeral("U0ALICE01", 1)
		require.Equal(t, root, e.ThreadTS, "the ephemeral shows in the thread")
		require.Equal(t, "your reply answered “Ship the canary to &lt;eu&gt; &amp; us?” (<"+bq.Slack.Permalink+"|view>). "+
			"The other question in this thread still waits: a reply here answers the newest one you may answer, or use the buttons under it.",
			e.Text)

		// D joins the thread. "merge" is A's answer, but the reply is D's: none of D's answers,
		// and the sentence names the question it was read for.
		d := b.ask(shipQuestion("d"), inquiry.SlackRef{ThreadTS: root})
		b.ok(b.fake.ReplyInThread("U0ALICE01", ch, root, "merge"))
		e = b.ephemeral("U0ALICE01", 2)
		require.True(t, strings.HasPrefix(e.Text, "that is none of the offered answers: “Ship”, “Hold”."), e.Text)
		require.Contains(t, e.Text, "“Ship the canary to &lt;eu&gt; &amp; us?” (<"+d.Slack.Permalink+"|view>)")
		require.Equal(t, root, e.ThreadTS)
		b.noAnswer(a.Key)
		b.noAnswer(d.Key)

		b.ok(b.fake.ReplyInThread("U0BOB0001", ch, root, "ship"))
		require.Equal(t, "ship", b.resolved(d.Key).Answer.Value.First())
		b.noAnswer(a.Key)
		require.Contains(t, b.ephemeral("U0BOB0001", 1).Text, "your reply answered “Ship the canary to &lt;eu&gt; &amp; us?” (<"+d.Slack.Permalink+"|view>)")

		// Now A is the thread's only question: the next reply answers it, nothing to explain.
		b.ok(b.fake.ReplyInThread("U0CAROL01", ch, root, "merge"))
		got = b.resolved(a.Key)
		require.Equal(t, "merge", got.Answer.Value.First())
		require.Equal(t, "U0CAROL01", got.Answer.AnsweredBy)
		require.Equal(t, "hold", b.get(bq.Key).Answer.Value.First())
		b.settle()
		require.Empty(t, b.fake.Ephemerals("U0CAROL01"))
	})
}

// The newest question the person may answer wins: questions restricted to others are passed
// over; when the person may answer none, they are told the refusal of the newest.
func TestThreadReplySkipsQuestionsOthersMustAnswer(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		a := b.ask(mergeQuestion("a"), inquiry.SlackRef{})
		ch, root := a.Slack.Channel, a.Slack.TS
		bq := b.ask(shipQuestion("b"), inquiry.SlackRef{ThreadTS: root, Answerers: []string{"U0BOB0001"}})
		c := b.ask(inquiry.Inquiry{ID: "c", Kind: inquiry.KindText, Question: "Who signs off?"},
			inquiry.SlackRef{ThreadTS: root, Answerers: []string{"U0CAROL01"}})

		// Alice may answer only A.
		b.ok(b.fake.ReplyInThread("U0ALICE01", ch, root, "Hold"))
		got := b.resolved(a.Key)
		require.Equal(t, "hold", got.Answer.Value.First())
		require.Equal(t, "U0ALICE01", got.Answer.AnsweredBy)
		b.noAnswer(bq.Key)
		b.noAnswer(c.Key)
		e := b.ephemeral("U0ALICE01", 1)
		require.Equal(t, "your reply answered “Merge now?” (<"+a.Slack.Permalink+"|view>). "+
			"The 2 other questions in this thread still wait: a reply here answers the newest one you may answer, or use the buttons under each.",
			e.Text)

		// Now she may answer none: the newest question's refusal.
		b.ok(b.fake.ReplyInThread("U0ALICE01", ch, root, "hold"))
		e = b.ephemeral("U0ALICE01", 2)
		require.Contains(t, e.Text, "only <@U0CAROL01> may answer this question")
		require.Equal(t, root, e.ThreadTS)
		b.noAnswer(bq.Key)
		b.noAnswer(c.Key)

		// Bob may answer B, not C, the newest.
		b.ok(b.fake.ReplyInThread("U0BOB0001", ch, root, "hold"))
		got = b.resolved(bq.Key)
		require.Equal(t, "hold", got.Answer.Value.First())
		require.Equal(t, "U0BOB0001", got.Answer.AnsweredBy)
		b.noAnswer(c.Key)
		require.Contains(t, b.ephemeral("U0BOB0001", 1).Text, "your reply answered “Ship the canary to &lt;eu&gt; &amp; us?” (<"+bq.Slack.Permalink+"|view>)")
	})
}

// Talk in a thread with nothing pending is just talk: a thread that holds no question, and one
// whose questions are answered. A question in another thread is not touched.
func TestThreadReplyWithNothingPending(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		ch := slackfake.DefaultChannel
		talk := b.personSays("U0CAROL01", ch, "Lunch?")
		elsewhere := b.ask(mergeQuestion("elsewhere"), inquiry.SlackRef{})
		done := b.ask(mergeQuestion("done"), inquiry.SlackRef{})
		b.ok(b.fake.Click("U0BOB0001", ch, done.Slack.TS, "Merge"))
		require.Equal(t, "merge", b.resolved(done.Key).Answer.Value.First())

		b.ok(b.fake.ReplyInThread("U0ALICE01", ch, talk, "hold"))
		b.ok(b.fake.ReplyInThread("U0ALICE01", ch, done.Slack.TS, "hold"))
		b.settle()
		require.Empty(t, b.fake.Calls("chat.postEphemeral"), "nothing to say")
		require.Equal(t, "merge", b.get(done.Key).Answer.Value.First())
		require.Equal(t, "U0BOB0001", b.get(done.Key).Answer.AnsweredBy)
		b.noAnswer(elsewhere.Key)
	})
}

// /questions lists this channel's questions however many newer ones wait elsewhere, at most 20.
// Before: it read the 100 newest pending questions of every channel and then kept this
// channel's, so 150 newer elsewhere hid this one: "No question waits".
func TestSlashCommandFindsChannelQuestionsBehindBusyChannels(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		rec := b.ask(mergeQuestion("here"), inquiry.SlackRef{})
		now := time.Now()
		stored := func(id, channel, ts string, after time.Duration) {
			_, created, err := b.store.CreateInquiry(b.ctx, &inquiry.Record{
				Inquiry:   inquiry.Inquiry{ID: id, Kind: inquiry.KindText, Question: "Question " + id + "?"},
				Namespace: "ns", Status: inquiry.StatusPending, CreatedAt: now.Add(after),
				Config: inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportSlack},
				Slack:  inquiry.SlackRef{Channel: channel, TS: ts},
			}, nil)
			require.NoError(t, err)
			require.True(t, created)
		}
		for i := range 150 {
			stored(fmt.Sprintf("busy-%d", i), "C0BUSY001", fmt.Sprintf("1800000000.%06d", i), time.Duration(i+1)*time.Millisecond)
		}
		text := commandText(t, b.ok(b.fake.Command("U0ALICE01", rec.Slack.Channel, "/questions", "")))
		require.Contains(t, text, "One question waits for an answer here")
		require.Contains(t, text, "“Merge now?” (<"+rec.Slack.Permalink+"|view>)")

		// Not yet posted: not listed. Posted: at most 20, newest first.
		stored("unposted", rec.Slack.Channel, "", time.Second)
		for i := range 24 {
			stored(fmt.Sprintf("here-%d", i), rec.Slack.Channel, fmt.Sprintf("1800000001.%06d", i), time.Second+time.Duration(i+1)*time.Millisecond)
		}
		text = commandText(t, b.ok(b.fake.Command("U0ALICE01", rec.Slack.Channel, "/questions", "")))
		require.Contains(t, text, "20 questions wait for an answer here")
		require.Contains(t, text, "Question here-23?")
		require.NotContains(t, text, "Question here-3?")
		require.NotContains(t, text, "unposted")
		require.NotContains(t, text, "busy-")
	})
}

// commandText reads the ephemeral text a slash command was answered with.
func commandText(t *testing.T, r *slackfake.Response) string {
	t.Helper()
	var got struct {
		ResponseType string `json:"response_type"`
		Text         string `json:"text"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &got), "%s", r.Body)
	require.Equal(t, "ephemeral", got.ResponseType)
	return got.Text
}
