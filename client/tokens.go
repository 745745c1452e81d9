package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/inquiry-bot/bot/inquiry"
)

// The token endpoints take an admin token; any other is refused (forbidden).

// TokenSpec is what a new token is made of (POST /v1/tokens): its name, scopes and, optionally,
// the namespace it binds.
type TokenSpec = inquiry.TokenSpec

// TokenList is the answer of GET /v1/tokens: every token (never a secret) and the server's
// callback secret.
type TokenList struct {
	Tokens         []*inquiry.Token `json:"tokens"`
	CallbackSecret string           `json:"callback_secret"`
}

// newToken is the answer of POST /v1/tokens: the token and its plain text.
type newToken struct {
	inquiry.Token
	Plain string `json:"token"`
}

// CreateToken makes a token on the server and returns its plain text (shown this once: the
// server keeps only its hash) and the token as stored.
func (c *Client) CreateToken(ctx context.Context, spec TokenSpec) (string, *inquiry.Token, error) {
	out, err := call[newToken](ctx, c, http.MethodPost, "/v1/tokens", nil, spec, 0)
	if err != nil {
		return "", nil, err
	}
	return out.Plain, &out.Token, nil
}

// ListTokens lists every token of the server, revoked ones too, oldest first.
func (c *Client) ListTokens(ctx context.Context) (*TokenList, error) {
	return call[TokenList](ctx, c, http.MethodGet, "/v1/tokens", nil, nil, 0)
}

// RevokeToken revokes the token with name: the server refuses it from then on.
func (c *Client) RevokeToken(ctx context.Context, name string) (*inquiry.Token, error) {
	return call[inquiry.Token](ctx, c, http.MethodPost, "/v1/tokens/"+url.PathEscape(name)+"/revoke", nil, struct{}{}, 0)
}
