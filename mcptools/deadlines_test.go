package mcptools_test

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

// TestAskHumanWithDeadlines: ask_human passes remind and extend through to the server, which
// keeps them; a reminder without an expiry comes back as the server's sentence.
func TestAskHumanWithDeadlines(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
		res, _ := call(t, cs, mcptools.AskHuman, merge("wait_seconds", 0, "expires_in", "2h",
			"remind", []any{"10m", "30m"}, "extend", map[string]any{"by": "1h", "max": "2h"}))
		require.Equal(t, mcptools.StatusPending, res.Status, res.Message)
		recs := b.all(t)
		require.Len(t, recs, 1)
		require.Equal(t, []inquiry.Duration{inquiry.Duration(30 * time.Minute), inquiry.Duration(10 * time.Minute)}, recs[0].Remind)
		require.Equal(t, &inquiry.Extension{By: inquiry.Duration(time.Hour), Max: inquiry.Duration(2 * time.Hour)}, recs[0].Extend)

		res, raw := call(t, cs, mcptools.AskHuman, merge("question", "Tag it?", "remind", []any{"10m"}))
		require.True(t, raw.IsError)
		require.Equal(t, "remind", res.Field)
		require.Contains(t, res.Message, "remind needs an expiry to count back from")
	})
}
