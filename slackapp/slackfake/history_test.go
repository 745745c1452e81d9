package slackfake_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
)

// post posts text as the bot with metadata carrying key (in the thread of threadTS when set).
func post(t *testing.T, api *slack.Client, channel, threadTS, key string) string {
	t.Helper()
	opts := []slack.MsgOption{slack.MsgOptionText("question "+key, false),
		slack.MsgOptionMetadata(slack.SlackMetadata{EventType: "inquiry_question", EventPayload: map[string]any{"key": key}})}
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	_, ts, err := api.PostMessageContext(context.Background(), channel, opts...)
	require.NoError(t, err)
	return ts
}

func timestamps(msgs []slack.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Timestamp
	}
	return out
}

func TestHistory(t *testing.T) {
	f := slackfaketest.New(t)
	f.SetAppURL("http://127.0.0.1:1") // the person's events go nowhere; the messages stay
	ctx := context.Background()
	api := client(f, slackfake.BotToken)
	ch := slackfake.DefaultChannel

	var top []string // top-level, oldest first
	for i := range 5 {
		top = append(top, post(t, api, ch, "", fmt.Sprintf("k%d", i)))
	}
	reply := post(t, api, ch, top[1], "in-thread")
	_, _ = f.ReplyInThread("U0ALICE01", ch, top[1], "a person's reply")

	t.Run("newest first, top level only, thread parents marked", func(t *testing.T) {
		h, err := api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: ch})
		require.NoError(t, err)
		require.Equal(t, []string{top[4], top[3], top[2], top[1], top[0]}, timestamps(h.Messages))
		require.False(t, h.HasMore)
		require.Empty(t, h.ResponseMetaData.NextCursor)
		parent := h.Messages[3]
		require.Equal(t, top[1], parent.ThreadTimestamp)
		require.Equal(t, 2, parent.ReplyCount)
		require.ElementsMatch(t, []string{slackfake.BotUserID, "U0ALICE01"}, parent.ReplyUsers)
		require.Equal(t, slackfake.BotID, parent.BotID)
		require.Equal(t, "question k1", parent.Text)
		require.Empty(t, parent.Metadata.EventType, "no metadata unless include_all_metadata")
	})

	t.Run("metadata on demand", func(t *testing.T) {
		h, err := api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: ch, IncludeAllMetadata: true})
		require.NoError(t, err)
		for i, m := range h.Messages {
			require.Equal(t, "inquiry_question", m.Metadata.EventType)
			require.Equal(t, fmt.Sprintf("k%d", 4-i), m.Metadata.EventPayload["key"])
		}
	})

	t.Run("oldest, latest, inclusive", func(t *testing.T) {
		get := func(p slack.GetConversationHistoryParameters) []string {
			p.ChannelID = ch
			h, err := api.GetConversationHistoryContext(ctx, &p)
			require.NoError(t, err)
			return timestamps(h.Messages)
		}
		require.Equal(t, []string{top[4], top[3]}, get(slack.GetConversationHistoryParameters{Oldest: top[2]}))
		require.Equal(t, []string{top[4], top[3], top[2]}, get(slack.GetConversationHistoryParameters{Oldest: top[2], Inclusive: true}))
		require.Equal(t, []string{top[1], top[0]}, get(slack.GetConversationHistoryParameters{Latest: top[2]}))
		require.Equal(t, []string{top[3], top[2], top[1]}, get(slack.GetConversationHistoryParameters{Oldest: top[1], Latest: top[3], Inclusive: true}))
		require.Len(t, get(slack.GetConversationHistoryParameters{Oldest: "0"}), 5)
		_, err := api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: ch, Oldest: "yesterday"})
		require.Equal(t, "invalid_ts_oldest", slackErr(t, err))
		_, err = api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: ch, Latest: "1.x"})
		require.Equal(t, "invalid_ts_latest", slackErr(t, err))
	})

	t.Run("pages by cursor", func(t *testing.T) {
		var got []string
		cursor, pages := "", 0
		for {
			h, err := api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: ch, Limit: 2, Cursor: cursor})
			require.NoError(t, err)
			require.LessOrEqual(t, len(h.Messages), 2)
			got = append(got, timestamps(h.Messages)...)
			pages++
			require.Equal(t, h.HasMore, h.ResponseMetaData.NextCursor != "")
			if !h.HasMore {
				break
			}
			cursor = h.ResponseMetaData.NextCursor
		}
		require.Equal(t, 3, pages)
		require.Equal(t, []string{top[4], top[3], top[2], top[1], top[0]}, got, "every message once, in order")
		_, err := api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: ch, Cursor: "not-a-cursor"})
		require.Equal(t, "invalid_cursor", slackErr(t, err))
	})

	t.Run("replies: the thread oldest first", func(t *testing.T) {
		msgs, more, next, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{
			ChannelID: ch, Timestamp: top[1], IncludeAllMetadata: true})
		require.NoError(t, err)
		require.False(t, more)
		require.Empty(t, next)
		require.Len(t, msgs, 3)
		require.Equal(t, []string{top[1], reply}, timestamps(msgs[:2]))
		require.Equal(t, 2, msgs[0].ReplyCount)
		require.Equal(t, top[1], msgs[1].ThreadTimestamp)
		require.Equal(t, "in-thread", msgs[1].Metadata.EventPayload["key"])
		require.Equal(t, "U0ALICE01", msgs[2].User)
		require.Equal(t, slackfake.BotUserID, msgs[2].ParentUserId)

		// Any message of the thread names it; a message without replies is a thread of one.
		byReply, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: ch, Timestamp: reply})
		require.NoError(t, err)
		require.Equal(t, timestamps(msgs), timestamps(byReply))
		alone, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: ch, Timestamp: top[0]})
		require.NoError(t, err)
		require.Equal(t, []string{top[0]}, timestamps(alone))

		after, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: ch, Timestamp: top[1], Oldest: top[1]})
		require.NoError(t, err)
		require.Equal(t, timestamps(msgs[1:]), timestamps(after))

		first, more, next, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: ch, Timestamp: top[1], Limit: 2})
		require.NoError(t, err)
		require.True(t, more)
		rest, more, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: ch, Timestamp: top[1], Limit: 2, Cursor: next})
		require.NoError(t, err)
		require.False(t, more)
		require.Equal(t, timestamps(msgs), append(timestamps(first), timestamps(rest)...))

		_, _, _, err = api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: ch, Timestamp: "1.000001"})
		require.Equal(t, "thread_not_found", slackErr(t, err))
		_, _, _, err = api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: ch})
		require.Equal(t, "invalid_arguments", slackErr(t, err))
	})

	t.Run("refusals and faults", func(t *testing.T) {
		hist := func(api *slack.Client, channel string) error {
			_, err := api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: channel})
			return err
		}
		require.Equal(t, "channel_not_found", slackErr(t, hist(api, "C0NOPE")))
		_, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: "C0NOPE", Timestamp: top[0]})
		require.Equal(t, "channel_not_found", slackErr(t, err))
		f.AddChannel("C0PRIV0001", "priv")
		f.RemoveBot("C0PRIV0001")
		require.Equal(t, "not_in_channel", slackErr(t, hist(api, "C0PRIV0001")))
		require.Equal(t, "invalid_auth", slackErr(t, hist(client(f, "xoxb-wrong"), ch)))

		f.FailNext("conversations.history", "missing_scope")
		var se slack.SlackErrorResponse
		require.ErrorAs(t, hist(api, ch), &se)
		require.Equal(t, "missing_scope", se.Err)
		require.Equal(t, "channels:history", se.Needed)

		f.FailNextStatus("conversations.replies", http.StatusBadGateway)
		_, _, _, err = api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: ch, Timestamp: top[1]})
		var sc slack.StatusCodeError
		require.ErrorAs(t, err, &sc)
		require.Equal(t, http.StatusBadGateway, sc.Code)

		f.Down()
		require.ErrorAs(t, hist(api, ch), &sc)
		require.Equal(t, http.StatusServiceUnavailable, sc.Code)
		f.Up()

		f.RateLimitEvery(1, 2*time.Second, "conversations.history")
		var rl *slack.RateLimitedError
		require.ErrorAs(t, hist(api, ch), &rl)
		require.Equal(t, 2*time.Second, rl.RetryAfter)
		f.RateLimitEvery(0, 0)
		require.NoError(t, hist(api, ch))

		calls := f.Calls("conversations.history")
		last := calls[len(calls)-1]
		require.Equal(t, ch, last.Params.Get("channel"))
		require.Empty(t, last.Params.Get("token"), "the token is not recorded")
	})
}

func TestDropNextResponse(t *testing.T) {
	f := slackfaketest.New(t)
	ctx := context.Background()
	api := client(f, slackfake.BotToken)

	// Cut: the message is posted, the client hears nothing.
	f.DropNextResponse("chat.postMessage")
	_, _, err := api.PostMessageContext(ctx, slackfake.DefaultChannel, slack.MsgOptionText("lost answer", false))
	require.Error(t, err)
	var se slack.SlackErrorResponse
	var sc slack.StatusCodeError
	require.False(t, errors.As(err, &se) || errors.As(err, &sc), "no answer at all: %v", err)
	msgs := f.Messages(slackfake.DefaultChannel)
	require.Len(t, msgs, 1, "Slack did the work")
	require.Equal(t, "lost answer", msgs[0].Text)

	// A 5xx in place of the answer: posted all the same.
	f.DropNextResponseStatus("chat.postMessage", http.StatusInternalServerError)
	_, _, err = api.PostMessageContext(ctx, slackfake.DefaultChannel, slack.MsgOptionText("500 after the post", false))
	require.ErrorAs(t, err, &sc)
	require.Equal(t, http.StatusInternalServerError, sc.Code)
	require.Len(t, f.Messages(slackfake.DefaultChannel), 2)

	// The knob is used up: the next call answers.
	_, ts, err := api.PostMessageContext(ctx, slackfake.DefaultChannel, slack.MsgOptionText("answered", false))
	require.NoError(t, err)
	require.Equal(t, f.Messages(slackfake.DefaultChannel)[2].TS, ts)

	calls := f.Calls("chat.postMessage")
	require.Len(t, calls, 3)
	require.True(t, calls[0].Dropped)
	require.Equal(t, 0, calls[0].Status)
	require.True(t, calls[1].Dropped)
	require.Equal(t, http.StatusInternalServerError, calls[1].Status)
	require.False(t, calls[2].Dropped)
	require.Equal(t, http.StatusOK, calls[2].Status)

	// A drop waits for a call that reaches Slack's work: a failure injected before it goes first.
	f.FailNext("conversations.history", "internal_error")
	f.DropNextResponse("conversations.history")
	_, err = api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: slackfake.DefaultChannel})
	require.Equal(t, "internal_error", slackErr(t, err))
	_, err = api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: slackfake.DefaultChannel})
	require.Error(t, err)
	require.False(t, errors.As(err, &se))
	h, err := api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: slackfake.DefaultChannel})
	require.NoError(t, err)
	require.Len(t, h.Messages, 3)
}
