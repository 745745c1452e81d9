package slackapp

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// postsOf returns the app's messages in channel (thread replies included) that carry key.
func (b *bundle) postsOf(channel, key string) []slackfake.Message {
	b.t.Helper()
	var out []slackfake.Message
	for _, m := range b.fake.Messages(channel) {
		var md struct {
			EventType    string         `json:"event_type"`
			EventPayload map[string]any `json:"event_payload"`
		}
		if m.BotID != "" && json.Unmarshal(m.Metadata, &md) == nil && md.EventType == metadataEvent && md.EventPayload["key"] == key {
			out = append(out, m)
		}
	}
	return out
}

// postDelivery returns the inquiry's post delivery once it is done.
func (b *bundle) postDelivery(key string) inquiry.Delivery {
	b.t.Helper()
	var post inquiry.Delivery
	require.Eventually(b.t, func() bool {
		ds, err := b.store.ListDeliveries(b.ctx, key)
		require.NoError(b.t, err)
		for _, d := range ds {
			if d.Kind == inquiry.DeliverPost {
				post = d
				return d.Status == inquiry.DeliveryDone
			}
		}
		return false
	}, 15*time.Second, 10*time.Millisecond, "the post of %s is never done", key)
	return post
}

// exactlyOnce asserts the inquiry has exactly one message in channel, and that it recorded it.
func (b *bundle) exactlyOnce(rec *inquiry.Record, channel string) slackfake.Message {
	b.t.Helper()
	got := b.posted(rec.Key)
	posts := b.postsOf(channel, rec.Key)
	require.Len(b.t, posts, 1, "exactly one message for %s", rec.Key)
	require.Equal(b.t, posts[0].TS, got.Slack.TS, "the inquiry records the message in Slack")
	require.Equal(b.t, channel, got.Slack.Channel)
	require.NotEmpty(b.t, got.Slack.Permalink)
	return posts[0]
}

// lookups are the calls of method (conversations.history or conversations.replies), each
// checked to carry what FindPost needs.
func (b *bundle) lookups(method, channel string) []slackfake.Call {
	b.t.Helper()
	calls := b.fake.Calls(method)
	for _, c := range calls {
		require.Equal(b.t, channel, c.Params.Get("channel"))
		require.Equal(b.t, "1", c.Params.Get("include_all_metadata"))
		require.NotEmpty(b.t, c.Params.Get("oldest"), "it reads since the inquiry was created")
	}
	return calls
}

// TestFindPostAfterALostAnswer: Slack posted the question but its answer never reached the bot
// (the connection cut, or a 500 in its place). The retry looks in the channel's history, finds
// the message by the inquiry key in its metadata and records it: one message, no second post.
func TestFindPostAfterALostAnswer(t *testing.T) {
	for _, tt := range []struct {
		name string
		drop func(f *slackfake.Server)
	}{
		{"connection cut", func(f *slackfake.Server) { f.DropNextResponse("chat.postMessage") }},
		{"500 after the post", func(f *slackfake.Server) {
			f.DropNextResponseStatus("chat.postMessage", http.StatusInternalServerError)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ch := slackfake.DefaultChannel
			// Another question and a person's message in the channel: the lookup must pick out
			// the message of this inquiry.
			other := b.ask(mergeQuestion("other"), inquiry.SlackRef{})
			_, _ = b.fake.Say("U0ALICE01", ch, "unrelated chatter")

			tt.drop(b.fake)
			rec := b.askNoWait(mergeQuestion("lost-answer"), inquiry.SlackRef{})
			m := b.exactlyOnce(rec, ch)
			require.Len(t, b.fake.BotMessages(ch), 2, "the other question and this one, nothing more")
			require.NotEqual(t, other.Slack.TS, m.TS)

			posts := b.fake.Calls("chat.postMessage")
			require.Len(t, posts, 2, "one post for each question: none repeated")
			require.True(t, posts[1].Dropped)
			require.NotEmpty(t, b.lookups("conversations.history", ch))
			require.Empty(t, b.fake.Calls("conversations.replies"))
			require.Equal(t, 2, b.postDelivery(rec.Key).Attempts, "done by the retry, which found it")

			// The found message works like a posted one: a click answers the inquiry.
			b.ok(b.fake.Click("U0ALICE01", ch, m.TS, "Merge"))
			require.Equal(t, "merge", b.resolved(rec.Key).Answer.Value.First())
		})
	}
}

// TestFindPostInAThread: a question asked in a thread is looked for with conversations.replies.
func TestFindPostInAThread(t *testing.T) {
	b := setup(t)
	ch := slackfake.DefaultChannel
	parent := b.ask(mergeQuestion("top"), inquiry.SlackRef{})
	_, _ = b.fake.ReplyInThread("U0ALICE01", ch, parent.Slack.TS, "a word in the thread first")

	b.fake.DropNextResponse("chat.postMessage")
	rec := b.askNoWait(mergeQuestion("threaded"), inquiry.SlackRef{ThreadTS: parent.Slack.TS})
	m := b.exactlyOnce(rec, ch)
	require.Equal(t, parent.Slack.TS, m.ThreadTS)
	require.Equal(t, parent.Slack.TS, b.get(rec.Key).Slack.ThreadTS)

	require.Len(t, b.fake.Calls("chat.postMessage"), 2, "the parent and the threaded question, once each")
	replies := b.lookups("conversations.replies", ch)
	require.NotEmpty(t, replies)
	require.Equal(t, parent.Slack.TS, replies[0].Params.Get("ts"))
	require.Empty(t, b.fake.Calls("conversations.history"), "a thread's question is not in the channel's history")
}

// TestFindPostNotFound: the first attempt failed before Slack posted anything; the retry finds
// no message of the inquiry (the channel holds others) and posts it, once.
func TestFindPostNotFound(t *testing.T) {
	b := setup(t)
	ch := slackfake.DefaultChannel
	b.ask(mergeQuestion("other"), inquiry.SlackRef{})
	b.fake.FailNextStatus("chat.postMessage", http.StatusServiceUnavailable)
	rec := b.askNoWait(mergeQuestion("never-posted"), inquiry.SlackRef{})
	b.exactlyOnce(rec, ch)

	posts := b.fake.Calls("chat.postMessage")
	require.Len(t, posts, 3, "the other question; this one refused, then posted")
	require.Equal(t, http.StatusServiceUnavailable, posts[1].Status)
	require.Equal(t, http.StatusOK, posts[2].Status)
	hist := b.lookups("conversations.history", ch)
	require.Len(t, hist, 1, "looked once, before the second post")
	require.Equal(t, http.StatusOK, hist[0].Status)
	require.Empty(t, hist[0].Error)
	require.True(t, hist[0].At.Before(posts[2].At))
	require.Equal(t, 2, b.postDelivery(rec.Key).Attempts)
}

// TestFindPostLookupFailsForNow: Slack posted the question, its answer was lost, and then the
// lookup itself fails for a moment (a 503, a passing Slack error, a cut connection). The bot
// cannot tell whether the question is shown, so it does not post: it looks again later, finds
// the message and records it.
func TestFindPostLookupFailsForNow(t *testing.T) {
	for _, tt := range []struct {
		name string
		fail func(f *slackfake.Server)
	}{
		{"503", func(f *slackfake.Server) { f.FailNextStatus("conversations.history", http.StatusServiceUnavailable) }},
		{"internal_error", func(f *slackfake.Server) { f.FailNext("conversations.history", "internal_error") }},
		{"lookup's answer lost", func(f *slackfake.Server) { f.DropNextResponse("conversations.history") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ch := slackfake.DefaultChannel
			b.fake.DropNextResponse("chat.postMessage")
			tt.fail(b.fake)
			rec := b.askNoWait(mergeQuestion("lookup-flaky"), inquiry.SlackRef{})
			b.exactlyOnce(rec, ch)

			require.Len(t, b.fake.Calls("chat.postMessage"), 1, "never posted again")
			hist := b.lookups("conversations.history", ch)
			require.Len(t, hist, 2, "the failed lookup, then the one that found it")
			require.True(t, hist[0].Status != http.StatusOK || hist[0].Error != "" || hist[0].Dropped)
			require.Equal(t, http.StatusOK, hist[1].Status)
			require.False(t, hist[1].Dropped)
			require.Equal(t, 3, b.postDelivery(rec.Key).Attempts)
		})
	}
}

// TestFindPostRefused: Slack will never show the history (the app lacks channels:history). The
// bot cannot look, so it posts without looking rather than never posting.
func TestFindPostRefused(t *testing.T) {
	b := setup(t)
	ch := slackfake.DefaultChannel
	b.fake.FailNextStatus("chat.postMessage", http.StatusServiceUnavailable)
	b.fake.FailNext("conversations.history", "missing_scope")
	rec := b.askNoWait(mergeQuestion("cannot-look"), inquiry.SlackRef{})
	b.exactlyOnce(rec, ch)
	require.Equal(t, inquiry.StatusPending, b.get(rec.Key).Status, "the refused lookup does not fail the inquiry")
	hist := b.lookups("conversations.history", ch)
	require.Len(t, hist, 1)
	require.Equal(t, "missing_scope", hist[0].Error)
	require.Len(t, b.fake.Calls("chat.postMessage"), 2)
}
