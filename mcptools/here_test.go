package mcptools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

// elicitor is an MCP client's user: it answers every form with reply and keeps what it was shown.
type elicitor struct {
	mu    sync.Mutex
	asked []*mcp.ElicitParams
	reply *mcp.ElicitResult
}

func (e *elicitor) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, req.Params)
	return e.reply, nil
}

func (e *elicitor) shown(t *testing.T) []*mcp.ElicitParams {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*mcp.ElicitParams(nil), e.asked...)
}

// formSession connects the SDK's client, which answers forms through e, to the server's /mcp.
func (b *bundle) formSession(token string, e *elicitor) *mcp.ClientSession {
	b.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "form-client", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: e.handle})
	return b.connectWith(c, b.httpTransport(token))
}

// schemaOf decodes a form's requested schema.
func schemaOf(t *testing.T, p *mcp.ElicitParams) map[string]any {
	t.Helper()
	raw, err := json.Marshal(p.RequestedSchema)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m
}

func TestAnswerHereChoiceAnsweredInTheClient(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := &elicitor{reply: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "merge"}}}
	cs := b.formSession(b.asker, e)
	require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)

	res, _ := call(t, cs, "ask_human", merge("answer_here", true))
	require.Equal(t, "answered", string(res.Status), res.Message)
	require.Equal(t, "merge", res.Answer)
	require.Equal(t, inquiry.ViaMCP, res.Via)
	require.Equal(t, "agent", res.AnsweredBy, "the token the connection authenticated as")

	shown := e.shown(t)
	require.Len(t, shown, 1)
	require.Equal(t, "form", shown[0].Mode)
	require.Contains(t, shown[0].Message, "Merge PR #42 now?")
	require.Contains(t, shown[0].Message, "CI is green")
	answer := schemaOf(t, shown[0])["properties"].(map[string]any)["answer"].(map[string]any)
	require.Equal(t, "string", answer["type"])
	require.Equal(t, "hold", answer["default"])
	require.Equal(t, []any{
		map[string]any{"const": "merge", "title": "Merge"},
		map[string]any{"const": "hold", "title": "hold"},
	}, answer["oneOf"])

	// The record says so too: via mcp, by the token's name, and nobody else was asked.
	recs := b.all(t)
	require.Len(t, recs, 1)
	require.Equal(t, inquiry.StatusAnswered, recs[0].Status)
	require.Equal(t, inquiry.ViaMCP, recs[0].Answer.Via)
	require.Equal(t, inquiry.TransportInbox, recs[0].Config.Transport)
}

func TestAnswerHereConfirmAndText(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := &elicitor{reply: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": false, "text": "not before the freeze"}}}
	cs := b.formSession(b.asker, e)
	res, _ := call(t, cs, "ask_human", map[string]any{"question": "Deploy now?", "kind": "confirm", "default": "no", "reason": "on_no", "answer_here": true})
	require.Equal(t, "answered", string(res.Status), res.Message)
	require.Equal(t, []string{"no"}, res.Values)
	require.Equal(t, "not before the freeze", res.Text)
	props := schemaOf(t, e.shown(t)[0])["properties"].(map[string]any)
	require.Equal(t, "boolean", props["answer"].(map[string]any)["type"])
	require.Equal(t, false, props["answer"].(map[string]any)["default"])
	require.Contains(t, props, "text", "a reason is asked for beside a no")

	e.reply = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "Friday, after the release"}}
	res, _ = call(t, cs, "ask_human", map[string]any{"question": "When should we deploy?", "answer_here": true})
	require.Equal(t, "answered", string(res.Status), res.Message)
	require.Equal(t, "Friday, after the release", res.Text)
	require.Equal(t, inquiry.ViaMCP, res.Via)
}

func TestAnswerHereDeclineAndCancelAreDeclines(t *testing.T) {
	t.Parallel()
	for _, action := range []string{"decline", "cancel"} {
		t.Run(action, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			cs := b.formSession(b.asker, &elicitor{reply: &mcp.ElicitResult{Action: action}})
			res, out := call(t, cs, "ask_human", merge("answer_here", true))
			require.False(t, out.IsError, "a decline is never a failure")
			require.Equal(t, "declined", string(res.Status), res.Message)
			require.Equal(t, inquiry.ViaMCP, res.Via)
			recs := b.all(t)
			require.Len(t, recs, 1)
			require.True(t, recs[0].Answer.Declined)
		})
	}
}

func TestAnswerHereWithoutFormFallsBackToPeople(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, connect func(*bundle, string) *mcp.ClientSession) {
		b := setup(t)
		cs := connect(b, b.asker) // a client without elicitation, or `bot mcp` over the API
		res, _ := call(t, cs, "ask_human", merge("answer_here", true, "wait_seconds", 0))
		require.Equal(t, "pending", string(res.Status), res.Message)
		require.Contains(t, res.Message, "answer_here was not possible")
		require.Contains(t, res.Message, "put to people as usual")
	})
}

func TestAnswerHereRefusedForApprovals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := &elicitor{reply: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": true}}}
	cs := b.formSession(b.asker, e)
	res, out := call(t, cs, "ask_human", map[string]any{"question": "Ship it?", "kind": "confirm", "approvals": 2, "answer_here": true})
	require.True(t, out.IsError)
	require.Equal(t, "answer_here", res.Field)
	require.Contains(t, res.Message, "drop answer_here")
	res, out = call(t, cs, "ask_human", map[string]any{"question": "Ship it?", "kind": "confirm", "requested_by": []string{"agent"}, "answer_here": true})
	require.True(t, out.IsError)
	require.Contains(t, res.Message, "requested_by")
	require.Empty(t, e.shown(t), "nobody was asked")
	require.Empty(t, b.all(t), "nothing was asked")
}

// The question asked again is found settled: the client's user is not asked twice.
func TestAnswerHereSettledBeforeIsNotAskedAgain(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := &elicitor{reply: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "merge"}}}
	cs := b.formSession(b.asker, e)
	res, _ := call(t, cs, "ask_human", merge("answer_here", true))
	require.Equal(t, "answered", string(res.Status))
	res, _ = call(t, cs, "ask_human", merge("answer_here", true))
	require.Equal(t, "answered", string(res.Status))
	require.Len(t, e.shown(t), 1, "asked once, answered once")
}

// pageSession connects a client that declares URL-mode elicitation only; opening a page is open.
func (b *bundle) pageSession(token string, open func(url string) *mcp.ElicitResult) *mcp.ClientSession {
	b.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "page-client", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "url" {
				return nil, fmt.Errorf("a page client was sent mode %q", req.Params.Mode)
			}
			return open(req.Params.URL), nil
		},
	})
	return b.connectWith(c, b.httpTransport(token))
}

func TestAnswerHereSendsAURLClientToTheAnswerPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var opened string
	cs := b.pageSession(b.asker, func(url string) *mcp.ElicitResult {
		opened = url
		// The person answers on the page before the client retries.
		token := strings.TrimPrefix(url, "https://bot.example.com"+inquiry.LinkPath)
		if _, err := b.svc.AnswerByLink(context.Background(), token, inquiry.Reply{Value: inquiry.One("merge")}); err != nil {
			t.Errorf("answering on the page: %v", err) // on the client's goroutine: no FailNow
		}
		return &mcp.ElicitResult{Action: "accept"}
	})
	res, _ := call(t, cs, "ask_human", merge("answer_here", true))
	require.Equal(t, "answered", string(res.Status), res.Message)
	require.Equal(t, "merge", res.Answer)
	require.Equal(t, inquiry.ViaWeb, res.Via, "answered on the page")
	require.True(t, strings.HasPrefix(opened, "https://bot.example.com"+inquiry.LinkPath), opened)
}

// TestAnswerHereURLClientWaitsForThePage: a client that opens the page and accepts at once (the
// person has not answered yet) leaves ask_human waiting; the answer given on the page meanwhile
// is the call's result.
func TestAnswerHereURLClientWaitsForThePage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	opened := make(chan string, 1)
	cs := b.pageSession(b.asker, func(url string) *mcp.ElicitResult {
		opened <- url
		return &mcp.ElicitResult{Action: "accept"}
	})
	type outcome struct {
		res mcptools.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		out, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcptools.AskHuman, Arguments: merge("answer_here", true, "wait_seconds", 30)})
		var res mcptools.Result
		if err == nil {
			raw, _ := json.Marshal(out.StructuredContent)
			err = json.Unmarshal(raw, &res)
		}
		done <- outcome{res, err}
	}()
	url := <-opened
	require.NoError(t, b.awaitWaiters(1), "ask_human waits for the page's answer")
	token := strings.TrimPrefix(url, "https://bot.example.com"+inquiry.LinkPath)
	_, err := b.svc.AnswerByLink(context.Background(), token, inquiry.Reply{Value: inquiry.One("hold")})
	require.NoError(t, err)
	got := <-done
	require.NoError(t, got.err)
	require.Equal(t, "answered", string(got.res.Status), got.res.Message)
	require.Equal(t, "hold", got.res.Answer)
	require.Equal(t, inquiry.ViaWeb, got.res.Via, "answered on the page")
}

func TestAnswerHereURLClientThatDeclinesRecordsADecline(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.pageSession(b.asker, func(string) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} })
	res, out := call(t, cs, "ask_human", merge("answer_here", true))
	require.False(t, out.IsError)
	require.Equal(t, "declined", string(res.Status), res.Message)
	require.Equal(t, inquiry.ViaMCP, res.Via)
}

func TestAnswerHereURLClientNotYetAnsweredIsPending(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.pageSession(b.asker, func(string) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "accept"} })
	res, _ := call(t, cs, "ask_human", merge("answer_here", true, "wait_seconds", 0))
	require.Equal(t, "pending", string(res.Status), res.Message)
	require.NotEmpty(t, res.Key, "get_answer picks it up")
}

// `bot mcp` (the tools over the HTTP API) forwards answer_here to the server's /mcp: its own
// client's user answers the form, and the answer is recorded via mcp as the token's.
func TestAnswerHereThroughBotMCPIsForwarded(t *testing.T) {
	t.Parallel()
	b := setup(t)
	opts := b.opts
	opts.HereEndpoint, opts.HereToken = b.url+"/mcp", b.asker
	srv := mcptools.NewServer(b.api(b.asker), opts)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	e := &elicitor{reply: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "hold"}}}
	c := mcp.NewClient(&mcp.Implementation{Name: "harness", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: e.handle})
	cs, err := c.Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })

	res, _ := call(t, cs, "ask_human", merge("answer_here", true))
	require.Equal(t, "answered", string(res.Status), res.Message)
	require.Equal(t, "hold", res.Answer)
	require.Equal(t, inquiry.ViaMCP, res.Via)
	require.Equal(t, "agent", res.AnsweredBy)
	require.Len(t, e.shown(t), 1)

	// Without the endpoint, `bot mcp` asks people as usual and says so.
	plain := mcptools.NewServer(b.api(b.asker), b.opts)
	st2, ct2 := mcp.NewInMemoryTransports()
	ss2, err := plain.Connect(context.Background(), st2, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss2.Close() })
	cs2, err := c.Connect(context.Background(), ct2, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs2.Close() })
	res, _ = call(t, cs2, "ask_human", merge("answer_here", true, "id", "second", "wait_seconds", 0))
	require.Equal(t, "pending", string(res.Status), res.Message)
	require.Contains(t, res.Message, "answer_here was not possible")
}

// TestAnswerHereOnStatelessHTTPBefore2026SaysWhy: /mcp is stateless, so a client before
// 2026-07-28 cannot be sent an elicitation there, whatever it declared: the question goes to
// people, and the message says why in words the model can act on, not that the client lacks
// elicitation.
func TestAnswerHereOnStatelessHTTPBefore2026SaysWhy(t *testing.T) {
	t.Parallel()
	b := setup(t)
	send := b.httpRPC(b.asker, rev2025)
	got := send(t, "tools/call", map[string]any{"name": mcptools.AskHuman, "arguments": merge("answer_here", true, "wait_seconds", 0)})
	require.Nil(t, got["error"], "%v", got)
	sc := got["result"].(map[string]any)["structuredContent"].(map[string]any)
	require.Equal(t, "pending", sc["status"], "%v", sc)
	msg, _ := sc["message"].(string)
	require.Contains(t, msg, "answer_here was not possible")
	require.Contains(t, msg, "2026-07-28", "says which revision this endpoint needs")
	require.Contains(t, msg, "bot mcp", "says where an older client can be asked")
	require.NotContains(t, msg, "neither a form nor a link", "the client may well declare both")
}
