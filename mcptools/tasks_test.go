package mcptools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

// ask_human's tasks (the io.modelcontextprotocol/tasks extension), spoken as raw JSON-RPC: the
// Go SDK has no client for them. Each test runs against the server's /mcp (streamable HTTP)
// and against the tools `bot mcp` serves on stdio (here over in-memory transports).

// extCaps are client capabilities declaring the tasks extension, as the SEP's example does.
func extCaps(t *testing.T) map[string]any {
	req := shape(t, "2026-ext-tasks.tools-call.request.json")
	meta := req["params"].(map[string]any)["_meta"].(map[string]any)
	return meta["io.modelcontextprotocol/clientCapabilities"].(map[string]any)
}

// withMeta adds the 2026-07-28 _meta to params: the protocol version and caps (nil: none).
func withMeta(params map[string]any, caps map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range params {
		out[k] = v
	}
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion": rev2026,
		"io.modelcontextprotocol/clientInfo":      map[string]any{"name": "raw-agent", "version": "1"},
	}
	if caps != nil {
		meta["io.modelcontextprotocol/clientCapabilities"] = caps
	} else {
		meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
	}
	out["_meta"] = meta
	return out
}

// callTask calls ask_human with args as a client declaring the extension and returns the
// result, which must be a task.
func callTask(t *testing.T, send rpc, args map[string]any) map[string]any {
	t.Helper()
	got := send(t, "tools/call", withMeta(map[string]any{"name": mcptools.AskHuman, "arguments": args}, extCaps(t)))
	require.Nil(t, got["error"], "%v", got)
	res := got["result"].(map[string]any)
	require.Equal(t, "task", res["resultType"], "%v", res)
	return res
}

// getTask is tasks/get of id, which must succeed.
func getTask(t *testing.T, send rpc, id string) map[string]any {
	t.Helper()
	req := shape(t, "2026-ext-tasks.get.request.json") // the SEP's, with this task's id
	params := req["params"].(map[string]any)
	params["taskId"] = id
	got := send(t, req["method"].(string), withMeta(params, extCaps(t)))
	require.Nil(t, got["error"], "%v", got)
	return got["result"].(map[string]any)
}

// rpcError is the error of a response, which must have one.
func rpcError(t *testing.T, got map[string]any) (code float64, message string, data any) {
	t.Helper()
	e, ok := got["error"].(map[string]any)
	require.True(t, ok, "an error, not %v", got)
	return e["code"].(float64), e["message"].(string), e["data"]
}

func TestTaskWorkingThenCompletedWithTheBlockingResult(t *testing.T) {
	t.Parallel()
	eachRPC(t, rev2026, func(t *testing.T, b *bundle, asker, _ rpc) {
		start := time.Now()
		created := callTask(t, asker, merge("expires_in", "2h"))
		require.Less(t, time.Since(start), 10*time.Second, "a task returns at once, not after a wait")

		// The shape of the SEP's CreateTaskResult: flat, with the same fields.
		// (and statusMessage, which the SEP's Task has as optional).
		want := shape(t, "2026-ext-tasks.create-task.result.json")["result"].(map[string]any)
		want["statusMessage"] = ""
		require.Equal(t, keysOf(want), keysOf(withoutMeta(created)), "%v", created)
		require.Equal(t, "working", created["status"])
		require.Nil(t, created["ttlMs"], "kept as long as the inquiry")
		require.Equal(t, float64(5000), created["pollIntervalMs"])
		id := created["taskId"].(string)
		key, mac, ok := strings.Cut(id, ".")
		require.True(t, ok && strings.HasPrefix(key, "inq_") && len(mac) >= 26, "the key and a MAC: %q", id)

		// Stored before the task was returned: tasks/get resolves it at once.
		list, err := b.api(b.answerer).List(context.Background(), client.ListOptions{Status: inquiry.StatusPending})
		require.NoError(t, err)
		require.Len(t, list.Inquiries, 1)
		require.Equal(t, key, list.Inquiries[0].Key)

		working := getTask(t, asker, id)
		require.Equal(t, "complete", working["resultType"])
		require.Equal(t, "working", working["status"])
		require.Equal(t, id, working["taskId"])
		require.Nil(t, working["result"])
		msg := working["statusMessage"].(string)
		require.Contains(t, msg, "Nobody has answered yet.")
		require.Contains(t, msg, "if nobody answers by then, the default hold is assumed")

		// The person answers; the task completes with what the blocking call returns.
		_, err = b.api(b.answerer).Answer(context.Background(), key, client.Reply{Value: inquiry.One("merge")})
		require.NoError(t, err)
		done := getTask(t, asker, id)
		wantDone := shape(t, "2026-ext-tasks.get.completed.result.json")["result"].(map[string]any)
		wantDone["statusMessage"] = ""
		require.Equal(t, keysOf(wantDone), keysOf(withoutMeta(done)), "%v", done)
		require.Equal(t, "completed", done["status"])
		result := done["result"].(map[string]any)
		sc := result["structuredContent"].(map[string]any)
		require.Equal(t, "answered", sc["status"])
		require.Equal(t, "merge", sc["answer"])
		require.Equal(t, "alice", sc["answered_by"])

		// ask_human again, blocking (a client without tasks), finds the same inquiry answered:
		// its result is the task's, field for field.
		blocking, raw := call(t, b.httpSession(b.asker), mcptools.AskHuman, merge("expires_in", "2h"))
		require.Equal(t, mcptools.StatusAnswered, blocking.Status)
		wire, err := json.Marshal(raw)
		require.NoError(t, err)
		var blockingJSON map[string]any
		require.NoError(t, json.Unmarshal(wire, &blockingJSON))
		// (resultType is the envelope of a direct response; the SEP's task result has none.)
		delete(blockingJSON, "resultType")
		require.Equal(t, withoutMeta(blockingJSON), withoutMeta(result))
		require.NotEqual(t, true, result["isError"], "a settled question is no error: %v", result)
	})
}

func TestTaskDeclineIsACompletedResult(t *testing.T) {
	t.Parallel()
	eachRPC(t, rev2026, func(t *testing.T, b *bundle, asker, _ rpc) {
		id := callTask(t, asker, merge("reason", "on_no"))["taskId"].(string)
		key, _, _ := strings.Cut(id, ".")
		_, err := b.api(b.answerer).Answer(context.Background(), key, client.Reply{Declined: true, Text: "not my call"})
		require.NoError(t, err)
		done := getTask(t, asker, id)
		require.Equal(t, "completed", done["status"], "a decline is a result, not a failure")
		result := done["result"].(map[string]any)
		require.NotEqual(t, true, result["isError"])
		sc := result["structuredContent"].(map[string]any)
		require.Equal(t, "declined", sc["status"])
		require.Contains(t, sc["message"], `Their reason: "not my call"`)
	})
}

func TestTaskExpiredIsTheAssumedDefault(t *testing.T) {
	t.Parallel()
	eachRPC(t, rev2026, func(t *testing.T, b *bundle, asker, _ rpc) {
		id := callTask(t, asker, merge("expires_in", "1h"))["taskId"].(string)
		key, _, _ := strings.Cut(id, ".")
		rec, err := b.svc.Get(context.Background(), key)
		require.NoError(t, err)
		_, err = b.svc.Expire(context.Background(), rec)
		require.NoError(t, err)
		done := getTask(t, asker, id)
		require.Equal(t, "completed", done["status"])
		sc := done["result"].(map[string]any)["structuredContent"].(map[string]any)
		require.Equal(t, "assumed", sc["status"])
		require.Equal(t, "hold", sc["answer"])
		require.Equal(t, "expired", sc["source"])
	})
}

func TestTaskCancelWithdrawsTheQuestion(t *testing.T) {
	t.Parallel()
	eachRPC(t, rev2026, func(t *testing.T, b *bundle, asker, _ rpc) {
		id := callTask(t, asker, merge())["taskId"].(string)
		got := asker(t, "tasks/cancel", withMeta(map[string]any{"taskId": id}, extCaps(t)))
		require.Nil(t, got["error"], "%v", got)
		require.Equal(t, map[string]any{"resultType": "complete"}, withoutMeta(got["result"].(map[string]any)))

		done := getTask(t, asker, id)
		require.Equal(t, "completed", done["status"])
		sc := done["result"].(map[string]any)["structuredContent"].(map[string]any)
		require.Equal(t, "cancelled", sc["status"])

		// Cancelling again is acknowledged: cancelling is cooperative, and it has ended.
		got = asker(t, "tasks/cancel", withMeta(map[string]any{"taskId": id}, extCaps(t)))
		require.Nil(t, got["error"], "%v", got)
	})
}

func TestTaskUpdateIsAcknowledged(t *testing.T) {
	t.Parallel()
	eachRPC(t, rev2026, func(t *testing.T, b *bundle, asker, _ rpc) {
		id := callTask(t, asker, merge())["taskId"].(string)
		req := shape(t, "2026-ext-tasks.update.request.json")
		params := req["params"].(map[string]any)
		params["taskId"] = id
		got := asker(t, "tasks/update", withMeta(params, extCaps(t)))
		want := shape(t, "2026-ext-tasks.update.result.json")["result"].(map[string]any)
		require.Equal(t, want, withoutMeta(got["result"].(map[string]any)))
		require.Equal(t, "working", getTask(t, asker, id)["status"], "an update answers nothing")
	})
}

func TestTaskIDsOfAnotherNamespaceOrForgedAreRefused(t *testing.T) {
	t.Parallel()
	eachRPC(t, rev2026, func(t *testing.T, b *bundle, asker, other rpc) {
		id := callTask(t, asker, merge())["taskId"].(string)
		key, mac, _ := strings.Cut(id, ".")
		forged := []string{
			key,                                 // the key alone
			key + ".AAAAAAAAAAAAAAAAAAAAAAAAAA", // a MAC of nobody's
			key + "." + strings.ToUpper(mac[:1]) + strings.ToLower(mac[:1]) + mac[2:],
			"inq_00000000000000000000000." + mac, // another key under this MAC
		}
		for _, f := range forged {
			for _, method := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
				code, msg, _ := rpcError(t, asker(t, method, withMeta(map[string]any{"taskId": f}, extCaps(t))))
				require.Equal(t, float64(jsonrpc.CodeInvalidParams), code, "%s %q", method, f)
				require.Contains(t, msg, "pass the taskId that ask_human's tools/call returned")
				require.True(t, strings.HasSuffix(msg, ".") && !strings.Contains(msg, ". "), "one sentence: %q", msg)
			}
		}
		// The other namespace's caller cannot read, nor cancel, this one's task.
		for _, method := range []string{"tasks/get", "tasks/cancel"} {
			code, _, _ := rpcError(t, other(t, method, withMeta(map[string]any{"taskId": id}, extCaps(t))))
			require.Equal(t, float64(jsonrpc.CodeInvalidParams), code, method)
		}
		rec, err := b.svc.Get(context.Background(), key)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusPending, rec.Status, "nothing was cancelled")
	})
}

func TestTasksNeedTheExtensionDeclared(t *testing.T) {
	t.Parallel()
	eachRPC(t, rev2026, func(t *testing.T, b *bundle, asker, _ rpc) {
		id := callTask(t, asker, merge())["taskId"].(string)

		// tasks/* from a request that does not declare the extension: −32021, as the SEP's.
		want := shape(t, "2026-ext-tasks.missing-capability.error.json")["error"].(map[string]any)
		for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			code, msg, data := rpcError(t, asker(t, method, withMeta(map[string]any{"taskId": id}, nil)))
			require.Equal(t, want["code"], code)
			require.Equal(t, want["data"], data)
			require.Contains(t, msg, "get_answer")
		}

		// A tools/call without it: no task, the bounded wait (here none) and get_answer.
		got := asker(t, "tools/call", withMeta(map[string]any{"name": mcptools.AskHuman, "arguments": merge("wait_seconds", 0)}, nil))
		res := got["result"].(map[string]any)
		require.NotEqual(t, "task", res["resultType"])
		require.Equal(t, "pending", res["structuredContent"].(map[string]any)["status"])

		// Gone from the extension: tasks/list and tasks/result are unknown methods.
		for _, method := range []string{"tasks/list", "tasks/result"} {
			code, _, _ := rpcError(t, asker(t, method, withMeta(map[string]any{"taskId": id}, extCaps(t))))
			require.Equal(t, float64(jsonrpc.CodeMethodNotFound), code, method)
		}
	})
}

func TestTaskNotMadeForWhatIsSettledAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, serverPolicy(inquiry.PolicyDefault))
	got := b.httpRPC(b.asker, rev2026)(t, "tools/call", withMeta(map[string]any{"name": mcptools.AskHuman, "arguments": merge()}, extCaps(t)))
	res := got["result"].(map[string]any)
	require.Equal(t, "complete", res["resultType"], "the result itself, not a task: %v", res)
	require.Equal(t, "assumed", res["structuredContent"].(map[string]any)["status"])
}

func TestServerDiscoverAdvertisesTasks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	want := shape(t, "2026-ext-tasks.server-discover-capabilities.json")
	for name, send := range map[string]rpc{"http": b.httpRPC(b.asker, rev2026), "stdio": b.stdioRPC(b.asker, "s", rev2026)} {
		got := send(t, "server/discover", withMeta(map[string]any{}, nil))
		require.Nil(t, got["error"], "%s: %v", name, got)
		caps := got["result"].(map[string]any)["capabilities"].(map[string]any)
		require.Equal(t, want["extensions"], caps["extensions"], name)
	}
	// Without a secret to sign ids with, bot mcp offers no tasks.
	got := b.stdioRPC(b.asker, "", rev2026)(t, "server/discover", withMeta(map[string]any{}, nil))
	caps := got["result"].(map[string]any)["capabilities"].(map[string]any)
	require.Nil(t, caps["extensions"])
}
