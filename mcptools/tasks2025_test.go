package mcptools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

// ask_human's tasks as 2025-11-25's experimental tasks, spoken as raw JSON-RPC by a client that
// negotiated 2025-11-25 (the official TypeScript SDK's, in .ci/mcp-e2e): over /mcp, and over
// the tools `bot mcp` serves (in-memory transports, wrapped as bot mcp wraps stdio's).

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
	got := b.httpRPC(b.asker, rev2025)(t, "initialize", initialize2025)
	require.Nil(t, got["error"], "%v", got)
	caps := got["result"].(map[string]any)["capabilities"].(map[string]any)
	require.Equal(t, want, caps["tasks"])

	tools := b.httpRPC(b.asker, rev2025)(t, "tools/list", map[string]any{})["result"].(map[string]any)["tools"].([]any)
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
	eachRPC(t, rev2025, func(t *testing.T, b *bundle, asker, _ rpc) {
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
	eachRPC(t, rev2025, func(t *testing.T, b *bundle, asker, _ rpc) {
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
	eachRPC(t, rev2025, func(t *testing.T, b *bundle, asker, other rpc) {
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
	eachRPC(t, rev2025, func(t *testing.T, b *bundle, asker, _ rpc) {
		got := asker(t, "tools/call", map[string]any{"name": mcptools.AskHuman, "arguments": merge("wait_seconds", 0)})
		res := got["result"].(map[string]any)
		require.Nil(t, res["task"])
		require.Equal(t, "pending", res["structuredContent"].(map[string]any)["status"])
	})
}
