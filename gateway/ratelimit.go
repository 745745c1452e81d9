package gateway

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/ratelimit"
)

// Defaults of RateLimits (the README's Configuration table).
const (
	DefaultRate       rate.Limit = 10 // creates and answers a second, per token
	DefaultBurst                 = 100
	DefaultMaxWaiters            = 1000
	// DefaultMaxKeys bounds each limiter's table: a few MB however many addresses call.
	DefaultMaxKeys = 10_000
)

// RateLimits bound what one caller may do (the README's Limits). The zero value is the defaults.
type RateLimits struct {
	// Rate is how many creates and answers a token may make a second, sustained
	// (BOT_RATE_LIMIT): POST /v1/inquiries, /v1/inquiries/{key}/answer, /v1/runs,
	// /v1/runs/{id}/ask and /resume, and POST /mcp. 0 means DefaultRate; rate.Inf, no limit.
	Rate rate.Limit
	// Burst is how many of them a token may make at once (BOT_RATE_BURST); 0 means
	// DefaultBurst.
	Burst int
	// MaxWaiters is how many long-polls a token may hold at once (BOT_MAX_WAITERS): a GET of an
	// inquiry or a create with a wait, and every POST /mcp (its tool calls wait by default). 0
	// means DefaultMaxWaiters; a negative number, no cap.
	MaxWaiters int
	// AddressRate and AddressBurst limit requests without a valid token per client address (an
	// IPv6 client per /64): /v1 and /mcp with no, an unknown or a revoked token, and the routes
	// that take none (/openapi.yaml, /metrics, the Slack app's, unknown paths) — never /healthz
	// or /readyz, which probes call. 0 means Rate and Burst. Behind a reverse proxy every
	// request comes from the proxy's address, so they share one bucket: raise these there.
	AddressRate  rate.Limit
	AddressBurst int
	// MaxKeys bounds how many tokens and how many addresses the limiters keep apart; past it
	// new ones share one bucket until idle entries (a full bucket, no long-poll) are dropped.
	// 0 means DefaultMaxKeys.
	MaxKeys int
}

// withDefaults fills what l leaves open.
func (l RateLimits) withDefaults() RateLimits {
	if l.Rate == 0 {
		l.Rate = DefaultRate
	}
	if l.Burst <= 0 {
		l.Burst = DefaultBurst
	}
	if l.MaxWaiters == 0 {
		l.MaxWaiters = DefaultMaxWaiters
	}
	if l.AddressRate == 0 {
		l.AddressRate = l.Rate
	}
	if l.AddressBurst <= 0 {
		l.AddressBurst = l.Burst
	}
	if l.MaxKeys <= 0 {
		l.MaxKeys = DefaultMaxKeys
	}
	return l
}

// limiter applies RateLimits: one table of buckets by token id, one by client address
// (internal/ratelimit keeps each bounded).
type limiter struct {
	RateLimits
	now               func() time.Time
	tokens, addresses *ratelimit.Table
}

func newLimiter(l RateLimits) *limiter {
	l = l.withDefaults()
	return &limiter{
		RateLimits: l,
		now:        time.Now,
		tokens:     ratelimit.New(l.Rate, l.Burst, l.MaxKeys),
		addresses:  ratelimit.New(l.AddressRate, l.AddressBurst, l.MaxKeys),
	}
}

// create charges one create or answer to tok.
func (l *limiter) create(tok *inquiry.Token) error {
	if wait, ok := l.tokens.Take(tok.ID, l.now()); !ok {
		return later(wait, "token %q is over its limit of creates and answers (%s, in bursts of up to %d): retry in %d s",
			tok.Name, perTime(l.Rate), l.Burst, seconds(wait))
	}
	return nil
}

// hold takes one of tok's long-poll places until release is called (once or more).
func (l *limiter) hold(tok *inquiry.Token) (release func(), err error) {
	release, ok := l.tokens.Hold(tok.ID, l.MaxWaiters, l.now())
	if !ok {
		return nil, later(time.Second, "token %q is over its limit of long-polls held at once (%d): let one of them end, or ask without waiting, and retry in 1 s",
			tok.Name, l.MaxWaiters)
	}
	return release, nil
}

// anonymous charges one request without a valid token to the client address addr.
func (l *limiter) anonymous(addr string) error {
	client := clientKey(addr)
	if wait, ok := l.addresses.Take(client, l.now()); !ok {
		return later(wait, "requests without a valid token from %s are over their limit (%s, in bursts of up to %d): retry in %d s",
			client, perTime(l.AddressRate), l.AddressBurst, seconds(wait))
	}
	return nil
}

// clientKey is who a request without a token is, for its limit: its IPv4 address, or the /64 of
// its IPv6 address (one client commonly has a whole /64 to pick addresses from).
func clientKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	switch {
	case err != nil:
		return addr
	case a.Unmap().Is4():
		return a.Unmap().String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}

// perTime says a rate in words: "10 a second", "30 a minute".
func perTime(r rate.Limit) string {
	if f := float64(r); f >= 1 && f == math.Trunc(f) {
		return fmt.Sprintf("%g a second", f)
	}
	return fmt.Sprintf("%g a minute", math.Round(float64(r)*60*1000)/1000)
}

// seconds is a wait as Retry-After gives it: whole seconds, at least one.
func seconds(d time.Duration) int { return max(1, int(math.Ceil(d.Seconds()))) }

// retryLater is a rate_limited refusal with how long the caller should wait: abort sends it as
// Retry-After.
type retryLater struct {
	err   *inquiry.Error
	after time.Duration
}

func later(after time.Duration, format string, args ...any) error {
	return &retryLater{err: inquiry.Errorf(inquiry.CodeRateLimited, format, args...), after: after}
}

func (e *retryLater) Error() string { return e.err.Error() }
func (e *retryLater) Unwrap() error { return e.err }

// retryAfterOf is the Retry-After of err in seconds, 0 when it asks for none.
func retryAfterOf(err error) int {
	var rl *retryLater
	if errors.As(err, &rl) {
		return seconds(rl.after)
	}
	return 0
}

// limitCreates charges a create or an answer to the request's token.
func (s *Server) limitCreates(c *gin.Context) {
	if err := s.limits.create(token(c)); err != nil {
		s.abort(c, err)
		return
	}
	c.Next()
}

// holdWaiter holds one of the token's long-poll places for the whole request: POST /mcp, whose
// tool calls wait for an answer unless told not to.
func (s *Server) holdWaiter(c *gin.Context) {
	release, err := s.limits.hold(token(c))
	if err != nil {
		s.abort(c, err)
		return
	}
	defer s.holdOpen(c, release)() // ended when the token is revoked (waiters.go)
	c.Next()
}

// longPoll holds one of the token's long-poll places while a request waits (wait > 0); the
// caller defers release. A refusal is answered, and ok is false.
func (s *Server) longPoll(c *gin.Context, wait bool) (release func(), ok bool) {
	if !wait {
		return func() {}, true
	}
	release, err := s.limits.hold(token(c))
	if err != nil {
		s.abort(c, err)
		return nil, false
	}
	return s.holdOpen(c, release), true // ended when the token is revoked (waiters.go)
}

// waits reports whether a create asks to wait for its answer.
func waits(seconds *float64) bool { return seconds != nil && *seconds > 0 }

// limitAnonymous charges each request of a route that takes no token to its client address.
// /v1 and /mcp are authenticate's to charge (only the requests it refuses), an answer link the
// bot signed is the page's (per link), and the probes are never limited: an orchestrator must
// always see whether the process is up.
func (s *Server) limitAnonymous(c *gin.Context) {
	if s.anonymousAllowed(c) {
		c.Next()
	}
}

// anonymousAllowed is limitAnonymous' work, kept out of its frame (see requestLog): true when
// the request goes on to its route, false when c was answered (or, for Slack, served).
//
//go:noinline
func (s *Server) anonymousAllowed(c *gin.Context) bool {
	switch p := c.FullPath(); {
	case p == "/healthz" || p == "/readyz" || p == "/mcp" || strings.HasPrefix(p, "/v1/"):
	case strings.HasPrefix(p, "/slack/"):
		s.slackSigned(c)
		return false
	case strings.HasPrefix(p, inquiry.LinkPath) && s.svc.LinkSigned(strings.TrimPrefix(c.Request.URL.Path, inquiry.LinkPath)):
		// A link the bot signed (its signature checked, nothing read) is the page's to limit, per
		// link: behind a proxy every visitor shares one address, and a flood of forgeries from it
		// must not refuse the real links. Only links that fail to verify spend the address's.
	default:
		if err := s.limits.anonymous(c.ClientIP()); err != nil {
			if pr, ok := s.cfg.Pages.(PageRefuser); ok && strings.HasPrefix(p, inquiry.LinkPath) {
				// A person in a browser: the page's refusal, with the page's security headers.
				if secs := retryAfterOf(err); secs > 0 {
					c.Header("Retry-After", strconv.Itoa(secs))
				}
				c.Set(ctxErrorCode, string(inquiry.ErrorCode(err)))
				pr.Refuse(c.Writer, c.Request, err)
				c.Abort()
				return false
			}
			s.abort(c, err)
			return false
		}
	}
	return true
}

// PageRefuser is an answer page (Config.Pages) that renders a refusal the gateway makes before
// the page is reached, so that it carries the page's security headers (web.Handler is one).
type PageRefuser interface {
	Refuse(w http.ResponseWriter, r *http.Request, err error)
}

// slackSigned limits Slack's endpoints by what their signature check says: a request Slack
// signed is Slack's and never limited (a busy workspace clicks faster than any per-address rate,
// from few addresses), and one refused (401, a bad or missing signature; 400, unreadable) is
// charged to its address, so that a flood of them spends the budget the address has for every
// other request without a valid token. Each is still checked, never refused unread: behind a
// proxy Slack shares its address with everybody, and a flood must not silence Slack.
func (s *Server) slackSigned(c *gin.Context) {
	c.Next()
	if st := c.Writer.Status(); st == http.StatusUnauthorized || st == http.StatusBadRequest {
		_ = s.limits.anonymous(c.ClientIP()) // the refusal is answered already; this charges it
	}
}
