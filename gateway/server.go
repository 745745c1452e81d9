package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/inquiry-bot/bot/inquiry"
)

// Config is what a Server needs. Service is required; everything else has a default.
type Config struct {
	// Service is the ask service every endpoint goes through.
	Service *inquiry.Service
	// Store is the store tokens, lists and runs are read from; nil means Service.Store.
	Store inquiry.Store
	// Ready reports whether the database can be reached (GET /readyz); nil means Store.Ping.
	Ready func(ctx context.Context) error
	// CallbackSecret returns the key that signs callbacks (BOT_CALLBACK_SECRET). It is asked on
	// every delivery, so a rotated secret takes effect at once. Without a secret no callback is
	// sent: an unsigned callback could be forged by anybody, so the delivery fails closed and is
	// retried until a secret is configured or it gives up.
	CallbackSecret func() []byte
	// CallbackHosts lists host[:port] entries allowed as callback and resume hosts even though
	// they resolve to a loopback, private or link-local address (BOT_CALLBACK_HOSTS). An entry
	// without a port allows every port of the host.
	CallbackHosts []string
	// PublicURL is the base URL people reach the server at (BOT_PUBLIC_URL); it is the server's
	// entry in the OpenAPI document's servers when set.
	PublicURL string
	// Logger receives one line per request and every internal error; nil means slog.Default().
	Logger *slog.Logger
	// Mount, when set, adds routes of other packages (the Slack app's /slack/interactions,
	// /slack/events and /slack/commands) to the engine. Those routes pass
	// through the gateway's recovery and request log but not its authentication.
	Mount func(r gin.IRoutes)
	// MCP, when set, is served at POST /mcp behind the API's bearer tokens (the ask scope): the
	// handler finds the caller in the request's context (inquiry.CallerFrom).
	MCP http.Handler
	// Metrics, when set, is served at GET /metrics without authentication.
	Metrics http.Handler
	// ObserveRequest, when set, hears every request's route (the pattern, not the path, so ids
	// do not explode label sets), method, status and duration.
	ObserveRequest func(route, method string, status int, d time.Duration)
	// CallbackTimeout bounds one callback attempt; 0 means 10 seconds.
	CallbackTimeout time.Duration
	// Resolver resolves callback hosts; nil means net.DefaultResolver.
	Resolver Resolver
	// RateLimits bound each token's creates, answers and long-polls, and each address's
	// requests without a valid token (BOT_RATE_LIMIT, BOT_RATE_BURST, BOT_MAX_WAITERS); the zero
	// value is the defaults (the README's Configuration table).
	RateLimits RateLimits
	// Pages, when set, is the answer page (package web), served at /a/{token} (every method: GET and POST, HEAD as a GET, the rest refused on the page)
	// without a bearer token: the signed link is the key. The request log never shows the
	// token of such a path.
	Pages http.Handler
}

// Server is the HTTP API. Create it with New.
type Server struct {
	cfg     Config
	svc     *inquiry.Service
	store   inquiry.Store
	log     *slog.Logger
	guard   *Guard
	limits  *limiter
	client  *http.Client
	engine  *gin.Engine
	openapi []byte
	holds   holds // the requests tokens hold open, watched for their revocation (waiters.go)
}

// New builds the server and its routes. It panics when cfg.Service is nil: that is a wiring bug,
// not a condition to run with.
func New(cfg Config) *Server {
	if cfg.Service == nil {
		panic("gateway.New: Config.Service is nil")
	}
	s := &Server{cfg: cfg, svc: cfg.Service, store: cfg.Store, log: cfg.Logger}
	if s.store == nil {
		s.store = cfg.Service.Store
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.cfg.Ready == nil {
		s.cfg.Ready = s.store.Ping
	}
	if s.cfg.CallbackTimeout <= 0 {
		s.cfg.CallbackTimeout = 10 * time.Second
	}
	s.guard = NewGuard(cfg.CallbackHosts, cfg.Resolver)
	s.limits = newLimiter(cfg.RateLimits)
	s.client = s.guard.Client(s.cfg.CallbackTimeout)
	s.openapi = openAPIDocument(cfg.PublicURL)
	s.engine = s.routes()
	return s
}

// Handler returns the HTTP handler of every route.
func (s *Server) Handler() http.Handler { return s.engine }

// Guard returns the SSRF guard of callback URLs (for cmd/bot and tests).
func (s *Server) Guard() *Guard { return s.guard }

func (s *Server) routes() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	// A path with a stray slash is a mistake to report, not to redirect (a redirected POST
	// loses its body in many clients).
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	// Client addresses in the log are the peer's: forwarded headers are not trusted by default.
	_ = r.SetTrustedProxies(nil)
	r.Use(s.requestLog, s.recovery, s.limitAnonymous)

	r.NoRoute(func(c *gin.Context) {
		s.abort(c, inquiry.Errorf(inquiry.CodeNotFound, "no endpoint %s %s: see GET /openapi.yaml for the API", excerpt(c.Request.Method), excerpt(c.Request.URL.Path)))
	})
	r.NoMethod(func(c *gin.Context) {
		s.abortStatus(c, http.StatusMethodNotAllowed, inquiry.Errorf(inquiry.CodeBadRequest, "%s is not allowed on %s: use %s", excerpt(c.Request.Method), excerpt(c.Request.URL.Path), c.Writer.Header().Get("Allow")))
	})

	r.GET("/healthz", s.healthz)
	r.HEAD("/healthz", s.healthz)
	r.GET("/readyz", s.readyz)
	r.HEAD("/readyz", s.readyz)
	r.GET("/openapi.yaml", s.openAPI)
	if s.cfg.Metrics != nil {
		r.GET("/metrics", gin.WrapH(s.cfg.Metrics))
	}

	v1 := r.Group("/v1", s.authenticate, s.saneParams)
	v1.POST("/inquiries", s.need(inquiry.ScopeAsk), s.limitCreates, s.createInquiry)
	v1.GET("/inquiries", s.needAny(inquiry.ScopeAsk, inquiry.ScopeAnswer), s.listInquiries)
	v1.GET("/inquiries/:key", s.needAny(inquiry.ScopeAsk, inquiry.ScopeAnswer), s.getInquiry)
	// Who may answer is the service's decision (inquiry.MayAnswer), the answer scope included.
	v1.POST("/inquiries/:key/answer", s.limitCreates, s.answerInquiry)
	v1.POST("/inquiries/:key/cancel", s.need(inquiry.ScopeAsk), s.cancelInquiry)
	v1.POST("/inquiries/:key/extend", s.limitCreates, s.extendInquiry) // the rule of who may answer decides
	v1.GET("/inquiries/:key/events", s.needAny(inquiry.ScopeAsk, inquiry.ScopeAnswer), s.inquiryEvents)
	v1.GET("/events", s.needAny(inquiry.ScopeAsk, inquiry.ScopeAnswer), s.followEvents)

	v1.POST("/runs", s.need(inquiry.ScopeAsk), s.limitCreates, s.registerRun)
	v1.GET("/runs", s.need(inquiry.ScopeAsk), s.listRuns)
	v1.GET("/runs/:id", s.need(inquiry.ScopeAsk), s.getRun)
	v1.POST("/runs/:id/heartbeat", s.need(inquiry.ScopeAsk), runAction(s, true, s.heartbeat))
	v1.POST("/runs/:id/ask", s.need(inquiry.ScopeAsk), s.limitCreates, s.askInRun)
	v1.POST("/runs/:id/resume", s.need(inquiry.ScopeAsk), s.limitCreates, runAction(s, false, s.resumeRun))
	v1.POST("/runs/:id/finish", s.need(inquiry.ScopeAsk), runAction(s, false, s.finishRun))
	s.tokenRoutes(v1)
	// The asker mints the links of a question that names nobody; a token that may answer one that
	// names who may answer mints its links (inquiry's mayMintLink decides).
	v1.POST("/inquiries/:key/links", s.needAny(inquiry.ScopeAsk, inquiry.ScopeAnswer), s.limitCreates, s.mintLink)
	v1.DELETE("/inquiries/:key/links/:recipient", s.need(inquiry.ScopeAsk), s.revokeLinks)
	if s.cfg.Pages != nil {
		// Every method and every path under LinkPath is the page's: the router's own 404 and 405
		// would echo the path, token and all, without the page's security headers.
		r.Any(inquiry.LinkPath+"*token", gin.WrapH(s.cfg.Pages))
	}

	if s.cfg.MCP != nil {
		// Stateless streamable HTTP: POST is all there is.
		r.POST("/mcp", s.authenticate, s.need(inquiry.ScopeAsk), s.limitCreates, s.holdWaiter, gin.WrapH(s.cfg.MCP))
	}
	if s.cfg.Mount != nil {
		s.cfg.Mount(r)
	}
	return r
}

// Context keys the middleware shares.
const (
	ctxRequestID = "gateway.request_id"
	ctxToken     = "gateway.token"
	ctxErrorCode = "gateway.error_code"
)

// RequestIDHeader carries the request id: taken from the caller when it is a sane one, else
// made up, and always sent back.
const RequestIDHeader = "X-Request-Id"

func requestID(c *gin.Context) string { return c.GetString(ctxRequestID) }

// requestLog gives each request an id and logs one line when it ends: never a header's value
// (an Authorization header least of all) and never a body.
//
// Each middleware's frame stays on the goroutine's stack for as long as the handlers after it
// run — up to 55 s for a long-poll — so the middlewares keep their work in helpers of their own
// (not inlined) and hold only a few words across c.Next: with the chain this small, the
// runtime halves the stack of a parked long-poll at the next GC (16 kB to 8 kB, 80 MB for
// 10,000 waiters; BenchmarkLongPollWaiters reports it as stack-B/waiter, and
// TestLongPollWaiterStack fails without it). The margin is under 200 bytes of frame.
func (s *Server) requestLog(c *gin.Context) {
	start, id := startRequest(c)
	c.Next()
	s.logRequest(c, start, id)
}

// startRequest is requestLog's before: the request's id, taken or made up, set and sent back.
//
//go:noinline
func startRequest(c *gin.Context) (time.Time, string) {
	start := time.Now()
	id := c.GetHeader(RequestIDHeader)
	if !saneRequestID(id) {
		id = newRequestID()
	}
	c.Set(ctxRequestID, id)
	c.Header(RequestIDHeader, id)
	return start, id
}

// logRequest is requestLog's after: the line, and the request's metrics.
//
//go:noinline
func (s *Server) logRequest(c *gin.Context, start time.Time, id string) {
	l := lineOf(c, start, id)
	l.status, l.bytes, l.errorCode = c.Writer.Status(), c.Writer.Size(), c.GetString(ctxErrorCode)
	s.writeLine(&l)
}

// requestLine is what the request log says of a request, taken from its context before the
// context goes (gin reuses it) when the request ends.
type requestLine struct {
	ctx                                  context.Context
	start                                time.Time
	id, method, path, route, remote, tok string
	status, bytes                        int
	errorCode                            string
}

// lineOf is what the line says of c that is known before its outcome.
func lineOf(c *gin.Context, start time.Time, id string) requestLine {
	l := requestLine{ctx: c.Request.Context(), start: start, id: id, method: c.Request.Method,
		path: c.Request.URL.Path, route: c.FullPath(), remote: c.ClientIP()}
	if tok, ok := c.Get(ctxToken); ok {
		l.tok = tok.(*inquiry.Token).Name
	}
	return l
}

// writeLine logs the line and reports the request's metrics.
func (s *Server) writeLine(l *requestLine) {
	// Typed attributes (LogAttrs), in an array that stays on the stack: the same line as
	// key-value pairs would give, without boxing each value into an interface.
	var attrs [10]slog.Attr
	a := append(attrs[:0],
		slog.String("request_id", l.id),
		slog.String("method", excerpt(l.method)),
		slog.String("path", excerpt(redactPath(l.path))),
		slog.String("route", l.route),
		slog.Int("status", l.status),
		slog.Float64("duration_ms", float64(time.Since(l.start).Microseconds())/1000),
		slog.Int("bytes", l.bytes),
		slog.String("remote", l.remote),
	)
	if l.tok != "" {
		a = append(a, slog.String("token", l.tok))
	}
	if l.errorCode != "" {
		a = append(a, slog.String("error_code", l.errorCode))
	}
	s.log.LogAttrs(l.ctx, logLevelFor(l.status), "http request", a...)
	if s.cfg.ObserveRequest != nil {
		route := l.route
		if route == "" {
			route = "unmatched"
		}
		s.cfg.ObserveRequest(route, l.method, l.status, time.Since(l.start))
	}
}

// redactPath is a path as the log shows it: an answer link's token is a key to answer with, so
// "/a/<token>" is logged as "/a/…" and nothing of the token is kept.
func redactPath(p string) string {
	if strings.HasPrefix(p, inquiry.LinkPath) && len(p) > len(inquiry.LinkPath) {
		return inquiry.LinkPath + "…"
	}
	return p
}

// excerptChars bounds what a log line or a sentence shows of text the request supplied.
const excerptChars = 200

// excerpt is what the request log and the unrouted answers show of text a request supplied (its
// method, its path), sent before any authentication: at most excerptChars characters on one
// line, marked when clipped, so that a megabyte path costs neither a megabyte of log nor a
// megabyte of answer.
func excerpt(s string) string { return inquiry.OneLine(s, excerptChars) }

func saneRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// recovery turns a panic into a logged internal error and a 500 answer.
func (s *Server) recovery(c *gin.Context) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if p == http.ErrAbortHandler { // net/http's own way to abort a response: let it through
			panic(p)
		}
		s.log.ErrorContext(c.Request.Context(), "panic serving request", "request_id", requestID(c),
			"method", c.Request.Method, "route", c.FullPath(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		if c.Writer.Written() {
			c.Abort()
			return
		}
		s.abort(c, errors.New("panic"))
	}()
	c.Next()
}

func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// readyz says whether the database can be reached; a fault is storage_unavailable (503 with
// Retry-After), whatever the cause.
func (s *Server) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 3*time.Second)
	defer cancel()
	if err := s.cfg.Ready(ctx); err != nil {
		if inquiry.ErrorCode(err) != inquiry.CodeStorageUnavailable {
			err = &inquiry.Error{Code: inquiry.CodeStorageUnavailable, Message: inquiry.ErrorMessage(inquiry.ErrStorageUnavailable), Err: err}
		}
		s.abort(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": "ready"})
}

func (s *Server) openAPI(c *gin.Context) {
	c.Data(http.StatusOK, "application/yaml; charset=utf-8", s.openapi)
}
