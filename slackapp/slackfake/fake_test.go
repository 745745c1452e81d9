package slackfake_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

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
