package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/dispatch"
	"github.com/inquiry-bot/bot/internal/wake"
	"github.com/inquiry-bot/bot/storage"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// bundle is what a test gets: the real server over HTTP on a fresh, migrated store of its own,
// a running dispatcher, and tokens of every kind.
type bundle struct {
	t      testing.TB
	url    string // base URL of the server
	dbURL  string
	store  *storage.Store
	svc    *inquiry.Service
	hub    *wake.Hub // the service's
	srv    *gateway.Server
	disp   *dispatch.Dispatcher
	secret []byte
	http   *http.Client // checks every answer against openapi.yaml

	// Tokens, as plain text.
	askA, askB, answerer, admin, revoked string

	// offset moves the dispatcher's clock forward (nanoseconds), so a retry comes due at once.
	offset atomic.Int64
	// later moves the service's clock forward (nanoseconds): what time it is for expiry.
	later    atomic.Int64
	outcomes chan outcome // every delivery outcome the dispatcher observes
}

type outcome struct {
	kind    inquiry.DeliveryKind
	outcome string
	err     error
}

// options of setup.
type options struct {
	policy        inquiry.Policy
	callbackHosts []string
	pgAdmin       string // TEST_DATABASE_URL: a fresh PostgreSQL database; "" for SQLite
	dbURL         string // exactly this database
	noDispatcher  bool
	store         func(inquiry.Store) inquiry.Store // wraps the store the server sees
	resolver      gateway.Resolver
	mount         func(r gin.IRoutes)
	metrics       http.Handler
	ready         func(context.Context) error
	logTo         io.Writer           // every log line of the server, as JSON
	limits        *gateway.RateLimits // nil: none (tests fire many requests from one token)
	mcp           http.Handler
	transports    map[string]inquiry.Transport // seated before the server serves
}

type option func(*options)

// withDB puts the server on a fresh database of the kind each chose ("" for SQLite).
func withDB(admin string) option { return func(o *options) { o.pgAdmin = admin } }

func withPolicy(p inquiry.Policy) option                   { return func(o *options) { o.policy = p } }
func withCallbackHosts(h ...string) option                 { return func(o *options) { o.callbackHosts = h } }
func withDBURL(u string) option                            { return func(o *options) { o.dbURL = u } }
func withoutDispatcher() option                            { return func(o *options) { o.noDispatcher = true } }
func withStore(f func(inquiry.Store) inquiry.Store) option { return func(o *options) { o.store = f } }
func withResolver(r gateway.Resolver) option               { return func(o *options) { o.resolver = r } }
func withMount(f func(r gin.IRoutes)) option               { return func(o *options) { o.mount = f } }
func withMetrics(h http.Handler) option                    { return func(o *options) { o.metrics = h } }
func withReady(f func(context.Context) error) option       { return func(o *options) { o.ready = f } }
func withLog(w io.Writer) option                           { return func(o *options) { o.logTo = w } }
func withLimits(l gateway.RateLimits) option               { return func(o *options) { o.limits = &l } }
func withMCP(h http.Handler) option                        { return func(o *options) { o.mcp = h } }

// withTransport seats t under key before the server serves, as cmd/bot wires its transports.
func withTransport(key string, t inquiry.Transport) option {
	return func(o *options) {
		if o.transports == nil {
			o.transports = map[string]inquiry.Transport{}
		}
		o.transports[key] = t
	}
}

// each runs the test in parallel (it calls t.Parallel, so the test does not) and runs fn, in
// parallel too, against SQLite in a temporary directory, always, and against PostgreSQL when
// TEST_DATABASE_URL is set — which must then be reachable: it fails, never skips. fn passes db
// to setup with withDB; every setup gets a database of its own.
func each(t *testing.T, fn func(t *testing.T, db string)) {
	t.Helper()
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, "")
	})
	if admin := adminURL(); admin != "" {
		t.Run("postgres", func(t *testing.T) {
			t.Parallel()
			fn(t, admin)
		})
	}
}

func adminURL() string { return os.Getenv("TEST_DATABASE_URL") }

// postgresDB creates a database of the test's own (storagetest) and drops it when the test ends.
func postgresDB(t testing.TB, _ string) string {
	t.Helper()
	return storagetest.PostgresURL(t)
}

func setup(t testing.TB, opts ...option) *bundle {
	t.Helper()
	var o options
	for _, f := range opts {
		f(&o)
	}
	dbURL := o.dbURL
	switch {
	case dbURL != "":
	case o.pgAdmin != "":
		dbURL = postgresDB(t, o.pgAdmin)
	default:
		dbURL = "sqlite:" + filepath.Join(t.TempDir(), "bot.db")
	}
	ctx := context.Background()
	st, err := storage.Open(ctx, dbURL)
	require.NoError(t, err, "open %s", dbURL)
	t.Cleanup(func() { st.Close() })

	var served inquiry.Store = st
	if o.store != nil {
		served = o.store(st)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if o.logTo != nil {
		log = slog.New(slog.NewJSONHandler(o.logTo, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	limits := gateway.RateLimits{Rate: rate.Inf, MaxWaiters: -1, AddressRate: rate.Inf}
	if o.limits != nil {
		limits = *o.limits
	}
	svc := inquiry.NewService(served, inquiry.NewRegistry())
	for key, t := range o.transports {
		svc.Transports.Register(key, t)
	}
	svc.DefaultPolicy = o.policy
	svc.Log = log

	b := &bundle{t: t, dbURL: dbURL, store: st, svc: svc, hub: wake.NewHub(), outcomes: make(chan outcome, 100)}
	svc.Hub = b.hub
	svc.Now = func() time.Time { return time.Now().Add(time.Duration(b.later.Load())) }
	b.secret = []byte("test-secret-" + t.Name())
	b.srv = gateway.New(gateway.Config{
		Service:         svc,
		Store:           served,
		CallbackSecret:  func() []byte { return b.secret },
		CallbackHosts:   o.callbackHosts,
		Logger:          log,
		CallbackTimeout: 5 * time.Second,
		Resolver:        o.resolver,
		Mount:           o.mount,
		Metrics:         o.metrics,
		Ready:           o.ready,
		RateLimits:      limits,
		MCP:             o.mcp,
	})
	ts := httptest.NewServer(b.srv.Handler())
	t.Cleanup(ts.Close)
	b.url = ts.URL
	b.http = &http.Client{Transport: &conformance{t: t, next: http.DefaultTransport}, Timeout: 90 * time.Second}

	if !o.noDispatcher {
		b.disp = &dispatch.Dispatcher{
			Store:    served,
			Handlers: gateway.Merge(svc.TransportHandlers(), b.srv.DeliveryHandlers()),
			Now:      func() time.Time { return time.Now().Add(time.Duration(b.offset.Load())) },
			Poll:     50 * time.Millisecond,
			Log:      log,
			Observe: func(d inquiry.Delivery, what string, err error) {
				select {
				case b.outcomes <- outcome{d.Kind, what, err}:
				default:
				}
			},
		}
		svc.Kick = b.disp.Kick
		dctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); b.disp.Run(dctx) }()
		t.Cleanup(func() { cancel(); <-done })
	}

	b.askA = b.token("agent-a", "team-a", inquiry.ScopeAsk)
	b.askB = b.token("agent-b", "team-b", inquiry.ScopeAsk)
	b.answerer = b.token("alice", "people", inquiry.ScopeAnswer)
	b.admin = b.token("root", "ops", inquiry.ScopeAdmin)
	b.revoked = b.token("gone", "team-a", inquiry.ScopeAsk, inquiry.ScopeAnswer)
	require.NoError(t, st.RevokeToken(ctx, "gone", time.Now()))
	return b
}

// token creates a token and returns its plain text.
func (b *bundle) token(name, namespace string, scopes ...inquiry.Scope) string {
	plain, tok := inquiry.NewToken(name, namespace, scopes, time.Now())
	require.NoError(b.t, b.store.CreateToken(context.Background(), tok))
	return plain
}

// resp is an answer of the server.
type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), "body: %s", r.body)
	return m
}

// errorOf checks r is an error answer with status and code, whose message is one non-empty line,
// and returns its detail.
func (r resp) errorOf(t testing.TB, status int, code inquiry.Code) map[string]any {
	t.Helper()
	require.Equal(t, status, r.status, "body: %s", r.body)
	m := r.json(t)
	e, ok := m["error"].(map[string]any)
	require.True(t, ok, "no error object in %s", r.body)
	require.Equal(t, string(code), e["code"], "body: %s", r.body)
	msg, _ := e["message"].(string)
	require.NotEmpty(t, msg)
	require.NotContains(t, msg, "\n")
	require.Equal(t, code == inquiry.CodeUnavailable, e["fatal"], "fatal of %s", code)
	return e
}

// do sends a request with token (none when "") and a body: a string is sent as it is, anything
// else as JSON.
func (b *bundle) do(method, path, token string, body any) resp {
	b.t.Helper()
	return b.doCtx(context.Background(), method, path, token, body)
}

func (b *bundle) doCtx(ctx context.Context, method, path, token string, body any) resp {
	b.t.Helper()
	var rd io.Reader
	switch v := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(v)
	case []byte:
		rd = bytes.NewReader(v)
	default:
		raw, err := json.Marshal(v)
		require.NoError(b.t, err)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.url+path, rd)
	require.NoError(b.t, err)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := b.http.Do(req)
	require.NoError(b.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(b.t, err)
	return resp{status: res.StatusCode, header: res.Header, body: raw}
}

// ask creates an inquiry with token and requires status; it returns the inquiry.
func (b *bundle) ask(token string, body map[string]any, status int) map[string]any {
	b.t.Helper()
	r := b.do("POST", "/v1/inquiries", token, body)
	require.Equal(b.t, status, r.status, "body: %s", r.body)
	return r.json(b.t)
}

// list lists every inquiry with the admin token.
func (b *bundle) listAll() []any {
	b.t.Helper()
	r := b.do("GET", "/v1/inquiries?limit=500", b.admin, nil)
	require.Equal(b.t, 200, r.status, "body: %s", r.body)
	return r.json(b.t)["inquiries"].([]any)
}

// requireNothingStored checks no inquiry and no run exists.
func (b *bundle) requireNothingStored() {
	b.t.Helper()
	require.Empty(b.t, b.listAll(), "an inquiry was stored")
	r := b.do("GET", "/v1/runs?limit=500", b.admin, nil)
	require.Equal(b.t, 200, r.status, "body: %s", r.body)
	require.Empty(b.t, r.json(b.t)["runs"], "a run was stored")
}

// snapshot is everything a refused request must leave as it was: every inquiry and every run
// of every namespace, as the admin token lists them.
func (b *bundle) snapshot() string {
	b.t.Helper()
	r := b.do("GET", "/v1/inquiries?limit=500", b.admin, nil)
	require.Equal(b.t, 200, r.status, "body: %s", r.body)
	runs := b.do("GET", "/v1/runs?limit=500", b.admin, nil)
	require.Equal(b.t, 200, runs.status, "body: %s", runs.body)
	return string(r.body) + "\n" + string(runs.body)
}

// advance moves the dispatcher's clock forward and wakes it.
func (b *bundle) advance(d time.Duration) {
	b.offset.Add(int64(d))
	b.disp.Kick()
}

// waitOutcome waits for the dispatcher to report an outcome of kind.
func (b *bundle) waitOutcome(kind inquiry.DeliveryKind) outcome {
	b.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case o := <-b.outcomes:
			if o.kind == kind {
				return o
			}
		case <-timeout:
			b.t.Fatalf("no %s delivery outcome in time", kind)
		}
	}
}

// confirm is a minimal Confirm inquiry body.
func confirm(id string, extra ...any) map[string]any {
	m := map[string]any{"id": id, "kind": "confirm", "question": "Deploy now?"}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

// choice is a Choice inquiry body with a default.
func choice(id string, extra ...any) map[string]any {
	m := map[string]any{
		"id": id, "kind": "choice", "question": "Merge now?",
		"options": []any{map[string]any{"value": "merge", "label": "Merge"}, "hold"},
		"default": "hold",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

func askPolicy(p string) map[string]any { return map[string]any{"policy": p} }

// receiver is a callback receiver: it records every request and answers with the statuses
// queued (200 once they run out).
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	got      []received
	arrived  chan received
}

type received struct {
	header http.Header
	body   []byte
	at     time.Time
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	r := &receiver{statuses: statuses, arrived: make(chan received, 100)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		got := received{header: req.Header.Clone(), body: body, at: time.Now()}
		r.mu.Lock()
		r.got = append(r.got, got)
		status := 200
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(status)
		r.arrived <- got
	}))
	t.Cleanup(r.Close)
	return r
}

// host is host:port of the receiver, for the allow-list.
func (r *receiver) host() string { return strings.TrimPrefix(r.URL, "http://") }

func (r *receiver) next(t *testing.T) received {
	t.Helper()
	select {
	case got := <-r.arrived:
		return got
	case <-time.After(20 * time.Second):
		t.Fatal("no callback arrived in time")
		return received{}
	}
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

func str(v any) string { return fmt.Sprint(v) }
