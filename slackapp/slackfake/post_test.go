package slackfake_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
)

// callForm calls a form method of the fake and decodes its answer.
func callForm(t *testing.T, f *slackfake.Server, method string, form url.Values) map[string]any {
	t.Helper()
	form.Set("token", slackfake.BotToken)
	resp, err := http.PostForm(f.URL()+method, form)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out), "%s", b)
	return out
}

// A text over 40,000 characters is not refused: Slack truncates it to 40,000, posts the message,
// and warns message_truncated (api.slack.com/changelog/2018-04-truncating-really-long-messages).
// Characters, not bytes: "é" is two bytes. Exactly 40,000 passes whole and without a warning.
func TestLongTextIsTruncated(t *testing.T) {
	f := slackfaketest.New(t)
	whole := strings.Repeat("é", 40000)
	long := whole + "and more"

	at := callForm(t, f, "chat.postMessage", url.Values{"channel": {slackfake.DefaultChannel}, "text": {whole}})
	require.Equal(t, true, at["ok"], "%v", at["error"])
	require.NotContains(t, at, "warning")
	require.NotContains(t, at, "response_metadata")

	over := callForm(t, f, "chat.postMessage", url.Values{"channel": {slackfake.DefaultChannel}, "text": {long}})
	require.Equal(t, true, over["ok"], "%v", over["error"])
	require.Equal(t, "message_truncated", over["warning"])
	md := over["response_metadata"].(map[string]any)
	require.Equal(t, []any{"message_truncated"}, md["warnings"])
	require.Equal(t, []any{"[WARN] Your message was truncated but still posted. The `text` field accepts up to 40,000 characters."}, md["messages"])
	require.Equal(t, whole, over["message"].(map[string]any)["text"], "the answer shows the message as posted")
	msgs := f.Messages(slackfake.DefaultChannel)
	require.Len(t, msgs, 2)
	require.Equal(t, whole, msgs[0].Text)
	require.Equal(t, whole, msgs[1].Text)
	require.Equal(t, 40000, utf8.RuneCountInString(msgs[1].Text))

	// chat.update and chat.postEphemeral alike.
	ts := msgs[0].TS
	up := callForm(t, f, "chat.update", url.Values{"channel": {slackfake.DefaultChannel}, "ts": {ts}, "text": {long}})
	require.Equal(t, true, up["ok"], "%v", up["error"])
	require.Equal(t, "message_truncated", up["warning"])
	require.Equal(t, whole, up["text"])
	m, _ := f.Message(slackfake.DefaultChannel, ts)
	require.Equal(t, whole, m.Text)
	require.Equal(t, 1, m.Edits)
	up = callForm(t, f, "chat.update", url.Values{"channel": {slackfake.DefaultChannel}, "ts": {ts}, "text": {"short"}})
	require.NotContains(t, up, "warning")

	eph := callForm(t, f, "chat.postEphemeral", url.Values{"channel": {slackfake.DefaultChannel}, "user": {"U1"}, "text": {long}})
	require.Equal(t, true, eph["ok"], "%v", eph["error"])
	require.Equal(t, "message_truncated", eph["warning"])
	require.Equal(t, whole, f.Ephemerals("U1")[0].Text)

	// slack-go posts it without an error (its chat methods do not call OptionOnWarning).
	_, _, msg, err := client(f, slackfake.BotToken).PostMessageWithResponseContext(context.Background(),
		slackfake.DefaultChannel, slack.MsgOptionText(long, false))
	require.NoError(t, err)
	require.Equal(t, whole, msg.Text)
}

// A thread_ts that names no message in the channel — its parent deleted, or never posted — does
// not fail the post: Slack posts the message at the top of the channel, and the answer's message
// carries no thread_ts (slack-go issue #1571: it "silently un-threads the reply into a top-level
// channel message").
func TestThreadTSWithoutParent(t *testing.T) {
	f := slackfaketest.New(t)
	f.AddChannel("C0OTHER001", "other")
	ctx := context.Background()
	api := client(f, slackfake.BotToken)

	_, parent, err := api.PostMessageContext(ctx, slackfake.DefaultChannel, slack.MsgOptionText("parent", false))
	require.NoError(t, err)
	_, reply, msg, err := api.PostMessageWithResponseContext(ctx, slackfake.DefaultChannel,
		slack.MsgOptionText("reply", false), slack.MsgOptionTS(parent))
	require.NoError(t, err)
	require.Equal(t, parent, msg.ThreadTimestamp, "with its parent there, the reply is in the thread")

	_, orphan, msg, err := api.PostMessageWithResponseContext(ctx, slackfake.DefaultChannel,
		slack.MsgOptionText("orphan", false), slack.MsgOptionTS("1700000000.000100"))
	require.NoError(t, err)
	require.Empty(t, msg.ThreadTimestamp, "the answer shows it un-threaded")
	m, ok := f.Message(slackfake.DefaultChannel, orphan)
	require.True(t, ok)
	require.Empty(t, m.ThreadTS)

	// A parent in another channel is no parent here.
	_, elsewhere, msg, err := api.PostMessageWithResponseContext(ctx, "C0OTHER001",
		slack.MsgOptionText("elsewhere", false), slack.MsgOptionTS(parent))
	require.NoError(t, err)
	require.Empty(t, msg.ThreadTimestamp)

	var top []string
	for _, m := range f.BotMessages(slackfake.DefaultChannel) {
		top = append(top, m.TS)
	}
	require.Equal(t, []string{parent, orphan}, top, "the orphan is a top-level message, the reply is not")
	require.Equal(t, elsewhere, f.BotMessages("C0OTHER001")[0].TS)
	rs, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: slackfake.DefaultChannel, Timestamp: parent})
	require.NoError(t, err)
	require.Len(t, rs, 2)
	require.Equal(t, reply, rs[1].Timestamp)
}
