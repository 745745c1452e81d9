package mcptools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/mcptools"
	"github.com/inquiry-bot/bot/storage"
)

// bundle is a real server (the gateway over the ask service over a SQLite store of its own)
// with /mcp mounted the way cmd/bot mounts it, and tokens of every kind.
type bundle struct {
	t     *testing.T
	url   string
	store *storage.Store
	svc   *inquiry.Service
	opts  mcptools.Options
	// offset moves the service's clock (nanoseconds), so a question can be asked in the past.
	offset *atomic.Int64

	// Tokens, as plain text.
	asker, otherAsker, answerer, admin string
}

type setupOptions struct {
	policy    inquiry.Policy // the server's default policy
	transport string         // the server's default transport
	tools     mcptools.Options
}

type option func(*setupOptions)

func serverPolicy(p inquiry.Policy) option { return func(o *setupOptions) { o.policy = p } }
func serverTransport(t string) option      { return func(o *setupOptions) { o.transport = t } }
func toolPolicy(p inquiry.Policy) option   { return func(o *setupOptions) { o.tools.Policy = p } }

// setup starts the server. By default the server asks (DefaultPolicy ask) through the inbox.
func setup(t *testing.T, opts ...option) *bundle {
	t.Helper()
	o := setupOptions{policy: inquiry.PolicyAsk}
	for _, f := range opts {
		f(&o)
	}
	ctx := context.Background()
	st, err := storage.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "bot.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })

	log := slog.New(slog.DiscardHandler)
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	svc := inquiry.NewService(st, inquiry.NewRegistry())
	svc.DefaultPolicy = o.policy
	svc.DefaultTransport = o.transport
	svc.Log = log
	svc.LinkSecret, svc.PublicURL = []byte("test-link-secret"), "https://bot.example.com"
	offset := new(atomic.Int64)
	svc.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	o.tools.Logger = log
	o.tools.Version = "test"

	srv := gateway.New(gateway.Config{
		Service:        svc,
		CallbackSecret: func() []byte { return []byte("test-secret") },
		Logger:         log,
		MCP:            mcptools.HTTPHandler(svc, o.tools), // as cmd/bot's serve wires it
	})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)

	b := &bundle{t: t, url: ts.URL, store: st, svc: svc, opts: o.tools, offset: offset}
	b.asker = b.token("agent", "team-a", inquiry.ScopeAsk)
	b.otherAsker = b.token("other-agent", "team-b", inquiry.ScopeAsk)
	b.answerer = b.token("alice", "people", inquiry.ScopeAnswer)
	b.admin = b.token("root", "ops", inquiry.ScopeAdmin)
	return b
}

func (b *bundle) token(name, namespace string, scopes ...inquiry.Scope) string {
	plain, tok := inquiry.NewToken(name, namespace, scopes, time.Now())
	require.NoError(b.t, b.store.CreateToken(context.Background(), tok))
	return plain
}

// api is a client of the HTTP API with token.
func (b *bundle) api(token string) *client.Client { return client.New(b.url, token) }

// backends are the two ways an agent reaches the tools: `bot mcp` (the tools over the HTTP
// client, here over in-memory transports) and the server's own /mcp (streamable HTTP, the
// tools in-process over the service).
var backends = []struct {
	name    string
	connect func(b *bundle, token string) *mcp.ClientSession
}{
	{"stdio-client", (*bundle).clientSession},
	{"http-inprocess", (*bundle).httpSession},
}

// each runs fn once per backend.
func each(t *testing.T, fn func(t *testing.T, connect func(b *bundle, token string) *mcp.ClientSession)) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			t.Parallel()
			fn(t, be.connect)
		})
	}
}

// eachAsker runs fn once per backend with a server of its own (setup's defaults) and a session
// of the asker's token: what most tests start from.
func eachAsker(t *testing.T, fn func(t *testing.T, b *bundle, cs *mcp.ClientSession)) {
	each(t, func(t *testing.T, connect func(*bundle, string) *mcp.ClientSession) {
		b := setup(t)
		fn(t, b, connect(b, b.asker))
	})
}

// clientSession connects the SDK's client over in-memory transports to the tools served over
// the HTTP client with token, as `bot mcp` serves them.
func (b *bundle) clientSession(token string) *mcp.ClientSession {
	b.t.Helper()
	ctx := context.Background()
	srv := mcptools.NewServer(b.api(token), b.opts)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(b.t, err)
	b.t.Cleanup(func() { ss.Close() })
	return b.connect(ct)
}

// httpSession connects the SDK's client to the server's /mcp with token.
func (b *bundle) httpSession(token string) *mcp.ClientSession {
	b.t.Helper()
	return b.connect(b.httpTransport(token))
}

// httpTransport is the server's /mcp, spoken to with token.
func (b *bundle) httpTransport(token string) mcp.Transport {
	return &mcp.StreamableClientTransport{
		Endpoint:   b.url + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token: token}},
		MaxRetries: -1,
	}
}

func (b *bundle) connect(tr mcp.Transport) *mcp.ClientSession {
	b.t.Helper()
	return b.connectWith(mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil), tr)
}

// connectWith connects c over tr, closing the session when the test ends.
func (b *bundle) connectWith(c *mcp.Client, tr mcp.Transport) *mcp.ClientSession {
	b.t.Helper()
	cs, err := c.Connect(context.Background(), tr, nil)
	require.NoError(b.t, err)
	b.t.Cleanup(func() { cs.Close() })
	return cs
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (a bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if a.token != "" {
		r.Header.Set("Authorization", "Bearer "+a.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// call calls a tool and decodes its structured result; it checks the text content is the
// result's message.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (mcptools.Result, *mcp.CallToolResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	require.NotEmpty(t, res.Content)
	text, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "content %T", res.Content[0])
	var out mcptools.Result
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &out))
		require.Equal(t, out.Message, text.Text, "the text content is the message")
		if out.Edited {
			// An edited proposal follows the message, whole, for a model that reads text only.
			require.Len(t, res.Content, 2)
			edited, ok := res.Content[1].(*mcp.TextContent)
			require.True(t, ok, "content %T", res.Content[1])
			require.Equal(t, out.Content, edited.Text)
		} else {
			require.Len(t, res.Content, 1)
		}
	} else {
		require.Len(t, res.Content, 1)
		out.Message = text.Text // an error of the SDK's own (input validation)
	}
	return out, res
}

// pendingKey waits until exactly one question is pending and returns its key.
func (b *bundle) pendingKey(t *testing.T) string {
	t.Helper()
	var key string
	testkit.Eventually(t, 20*time.Second, "one question pending", func() bool {
		list, err := b.api(b.answerer).List(context.Background(), client.ListOptions{Status: inquiry.StatusPending})
		require.NoError(t, err)
		require.LessOrEqual(t, len(list.Inquiries), 1, "more than one pending question")
		if len(list.Inquiries) == 1 {
			key = list.Inquiries[0].Key
		}
		return key != ""
	})
	return key
}

// awaitWaiters waits until n requests wait on the service's hub for an inquiry to be resolved
// (the hub the service was given counts them); it may run beside the test, so it returns an
// error rather than failing.
func (b *bundle) awaitWaiters(n int) error {
	hub, ok := any(b.svc.Hub).(interface{ Waiters() int })
	if !ok {
		return fmt.Errorf("the service's hub %T does not count its waiters", b.svc.Hub)
	}
	deadline := time.After(20 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for hub.Waiters() != n {
		select {
		case <-deadline:
			return fmt.Errorf("%d requests waiting, not %d, after 20s", hub.Waiters(), n)
		case <-tick.C:
		}
	}
	return nil
}

// all lists every inquiry, with the admin token.
func (b *bundle) all(t *testing.T) []*inquiry.Record {
	t.Helper()
	recs, err := b.api(b.admin).ListAll(context.Background(), client.ListOptions{}, 0)
	require.NoError(t, err)
	return recs
}

// merge is a Choice of ask_human.
func merge(extra ...any) map[string]any {
	args := map[string]any{
		"question": "Merge PR #42 now?",
		"options":  []any{map[string]any{"value": "merge", "label": "Merge"}, "hold"},
		"default":  "hold",
		"context":  "CI is green; the release branch is frozen tomorrow.",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		args[extra[i].(string)] = extra[i+1]
	}
	return args
}
