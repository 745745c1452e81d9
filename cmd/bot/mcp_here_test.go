package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/inquiry-bot/bot/mcptools"
)

// TestMCPAnswerHereOverStdio runs the real `bot mcp` with a harness whose user answers forms:
// on 2026-07-28 (input requests) and on 2025-11-25 (elicitation/create), ask_human with
// answer_here is answered by that user and recorded via mcp as the token's; a decline is a
// decline.
func TestMCPAnswerHereOverStdio(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, c := range []struct {
		version, action string
		want            mcptools.Status
	}{
		{"2026-07-28", "accept", mcptools.StatusAnswered},
		{"2025-11-25", "accept", mcptools.StatusAnswered},
		{"2025-06-18", "decline", mcptools.StatusDeclined},
	} {
		t.Run(c.version+" "+c.action, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var shown int
			cl := mcp.NewClient(&mcp.Implementation{Name: "test-harness", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					shown++
					if c.action != "accept" {
						return &mcp.ElicitResult{Action: c.action}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": true}}, nil
				},
			})
			cs, _, stderr := b.mcpOverStdio(ctx, t, cl, &mcp.ClientSessionOptions{ProtocolVersion: c.version})
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != c.version {
				t.Fatalf("negotiated %s, not %s", got, c.version)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcptools.AskHuman, Arguments: map[string]any{
				"question": "Roll back " + c.version + "?", "kind": "confirm", "default": "no", "answer_here": true}})
			if err != nil {
				t.Fatalf("ask_human: %v\nstderr:\n%s", err, stderr.String())
			}
			raw, _ := json.Marshal(res.StructuredContent)
			var out mcptools.Result
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatalf("structured content %s: %v", raw, err)
			}
			if out.Status != c.want || out.Via != "mcp" || out.AnsweredBy != "asker" || shown != 1 {
				t.Fatalf("ask_human: %+v (forms shown: %d)\nstderr:\n%s", out, shown, stderr.String())
			}
			if c.want == mcptools.StatusAnswered && out.Answer != "yes" {
				t.Fatalf("answer %q, want yes", out.Answer)
			}
		})
	}
}
