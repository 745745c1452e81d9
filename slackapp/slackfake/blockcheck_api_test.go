package slackfake_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
)

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
