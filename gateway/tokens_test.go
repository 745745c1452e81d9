package gateway_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestTokensThroughTheAPI makes, lists and revokes tokens with the admin token: the plain token
// is shown once, at create, and works at once; the list never holds a token or its secret; a
// revoked token is refused at once.
func TestTokensThroughTheAPI(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db))

		r := b.do("POST", "/v1/tokens", b.admin, map[string]any{"name": "ci-agent", "scopes": []string{"ask"}, "namespace": "team-x"})
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
		made := r.json(t)
		plain := str(made["token"])
		require.True(t, strings.HasPrefix(plain, "bot_"), "body: %s", r.body)
		require.Equal(t, "ci-agent", made["name"])
		require.Equal(t, "team-x", made["namespace"])
		require.Equal(t, true, made["namespace_bound"])
		require.Equal(t, []any{"ask"}, made["scopes"])
		require.Nil(t, made["revoked_at"])

		// It works at once, in its namespace.
		r = b.do("POST", "/v1/inquiries", plain, confirm("made-by-api"))
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body) // policy default: answered at once
		require.Equal(t, "team-x", r.json(t)["namespace"])

		// Without a namespace it is the name's, and binds nothing; scopes are kept once each.
		r = b.do("POST", "/v1/tokens", b.admin, map[string]any{"name": "bob", "scopes": []string{"answer", "ANSWER", "ask"}})
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
		require.Equal(t, "bob", r.json(t)["namespace"])
		require.Equal(t, false, r.json(t)["namespace_bound"])
		require.Equal(t, []any{"answer", "ask"}, r.json(t)["scopes"])
		bob := str(r.json(t)["token"])

		// The list: every token, never a token nor its secret; the callback secret for the admin.
		r = b.do("GET", "/v1/tokens", b.admin, nil)
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		names := map[string]map[string]any{}
		for _, v := range r.json(t)["tokens"].([]any) {
			tok := v.(map[string]any)
			require.NotContains(t, tok, "token")
			names[str(tok["name"])] = tok
		}
		for _, name := range []string{"agent-a", "agent-b", "alice", "root", "gone", "ci-agent", "bob"} {
			require.Contains(t, names, name)
		}
		require.NotNil(t, names["gone"]["revoked_at"], "the revoked token is listed as revoked")
		for _, tok := range []string{plain, bob, b.admin, b.askA} {
			_, secret, _ := inquiry.ParseToken(tok)
			require.NotContains(t, string(r.body), secret, "the list holds a token's secret")
		}
		require.Equal(t, string(b.secret), r.json(t)["callback_secret"])

		// Revoke: refused at once; again is the same revocation; an unknown name is not found.
		r = b.do("POST", "/v1/tokens/ci-agent/revoke", b.admin, nil)
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		revokedAt := r.json(t)["revoked_at"]
		require.NotNil(t, revokedAt)
		require.Equal(t, "ci-agent", r.json(t)["name"])
		require.NotContains(t, r.json(t), "token")
		b.do("GET", "/v1/inquiries", plain, nil).errorOf(t, 401, inquiry.CodeUnauthenticated)
		r = b.do("POST", "/v1/tokens/ci-agent/revoke", b.admin, map[string]any{})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Equal(t, revokedAt, r.json(t)["revoked_at"], "revoking again keeps the first time")
		e := b.do("POST", "/v1/tokens/nobody/revoke", b.admin, nil).errorOf(t, 404, inquiry.CodeNotFound)
		require.Contains(t, e["message"], `no token named "nobody"`)

		// A name in use, revoked or not, is a conflict.
		for _, name := range []string{"bob", "gone", "ci-agent"} {
			e := b.do("POST", "/v1/tokens", b.admin, map[string]any{"name": name, "scopes": []string{"ask"}}).errorOf(t, 409, inquiry.CodeIDConflict)
			require.Contains(t, e["message"], `"`+name+`" exists already`)
		}
	})
}

// TestTokensRefused: only an admin token manages tokens (and sees the callback secret), and a
// new token's name, scopes and namespace follow the rules, each refused with its field.
func TestTokensRefused(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db))
		before := b.do("GET", "/v1/tokens", b.admin, nil)
		require.Equal(t, http.StatusOK, before.status, "body: %s", before.body)

		for _, tok := range []string{b.askA, b.answerer} {
			for _, req := range []struct {
				method, path string
				body         any
			}{
				{"POST", "/v1/tokens", map[string]any{"name": "sneaky", "scopes": []string{"admin"}}},
				{"GET", "/v1/tokens", nil},
				{"POST", "/v1/tokens/root/revoke", nil},
			} {
				r := b.do(req.method, req.path, tok, req.body)
				e := r.errorOf(t, 403, inquiry.CodeForbidden)
				require.Contains(t, e["message"], "admin scope")
				require.NotContains(t, string(r.body), string(b.secret))
			}
		}
		b.do("GET", "/v1/tokens", "", nil).errorOf(t, 401, inquiry.CodeUnauthenticated)
		b.do("GET", "/v1/tokens", b.revoked, nil).errorOf(t, 401, inquiry.CodeUnauthenticated)

		for _, c := range []struct {
			name  string
			body  any
			field string
			says  string
		}{
			{"no name", map[string]any{"scopes": []string{"ask"}}, "name", "name is required"},
			{"blank name", map[string]any{"name": "  ", "scopes": []string{"ask"}}, "name", "name is required"},
			{"name with a blank", map[string]any{"name": "ci agent", "scopes": []string{"ask"}}, "name", "letters, digits"},
			{"name with a slash", map[string]any{"name": "ci/agent", "scopes": []string{"ask"}}, "name", "letters, digits"},
			{"name with ESC", map[string]any{"name": "ci\x1b[2J", "scopes": []string{"ask"}}, "name", "letters, digits"},
			{"name 101 characters", map[string]any{"name": strings.Repeat("n", 101), "scopes": []string{"ask"}}, "name", "at most 100"},
			{"no scopes", map[string]any{"name": "ci"}, "scopes", "no scope"},
			{"empty scopes", map[string]any{"name": "ci", "scopes": []string{}}, "scopes", "no scope"},
			{"unknown scope", map[string]any{"name": "ci", "scopes": []string{"ask", "root"}}, "scopes", `"root" is not one of ask, answer or admin`},
			{"namespace with a newline", map[string]any{"name": "ci", "scopes": []string{"ask"}, "namespace": "team\n"}, "namespace", "letters, digits"},
			{"scopes a string", map[string]any{"name": "ci", "scopes": "ask"}, "scopes", "list"},
			{"unknown field", map[string]any{"name": "ci", "scopes": []string{"ask"}, "secret": "mine"}, "", "secret"},
		} {
			e := b.do("POST", "/v1/tokens", b.admin, c.body).errorOf(t, 400, inquiry.CodeBadRequest)
			require.Contains(t, e["message"], c.says, c.name)
			if c.field != "" {
				require.Equal(t, c.field, e["field"], c.name)
			}
		}
		after := b.do("GET", "/v1/tokens", b.admin, nil)
		require.Equal(t, string(before.body), string(after.body), "a refused request made a token")
	})
}
