package slackfake_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
)

func homeView(blocks ...slack.Block) slack.HomeTabViewRequest {
	return slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: blocks}}
}

// views.publish as slack-go sends it (PublishViewContext: JSON, the bot token as a bearer): the
// Home tab is judged by the Block Kit checker as a view of type home, recorded per person with a
// stable id and a new hash each time, and a stale hash is refused.
func TestPublishView(t *testing.T) {
	f := slackfaketest.New(t)
	api := slack.New(slackfake.BotToken, slack.OptionAPIURL(f.URL()))
	ctx := context.Background()
	publish := func(user string, v slack.HomeTabViewRequest, hash string) (*slack.ViewResponse, error) {
		req := slack.PublishViewContextRequest{UserID: user, View: v}
		if hash != "" {
			req.Hash = &hash
		}
		return api.PublishViewContext(ctx, req)
	}

	first, err := publish("U1", homeView(button("inq:choose:0", "merge", "Merge")), "")
	require.NoError(t, err)
	require.Equal(t, slack.VTHomeTab, first.View.Type)
	h, ok := f.HomeOf("U1")
	require.True(t, ok)
	require.Equal(t, first.View.ID, h.ID)
	require.Equal(t, []string{"inq:choose:0"}, h.ActionIDs())
	calls := f.Calls("views.publish")
	require.Len(t, calls, 1)
	var wire map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(calls[0].JSON, &wire))
	require.JSONEq(t, `"U1"`, string(wire["user_id"]), "slack-go's request shape: user_id beside view")

	second, err := publish("U1", homeView(slack.NewDividerBlock()), first.View.Hash)
	require.NoError(t, err)
	require.Equal(t, first.View.ID, second.View.ID, "one Home tab per person")
	require.NotEqual(t, first.View.Hash, second.View.Hash)
	_, err = publish("U1", homeView(slack.NewDividerBlock()), first.View.Hash)
	require.Equal(t, "hash_conflict", slackErr(t, err))
	require.Len(t, f.Homes("U1"), 2, "the refused publish is not recorded")

	// A modal is no Home tab; 101 blocks are one too many; an input needs no submit in a Home tab.
	modal := slack.HomeTabViewRequest{Type: slack.VTModal, Blocks: slack.Blocks{BlockSet: []slack.Block{slack.NewDividerBlock()}}}
	_, err = publish("U1", modal, "")
	requireRefused(t, err, "invalid_arguments", []string{
		"[ERROR] failed to match all allowed schemas [json-pointer:/view]",
		"[ERROR] unsupported type: modal [json-pointer:/view/type]",
	})
	var many []slack.Block
	for range 101 {
		many = append(many, slack.NewDividerBlock())
	}
	_, err = publish("U1", homeView(many...), "")
	require.Equal(t, "invalid_arguments", slackErr(t, err))
	input := slack.NewInputBlock("in", slack.NewTextBlockObject(slack.PlainTextType, "Pick", false, false), nil,
		slack.NewCheckboxGroupsBlockElement("inq:pick", slack.NewOptionBlockObject("a", slack.NewTextBlockObject(slack.PlainTextType, "A", false, false), nil)))
	_, err = publish("U2", homeView(input), "")
	require.NoError(t, err)

	_, err = publish("", homeView(slack.NewDividerBlock()), "")
	require.Error(t, err, "slack-go refuses an empty user_id itself")
	_, err = publish("C1", homeView(slack.NewDividerBlock()), "")
	require.Equal(t, "user_not_found", slackErr(t, err))
	require.True(t, strings.HasPrefix(f.Homes("")[0].User, "U"))
}
