package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Forwarding answer_here. `bot mcp` reaches the bot through the HTTP API, which records no answer
// of an MCP client's own user: that is the server's /mcp endpoint's, in process. So `bot mcp`
// forwards an answer_here call there as an MCP client of its own, on 2026-07-28 and with the
// elicitation modes its own client declared, and hands the input requests back and forth: its
// client fills the form (directly on 2026-07-28, by elicitation/create before, which the SDK
// sends), and /mcp records the answer via mcp as the token's.

// forwardHere forwards the answer_here call req (whose arguments are args) to the server's /mcp
// and returns what it answers: the input requests to pass on, or the result.
func (t *tools) forwardHere(ctx context.Context, req *mcp.CallToolRequest, args json.RawMessage) (*mcp.CallToolResult, Result, error) {
	caps := req.ClientCapabilities()
	c := mcp.NewClient(&mcp.Implementation{Name: "inquiry-bot-mcp", Version: t.version()}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: caps.Elicitation},
		// The input requests go to the client that called this tool, not to a handler here.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   t.opts.HereEndpoint,
		HTTPClient: &http.Client{Transport: bearerTransport{token: t.opts.HereToken}},
		MaxRetries: -1,
	}, nil)
	if err != nil {
		return t.finish(ctx, AskHuman, Result{Status: StatusError,
			Message: fmt.Sprintf("answer_here goes through the bot's MCP endpoint %s, which could not be reached (%v): check that BOT_URL names a running bot serve, or ask without answer_here.", t.opts.HereEndpoint, err)})
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: AskHuman, Arguments: args}
	if req.Params != nil {
		params.InputResponses, params.RequestState = req.Params.InputResponses, req.Params.RequestState
	}
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		return t.finish(ctx, AskHuman, t.failure(err, ""))
	}
	if res.NeedsInput() {
		legacy := req.ProtocolVersion() < protocol2026
		for _, ir := range res.InputRequests {
			if p, ok := ir.(*mcp.ElicitParams); ok && p.Mode == modeURL && legacy && p.ElicitationID == "" {
				p.ElicitationID = res.RequestState // a client before 2026-07-28 needs one: the key
			}
		}
		return &mcp.CallToolResult{InputRequests: res.InputRequests, RequestState: res.RequestState}, Result{}, nil
	}
	var out Result
	raw, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(raw, &out)
	}
	if err != nil || out.Status == "" {
		return t.finish(ctx, AskHuman, Result{Status: StatusError,
			Message: "the bot's MCP endpoint answered answer_here without a result this server reads: check that bot serve and bot mcp are the same version, or ask without answer_here."})
	}
	return t.finish(ctx, AskHuman, out)
}

func (t *tools) version() string {
	if t.opts.Version == "" {
		return "dev"
	}
	return t.opts.Version
}

// bearerTransport authenticates every request with token.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
