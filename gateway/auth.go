package gateway

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/inquiry-bot/bot/inquiry"
)

// authenticate finds the bearer token of the request; a missing, unknown or revoked token is
// unauthenticated, all with the same sentence, and charged to the client address (past its
// limit, rate_limited instead). It fails closed: a store that cannot be read lets nobody in
// (storage_unavailable).
func (s *Server) authenticate(c *gin.Context) {
	if s.authenticated(c) {
		c.Next()
	}
}

// authenticated is authenticate's work, kept out of its frame (see requestLog): true with the
// token set on c, false with c answered.
//
//go:noinline
func (s *Server) authenticated(c *gin.Context) bool {
	plain, ok := Bearer(c.GetHeader("Authorization"))
	if !ok {
		if err := s.limits.anonymous(c.ClientIP()); err != nil {
			s.abort(c, err)
			return false
		}
		c.Header("WWW-Authenticate", `Bearer realm="inquiry-bot"`)
		s.abort(c, inquiry.Errorf(inquiry.CodeUnauthenticated, "the bearer token is missing, unknown or revoked: send Authorization: Bearer <token> with a token from `bot token create`"))
		return false
	}
	tok, err := s.svc.Authenticate(c.Request.Context(), plain)
	if err != nil {
		if inquiry.ErrorCode(err) == inquiry.CodeUnauthenticated {
			// A token was looked up (one indexed read) before the address is charged, so that a
			// valid token never waits on its neighbours' mistakes.
			if err := s.limits.anonymous(c.ClientIP()); err != nil {
				s.abort(c, err)
				return false
			}
			challengeInvalidToken(c.Writer.Header())
		}
		s.abort(c, err)
		return false
	}
	c.Set(ctxToken, tok)
	c.Request = c.Request.WithContext(inquiry.WithCaller(c.Request.Context(), tok))
	return true
}

// challengeInvalidToken sets the WWW-Authenticate of a token that was given and is refused:
// unknown, or revoked — before its request or while it is held (waiters.go). The bearer check's
// challenges are written here alone.
func challengeInvalidToken(h http.Header) {
	h.Set("WWW-Authenticate", `Bearer realm="inquiry-bot", error="invalid_token"`)
}

// Bearer takes the token out of an Authorization header ("Bearer <token>", the scheme in any
// case). Every endpoint that takes the API's tokens (the gateway's, /mcp) reads them with it.
func Bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

func token(c *gin.Context) *inquiry.Token { return c.MustGet(ctxToken).(*inquiry.Token) }

// need lets through only tokens with scope (admin carries every scope).
func (s *Server) need(scope inquiry.Scope) gin.HandlerFunc {
	return s.needAny(scope)
}

// needAny lets through tokens with any of scopes.
func (s *Server) needAny(scopes ...inquiry.Scope) gin.HandlerFunc {
	names := make([]string, len(scopes))
	for i, sc := range scopes {
		names[i] = string(sc)
	}
	want := strings.Join(names, " or ")
	return func(c *gin.Context) {
		if s.hasAny(c, scopes, want) {
			c.Next()
		}
	}
}

// hasAny is needAny's check, kept out of its frame (see requestLog): false with c answered.
//
//go:noinline
func (s *Server) hasAny(c *gin.Context, scopes []inquiry.Scope, want string) bool {
	tok := token(c)
	for _, sc := range scopes {
		if tok.Has(sc) {
			return true
		}
	}
	s.abort(c, inquiry.Errorf(inquiry.CodeForbidden, "token %q lacks the %s scope this endpoint needs (it has %s): use a token created with `bot token create --scope %s`", tok.Name, want, scopeList(tok), scopes[0]))
	return false
}

func scopeList(t *inquiry.Token) string {
	if len(t.Scopes) == 0 {
		return "none"
	}
	names := make([]string, len(t.Scopes))
	for i, sc := range t.Scopes {
		names[i] = string(sc)
	}
	return strings.Join(names, ",")
}
