package mcptools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

// confirmWith is a confirm question with a proposal, asked of the client's own user.
func confirmWith(proposal map[string]any) map[string]any {
	return map[string]any{"question": "Apply this change?", "kind": "confirm", "proposal": proposal, "answer_here": true}
}

// TestAnswerHereShowsAProposalReadOnly: a proposal that is not editable is shown whole in the
// client's form, below the question, and approved there as any confirm.
func TestAnswerHereShowsAProposalReadOnly(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := &elicitor{reply: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": true}}}
	cs := b.formSession(b.asker, e)
	doc := strings.Repeat("+replicas: 3\n", 500)
	res, _ := call(t, cs, mcptools.AskHuman, confirmWith(map[string]any{"format": "diff", "content": doc, "title": "app.yaml"}))
	require.Equal(t, mcptools.StatusAnswered, res.Status, res.Message)
	require.Equal(t, []string{"yes"}, res.Values)
	shown := e.shown(t)
	require.Len(t, shown, 1)
	require.Equal(t, "Apply this change?\n\nWhat you approve: app.yaml\n\n"+strings.TrimSpace(doc), shown[0].Message, "the proposal whole, read-only")
}

// TestAnswerHereRefusesAnEditableProposalInAForm: a form cannot edit a document, so an editable
// proposal is refused on a client that shows only forms, before anything is asked; a client
// that also opens pages is sent to the answer page, where the edit is made and comes back.
func TestAnswerHereRefusesAnEditableProposalInAForm(t *testing.T) {
	t.Parallel()
	b := setup(t)
	editable := map[string]any{"format": "text", "content": "replicas: 2\n", "editable": true}

	e := &elicitor{reply: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": true}}}
	res, out := call(t, b.formSession(b.asker, e), mcptools.AskHuman, confirmWith(editable))
	require.True(t, out.IsError)
	require.Equal(t, "answer_here", res.Field)
	require.Equal(t, "answer_here would ask in this client's form, which cannot edit a document, and this proposal is editable: drop answer_here to have people edit it in Slack or on the web, or drop editable to have it approved as it stands.", res.Message)
	require.Empty(t, e.shown(t))
	require.Empty(t, b.all(t), "nothing was asked")

	var mode string
	c := mcp.NewClient(&mcp.Implementation{Name: "form-and-page-client", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mode = req.Params.Mode
			token := strings.TrimPrefix(req.Params.URL, "https://bot.example.com"+inquiry.LinkPath)
			if _, err := b.svc.AnswerByLink(context.Background(), token, inquiry.Reply{Value: inquiry.One("yes"), Content: "replicas: 3\n"}); err != nil {
				t.Errorf("editing on the page: %v", err) // on the client's goroutine: no FailNow
			}
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	res, _ = call(t, b.connectWith(c, b.httpTransport(b.asker)), mcptools.AskHuman, confirmWith(editable))
	require.Equal(t, "url", mode, "sent to the page, where the proposal can be edited")
	require.Equal(t, mcptools.StatusAnswered, res.Status, res.Message)
	require.True(t, res.Edited)
	require.Equal(t, "replicas: 3\n", res.Content)
}
