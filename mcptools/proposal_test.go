package mcptools_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

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
