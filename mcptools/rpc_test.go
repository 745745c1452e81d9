package mcptools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/mcptools"
)

// Raw JSON-RPC to the tools, for what the Go SDK's client does not speak (tasks, an older
// revision, the specification's examples as they are): over the server's /mcp, and over the
// tools `bot mcp` serves on stdio (here over in-memory transports, wrapped as bot mcp wraps
// stdio's). One poster and one in-memory session serve every revision the tests speak.

// The revisions the raw clients speak.
const (
	rev2025 = "2025-11-25"
	rev2026 = "2026-07-28"
)

// rpc is one way to send a JSON-RPC request to the tools as a client of a token.
type rpc func(t *testing.T, method string, params map[string]any) map[string]any

var rpcID atomic.Int64

// request is the JSON-RPC request of method with params and a fresh id.
func request(method string, params map[string]any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": rpcID.Add(1), "method": method, "params": params}
}

// postMCP posts msg to /mcp with token as a client of revision rev, and returns the response's
// message (from a JSON body or the first event of a stream) and the HTTP status. Every request
// after initialize names the revision in a header; 2026-07-28 names the method, and the tool,
// in headers too.
func (b *bundle) postMCP(t *testing.T, token, rev string, msg map[string]any) (map[string]any, int) {
	t.Helper()
	body, err := json.Marshal(msg)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, b.url+"/mcp", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	method, _ := msg["method"].(string)
	if method != "initialize" {
		req.Header.Set("MCP-Protocol-Version", rev)
	}
	if rev >= rev2026 {
		req.Header.Set("Mcp-Method", method)
		if params, ok := msg["params"].(map[string]any); ok {
			if name, ok := params["name"].(string); ok {
				req.Header.Set("Mcp-Name", name)
			}
		}
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
	require.NoError(t, json.Unmarshal(raw, &out), "status %d: %s", resp.StatusCode, raw)
	return out, resp.StatusCode
}

// post sends one JSON-RPC message to /mcp as a 2026-07-28 client, which must be answered 200.
func (b *bundle) post(t *testing.T, token string, msg map[string]any) map[string]any {
	t.Helper()
	out, status := b.postMCP(t, token, rev2026, msg)
	require.Equal(t, http.StatusOK, status, "%v", out)
	return out
}

// httpRPC posts to /mcp with token as a client of rev (stateless: each POST alone).
func (b *bundle) httpRPC(token, rev string) rpc {
	return func(t *testing.T, method string, params map[string]any) map[string]any {
		t.Helper()
		out, status := b.postMCP(t, token, rev, request(method, params))
		// 2026-07-28 answers an error with an HTTP error status too; the body is the same.
		if status != http.StatusOK {
			require.Contains(t, out, "error", "status %d", status)
		}
		return out
	}
}

// initialize2025 is an initialize request of a 2025-11-25 client without capabilities.
var initialize2025 = map[string]any{
	"protocolVersion": rev2025,
	"capabilities":    map[string]any{},
	"clientInfo":      map[string]any{"name": "legacy-agent", "version": "1"},
}

// stdioRPC is a session of a client of rev with the tools `bot mcp` serves over the HTTP client
// with token, its tasks signed with secret. A 2025-11-25 session starts with initialize, as
// its client's would; a 2026-07-28 one has none.
func (b *bundle) stdioRPC(token, secret, rev string) rpc {
	b.t.Helper()
	ctx := context.Background()
	opts := b.opts
	opts.TaskSecret = []byte(secret)
	srv := mcptools.NewServer(b.api(token), opts)
	st, ct := mcp.NewInMemoryTransports()
	var server mcp.Transport = st
	if rev < rev2026 {
		server = mcptools.TaskParams(st) // as bot mcp wraps stdio: a task param reaches ask_human
	}
	ss, err := srv.Connect(ctx, server, nil)
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
	if rev < rev2026 {
		got := send(b.t, "initialize", initialize2025)
		require.Nil(b.t, got["error"], "%v", got)
		require.NoError(b.t, conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}))
	}
	return send
}

// eachRPC runs fn over /mcp and over bot mcp's tools as clients of rev, each with a server of
// its own and a second caller of another namespace (over stdio: another token, whose bot mcp
// signs with its own secret).
func eachRPC(t *testing.T, rev string, fn func(t *testing.T, b *bundle, asker, other rpc)) {
	for _, be := range []struct {
		name string
		open func(b *bundle) (asker, other rpc)
	}{
		{"http", func(b *bundle) (rpc, rpc) { return b.httpRPC(b.asker, rev), b.httpRPC(b.otherAsker, rev) }},
		{"stdio", func(b *bundle) (rpc, rpc) {
			return b.stdioRPC(b.asker, "secret-of-"+b.asker, rev), b.stdioRPC(b.otherAsker, "secret-of-"+b.otherAsker, rev)
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
