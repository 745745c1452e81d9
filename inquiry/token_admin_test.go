package inquiry_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestTokensOnlyForAdmins: the service makes, lists and revokes tokens only for an admin caller
// (the API's admin tokens, or the operator on the database itself); without a caller nobody.
func TestTokensOnlyForAdmins(t *testing.T) {
	b := setup(t)
	asker := inquiry.WithCaller(b.ctx, &inquiry.Token{Name: "agent", Namespace: "a", Scopes: []inquiry.Scope{inquiry.ScopeAsk, inquiry.ScopeAnswer}})
	spec := inquiry.TokenSpec{Name: "ci", Scopes: []inquiry.Scope{inquiry.ScopeAdmin}}
	for _, c := range []struct {
		name string
		code inquiry.Code
		try  func() (create, list, revoke error)
	}{
		{"no caller", inquiry.CodeUnauthenticated, func() (error, error, error) {
			_, _, e1 := b.svc.CreateToken(b.ctx, spec)
			_, e2 := b.svc.ListTokens(b.ctx)
			_, e3 := b.svc.RevokeToken(b.ctx, "ci")
			return e1, e2, e3
		}},
		{"an ask and answer token", inquiry.CodeForbidden, func() (error, error, error) {
			_, _, e1 := b.svc.CreateToken(asker, spec)
			_, e2 := b.svc.ListTokens(asker)
			_, e3 := b.svc.RevokeToken(asker, "ci")
			return e1, e2, e3
		}},
	} {
		e1, e2, e3 := c.try()
		for _, err := range []error{e1, e2, e3} {
			require.Equal(t, c.code, inquiry.ErrorCode(err), "%s: %v", c.name, err)
		}
	}
	tokens, err := b.store.ListTokens(b.ctx)
	require.NoError(t, err)
	require.Empty(t, tokens, "a refused caller made a token")

	op := inquiry.WithCaller(b.ctx, inquiry.Operator())
	plain, tok, err := b.svc.CreateToken(op, inquiry.TokenSpec{Name: "ci", Scopes: []inquiry.Scope{" Ask ", "ask"}})
	require.NoError(t, err)
	require.Equal(t, []inquiry.Scope{inquiry.ScopeAsk}, tok.Scopes)
	require.Equal(t, "ci", tok.Namespace)
	require.False(t, tok.NamespaceBound)
	got, err := inquiry.Authenticate(b.ctx, b.store, plain)
	require.NoError(t, err)
	require.Equal(t, "ci", got.Name)
	revoked, err := b.svc.RevokeToken(op, "ci")
	require.NoError(t, err)
	require.NotNil(t, revoked.RevokedAt)
	_, err = inquiry.Authenticate(b.ctx, b.store, plain)
	require.Equal(t, inquiry.CodeUnauthenticated, inquiry.ErrorCode(err))
}
