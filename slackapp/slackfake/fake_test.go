package slackfake_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
)

func client(f *slackfake.Server, token string) *slack.Client {
	return slack.New(token, slack.OptionAPIURL(f.URL()))
}

func slackErr(t *testing.T, err error) string {
	t.Helper()
	var se slack.SlackErrorResponse
	require.ErrorAs(t, err, &se)
	return se.Err
}

func button(actionID, value, label string) slack.Block {
	return slack.NewActionBlock("b1", slack.NewButtonBlockElement(actionID, value,
		slack.NewTextBlockObject(slack.PlainTextType, label, false, false)))
}

// viewOpener is the fake's app until the test ends: on each interaction it opens every one of
// views in turn with the interaction's trigger_id, and records what each call returned.
func viewOpener(t *testing.T, f *slackfake.Server, api *slack.Client, views ...slack.ModalViewRequest) *[]error {
	t.Helper()
	var opened []error
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		var ic slack.InteractionCallback
		if err := json.Unmarshal([]byte(r.PostForm.Get("payload")), &ic); err != nil {
			t.Errorf("the interaction's payload: %v", err)
			return
		}
		for _, v := range views {
			_, err := api.OpenViewContext(r.Context(), ic.TriggerID, v)
			opened = append(opened, err)
		}
	}))
	t.Cleanup(app.Close)
	f.SetAppURL(app.URL)
	return &opened
}

func TestTokens(t *testing.T) {
	f := slackfaketest.New(t)
	ctx := context.Background()
	_, err := client(f, "xoxb-wrong").AuthTestContext(ctx)
	require.Equal(t, "invalid_auth", slackErr(t, err))
	_, err = client(f, "").AuthTestContext(ctx)
	require.Equal(t, "not_authed", slackErr(t, err))
	resp, err := client(f, slackfake.BotToken).AuthTestContext(ctx)
	require.NoError(t, err)
	require.Equal(t, slackfake.BotUserID, resp.UserID)
	f.RevokeToken()
	_, _, err = client(f, slackfake.BotToken).PostMessageContext(ctx, slackfake.DefaultChannel, slack.MsgOptionText("hi", false))
	require.Equal(t, "token_revoked", slackErr(t, err))
	require.Empty(t, f.Messages(slackfake.DefaultChannel))
}

func TestPostUpdateAndLimits(t *testing.T) {
	f := slackfaketest.New(t)
	ctx := context.Background()
	api := client(f, slackfake.BotToken)

	_, ts1, err := api.PostMessageContext(ctx, slackfake.DefaultChannel, slack.MsgOptionText("one", false),
		slack.MsgOptionBlocks(button("a", "v", "Go")))
	require.NoError(t, err)
	_, ts2, err := api.PostMessageContext(ctx, slackfake.DefaultChannel, slack.MsgOptionText("two", false), slack.MsgOptionTS(ts1))
	require.NoError(t, err)
	require.Less(t, ts1, ts2, "timestamps increase")
	msgs := f.Messages(slackfake.DefaultChannel)
	require.Len(t, msgs, 2)
	require.Equal(t, ts1, msgs[1].ThreadTS)
	require.Equal(t, []string{"a"}, msgs[0].ActionIDs())

	// A button label over 75 characters is refused as Slack would.
	_, _, err = api.PostMessageContext(ctx, slackfake.DefaultChannel, slack.MsgOptionText("x", false),
		slack.MsgOptionBlocks(button("a", "v", strings.Repeat("L", 76))))
	require.Equal(t, "invalid_blocks", slackErr(t, err))
	_, _, err = api.PostMessageContext(ctx, slackfake.DefaultChannel)
	require.Equal(t, "no_text", slackErr(t, err))
	_, _, err = api.PostMessageContext(ctx, "C0NOPE", slack.MsgOptionText("x", false))
	require.Equal(t, "channel_not_found", slackErr(t, err))

	_, _, _, err = api.UpdateMessageContext(ctx, slackfake.DefaultChannel, ts1, slack.MsgOptionText("one, edited", false))
	require.NoError(t, err)
	m, ok := f.Message(slackfake.DefaultChannel, ts1)
	require.True(t, ok)
	require.Equal(t, 1, m.Edits)
	_, _, _, err = api.UpdateMessageContext(ctx, slackfake.DefaultChannel, "1.000001", slack.MsgOptionText("x", false))
	require.Equal(t, "message_not_found", slackErr(t, err))

	link, err := api.GetPermalinkContext(ctx, &slack.PermalinkParameters{Channel: slackfake.DefaultChannel, Ts: ts2})
	require.NoError(t, err)
	require.Contains(t, link, "thread_ts="+ts1)

	calls := f.Calls("chat.postMessage")
	require.Len(t, calls, 5)
	require.Empty(t, calls[0].Params.Get("token"), "the token is not recorded")
	require.JSONEq(t, string(calls[0].Blocks), string(m.Blocks))
}

func TestFailuresOnDemand(t *testing.T) {
	f := slackfaketest.New(t)
	ctx := context.Background()
	api := client(f, slackfake.BotToken)
	post := func() error {
		_, _, err := api.PostMessageContext(ctx, slackfake.DefaultChannel, slack.MsgOptionText("x", false))
		return err
	}

	f.FailNext("chat.postMessage", "not_in_channel")
	require.Equal(t, "not_in_channel", slackErr(t, post()))
	require.NoError(t, post(), "FailNext fails one call")

	f.FailNextStatus("chat.postMessage", http.StatusBadGateway)
	var sc slack.StatusCodeError
	require.ErrorAs(t, post(), &sc)
	require.Equal(t, http.StatusBadGateway, sc.Code)

	f.RateLimitEvery(2, 1500*time.Millisecond, "chat.postMessage")
	require.NoError(t, post())
	var rl *slack.RateLimitedError
	require.ErrorAs(t, post(), &rl)
	require.Equal(t, 2*time.Second, rl.RetryAfter, "Retry-After is whole seconds, rounded up")
	f.RateLimitEvery(0, 0)

	f.Down()
	require.ErrorAs(t, post(), &sc)
	require.Equal(t, http.StatusServiceUnavailable, sc.Code)
	f.Up()

	f.SetLatency(200 * time.Millisecond)
	start := time.Now()
	require.NoError(t, post())
	require.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)
	f.SetLatency(0)

	f.AddChannel("C0ARCH0001", "old")
	f.ArchiveChannel("C0ARCH0001")
	_, _, err := api.PostMessageContext(ctx, "C0ARCH0001", slack.MsgOptionText("x", false))
	require.Equal(t, "is_archived", slackErr(t, err))

	f.AddUserGroup("S0TEAM0001", "U1", "U2")
	members, err := api.GetUserGroupMembersContext(ctx, "S0TEAM0001")
	require.NoError(t, err)
	require.Equal(t, []string{"U1", "U2"}, members)
	_, err = api.GetUserGroupMembersContext(ctx, "S0NONE0001")
	require.Equal(t, "no_such_subteam", slackErr(t, err))
}

// An app that opens a modal on a click: the trigger_id works once, within three seconds.
func TestTriggerIDs(t *testing.T) {
	f := slackfaketest.New(t)
	api := client(f, slackfake.BotToken)
	modal := slack.ModalViewRequest{Type: slack.VTModal, Title: slack.NewTextBlockObject(slack.PlainTextType, "Hi", false, false),
		PrivateMetadata: "k1", CallbackID: "cb",
		Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, "hello", false, false), nil, nil)}}}
	opened := viewOpener(t, f, api, modal, modal) // the second time, with the trigger_id spent

	_, ts, err := api.PostMessageContext(context.Background(), slackfake.DefaultChannel, slack.MsgOptionText("x", false),
		slack.MsgOptionBlocks(button("open", "k1", "Open")))
	require.NoError(t, err)
	r, err := f.Click("U1", slackfake.DefaultChannel, ts, "Open")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.Status)
	require.NoError(t, (*opened)[0])
	require.Equal(t, "trigger_exchanged", slackErr(t, (*opened)[1]))
	v, ok := f.OpenView("U1")
	require.True(t, ok)
	require.Equal(t, "k1", v.PrivateMetadata)

	_, err = api.OpenViewContext(context.Background(), "12345.not.issued", modal)
	require.Equal(t, "invalid_arguments", slackErr(t, err))
}

func TestSignedRequests(t *testing.T) {
	f := slackfaketest.New(t)
	var got http.Header
	var raw []byte
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		raw, _ = io.ReadAll(r.Body)
	}))
	defer app.Close()
	f.SetAppURL(app.URL)
	_, err := f.SendInteraction([]byte(`{"type":"view_closed"}`))
	require.NoError(t, err)

	secs, err := strconv.ParseInt(got.Get("X-Slack-Request-Timestamp"), 10, 64)
	require.NoError(t, err)
	require.Equal(t, slackfake.Sign(slackfake.SigningSecret, time.Unix(secs, 0), raw), got.Get("X-Slack-Signature"))
	form, err := url.ParseQuery(string(raw))
	require.NoError(t, err)
	require.Equal(t, `{"type":"view_closed"}`, form.Get("payload"))

	_, err = f.Click("U1", "C1", "1.1", "x")
	require.ErrorContains(t, err, "no message")
}

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

// The fake answers a message whose blocks Slack would refuse as Slack does, on the wire:
// HTTP 200, {"ok":false,"error":"invalid_blocks","response_metadata":{"messages":[…]}}, and
// records nothing; chat.update and chat.postEphemeral alike.
func TestInvalidBlocksOnTheWire(t *testing.T) {
	f := slackfaketest.New(t)
	blocks := `[{"type":"sectionx","text":{"type":"mrkdwn","text":"hi"}}]`
	want := []string{"[ERROR] unsupported type: sectionx [json-pointer:/blocks/0/type]"}

	form := url.Values{"token": {slackfake.BotToken}, "channel": {slackfake.DefaultChannel}, "text": {"hi"}, "blocks": {blocks}}
	resp, err := http.PostForm(f.URL()+"chat.postMessage", form)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var got map[string]any
	require.NoError(t, json.Unmarshal(body, &got))
	require.Equal(t, map[string]any{"ok": false, "error": "invalid_blocks",
		"response_metadata": map[string]any{"messages": []any{want[0]}}}, got)
	require.Empty(t, f.Messages(slackfake.DefaultChannel))

	// Through slack-go, as the app sees it.
	ctx := context.Background()
	api := slack.New(slackfake.BotToken, slack.OptionAPIURL(f.URL()))
	var raw []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(blocks), &raw))
	unknown := slack.MsgOptionBlocks(rawBlock(raw[0]))
	_, _, err = api.PostMessageContext(ctx, slackfake.DefaultChannel, slack.MsgOptionText("hi", false), unknown)
	requireRefused(t, err, "invalid_blocks", want)

	_, ts, err := api.PostMessageContext(ctx, slackfake.DefaultChannel, slack.MsgOptionText("hi", false))
	require.NoError(t, err)
	_, _, _, err = api.UpdateMessageContext(ctx, slackfake.DefaultChannel, ts, slack.MsgOptionText("hi", false), unknown)
	requireRefused(t, err, "invalid_blocks", want)
	_, err = api.PostEphemeralContext(ctx, slackfake.DefaultChannel, "U1", slack.MsgOptionText("hi", false), unknown)
	requireRefused(t, err, "invalid_blocks", want)

	// Blocks that are not a JSON array: invalid_blocks_format.
	form.Set("blocks", `{"type":"divider"}`)
	resp, err = http.PostForm(f.URL()+"chat.postMessage", form)
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
	require.NoError(t, resp.Body.Close())
	require.Equal(t, "invalid_blocks_format", got["error"])
}

// A view Slack would refuse: invalid_arguments with the messages, pointers under /view. The same
// view with its title exactly at the limit opens (the fake does not spend a trigger_id on a
// refused view, so the second call may use it).
func TestInvalidViewOnTheWire(t *testing.T) {
	f := slackfaketest.New(t)
	api := slack.New(slackfake.BotToken, slack.OptionAPIURL(f.URL()))
	bad := slack.ModalViewRequest{Type: slack.VTModal,
		Title:  slack.NewTextBlockObject(slack.PlainTextType, strings.Repeat("T", 25), false, false),
		Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewDividerBlock()}}}
	good := bad
	good.Title = slack.NewTextBlockObject(slack.PlainTextType, strings.Repeat("T", 24), false, false)
	opened := viewOpener(t, f, api, bad, good)

	_, ts, err := api.PostMessageContext(context.Background(), slackfake.DefaultChannel, slack.MsgOptionText("x", false),
		slack.MsgOptionBlocks(button("open", "k1", "Open")))
	require.NoError(t, err)
	_, err = f.Click("U1", slackfake.DefaultChannel, ts, "Open")
	require.NoError(t, err)
	require.Len(t, *opened, 2)
	requireRefused(t, (*opened)[0], "invalid_arguments", []string{
		"[ERROR] failed to match all allowed schemas [json-pointer:/view]",
		"[ERROR] failed to match all allowed schemas [json-pointer:/view/title]",
		"[ERROR] must be less than 25 characters [json-pointer:/view/title/text]",
	})
	require.NoError(t, (*opened)[1])
	_, ok := f.OpenView("U1")
	require.True(t, ok)
}

func requireRefused(t *testing.T, err error, code string, messages []string) {
	t.Helper()
	var se slack.SlackErrorResponse
	require.ErrorAs(t, err, &se)
	require.Equal(t, code, se.Err)
	require.Equal(t, messages, se.ResponseMetadata.Messages)
}

// rawBlock sends a block exactly as written, whatever its type.
type rawBlock json.RawMessage

func (b rawBlock) BlockType() slack.MessageBlockType { return "raw" }
func (b rawBlock) ID() string                        { return "" }
func (b rawBlock) MarshalJSON() ([]byte, error)      { return b, nil }

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

// An input left as the modal opened is submitted with its initial value or selection, as Slack's
// client submits it: a preselected required radio needs no click, a prefilled text no typing.
func TestSubmitViewKeepsInitialValues(t *testing.T) {
	f := slackfaketest.New(t)
	api := client(f, slackfake.BotToken)
	got := make(chan slack.InteractionCallback, 1)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ic slack.InteractionCallback
		require.NoError(t, json.Unmarshal([]byte(r.FormValue("payload")), &ic))
		if ic.Type != slack.InteractionTypeBlockActions {
			got <- ic
			return
		}
		plain := func(s string) *slack.TextBlockObject {
			return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
		}
		no := slack.NewOptionBlockObject("no", plain("No"), nil)
		radio := slack.NewRadioButtonsBlockElement("yn", slack.NewOptionBlockObject("yes", plain("Yes"), nil), no)
		radio.InitialOption = no
		text := slack.NewPlainTextInputBlockElement(nil, "why")
		text.InitialValue = "kept as it was"
		_, err := api.OpenViewContext(r.Context(), ic.TriggerID, slack.ModalViewRequest{Type: slack.VTModal,
			Title: plain("Answer"), CallbackID: "cb", Submit: plain("Send"),
			Blocks: slack.Blocks{BlockSet: []slack.Block{
				slack.NewInputBlock("answer", plain("Answer"), nil, radio),
				slack.NewInputBlock("reason", plain("Why"), nil, text),
			}}})
		require.NoError(t, err)
	}))
	defer app.Close()
	f.SetAppURL(app.URL)
	_, err := f.Click("U1", slackfake.DefaultChannel, postButton(t, f), "Go")
	require.NoError(t, err)
	_, err = f.SubmitView("U1", "", "", "")
	require.NoError(t, err)
	ic := <-got
	require.Equal(t, "no", ic.View.State.Values["answer"]["yn"].SelectedOption.Value)
	require.Equal(t, "kept as it was", ic.View.State.Values["reason"]["why"].Value)
}

// ackTimeout is Slack's three seconds, shortened so that a slow app shows without the wait.
const ackTimeout = 150 * time.Millisecond

// slowApp answers everything Slack sends it, too late for the next `late` requests: each waits
// until Slack hung up on it (the fake's deadline), as an app that does its work before it acks,
// and then answers 200. On the last of them it gives Slack back its three seconds, so that what
// follows — Slack's retry, the next click — is judged by Slack's own clock, not the test's short
// one, however loaded the machine.
type slowApp struct {
	*httptest.Server
	late atomic.Int64
	mu   sync.Mutex
	got  []seen
}

// seen is a request the app got.
type seen struct {
	path   string
	header http.Header
}

func newSlowApp(t *testing.T, f *slackfake.Server) *slowApp {
	a := &slowApp{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // read, so that the server notices the hang-up
		a.mu.Lock()
		a.got = append(a.got, seen{path: r.URL.Path, header: r.Header.Clone()})
		a.mu.Unlock()
		if n := a.late.Add(-1); n >= 0 {
			if n == 0 {
				f.SetAckTimeout(0)
			}
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
				t.Errorf("Slack did not hang up on a late answer")
			}
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(a.Close)
	f.SetAppURL(a.URL)
	return a
}

func (a *slowApp) requests() []seen {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]seen(nil), a.got...)
}

func postButton(t *testing.T, f *slackfake.Server) string {
	t.Helper()
	_, ts, err := client(f, slackfake.BotToken).PostMessageContext(context.Background(), slackfake.DefaultChannel,
		slack.MsgOptionText("x", false), slack.MsgOptionBlocks(button("go", "v", "Go")))
	require.NoError(t, err)
	return ts
}

// A click the app acks after Slack's time failed: the person saw an error, and the click is
// kept in FailedInteractions; a click acked in time is not. A slash command likewise.
func TestSlowInteractionFails(t *testing.T) {
	f := slackfaketest.NewWith(t, slackfake.Options{AckTimeout: ackTimeout})
	require.Equal(t, ackTimeout, f.AckTimeout())
	app := newSlowApp(t, f)
	ts := postButton(t, f)

	app.late.Store(1)
	r, err := f.Click("U1", slackfake.DefaultChannel, ts, "Go")
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	require.Nil(t, r)
	failed := f.FailedInteractions()
	require.Len(t, failed, 1)
	require.Equal(t, slackfake.KindInteraction, failed[0].Kind)
	require.Equal(t, "block_actions", failed[0].Type)
	require.False(t, failed[0].Socket)
	require.Equal(t, ackTimeout, failed[0].After)
	require.Contains(t, failed[0].String(), "the person an error")

	// In time: nothing more failed.
	r, err = f.Click("U1", slackfake.DefaultChannel, ts, "Go")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.Status)
	require.Len(t, f.FailedInteractions(), 1)

	f.SetAckTimeout(ackTimeout)
	app.late.Store(1)
	_, err = f.Command("U1", slackfake.DefaultChannel, "/ask", "hello")
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	failed = f.TakeTimeouts()
	require.Len(t, failed, 2)
	require.Equal(t, slackfake.KindCommand, failed[1].Kind)
	require.Equal(t, "/ask", failed[1].Type)
	require.Empty(t, f.Timeouts(), "taken")
}

// A modal submission the app acks too late failed: Slack keeps the modal open, as it does when
// the app answers an error, and ignores the late answer.
func TestSlowViewSubmissionKeepsTheModalOpen(t *testing.T) {
	f := slackfaketest.New(t)
	api := client(f, slackfake.BotToken)
	var slow atomic.Bool
	ended := make(chan struct{})
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ic slack.InteractionCallback
		require.NoError(t, json.Unmarshal([]byte(r.FormValue("payload")), &ic))
		if ic.Type == slack.InteractionTypeBlockActions {
			_, err := api.OpenViewContext(r.Context(), ic.TriggerID, slack.ModalViewRequest{Type: slack.VTModal,
				Title: slack.NewTextBlockObject(slack.PlainTextType, "Answer", false, false), CallbackID: "cb",
				Submit: slack.NewTextBlockObject(slack.PlainTextType, "Send", false, false),
				Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewInputBlock("in",
					slack.NewTextBlockObject(slack.PlainTextType, "Text", false, false), nil,
					slack.NewPlainTextInputBlockElement(nil, "text"))}}})
			require.NoError(t, err)
			return
		}
		if slow.Load() {
			select { // it answers once Slack has hung up (or the test ends)
			case <-r.Context().Done():
			case <-ended:
			}
		}
	}))
	defer app.Close()
	defer close(ended) // before app.Close, which waits for the requests
	f.SetAppURL(app.URL)
	ts := postButton(t, f)
	_, err := f.Click("U1", slackfake.DefaultChannel, ts, "Go")
	require.NoError(t, err)

	f.SetAckTimeout(ackTimeout)
	slow.Store(true)
	_, err = f.SubmitView("U1", "", "hello")
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	_, open := f.OpenView("U1")
	require.True(t, open, "the modal stays open")
	failed := f.TakeTimeouts()
	require.Len(t, failed, 1)
	require.Equal(t, "view_submission", failed[0].Type)
	require.Contains(t, failed[0].Outcome, "kept the modal open")

	f.SetAckTimeout(0)
	slow.Store(false)
	r, err := f.SubmitView("U1", "", "hello")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.Status)
	_, open = f.OpenView("U1")
	require.False(t, open, "acked in time, the submission closes the modal")
}

// An event the app acks too late is delivered again, with X-Slack-Retry-Num: 1 and
// X-Slack-Retry-Reason: http_timeout, and the same event_id; the answer is the retry's.
func TestSlowEventIsDeliveredAgain(t *testing.T) {
	f := slackfaketest.NewWith(t, slackfake.Options{AckTimeout: ackTimeout})
	app := newSlowApp(t, f)
	app.late.Store(1)
	r, err := f.Say("U1", slackfake.DefaultChannel, "hello")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, 1, r.RetryNum, "the retry was acked")

	got := app.requests()
	require.Len(t, got, 2)
	require.Empty(t, got[0].header.Get("X-Slack-Retry-Num"))
	require.Equal(t, "1", got[1].header.Get("X-Slack-Retry-Num"))
	require.Equal(t, "http_timeout", got[1].header.Get("X-Slack-Retry-Reason"))
	for _, r := range got {
		require.Equal(t, "/slack/events", r.path)
	}

	timeouts := f.TakeTimeouts()
	require.Len(t, timeouts, 1)
	to := timeouts[0]
	require.Equal(t, slackfake.KindEvent, to.Kind)
	require.Equal(t, "message", to.Type)
	require.NotEmpty(t, to.EventID)
	require.Zero(t, to.RetryNum)
	require.Equal(t, "Slack delivered it again with X-Slack-Retry-Num: 1", to.Outcome)
	require.Empty(t, f.FailedInteractions(), "an event is no interaction: nobody saw an error")
}

// An app that never acks in time gets the event four times — the delivery and Slack's three
// retries — and then Slack gives up.
func TestEventNeverAckedInTime(t *testing.T) {
	f := slackfaketest.NewWith(t, slackfake.Options{AckTimeout: ackTimeout})
	app := newSlowApp(t, f)
	app.late.Store(100)
	_, err := f.Say("U1", slackfake.DefaultChannel, "hello")
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	got := app.requests()
	require.Len(t, got, 4)
	for i, r := range got {
		require.Equal(t, []string{"", "1", "2", "3"}[i], r.header.Get("X-Slack-Retry-Num"))
	}
	timeouts := f.TakeTimeouts()
	require.Len(t, timeouts, 4)
	for i, to := range timeouts {
		require.Equal(t, i, to.RetryNum)
		require.Equal(t, timeouts[0].EventID, to.EventID)
	}
	require.Equal(t, "Slack gave up on it after 3 retries", timeouts[3].Outcome)

	// A redelivery made by the test goes on from its own number, and stops after the third.
	app.late.Store(100)
	_, err = f.RedeliverLastEvent(2)
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	require.Len(t, app.requests(), 6)
	require.Len(t, f.TakeTimeouts(), 2)
}

// SetAckTimeout lengthens or shortens Slack's patience later; 0 restores three seconds.
func TestSetAckTimeout(t *testing.T) {
	f := slackfaketest.New(t)
	require.Equal(t, slackfake.DefaultAckTimeout, f.AckTimeout())
	require.Equal(t, 3*time.Second, slackfake.DefaultAckTimeout)
	app := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		// Kept: the scenario is an ack this late, within three seconds and past the shorter
		// timeout; a slower machine only makes it later.
		time.Sleep(2 * ackTimeout)
	}))
	defer app.Close()
	f.SetAppURL(app.URL)
	r, err := f.Say("U1", slackfake.DefaultChannel, "hello")
	require.NoError(t, err, "300 ms is within three seconds")
	require.Zero(t, r.RetryNum)

	f.SetAckTimeout(ackTimeout)
	require.Equal(t, ackTimeout, f.AckTimeout())
	_, err = f.Send("/slack/interactions", "application/x-www-form-urlencoded",
		[]byte(url.Values{"payload": {`{"type":"block_actions"}`}}.Encode()))
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	require.Equal(t, "block_actions", f.TakeTimeouts()[0].Type, "a raw Send is judged by the same clock")
	f.SetAckTimeout(0)
	require.Equal(t, slackfake.DefaultAckTimeout, f.AckTimeout())
}

// socketApp is an app connected over Socket Mode that acks each envelope at once, or, the ones
// late names, only once Slack has given up on them.
type socketApp struct {
	mu   sync.Mutex
	envs []map[string]any
}

func connectSocketApp(t *testing.T, f *slackfake.Server, late func(n int) bool) *socketApp {
	t.Helper()
	_, wsURL, err := slack.New(slackfake.BotToken, slack.OptionAPIURL(f.URL()), slack.OptionAppLevelToken(slackfake.AppToken)).
		StartSocketModeContext(context.Background())
	require.NoError(t, err)
	conn, _, err := websocket.DefaultDialer.Dial(wsURL, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	var hello map[string]any
	require.NoError(t, conn.ReadJSON(&hello))
	require.Equal(t, "hello", hello["type"])
	a := &socketApp{}
	var wmu sync.Mutex
	go func() {
		for n := 0; ; n++ {
			var env map[string]any
			if err := conn.ReadJSON(&env); err != nil {
				return
			}
			a.mu.Lock()
			a.envs = append(a.envs, env)
			a.mu.Unlock()
			gaveUp := len(f.Timeouts()) + 1 // Slack's count of timeouts once it gives up on this one
			go func() {
				if late(n) {
					timedOut(f, gaveUp)
				}
				wmu.Lock()
				defer wmu.Unlock()
				_ = conn.WriteJSON(map[string]any{"envelope_id": env["envelope_id"]})
			}()
		}
	}()
	require.NoError(t, f.WaitSocket(5*time.Second))
	return a
}

// timedOut returns once f has recorded n timeouts, or after ten seconds: then the test fails
// on what Slack did.
func timedOut(f *slackfake.Server, n int) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); len(f.Timeouts()) < n && time.Now().Before(deadline); {
		<-tick.C
	}
}

func (a *socketApp) envelopes() []map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]map[string]any(nil), a.envs...)
}

// Over Socket Mode the clock is the same: an interaction acked late failed, an event acked late
// comes again in an envelope with retry_attempt 1 and retry_reason "timeout".
func TestSlowSocketModeAck(t *testing.T) {
	f := slackfaketest.NewWith(t, slackfake.Options{AckTimeout: ackTimeout})
	ts := postButton(t, f)
	require.ErrorContains(t, f.WaitSocket(10*time.Millisecond), "no Socket Mode connection within 10ms")
	// Envelopes 0 (the click) and 1 (the event's first delivery) are acked late, the rest at
	// once, and by Slack's own clock (as slowApp does).
	app := connectSocketApp(t, f, func(n int) bool {
		if n == 1 {
			f.SetAckTimeout(0)
		}
		return n <= 1
	})

	_, err := f.Click("U1", slackfake.DefaultChannel, ts, "Go")
	require.ErrorIs(t, err, slackfake.ErrNotAcked)
	failed := f.FailedInteractions()
	require.Len(t, failed, 1)
	require.True(t, failed[0].Socket)
	require.Equal(t, "block_actions", failed[0].Type)

	r, err := f.Say("U1", slackfake.DefaultChannel, "hello")
	require.NoError(t, err)
	require.Equal(t, 1, r.RetryNum)
	envs := app.envelopes()
	require.Len(t, envs, 3)
	require.Equal(t, "events_api", envs[1]["type"])
	require.Equal(t, float64(0), envs[1]["retry_attempt"])
	require.Equal(t, float64(1), envs[2]["retry_attempt"])
	require.Equal(t, "timeout", envs[2]["retry_reason"])
	require.Equal(t, envs[1]["payload"], envs[2]["payload"], "the same event, event_id and all")
	require.NotEqual(t, envs[1]["envelope_id"], envs[2]["envelope_id"])

	timeouts := f.TakeTimeouts()
	require.Len(t, timeouts, 2)
	require.Equal(t, slackfake.KindEvent, timeouts[1].Kind)
	require.True(t, strings.HasPrefix(timeouts[1].Outcome, "Slack delivered it again with retry_attempt 1"))
}
