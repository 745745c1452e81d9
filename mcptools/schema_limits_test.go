package mcptools_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

// servedSchema is the input schema of tool as tools/list serves it.
func servedSchema(t *testing.T, cs *mcp.ClientSession, tool string) *jsonschema.Schema {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tl := range list.Tools {
		if tl.Name == tool {
			raw, err := json.Marshal(tl.InputSchema)
			require.NoError(t, err)
			var s jsonschema.Schema
			require.NoError(t, json.Unmarshal(raw, &s))
			return &s
		}
	}
	t.Fatalf("tools/list has no %s", tool)
	return nil
}

// branch is the alternative of an anyOf whose type is typ.
func branch(t *testing.T, s *jsonschema.Schema, typ string) *jsonschema.Schema {
	t.Helper()
	for _, b := range s.AnyOf {
		if b.Type == typ {
			return b
		}
	}
	t.Fatalf("no %s among the alternatives of %s", typ, s.Description)
	return nil
}

func intPtr(n int) *int { return &n }

// names is n token names.
func names(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("person-%02d", i)
	}
	return out
}

// The limits the server checks are in ask_human's input schema itself, as the OpenAPI document
// states them, so that a client or a model sees them before it calls; each is the constant of
// package inquiry that the server checks.
func TestAskHumanSchemaStatesTheLimits(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, _ *bundle, cs *mcp.ClientSession) {
		s := servedSchema(t, cs, mcptools.AskHuman)
		p := s.Properties

		require.Equal(t, intPtr(1), p["question"].MinLength)
		require.Equal(t, intPtr(inquiry.MaxQuestionChars), p["question"].MaxLength)
		require.Equal(t, intPtr(inquiry.MaxContextChars), p["context"].MaxLength)
		require.Equal(t, intPtr(1), p["id"].MinLength)
		require.Equal(t, intPtr(inquiry.MaxIDChars), p["id"].MaxLength)

		opts := p["options"]
		require.Equal(t, intPtr(inquiry.MinOptions), opts.MinItems)
		require.Equal(t, intPtr(inquiry.MaxOptions), opts.MaxItems)
		// A bare string is both the value and the label: the shorter bound holds.
		bare := branch(t, opts.Items, "string")
		require.Equal(t, intPtr(1), bare.MinLength)
		require.Equal(t, intPtr(min(inquiry.MaxOptionValueChars, inquiry.MaxOptionLabelChars)), bare.MaxLength)
		obj := branch(t, opts.Items, "object").Properties
		require.Equal(t, intPtr(inquiry.MaxOptionValueChars), obj["value"].MaxLength)
		require.Equal(t, intPtr(inquiry.MaxOptionLabelChars), obj["label"].MaxLength)
		require.Equal(t, intPtr(inquiry.MaxOptionDescriptionChars), obj["description"].MaxLength)

		def := p["default"]
		require.Equal(t, intPtr(inquiry.DefaultAnswerChars), branch(t, def, "string").MaxLength)
		list := branch(t, def, "array")
		require.Equal(t, intPtr(inquiry.MaxOptions), list.MaxItems)
		require.Equal(t, intPtr(inquiry.MaxOptionValueChars), list.Items.MaxLength)

		require.Equal(t, jsonschema.Ptr(1.0), p["approvals"].Minimum)
		require.Equal(t, jsonschema.Ptr(float64(inquiry.MaxApprovals)), p["approvals"].Maximum)
		require.Equal(t, intPtr(inquiry.MaxRequestedBy), p["requested_by"].MaxItems)
		require.Equal(t, intPtr(1), p["requested_by"].Items.MinLength)
		require.Equal(t, intPtr(min(inquiry.MaxIDChars, inquiry.MaxSlackRefChars)), p["requested_by"].Items.MaxLength)
		require.Equal(t, []any{string(inquiry.ReasonOnNo), string(inquiry.ReasonAlways)}, p["reason"].Enum)
	})
}

// The schema is what refuses a call beyond a limit, before the server is asked; a call at every
// limit goes through.
func TestAskHumanSchemaRefusesBeyondTheLimits(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
		options := func(n int) []any {
			o := make([]any, n)
			for i := range o {
				o[i] = "Option " + string(rune('A'+i))
			}
			return o
		}
		long := func(n int) string { return strings.Repeat("é", n) } // characters, not bytes

		for _, c := range []struct {
			name  string
			args  map[string]any
			field string
		}{
			{"too many options", map[string]any{"question": "Which one?", "options": options(inquiry.MaxOptions + 1)}, "options"},
			{"one option", map[string]any{"question": "Which one?", "options": options(inquiry.MinOptions - 1)}, "options"},
			{"long question", map[string]any{"question": long(inquiry.MaxQuestionChars + 1)}, "question"},
			{"empty question", map[string]any{"question": ""}, "question"},
			{"long context", map[string]any{"question": "Q?", "context": long(inquiry.MaxContextChars + 1)}, "context"},
			{"long id", map[string]any{"question": "Q?", "id": long(inquiry.MaxIDChars + 1)}, "id"},
			{"long label", merge("options", []any{map[string]any{"label": long(inquiry.MaxOptionLabelChars + 1)}, "hold"}), "options"},
			{"long bare option", merge("options", []any{long(inquiry.MaxOptionLabelChars + 1), "hold"}), "options"},
			{"approvals above the most", map[string]any{"question": "Q?", "kind": "confirm", "approvals": inquiry.MaxApprovals + 1}, "approvals"},
			{"approvals 0", map[string]any{"question": "Q?", "kind": "confirm", "approvals": 0}, "approvals"},
			{"too many requesters", map[string]any{"question": "Q?", "kind": "confirm", "requested_by": names(inquiry.MaxRequestedBy + 1)}, "requested_by"},
			{"another reason", map[string]any{"question": "Q?", "kind": "confirm", "reason": "sometimes"}, "reason"},
		} {
			_, raw := call(t, cs, mcptools.AskHuman, c.args)
			require.True(t, raw.IsError, c.name)
			require.Nil(t, raw.StructuredContent, "%s: refused by the schema, not by the server", c.name)
			text := raw.Content[0].(*mcp.TextContent).Text
			require.Contains(t, text, c.field, "%s: the refusal names the field", c.name)
		}
		require.Empty(t, b.all(t), "nothing beyond a limit reached the server")

		// At every limit at once: asked (pending, as nobody answers within a wait of 0).
		at := map[string]any{
			"question": long(inquiry.MaxQuestionChars), "context": long(inquiry.MaxContextChars),
			"id": long(inquiry.MaxIDChars), "options": options(inquiry.MaxOptions), "wait_seconds": 0,
			"approvals": inquiry.MaxApprovals, "requested_by": append(names(inquiry.MaxRequestedBy-1), long(min(inquiry.MaxIDChars, inquiry.MaxSlackRefChars))),
		}
		res, raw := call(t, cs, mcptools.AskHuman, at)
		require.False(t, raw.IsError, res.Message)
		require.Equal(t, mcptools.StatusPending, res.Status)
		labels := merge("id", "labels", "wait_seconds", 0, "options", []any{
			map[string]any{"value": long(inquiry.MaxOptionValueChars), "label": long(inquiry.MaxOptionLabelChars), "description": long(inquiry.MaxOptionDescriptionChars)},
			long(inquiry.MaxOptionLabelChars-1) + "x",
		})
		delete(labels, "default")
		res, raw = call(t, cs, mcptools.AskHuman, labels)
		require.False(t, raw.IsError, res.Message)
		require.Equal(t, mcptools.StatusPending, res.Status)
	})
}

// The tool list never changes while a server lives, and the stateless /mcp endpoint has no
// stream a notification could go out on: initialize promises no tools/list_changed.
func TestInitializeAdvertisesNoToolListChanges(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, _ *bundle, cs *mcp.ClientSession) {
		caps := cs.InitializeResult().Capabilities
		require.NotNil(t, caps.Tools, "the tools capability is advertised")
		require.False(t, caps.Tools.ListChanged, "tools.listChanged")
	})

	// On the wire, as any client of /mcp reads it.
	b := setup(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	req, err := http.NewRequest("POST", b.url+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+b.asker)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	var msg string
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() && msg == "" {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				msg = data
			}
		}
	} else {
		raw, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		msg = string(raw)
	}
	var out struct {
		Result struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(msg), &out), msg)
	tools, ok := out.Result.Capabilities["tools"]
	require.True(t, ok, "capabilities: %s", msg)
	require.NotContains(t, string(tools), `"listChanged":true`)
}
