package inquiry_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// tokenStore is a store that holds tokens only, and remembers what it was asked.
type tokenStore struct {
	inquiry.Store
	tokens map[string]*inquiry.Token
	err    error
	asked  []string
}

func (s *tokenStore) Token(_ context.Context, id string) (*inquiry.Token, error) {
	s.asked = append(s.asked, id)
	if s.err != nil {
		return nil, s.err
	}
	t, ok := s.tokens[id]
	if !ok {
		return nil, inquiry.Errorf(inquiry.CodeNotFound, "no such token")
	}
	return t, nil
}

// TestAuthenticate: only the exact secret of a live token authenticates; every other secret
// with the right id is refused with the one sentence an unknown token gets; the store is asked
// by id only, so the secret never leaves the process; a store that cannot answer fails closed.
func TestAuthenticate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	plain, tok := inquiry.NewToken("ci", "deploys", []inquiry.Scope{inquiry.ScopeAsk}, now)
	gonePlain, gone := inquiry.NewToken("gone", "deploys", []inquiry.Scope{inquiry.ScopeAsk}, now)
	gone.RevokedAt = &now
	st := &tokenStore{tokens: map[string]*inquiry.Token{tok.ID: tok, gone.ID: gone}}
	id, secret, ok := inquiry.ParseToken(plain)
	require.True(t, ok)
	require.NotContains(t, string(tok.SecretHash), secret, "the token keeps a hash, not the secret")
	require.Len(t, tok.SecretHash, 32)

	got, err := inquiry.Authenticate(ctx, st, plain)
	require.NoError(t, err)
	require.Equal(t, "ci", got.Name)

	_, goneSecret, _ := inquiry.ParseToken(gonePlain)
	var refusal string
	for name, try := range map[string]string{
		"unknown id":         "bot_aaaaaaaaaaaa_" + secret,
		"last character off": "bot_" + id + "_" + secret[:len(secret)-1] + string(rune(secret[len(secret)-1])^1),
		"cut":                "bot_" + id + "_" + secret[:len(secret)-1],
		"longer":             "bot_" + id + "_" + secret + "a",
		"another's secret":   "bot_" + id + "_" + goneSecret,
		"upper case":         "bot_" + id + "_" + strings.ToUpper(secret),
		"empty secret":       "bot_" + id + "_",
		"no prefix":          id + "_" + secret,
		"revoked":            gonePlain,
		"empty":              "",
	} {
		_, err := inquiry.Authenticate(ctx, st, try)
		require.Equal(t, inquiry.CodeUnauthenticated, inquiry.ErrorCode(err), name)
		if refusal == "" {
			refusal = inquiry.ErrorMessage(err)
		}
		require.Equal(t, refusal, inquiry.ErrorMessage(err), "%s: every refusal reads the same", name)
	}
	for _, a := range st.asked {
		require.NotContains(t, a, secret, "the store is asked by id, never with the secret")
		require.LessOrEqual(t, len(a), 12)
	}

	st.err = inquiry.Errorf(inquiry.CodeStorageUnavailable, "down")
	_, err = inquiry.Authenticate(ctx, st, plain)
	require.Equal(t, inquiry.CodeStorageUnavailable, inquiry.ErrorCode(err), "a store that cannot answer lets nobody in")
}

// TestAuthenticateComparesInConstantTime reads Authenticate's source: the secret is hashed and
// compared with subtle.ConstantTimeCompare, and the stored hash is compared in no other way (==,
// bytes.Equal, a conversion to string). Timing is not measured: a test of it would be flaky; the
// code path is what guarantees it.
func TestAuthenticateComparesInConstantTime(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "token.go", nil, 0)
	require.NoError(t, err)
	var fn *ast.FuncDecl
	for _, d := range file.Decls {
		if f, ok := d.(*ast.FuncDecl); ok && f.Name.Name == "checkSecret" {
			fn = f
		}
	}
	require.NotNil(t, fn, "token.go has checkSecret, which both Authenticate and Service.Authenticate end in")

	mentions := func(n ast.Node, name string) bool {
		found := false
		ast.Inspect(n, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == name {
				found = true
			}
			return !found
		})
		return found
	}
	var constantTime, hashed bool
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				pkg, _ := sel.X.(*ast.Ident)
				switch {
				case pkg != nil && pkg.Name == "subtle" && sel.Sel.Name == "ConstantTimeCompare":
					constantTime = constantTime || mentions(n, "SecretHash")
				case pkg != nil && pkg.Name == "sha256":
					hashed = true
				case pkg != nil && pkg.Name == "bytes" && mentions(n, "SecretHash"):
					t.Errorf("%s: the hash is compared with bytes.%s, which is not constant-time", fset.Position(n.Pos()), sel.Sel.Name)
				}
			}
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "string" && mentions(n, "SecretHash") {
				t.Errorf("%s: the hash is turned into a string (to compare it with ==?)", fset.Position(n.Pos()))
			}
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				break
			}
			for _, side := range []ast.Expr{n.X, n.Y} {
				if isSubtle(side) { // the result of the constant-time comparison
					continue
				}
				if mentions(side, "SecretHash") || mentions(side, "secret") || mentions(side, "sum") {
					t.Errorf("%s: the secret or its hash is compared with %s", fset.Position(n.Pos()), n.Op)
				}
			}
		}
		return true
	})
	require.True(t, hashed, "checkSecret hashes the secret it is given")
	require.True(t, constantTime, "checkSecret compares the hash with subtle.ConstantTimeCompare")
}

// isSubtle reports whether e is a call into crypto/subtle.
func isSubtle(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "subtle"
}

// TestAnswerTextControlCharacters: an answer's words keep newlines and tabs (a CR LF, as a
// browser's form sends it, becomes a newline: no script is handed a carriage return), and refuse
// the control characters a terminal would act on and the overrides that reorder a line.
func TestAnswerTextControlCharacters(t *testing.T) {
	t.Parallel()
	in := &inquiry.Inquiry{ID: "why", Kind: inquiry.KindText, Question: "Why?"}
	a, err := inquiry.CheckAnswer(in, inquiry.Reply{Text: "because\r\n\tit broke"})
	require.NoError(t, err)
	require.Equal(t, "because\n\tit broke", a.Text)
	a, err = inquiry.CheckAnswer(in, inquiry.Reply{Text: "CI: FAILED\r   CI: passed"})
	require.NoError(t, err)
	require.Equal(t, "CI: FAILED\n   CI: passed", a.Text, "a lone CR is a line break, not a return over the line")
	for _, bad := range []string{"\x1b[2J", "ok\x00", "\a", "x\u0085y", "\x7f", "\x1b]0;title\a", "abc\u202edcb", "a\u2066b", "a\u2028b"} {
		_, err := inquiry.CheckAnswer(in, inquiry.Reply{Text: bad})
		require.Equal(t, inquiry.CodeInvalidAnswer, inquiry.ErrorCode(err), "%q", bad)
		require.Equal(t, "text", inquiry.ErrorField(err))
		require.Regexp(t, "control character|reorders the text|breaks or moves the line", inquiry.ErrorMessage(err))
		_, err = inquiry.CheckAnswer(in, inquiry.Reply{Declined: true, Text: bad})
		require.Error(t, err, "a decline's note too: %q", bad)
	}
}

func TestValidateSlack(t *testing.T) {
	t.Parallel()
	require.NoError(t, inquiry.ValidateSlack(inquiry.SlackRef{}))
	require.NoError(t, inquiry.ValidateSlack(inquiry.SlackRef{Channel: "C0123456789", ThreadTS: "1700000000.000100", Answerers: []string{"U0ALICE01", "W012", "S0TEAM01"}}))
	require.NoError(t, inquiry.ValidateSlack(inquiry.SlackRef{Channel: "#général"}))
	for field, ref := range map[string]inquiry.SlackRef{
		"slack.channel":      {Channel: "C1 C2"},
		"slack.thread_ts":    {ThreadTS: "1700000000.0001\x00"},
		"slack.answerers[1]": {Answerers: []string{"U1", ""}},
		"slack.answerers[0]": {Answerers: []string{"U1\u200b"}},
	} {
		err := inquiry.ValidateSlack(ref)
		require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err), field)
		require.Equal(t, field, inquiry.ErrorField(err))
	}
	err := inquiry.ValidateSlack(inquiry.SlackRef{Channel: strings.Repeat("C", inquiry.MaxSlackRefChars+1)})
	require.Contains(t, inquiry.ErrorMessage(err), "at most 255")
	err = inquiry.ValidateSlack(inquiry.SlackRef{Channel: "C\xff"})
	require.Contains(t, inquiry.ErrorMessage(err), "not valid UTF-8")
}

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
