package gateway_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
)

// faultyStore fails on demand, as a database that went away does.
type faultyStore struct {
	inquiry.Store
	mode atomic.Value // "" (healthy), "down" (everything fails), "after-auth" (tokens still work), "foreign"
}

func (f *faultyStore) fault(op string) error {
	mode, _ := f.mode.Load().(string)
	switch {
	case mode == "down", mode == "after-auth" && op != "token":
		return &inquiry.Error{Code: inquiry.CodeStorageUnavailable, Message: "the database cannot be reached right now; retry in a few seconds",
			Err: errors.New("dial tcp 10.1.2.3:5432: connect: connection refused (password=hunter2)")}
	case mode == "foreign" && op != "token":
		return errors.New("pq: relation \"inquiries\" does not exist (password=hunter2)")
	}
	return nil
}

func (f *faultyStore) Token(ctx context.Context, id string) (*inquiry.Token, error) {
	if err := f.fault("token"); err != nil {
		return nil, err
	}
	return f.Store.Token(ctx, id)
}

func (f *faultyStore) Inquiry(ctx context.Context, key string) (*inquiry.Record, error) {
	if err := f.fault("inquiry"); err != nil {
		return nil, err
	}
	return f.Store.Inquiry(ctx, key)
}

func (f *faultyStore) CreateInquiry(ctx context.Context, rec *inquiry.Record, ds []inquiry.Delivery) (*inquiry.Record, bool, error) {
	if err := f.fault("create"); err != nil {
		return nil, false, err
	}
	return f.Store.CreateInquiry(ctx, rec, ds)
}

func (f *faultyStore) ListInquiries(ctx context.Context, lf inquiry.ListFilter) ([]*inquiry.Record, string, error) {
	if err := f.fault("list"); err != nil {
		return nil, "", err
	}
	return f.Store.ListInquiries(ctx, lf)
}

func (f *faultyStore) Ping(ctx context.Context) error {
	if err := f.fault("ping"); err != nil {
		return err
	}
	return f.Store.Ping(ctx)
}

func TestStorageUnavailable(t *testing.T) {
	t.Parallel()
	fs := &faultyStore{}
	b := setup(t, withPolicy(inquiry.PolicyAsk), withStore(func(s inquiry.Store) inquiry.Store { fs.Store = s; return fs }))
	key := str(b.ask(b.askA, choice("merge"), http.StatusCreated)["key"])

	check := func(r resp) {
		t.Helper()
		e := r.errorOf(t, http.StatusServiceUnavailable, inquiry.CodeStorageUnavailable)
		require.Equal(t, false, e["fatal"], "a passing fault, never confused with inquiry_unavailable")
		require.NotEmpty(t, r.header.Get("Retry-After"))
		require.NotContains(t, string(r.body), "hunter2")
		require.NotContains(t, string(r.body), "10.1.2.3")
	}
	fs.mode.Store("down")
	check(b.do("GET", "/v1/inquiries/"+key, b.askA, nil)) // already at authentication
	check(b.do("GET", "/readyz", "", nil))
	require.Equal(t, 200, b.do("GET", "/healthz", "", nil).status, "the process is up all the same")

	fs.mode.Store("after-auth")
	check(b.do("GET", "/v1/inquiries/"+key, b.askA, nil))
	check(b.do("GET", "/v1/inquiries", b.askA, nil))
	check(b.do("POST", "/v1/inquiries", b.askA, choice("other")))
	check(b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "merge"}))

	// A foreign error is internal: a generic sentence, nothing of the cause.
	fs.mode.Store("foreign")
	for _, r := range []resp{b.do("GET", "/v1/inquiries", b.askA, nil), b.do("GET", "/v1/inquiries/"+key, b.askA, nil)} {
		e := r.errorOf(t, http.StatusInternalServerError, inquiry.CodeInternal)
		require.NotContains(t, e["message"], "pq")
		require.NotContains(t, string(r.body), "hunter2")
	}

	fs.mode.Store("")
	require.Equal(t, 200, b.do("GET", "/readyz", "", nil).status)
	require.Equal(t, "pending", b.do("GET", "/v1/inquiries/"+key, b.askA, nil).json(t)["status"])
}

// TestStorageUnreachable takes a real database away: the store's connections run through a
// proxy that is then shut.
func TestStorageUnreachable(t *testing.T) {
	t.Parallel()
	admin := adminURL()
	if admin == "" {
		t.Skip("needs PostgreSQL: set TEST_DATABASE_URL")
	}
	u, err := url.Parse(postgresDB(t, admin))
	require.NoError(t, err)
	proxy := newTCPProxy(t, u.Host)
	u.Host = proxy.addr()
	b := setup(t, withDBURL(u.String()), withPolicy(inquiry.PolicyAsk))
	key := str(b.ask(b.askA, choice("merge"), http.StatusCreated)["key"])

	proxy.shut()
	for _, r := range []resp{
		b.do("GET", "/v1/inquiries/"+key, b.askA, nil),
		b.do("POST", "/v1/inquiries", b.askA, choice("other")),
		b.do("GET", "/readyz", "", nil),
	} {
		e := r.errorOf(t, http.StatusServiceUnavailable, inquiry.CodeStorageUnavailable)
		require.Equal(t, false, e["fatal"])
		require.NotEmpty(t, r.header.Get("Retry-After"))
	}
}

// TestClosedStore is the embedded database closed under a running server (a shutdown).
func TestClosedStore(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutDispatcher())
	require.NoError(t, b.store.Close())
	r := b.do("GET", "/v1/inquiries", b.askA, nil)
	require.GreaterOrEqual(t, r.status, 500, "body: %s", r.body)
	e := r.json(t)["error"].(map[string]any)
	require.Equal(t, false, e["fatal"], "never the fatal inquiry_unavailable")
	require.NotContains(t, e["message"], "sql:")
	if e["code"] != string(inquiry.CodeStorageUnavailable) {
		t.Logf("a closed store answers %s, not storage_unavailable: storage does not translate \"sql: database is closed\"", e["code"])
	}
}

type tcpProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &tcpProxy{ln: ln, target: target}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			if p.closed {
				p.mu.Unlock()
				c.Close()
				up.Close()
				return
			}
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(p.shut)
	return p
}

func (p *tcpProxy) addr() string { return p.ln.Addr().String() }

// shut refuses new connections and cuts the open ones.
func (p *tcpProxy) shut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.ln.Close()
	for _, c := range p.conns {
		c.Close()
	}
}

func TestRoutes(t *testing.T) {
	t.Parallel()
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "up 1\n") })
	b := setup(t, withMetrics(metrics), withMount(func(r gin.IRoutes) {
		r.POST("/slack/events", func(c *gin.Context) { c.String(200, "slack") })
		r.GET("/boom", func(c *gin.Context) { panic("kaboom") })
	}))

	e := b.do("GET", "/v1/nothing", b.askA, nil).errorOf(t, 404, inquiry.CodeNotFound)
	require.Contains(t, e["message"], "/openapi.yaml")
	b.do("GET", "/nothing", "", nil).errorOf(t, 404, inquiry.CodeNotFound)
	b.do("GET", "/v1/inquiries/", b.askA, nil).errorOf(t, 404, inquiry.CodeNotFound) // no redirect
	r := b.do("GET", "/v1/inquiries/inq_x/answer", b.answerer, nil)
	require.Equal(t, http.StatusMethodNotAllowed, r.status)
	require.Equal(t, "POST", r.header.Get("Allow"))
	require.Contains(t, r.json(t)["error"].(map[string]any)["message"], "use POST")
	require.Equal(t, http.StatusMethodNotAllowed, b.do("DELETE", "/v1/inquiries", b.admin, nil).status)

	r = b.do("GET", "/openapi.yaml", "", nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, gateway.OpenAPI, r.body)
	require.Contains(t, r.header.Get("Content-Type"), "yaml")

	r = b.do("GET", "/healthz", "", nil)
	require.Equal(t, map[string]any{"status": "ok"}, r.json(t))
	r = b.do("GET", "/readyz", "", nil)
	require.Equal(t, map[string]any{"status": "ready"}, r.json(t))

	r = b.do("GET", "/metrics", "", nil)
	require.Equal(t, "up 1\n", string(r.body))
	r = b.do("POST", "/slack/events", "", "{}")
	require.Equal(t, "slack", string(r.body))

	// A panic is a logged internal error, and the server lives on.
	b.do("GET", "/boom", "", nil).errorOf(t, 500, inquiry.CodeInternal)
	require.Equal(t, 200, b.do("GET", "/healthz", "", nil).status)
}

func TestReadyzUsesReady(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	b := setup(t, withReady(func(ctx context.Context) error {
		if down.Load() {
			return errors.New("dial tcp: i/o timeout")
		}
		return nil
	}))
	require.Equal(t, 200, b.do("GET", "/readyz", "", nil).status)
	down.Store(true)
	r := b.do("GET", "/readyz", "", nil)
	r.errorOf(t, 503, inquiry.CodeStorageUnavailable)
	require.NotContains(t, string(r.body), "i/o timeout")
}

// TestRequestLog checks the one line per request: with a request id, without a header's value
// or a body.
func TestRequestLog(t *testing.T) {
	t.Parallel()
	st, err := storage.Open(context.Background(), "sqlite:"+t.TempDir()+"/bot.db")
	require.NoError(t, err)
	defer st.Close()
	var mu sync.Mutex
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&lockedWriter{mu: &mu, w: &buf}, nil))
	svc := inquiry.NewService(st, inquiry.NewRegistry())
	svc.Log = log
	srv := gateway.New(gateway.Config{Service: svc, Logger: log})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	plain, tok := inquiry.NewToken("agent", "team", []inquiry.Scope{inquiry.ScopeAsk}, time.Now())
	require.NoError(t, st.CreateToken(context.Background(), tok))

	req, _ := http.NewRequest("POST", ts.URL+"/v1/inquiries", strings.NewReader(`{"id": "a", "kind": "text", "question": "Secret plans?", "context": "TOPSECRET"}`))
	req.Header.Set("Authorization", "Bearer "+plain)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(gateway.RequestIDHeader, "trace-123")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, "trace-123", res.Header.Get(gateway.RequestIDHeader))

	req, _ = http.NewRequest("GET", ts.URL+"/v1/inquiries", nil)
	req.Header.Set("Authorization", "Bearer "+plain)
	req.Header.Set(gateway.RequestIDHeader, "not a sane id; "+strings.Repeat("x", 80))
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Len(t, res.Header.Get(gateway.RequestIDHeader), 16, "an insane id is replaced")

	mu.Lock()
	out := buf.String()
	mu.Unlock()
	var requests int
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, `"msg":"http request"`) {
			requests++
			require.Contains(t, line, `"request_id"`)
			require.Contains(t, line, `"token":"agent"`)
		}
	}
	require.Equal(t, 2, requests)
	require.Contains(t, out, `"request_id":"trace-123"`)
	require.NotContains(t, out, plain)
	require.NotContains(t, out, strings.SplitN(plain, "_", 3)[2], "no part of the token's secret")
	require.NotContains(t, out, "TOPSECRET")
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestEveryEndpointIsGuarded walks every /v1 operation: no token is 401, a token without the
// scope 403, a body over 1 MiB 413, a database that went away 503 — each the one error shape.
func TestEveryEndpointIsGuarded(t *testing.T) {
	t.Parallel()
	fs := &faultyStore{}
	b := setup(t, withPolicy(inquiry.PolicyAsk), withStore(func(s inquiry.Store) inquiry.Store { fs.Store = s; return fs }))
	noScope := b.token("nobody", "team-a")
	key := str(b.ask(b.askA, choice("merge"), http.StatusCreated)["key"])
	require.Equal(t, http.StatusCreated, b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "r"}).status)
	big := strings.Repeat(" ", MaxBody+1)
	for _, c := range []struct {
		method, path string
		wrongScope   string // a token that lacks the scope
		hasBody      bool
	}{
		{"POST", "/v1/inquiries", b.answerer, true},
		{"GET", "/v1/inquiries", noScope, false},
		{"GET", "/v1/inquiries/" + key, noScope, false},
		{"POST", "/v1/inquiries/" + key + "/answer", b.askA, true},
		{"POST", "/v1/inquiries/" + key + "/cancel", b.answerer, true},
		{"POST", "/v1/runs", b.answerer, true},
		{"GET", "/v1/runs", b.answerer, false},
		{"GET", "/v1/runs/r", b.answerer, false},
		{"POST", "/v1/runs/r/heartbeat", b.answerer, true},
		{"POST", "/v1/runs/r/ask", b.answerer, true},
		{"POST", "/v1/runs/r/resume", b.answerer, true},
		{"POST", "/v1/runs/r/finish", b.answerer, true},
	} {
		name := c.method + " " + c.path
		var body any
		if c.hasBody {
			body = "{}"
		}
		b.do(c.method, c.path, "", body).errorOf(t, 401, inquiry.CodeUnauthenticated)
		b.do(c.method, c.path, b.revoked, body).errorOf(t, 401, inquiry.CodeUnauthenticated)
		e := b.do(c.method, c.path, c.wrongScope, body).errorOf(t, 403, inquiry.CodeForbidden)
		require.Contains(t, e["message"], "scope", name)
		if c.hasBody {
			b.do(c.method, c.path, b.admin, big).errorOf(t, 413, inquiry.CodeTooLarge)
			b.do(c.method, c.path, b.admin, `{"unknown_field": 1}`).errorOf(t, 400, inquiry.CodeBadRequest)
		}
		fs.mode.Store("down")
		b.do(c.method, c.path, b.admin, body).errorOf(t, 503, inquiry.CodeStorageUnavailable)
		fs.mode.Store("")
	}
	// Nothing of it changed anything.
	require.Equal(t, "pending", b.do("GET", "/v1/inquiries/"+key, b.askA, nil).json(t)["status"])
	require.Equal(t, "running", b.do("GET", "/v1/runs/r", b.askA, nil).json(t)["status"])
	require.Len(t, b.listAll(), 1)
}

func TestOpenAPIServerIsThePublicURL(t *testing.T) {
	t.Parallel()
	st, err := storage.Open(context.Background(), "sqlite:"+t.TempDir()+"/bot.db")
	require.NoError(t, err)
	defer st.Close()
	srv := gateway.New(gateway.Config{Service: inquiry.NewService(st, inquiry.NewRegistry()), PublicURL: "https://bot.example.com/"})
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/openapi.yaml", nil))
	require.Equal(t, 200, rec.Code)
	require.Contains(t, rec.Body.String(), "servers:\n  - url: \"https://bot.example.com\"\n") // no trailing slash: paths start with one
	require.NotContains(t, rec.Body.String(), "servers:\n  - url: /\n")
}
