package mcptools_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestHTTPEndpointRefusesForeignHostAndOrigin: the DNS rebinding defence the MCP transport
// requires (what the conformance suite's dns-rebinding-protection scenario sends): a foreign
// Origin, or a foreign Host on a loopback connection, is a 403 in the API's error body; the
// public host (BOT_PUBLIC_URL, here https://bot.example.com) and localhost are served.
func TestHTTPEndpointRefusesForeignHostAndOrigin(t *testing.T) {
	t.Parallel()
	b := setup(t)
	u, err := url.Parse(b.url)
	require.NoError(t, err)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	post := func(host, origin string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, b.url+"/mcp", strings.NewReader(initialize))
		require.NoError(t, err)
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+b.asker)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			return resp.StatusCode, ""
		}
		var body struct {
			Error struct{ Code, Message string }
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		require.Equal(t, string(inquiry.CodeForbidden), body.Error.Code)
		return resp.StatusCode, body.Error.Message
	}

	for _, tc := range []struct {
		name, host, origin string
		refused            string // the refusal's message, "" when served
	}{
		{"rebinding: foreign host and origin", "evil.example.com", "http://evil.example.com",
			`The Origin "http://evil.example.com" is neither this bot's public address nor localhost: call /mcp from a client rather than a web page, or set BOT_PUBLIC_URL to the address it is served under.`},
		{"foreign origin on localhost", "", "http://evil.example.com", `The Origin "http://evil.example.com"`},
		{"foreign host, no origin", "evil.example.com:8080", "",
			`The Host "evil.example.com:8080" is neither this bot's public address nor localhost: send the request to BOT_PUBLIC_URL's host, or set BOT_PUBLIC_URL to the address the reverse proxy serves.`},
		{"an origin that does not parse", "", "http://[::1", `The Origin "http://[::1"`},
		{"localhost by name", "localhost:" + u.Port(), "http://localhost:" + u.Port(), ""},
		{"loopback address", "", "http://" + u.Host, ""},
		{"IPv6 loopback", "[::1]:" + u.Port(), "http://[::1]:" + u.Port(), ""},
		{"the public host behind a proxy", "bot.example.com", "https://bot.example.com", ""},
		{"no origin (an agent harness)", "", "", ""},
	} {
		status, msg := post(tc.host, tc.origin)
		if tc.refused == "" {
			require.Equal(t, http.StatusOK, status, tc.name)
			continue
		}
		require.Equal(t, http.StatusForbidden, status, tc.name)
		require.True(t, strings.HasPrefix(msg, tc.refused), "%s: %s", tc.name, msg)
	}
}
