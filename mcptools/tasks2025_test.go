package mcptools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

// ask_human's tasks as 2025-11-25's experimental tasks, spoken as raw JSON-RPC by a client that
// negotiated 2025-11-25 (the official TypeScript SDK's, in .ci/mcp-e2e): over /mcp, and over
// the tools `bot mcp` serves (in-memory transports, wrapped as bot mcp wraps stdio's).

// initialize2025 is an initialize request of a 2025-11-25 client without capabilities.
var initialize2025 = map[string]any{
	"protocolVersion": "2025-11-25",
	"capabilities":    map[string]any{},
	"clientInfo":      map[string]any{"name": "legacy-agent", "version": "1"},
}

// http2025 posts to /mcp as a client that negotiated 2025-11-25 (stateless: each POST alone).
func (b *bundle) http2025(token string) rpc {
	return func(t *testing.T, method string, params map[string]any) map[string]any {
		t.Helper()
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rpcID.Add(1), "method": method, "params": params})
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodPost, b.url+"/mcp", bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if method != "initialize" {
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			for line := range strings.SplitSeq(string(raw), "\n") {
				if data, ok := strings.CutPrefix(line, "data: "); ok {
					raw = []byte(data)
					break
				}
			}
		}
		var out map[string]any
		require.NoError(t, json.Unmarshal(raw, &out), "%s", raw)
		return out
	}
}

// stdio2025 is a session of a 2025-11-25 client with the tools `bot mcp` serves with token.
func (b *bundle) stdio2025(token, secret string) rpc {
	b.t.Helper()
	ctx := context.Background()
	opts := b.opts
	opts.TaskSecret = []byte(secret)
	srv := mcptools.NewServer(b.api(token), opts)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, mcptools.TaskParams(st), nil)
	require.NoError(b.t, err)
	b.t.Cleanup(func() { ss.Close() })
	conn, err := ct.Connect(ctx)
	require.NoError(b.t, err)
	b.t.Cleanup(func() { conn.Close() })
	send := func(t *testing.T, method string, params map[string]any) map[string]any {
		t.Helper()
		raw, err := json.Marshal(params)
		require.NoError(t, err)
		id, err := jsonrpc.MakeID(float64(rpcID.Add(1)))
		require.NoError(t, err)
		require.NoError(t, conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: raw}))
		msg, err := conn.Read(ctx)
		require.NoError(t, err)
		wire, err := jsonrpc.EncodeMessage(msg)
		require.NoError(t, err)
		var out map[string]any
		require.NoError(t, json.Unmarshal(wire, &out))
		return out
	}
	got := send(b.t, "initialize", initialize2025)
	require.Nil(b.t, got["error"], "%v", got)
	require.NoError(b.t, conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}))
	return send
}

// each2025 runs fn over /mcp and over bot mcp's tools, each with a server of its own.
func each2025(t *testing.T, fn func(t *testing.T, b *bundle, asker, other rpc)) {
	for _, be := range []struct {
		name string
		open func(b *bundle) (rpc, rpc)
	}{
		{"http", func(b *bundle) (rpc, rpc) { return b.http2025(b.asker), b.http2025(b.otherAsker) }},
		{"stdio", func(b *bundle) (rpc, rpc) {
			return b.stdio2025(b.asker, "secret-of-"+b.asker), b.stdio2025(b.otherAsker, "secret-of-"+b.otherAsker)
		}},
	} {
		t.Run(be.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			asker, other := be.open(b)
			fn(t, b, asker, other)
		})
	}
}

// call2025Task calls ask_human with args and the specification's task param, and returns the
// task it must create.
func call2025Task(t *testing.T, send rpc, args map[string]any) map[string]any {
	t.Helper()
	req := shape(t, "2025-11-25-tasks.tools-call.request.json")
	params := req["params"].(map[string]any)
	params["name"], params["arguments"] = mcptools.AskHuman, args
	got := send(t, "tools/call", params)
	require.Nil(t, got["error"], "%v", got)
	res := got["result"].(map[string]any)
	want := shape(t, "2025-11-25-tasks.create-task.result.json")["result"].(map[string]any)
	require.Equal(t, keysOf(want), keysOf(withoutMeta(res)), "{task: Task}: %v", res)
	task := res["task"].(map[string]any)
	require.Equal(t, keysOf(want["task"].(map[string]any)), keysOf(task), "%v", task)
	return task
}

// task2025 sends method (tasks/get, tasks/result, tasks/cancel) for id, as the specification's
// requests do, and returns the response.
func task2025(t *testing.T, send rpc, method, id string) map[string]any {
	t.Helper()
	req := shape(t, "2025-11-25-tasks.get.request.json")
	params := req["params"].(map[string]any)
	params["taskId"] = id
	return send(t, method, params)
}

func TestLegacyTasksDeclared(t *testing.T) {
	t.Parallel()
	b := setup(t)
	want := shape(t, "2025-11-25-tasks.server-capabilities.json")["capabilities"].(map[string]any)["tasks"].(map[string]any)
	delete(want, "list") // no tasks/list: a task is found by the id ask_human returned
	got := b.http2025(b.asker)(t, "initialize", initialize2025)
	require.Nil(t, got["error"], "%v", got)
	caps := got["result"].(map[string]any)["capabilities"].(map[string]any)
	require.Equal(t, want, caps["tasks"])

	tools := b.http2025(b.asker)(t, "tools/list", map[string]any{})["result"].(map[string]any)["tools"].([]any)
	support := map[string]any{}
	for _, tl := range tools {
		tm := tl.(map[string]any)
		support[tm["name"].(string)] = tm["execution"]
	}
	require.Equal(t, map[string]any{"taskSupport": "optional"}, support[mcptools.AskHuman])
	require.Nil(t, support[mcptools.GetAnswer], "only ask_human waits for a person")
}

func TestLegacyTaskWorkingThenResult(t *testing.T) {
	t.Parallel()
	each2025(t, func(t *testing.T, b *bundle, asker, _ rpc) {
		task := call2025Task(t, asker, merge("expires_in", "2h"))
		require.Equal(t, "working", task["status"])
		require.Nil(t, task["ttl"])
		require.Equal(t, float64(5000), task["pollInterval"])
		id := task["taskId"].(string)

		got := task2025(t, asker, "tasks/get", id)
		res := got["result"].(map[string]any)
		want := shape(t, "2025-11-25-tasks.get.result.json")["result"].(map[string]any)
		require.Equal(t, keysOf(want), keysOf(withoutMeta(res)), "flat: %v", res)
		require.Equal(t, "working", res["status"])
		require.Contains(t, res["statusMessage"], "Nobody has answered yet.")

		key, _, _ := strings.Cut(id, ".")
		_, err := b.api(b.answerer).Answer(context.Background(), key, client.Reply{Value: inquiry.One("merge")})
		require.NoError(t, err)
		require.Equal(t, "completed", task2025(t, asker, "tasks/get", id)["result"].(map[string]any)["status"])

		got = task2025(t, asker, "tasks/result", id)
		require.Nil(t, got["error"], "%v", got)
		result := got["result"].(map[string]any)
		wantResult := shape(t, "2025-11-25-tasks.result.result.json")["result"].(map[string]any)
		require.Equal(t, wantResult["_meta"], map[string]any{"io.modelcontextprotocol/related-task": map[string]any{"taskId": "786512e2-9e0d-44bd-8f29-789f320fe840"}})
		require.Equal(t, map[string]any{"taskId": id}, result["_meta"].(map[string]any)["io.modelcontextprotocol/related-task"])
		sc := result["structuredContent"].(map[string]any)
		require.Equal(t, "answered", sc["status"])
		require.Equal(t, "merge", sc["answer"])
		require.Equal(t, "Merge — answered by alice.", result["content"].([]any)[0].(map[string]any)["text"])
	})
}

func TestLegacyTaskResultWaitsForTheAnswer(t *testing.T) {
	t.Parallel()
	each2025(t, func(t *testing.T, b *bundle, asker, _ rpc) {
		id := call2025Task(t, asker, merge())["taskId"].(string)
		key, _, _ := strings.Cut(id, ".")
		done := make(chan map[string]any, 1)
		go func() { done <- task2025(t, asker, "tasks/result", id) }()
		require.NoError(t, b.awaitWaiters(1), "tasks/result waits for the answer")
		_, err := b.api(b.answerer).Answer(context.Background(), key, client.Reply{Value: inquiry.One("hold")})
		require.NoError(t, err)
		got := <-done
		sc := got["result"].(map[string]any)["structuredContent"].(map[string]any)
		require.Equal(t, "hold", sc["answer"])
	})
}

func TestLegacyTaskCancelAndRefusals(t *testing.T) {
	t.Parallel()
	each2025(t, func(t *testing.T, b *bundle, asker, other rpc) {
		id := call2025Task(t, asker, merge())["taskId"].(string)

		// Another namespace's caller, a forged id, and tasks/update (the 2026 extension's).
		code, _, _ := rpcError(t, task2025(t, other, "tasks/get", id))
		require.Equal(t, float64(jsonrpc.CodeInvalidParams), code)
		code, _, _ = rpcError(t, task2025(t, other, "tasks/cancel", id))
		require.Equal(t, float64(jsonrpc.CodeInvalidParams), code)
		code, msg, _ := rpcError(t, task2025(t, asker, "tasks/get", id+"x"))
		require.Equal(t, float64(jsonrpc.CodeInvalidParams), code)
		require.Contains(t, msg, "pass the taskId")
		code, _, _ = rpcError(t, task2025(t, asker, "tasks/update", id))
		require.Equal(t, float64(jsonrpc.CodeMethodNotFound), code)

		got := task2025(t, asker, "tasks/cancel", id)
		require.Nil(t, got["error"], "%v", got)
		res := got["result"].(map[string]any)
		want := shape(t, "2025-11-25-tasks.cancel.result.json")["result"].(map[string]any)
		require.Equal(t, keysOf(want), keysOf(withoutMeta(res)))
		require.Equal(t, "cancelled", res["status"])
		require.Equal(t, "cancelled", task2025(t, asker, "tasks/get", id)["result"].(map[string]any)["status"], "terminal: it stays cancelled")

		// Cancelling a task that ended is refused, in a sentence.
		code, msg, _ = rpcError(t, task2025(t, asker, "tasks/cancel", id))
		require.Equal(t, float64(jsonrpc.CodeInvalidParams), code)
		require.Contains(t, msg, "cannot be cancelled")
	})
}

func TestLegacyToolsCallWithoutTaskWaits(t *testing.T) {
	t.Parallel()
	each2025(t, func(t *testing.T, b *bundle, asker, _ rpc) {
		got := asker(t, "tools/call", map[string]any{"name": mcptools.AskHuman, "arguments": merge("wait_seconds", 0)})
		res := got["result"].(map[string]any)
		require.Nil(t, res["task"])
		require.Equal(t, "pending", res["structuredContent"].(map[string]any)["status"])
	})
}
