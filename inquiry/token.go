package inquiry

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"strings"
	"time"
)

// tokenPrefix marks the bot's API tokens so they are easy to recognise (and to scan for in
// leaked text).
const tokenPrefix = "bot_"

var lowerBase32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// randomString returns n random bytes as lower-case base32.
func randomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error()) // never happens on a supported platform
	}
	return lowerBase32.EncodeToString(b)
}

// NewKey returns a new server key for an inquiry: opaque, URL-safe, 100 random bits.
func NewKey() string { return "inq_" + randomString(13)[:20] }

// NewSecret returns a random secret for signing (callbacks).
func NewSecret() string { return randomString(32) }

// NewToken mints a token: the plain text to hand out once ("bot_<id>_<secret>") and the token
// to store, which keeps only a hash of the secret.
func NewToken(name, namespace string, scopes []Scope, now time.Time) (string, *Token) {
	id := randomString(8)[:12]
	secret := randomString(24)
	sum := sha256.Sum256([]byte(secret))
	return tokenPrefix + id + "_" + secret, &Token{
		ID: id, Name: name, Namespace: namespace, Scopes: scopes, SecretHash: sum[:], CreatedAt: now,
	}
}

// ParseToken splits a plain token into its id and secret.
func ParseToken(plain string) (id, secret string, ok bool) {
	rest, found := strings.CutPrefix(plain, tokenPrefix)
	if !found {
		return "", "", false
	}
	id, secret, found = strings.Cut(rest, "_")
	if !found || id == "" || secret == "" {
		return "", "", false
	}
	return id, secret, true
}

// Authenticate finds the token for a plain token text and checks its secret in constant time.
// Unknown, malformed and revoked tokens are all CodeUnauthenticated with the same sentence.
func Authenticate(ctx context.Context, store Store, plain string) (*Token, error) {
	refused := Errorf(CodeUnauthenticated, "the bearer token is missing, unknown or revoked: send Authorization: Bearer <token> with a token from `bot token create`")
	id, secret, ok := ParseToken(plain)
	if !ok {
		return nil, refused
	}
	t, err := store.Token(ctx, id)
	if err != nil {
		if ErrorCode(err) == CodeNotFound {
			return nil, refused
		}
		return nil, err
	}
	sum := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(sum[:], t.SecretHash) != 1 || t.RevokedAt != nil {
		return nil, refused
	}
	return t, nil
}

// ParseScopes reads a comma-separated scope list such as "ask,answer".
func ParseScopes(s string) ([]Scope, error) {
	var scopes []Scope
	for _, part := range strings.Split(s, ",") {
		sc := Scope(strings.TrimSpace(strings.ToLower(part)))
		switch sc {
		case ScopeAsk, ScopeAnswer, ScopeAdmin:
			scopes = append(scopes, sc)
		case "":
		default:
			return nil, Errorf(CodeBadRequest, "scope %q is not one of ask, answer or admin: use a comma-separated list of them", part)
		}
	}
	if len(scopes) == 0 {
		return nil, Errorf(CodeBadRequest, "no scope given: use ask, answer or admin (comma-separated)")
	}
	return scopes, nil
}

// MayAnswer returns nil when the token may answer rec, else the refusal (CodeForbidden) in one
// sentence: it needs the answer scope; a token bound to a namespace answers only that
// namespace's inquiries; and the token that asked an inquiry never answers it — an agent does
// not approve its own question. The one exception is an admin token, the operator's own.
func MayAnswer(t *Token, rec *Record) error {
	if !t.Has(ScopeAnswer) {
		return Errorf(CodeForbidden, "token %q lacks the answer scope answering needs: answer with a token created with `bot token create --scope answer`", t.Name)
	}
	if !t.SeesAll() && rec.Namespace != t.Namespace {
		return Errorf(CodeForbidden, "token %q answers only namespace %q and inquiry %s belongs to another: answer it with a token of that namespace, or one created without --namespace", t.Name, t.Namespace, rec.Key)
	}
	if rec.AskedBy != "" && rec.AskedBy == t.Name && !t.IsAdmin() {
		return Errorf(CodeForbidden, "token %q asked inquiry %s and may not answer it: an asker never answers its own question; a person answers it in Slack or with a token of their own", t.Name, rec.Key)
	}
	return nil
}

// IsAdmin reports whether the token carries the admin scope itself.
func (t *Token) IsAdmin() bool {
	for _, sc := range t.Scopes {
		if sc == ScopeAdmin {
			return true
		}
	}
	return false
}
