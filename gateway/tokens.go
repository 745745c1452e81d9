package gateway

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/inquiry-bot/bot/inquiry"
)

// The token endpoints (admin only): an operator who reaches the server only over HTTP makes,
// lists and revokes tokens on the server itself, not on a database file beside the CLI. The
// rules (names, scopes, who may) are the service's.

// TokenView is a token as the API shows it: never its secret nor the secret's hash.
type TokenView struct {
	Name           string          `json:"name"`
	Namespace      string          `json:"namespace"`
	NamespaceBound bool            `json:"namespace_bound"`
	Scopes         []inquiry.Scope `json:"scopes"`
	CreatedAt      time.Time       `json:"created_at"`
	RevokedAt      *time.Time      `json:"revoked_at"`
}

// NewTokenView is the body of POST /v1/tokens: the token, and its plain text, shown this once.
type NewTokenView struct {
	TokenView
	Token string `json:"token"`
}

// TokenList is the body of GET /v1/tokens: every token, oldest first, and the callback secret
// in effect (BOT_CALLBACK_SECRET or the generated one), so an operator can verify callbacks.
// An admin token may answer anything, and so make a signed callback anyway: showing it the
// secret gives it nothing more.
type TokenList struct {
	Tokens         []TokenView `json:"tokens"`
	CallbackSecret string      `json:"callback_secret"`
}

func tokenView(t *inquiry.Token) TokenView {
	scopes := t.Scopes
	if scopes == nil {
		scopes = []inquiry.Scope{}
	}
	return TokenView{Name: t.Name, Namespace: t.Namespace, NamespaceBound: t.NamespaceBound,
		Scopes: scopes, CreatedAt: t.CreatedAt, RevokedAt: t.RevokedAt}
}

// tokenRoutes adds the token endpoints to the authenticated /v1 group.
func (s *Server) tokenRoutes(v1 gin.IRoutes) {
	v1.POST("/tokens", s.need(inquiry.ScopeAdmin), s.createToken)
	v1.GET("/tokens", s.need(inquiry.ScopeAdmin), s.listTokens)
	v1.POST("/tokens/:name/revoke", s.need(inquiry.ScopeAdmin), s.revokeToken)
}

func (s *Server) createToken(c *gin.Context) {
	var b inquiry.TokenSpec
	if !s.bind(c, &b, false) {
		return
	}
	plain, tok, err := s.svc.CreateToken(c.Request.Context(), b)
	if err != nil {
		s.abort(c, err)
		return
	}
	c.JSON(http.StatusCreated, NewTokenView{TokenView: tokenView(tok), Token: plain})
}

func (s *Server) listTokens(c *gin.Context) {
	tokens, err := s.svc.ListTokens(c.Request.Context())
	if err != nil {
		s.abort(c, err)
		return
	}
	out := TokenList{Tokens: make([]TokenView, 0, len(tokens))}
	for _, t := range tokens {
		out.Tokens = append(out.Tokens, tokenView(t))
	}
	if s.cfg.CallbackSecret != nil {
		out.CallbackSecret = string(s.cfg.CallbackSecret())
	}
	c.JSON(http.StatusOK, out)
}

func (s *Server) revokeToken(c *gin.Context) {
	if !s.bind(c, &struct{}{}, true) {
		return
	}
	tok, err := s.svc.RevokeToken(c.Request.Context(), c.Param("name"))
	if err != nil {
		s.abort(c, err)
		return
	}
	c.JSON(http.StatusOK, tokenView(tok))
}
