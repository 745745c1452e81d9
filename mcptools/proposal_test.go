package mcptools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

// TestAskHumanWithProposal: ask_human passes a proposal through to the server, which keeps it
// whole; a proposal the server refuses comes back as its sentence, on the field.
func TestAskHumanWithProposal(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
		diff := "--- a/app.yaml\n+++ b/app.yaml\n@@ -1 +1 @@\n-replicas: 2\n+replicas: 3\n"
		res, _ := call(t, cs, mcptools.AskHuman, map[string]any{"question": "Apply this change?", "kind": "confirm", "wait_seconds": 0,
			"proposal": map[string]any{"format": "diff", "content": diff, "title": "app.yaml", "editable": true}})
		require.Equal(t, mcptools.StatusPending, res.Status, res.Message)
		recs := b.all(t)
		require.Len(t, recs, 1)
		require.Equal(t, &inquiry.Proposal{Format: inquiry.FormatDiff, Content: diff, Title: "app.yaml", Editable: true}, recs[0].Proposal)

		res, raw := call(t, cs, mcptools.AskHuman, map[string]any{"question": "Send this?", "kind": "confirm", "wait_seconds": 0,
			"proposal": map[string]any{"format": "json", "content": `{"to": "ops@example.com",}`}})
		require.True(t, raw.IsError)
		require.Equal(t, string(inquiry.CodeInvalidInquiry), res.Code)
		require.Equal(t, "proposal.content", res.Field)
		require.Contains(t, res.Message, "proposal.content is not JSON")
		require.Len(t, b.all(t), 1, "the refused proposal was not stored")
	})
}

// TestGetAnswerEditedProposal: the approved version of an editable proposal comes back to the
// model whole, as content with edited, and as a text block after the message; an approval
// without an edit says nothing of one.
func TestGetAnswerEditedProposal(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
		proposed := strings.Repeat("-replicas: 2\n", 1000)
		res, _ := call(t, cs, mcptools.AskHuman, map[string]any{"question": "Apply this change?", "kind": "confirm", "wait_seconds": 0, "id": "edit-1",
			"proposal": map[string]any{"format": "text", "content": proposed, "editable": true}})
		require.Equal(t, mcptools.StatusPending, res.Status, res.Message)
		edited := strings.Repeat("+replicas: 3\n", 20000) // 260,000 bytes: past any context, within 256 KiB
		_, err := b.api(b.answerer).Answer(context.Background(), res.Key, client.Reply{Value: inquiry.One("yes"), Content: edited})
		require.NoError(t, err)

		got, raw := call(t, cs, mcptools.GetAnswer, map[string]any{"key": res.Key, "wait_seconds": 0})
		require.Equal(t, mcptools.StatusAnswered, got.Status, got.Message)
		require.True(t, got.Edited)
		require.Equal(t, edited, got.Content, "the edit comes back whole")
		require.Contains(t, got.Message, "They approved an edited version of the proposal, given whole in the next content block (and as content): act on it, not on what you proposed.")
		require.Equal(t, edited, raw.Content[1].(*mcp.TextContent).Text)

		res, _ = call(t, cs, mcptools.AskHuman, map[string]any{"question": "Apply this change?", "kind": "confirm", "wait_seconds": 0, "id": "edit-2",
			"proposal": map[string]any{"format": "text", "content": proposed, "editable": true}})
		_, err = b.api(b.answerer).Answer(context.Background(), res.Key, client.Reply{Value: inquiry.One("yes"), Content: proposed})
		require.NoError(t, err)
		got, raw = call(t, cs, mcptools.GetAnswer, map[string]any{"key": res.Key, "wait_seconds": 0})
		require.False(t, got.Edited)
		require.Equal(t, proposed, got.Content)
		require.NotContains(t, got.Message, "edited")
		require.Len(t, raw.Content, 1)
	})
}
