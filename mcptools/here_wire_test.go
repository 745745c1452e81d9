package mcptools_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

// The wire shapes of answer_here, against the specification's own examples (testdata/mcp).

// shape reads testdata/mcp/name as a JSON object.
func shape(t *testing.T, name string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "mcp", name))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m
}

// keysOf is the sorted keys of m.
func keysOf(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func TestAnswerHereWire2026InputRequiredAndRetry(t *testing.T) {
	t.Parallel()
	b := setup(t)

	// The specification's tools/call, with its _meta, asking ask_human; the client declares
	// elicitation as the specification's capabilities example does.
	call := shape(t, "2026-07-28-tools-call.request-with-meta.json")
	params := call["params"].(map[string]any)
	meta := params["_meta"].(map[string]any)
	caps := shape(t, "2026-07-28-client-capabilities-elicitation.json")["_meta"].(map[string]any)
	meta["io.modelcontextprotocol/clientCapabilities"] = caps["io.modelcontextprotocol/clientCapabilities"]
	params["name"] = "ask_human"
	params["arguments"] = merge("answer_here", true)

	got := b.post(t, b.asker, call)
	want := shape(t, "2026-07-28-tools-call.input-required.response.json")
	require.Equal(t, call["id"], got["id"])
	result := got["result"].(map[string]any)
	require.Equal(t, keysOf(want["result"].(map[string]any)), keysOf(withoutMeta(result)), "the input-required result's shape: %v", result)
	require.Equal(t, "input_required", result["resultType"])
	ask := result["inputRequests"].(map[string]any)["answer"].(map[string]any)
	wantAsk := want["result"].(map[string]any)["inputRequests"].(map[string]any)["github_login"].(map[string]any)
	require.Equal(t, wantAsk["method"], ask["method"])
	require.Equal(t, keysOf(wantAsk["params"].(map[string]any)), keysOf(ask["params"].(map[string]any)))
	require.Equal(t, "form", ask["params"].(map[string]any)["mode"])
	state, _ := result["requestState"].(string)
	require.NotEmpty(t, state)

	// The retry, as the specification shapes it: the same call, the responses under the
	// request's key, the state echoed.
	retry := shape(t, "2026-07-28-tools-call.retry.request.json")
	rp := retry["params"].(map[string]any)
	rp["_meta"], rp["name"], rp["arguments"] = meta, "ask_human", params["arguments"]
	resp := rp["inputResponses"].(map[string]any)["github_login"].(map[string]any)
	resp["content"] = map[string]any{"answer": "merge"}
	rp["inputResponses"] = map[string]any{"answer": resp}
	rp["requestState"] = state
	got = b.post(t, b.asker, retry)
	result = got["result"].(map[string]any)
	require.NotEqual(t, "input_required", result["resultType"])
	sc := result["structuredContent"].(map[string]any)
	require.Equal(t, "answered", sc["status"], "%v", sc)
	require.Equal(t, "merge", sc["answer"])
	require.Equal(t, "mcp", sc["via"])

	// A forged state is refused in a sentence, and the question stays unanswered.
	rp["arguments"] = merge("answer_here", true, "id", "another-question")
	rp["requestState"] = "inq_forged"
	got = b.post(t, b.asker, retry)
	result = got["result"].(map[string]any)
	require.Equal(t, true, result["isError"])
	sc = result["structuredContent"].(map[string]any)
	require.Contains(t, sc["message"], "requestState")
	rec, err := b.api(b.asker).Get(context.Background(), sc["key"].(string), 0)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, rec.Status)
}

// withoutMeta is m without _meta (the SDK adds serverInfo there) and without a null content
// (go-sdk v1.8.0 writes "content": null on an input-required result; the specification's
// example has none, and a null is no content).
func withoutMeta(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k != "_meta" && (k != "content" || v != nil) {
			out[k] = v
		}
	}
	return out
}

// A client before 2026-07-28 on stdio: the SDK sends it elicitation/create, the client's
// answer (the specification's decline) comes back, and the tool records the decline.
func TestAnswerHereWireLegacyStdioElicitation(t *testing.T) {
	t.Parallel()
	inProcess := func(b *bundle) *mcp.Server {
		_, tok := inquiry.NewToken("agent-stdio", "team-a", []inquiry.Scope{inquiry.ScopeAsk}, time.Now())
		require.NoError(b.t, b.store.CreateToken(context.Background(), tok))
		return mcptools.NewServer(mcptools.ServiceBackend{Service: b.svc, Token: tok}, b.opts)
	}
	// `bot mcp`: the tools over the HTTP API, answer_here forwarded to /mcp.
	botMCP := func(b *bundle) *mcp.Server {
		token := b.token("agent-stdio", "team-a", inquiry.ScopeAsk)
		opts := b.opts
		opts.HereEndpoint, opts.HereToken = b.url+"/mcp", token
		return mcptools.NewServer(b.api(token), opts)
	}
	for _, c := range []struct {
		version, caps, reply string
		status               string
		forwarded            bool
	}{
		{"2025-06-18", `{"elicitation":{}}`, "2025-11-25-elicitation.decline.result.json", "declined", false},
		{"2025-11-25", `{"elicitation":{"form":{}}}`, "2025-11-25-elicitation.cancel.result.json", "declined", false},
		{"2025-11-25", `{"elicitation":{"form":{},"url":{}}}`, "", "answered", false},
		{"2025-06-18", `{"elicitation":{}}`, "2025-11-25-elicitation.decline.result.json", "declined", true},
		{"2025-11-25", `{"elicitation":{"form":{},"url":{}}}`, "", "answered", true},
		// URL mode only: the page is sent with the key as its elicitationId; the person has not
		// answered on it yet when the client accepts, so the call is pending.
		{"2025-11-25", `{"elicitation":{"url":{}}}`, "url", "pending", false},
		{"2025-11-25", `{"elicitation":{"url":{}}}`, "url", "pending", true},
	} {
		name := c.version + " " + cmp.Or(c.reply, "accept")
		server := inProcess
		if c.forwarded {
			name, server = name+" bot mcp", botMCP
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			srv := server(b)
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			go func() { _ = srv.Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW}) }()
			lines := bufio.NewScanner(outR)
			lines.Buffer(nil, 1<<20)
			send := func(s string) {
				_, err := io.WriteString(inW, s+"\n")
				require.NoError(t, err)
			}
			next := func() map[string]any {
				require.True(t, lines.Scan(), "the server wrote nothing: %v", lines.Err())
				var m map[string]any
				require.NoError(t, json.Unmarshal(lines.Bytes(), &m), "%s", lines.Bytes())
				return m
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + c.version + `","capabilities":` + c.caps + `,"clientInfo":{"name":"legacy","version":"1"}}}`)
			require.Equal(t, c.version, next()["result"].(map[string]any)["protocolVersion"])
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			args, err := json.Marshal(merge("answer_here", true, "wait_seconds", 0))
			require.NoError(t, err)
			send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_human","arguments":` + string(args) + `}}`)

			el := next()
			require.Equal(t, "elicitation/create", el["method"])
			var reply map[string]any
			switch c.reply {
			case "url":
				page := shape(t, "2025-11-25-elicitation-url.request.json")
				require.Equal(t, keysOf(page["params"].(map[string]any)), keysOf(el["params"].(map[string]any)))
				p := el["params"].(map[string]any)
				require.Equal(t, "url", p["mode"])
				require.True(t, strings.HasPrefix(p["url"].(string), "https://bot.example.com"+inquiry.LinkPath), "%v", p)
				require.True(t, strings.HasPrefix(p["elicitationId"].(string), "inq_"), "%v", p)
				reply = map[string]any{"jsonrpc": "2.0", "result": map[string]any{"action": "accept"}}
			case "":
				reply = shape(t, "2025-11-25-elicitation-form.result.json")
				reply["result"].(map[string]any)["content"] = map[string]any{"answer": "hold"}
			default:
				reply = shape(t, c.reply)
			}
			if c.reply != "url" {
				form := shape(t, "2025-11-25-elicitation-form.request.json")
				require.Equal(t, keysOf(form["params"].(map[string]any)), keysOf(el["params"].(map[string]any)))
			}
			reply["id"] = el["id"]
			raw, err := json.Marshal(reply)
			require.NoError(t, err)
			send(string(raw))

			res := next()
			require.EqualValues(t, 2, res["id"])
			sc := res["result"].(map[string]any)["structuredContent"].(map[string]any)
			require.Equal(t, c.status, sc["status"], "%v", sc)
			if c.status != "pending" {
				require.Equal(t, "mcp", sc["via"])
				require.Equal(t, "agent-stdio", sc["answered_by"])
			}
		})
	}
}
