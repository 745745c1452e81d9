package inquiry

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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

// Key lengths: "inq_", the time part, the random part.
const (
	// keyTimeChars is how many characters of a key spell its time: 45 bits of Unix milliseconds,
	// which last until the year 3084.
	keyTimeChars = 9
	// keyRandomChars is the random part: 100 bits.
	keyRandomChars = 20
	// KeyChars is the length of a key NewKey makes; keys of earlier versions are shorter (24).
	KeyChars = len("inq_") + keyTimeChars + keyRandomChars
)

// keyTimeMax is the last millisecond the time part spells; a later time is spelt as it, so
// that a key made later never sorts first.
const keyTimeMax = 1<<(5*keyTimeChars) - 1

// sortedBase32 is lowerBase32's alphabet in byte order, so that the time part of keys sorts as
// the times do.
const sortedBase32 = "234567abcdefghijklmnopqrstuvwxyz"

// NewKey returns a new server key for an inquiry made at now: opaque and URL-safe, "inq_", nine
// characters of now's millisecond, then 100 random bits. The time comes first so that keys made
// later sort later, as UUIDv7 and ULID do: the indexes a create writes by key (the inquiries'
// primary key, the events' and placements' by inquiry) then grow at their end, one page for a
// batch of creates instead of a page for each, which made creates on SQLite a third faster
// (docs/BENCHMARKS.md). What the prefix tells is the creation time, which the inquiry shows
// anyway; the random part is as long as before it.
func NewKey(now time.Time) string {
	ms := uint64(min(max(now.UnixMilli(), 0), keyTimeMax))
	b := make([]byte, 0, KeyChars)
	b = append(b, "inq_"...)
	for i := keyTimeChars - 1; i >= 0; i-- {
		b = append(b, sortedBase32[(ms>>(5*i))&31])
	}
	return string(append(b, randomString(13)[:keyRandomChars]...))
}

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
	id, _, ok := ParseToken(plain)
	if !ok {
		return nil, errTokenRefused()
	}
	t, err := store.Token(ctx, id)
	if err != nil {
		if ErrorCode(err) == CodeNotFound {
			return nil, errTokenRefused()
		}
		return nil, err
	}
	return checkSecret(plain, t)
}

// errTokenRefused is the one sentence for every token that does not let a request in.
func errTokenRefused() *Error {
	return Errorf(CodeUnauthenticated, "the bearer token is missing, unknown or revoked: send Authorization: Bearer <token> with a token from `bot token create`")
}

// checkSecret returns t when plain is its token — the secret's hash equal in constant time — and
// it is not revoked; t nil is an unknown id.
func checkSecret(plain string, t *Token) (*Token, error) {
	_, secret, ok := ParseToken(plain)
	if !ok || t == nil {
		return nil, errTokenRefused()
	}
	sum := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(sum[:], t.SecretHash) != 1 || t.RevokedAt != nil {
		return nil, errTokenRefused()
	}
	return t, nil
}

// ParseScopes reads a comma-separated scope list such as "ask,answer" (CheckScopes' rules).
func ParseScopes(s string) ([]Scope, error) {
	var scopes []Scope
	for _, part := range strings.Split(s, ",") {
		scopes = append(scopes, Scope(part))
	}
	return CheckScopes(scopes)
}

// CheckScopes returns a new token's scopes as stored: each one of ask, answer or admin (in any
// case, blanks around it ignored), each once, in the order given; at least one.
func CheckScopes(scopes []Scope) ([]Scope, error) {
	var out []Scope
	for _, part := range scopes {
		sc := Scope(strings.TrimSpace(strings.ToLower(string(part))))
		switch sc {
		case ScopeAsk, ScopeAnswer, ScopeAdmin:
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		case "":
		default:
			return nil, FieldErrorf(CodeBadRequest, "scopes", "scope %q is not one of ask, answer or admin: use a list of them", string(part))
		}
	}
	if len(out) == 0 {
		return nil, FieldErrorf(CodeBadRequest, "scopes", "no scope given: use ask, answer or admin (comma-separated on the command line)")
	}
	return out, nil
}

// MaxTokenNameChars bounds a token's name and namespace: names are typed on command lines,
// shown in lists and logged with every request.
const MaxTokenNameChars = 100

// tokenNameChars are the characters a token name may hold besides letters and digits: none
// that needs quoting in a shell, a URL path or a log line.
const tokenNameChars = "._-@:+"

// checkTokenName enforces MaxTokenNameChars letters, digits and tokenNameChars.
func checkTokenName(field, s string) error {
	if strings.TrimSpace(s) == "" {
		return FieldErrorf(CodeBadRequest, field, "%s is required: give the token a %s such as nightly-deploy", field, field)
	}
	if n := utf8.RuneCountInString(s); n > MaxTokenNameChars {
		return FieldErrorf(CodeBadRequest, field, "%s is %d characters long but may have at most %d: use a shorter one such as nightly-deploy", field, n, MaxTokenNameChars)
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(tokenNameChars, r) {
			return FieldErrorf(CodeBadRequest, field, "%s %q holds %q: use letters, digits and %s only, such as nightly-deploy", field, s, r, strings.Join(strings.Split(tokenNameChars, ""), " "))
		}
	}
	return nil
}

// TokenSpec is what a new token is made of.
type TokenSpec struct {
	Name   string  `json:"name"`
	Scopes []Scope `json:"scopes"`
	// Namespace is where its inquiries and runs live; "" means the name, binding nothing. Given,
	// it binds the token: with the answer scope it then answers that namespace only.
	Namespace string `json:"namespace,omitempty"`
}

// Operator is the caller of the token commands run on the database itself (bot token with
// DATABASE_URL and no BOT_URL): whoever can open the database holds every token already, so it
// acts as an admin. No edge that serves a network may use it.
func Operator() *Token {
	return &Token{Name: "operator", Namespace: "operator", Scopes: []Scope{ScopeAdmin}}
}

// mayManageTokens refuses a caller that is not an admin token: a token is a key to the API, and
// making one is handing out keys. Without a caller nobody is let in (fail closed).
func mayManageTokens(ctx context.Context) error {
	tok := CallerFrom(ctx)
	if tok == nil {
		return Errorf(CodeUnauthenticated, "no caller: managing tokens needs an admin token; send Authorization: Bearer <token>")
	}
	if !tok.IsAdmin() {
		return Errorf(CodeForbidden, "token %q lacks the admin scope managing tokens needs: use an admin token, such as the one bot serve printed on its first start", tok.Name)
	}
	return nil
}

// CreateToken makes a token for an admin caller and returns its plain text, which is never
// stored (only its hash is) and so is shown once, with the token as stored. A name in use,
// even by a revoked token, is CodeIDConflict.
func (s *Service) CreateToken(ctx context.Context, spec TokenSpec) (string, *Token, error) {
	if err := mayManageTokens(ctx); err != nil {
		return "", nil, err
	}
	name, namespace := Canon(spec.Name), Canon(spec.Namespace)
	if err := checkTokenName("name", name); err != nil {
		return "", nil, err
	}
	scopes, err := CheckScopes(spec.Scopes)
	if err != nil {
		return "", nil, err
	}
	bound := namespace != ""
	if !bound {
		namespace = name
	} else if err := checkTokenName("namespace", namespace); err != nil {
		return "", nil, err
	}
	plain, t := NewToken(name, namespace, scopes, s.Clock())
	t.NamespaceBound = bound
	if err := s.Store.CreateToken(ctx, t); err != nil {
		if ErrorCode(err) == CodeIDConflict {
			return "", nil, &Error{Code: CodeIDConflict, Field: "name", Err: err,
				Message: fmt.Sprintf("a token named %q exists already (a revoked token keeps its name): pick another name", name)}
		}
		return "", nil, err
	}
	return plain, t, nil
}

// ListTokens lists every token, revoked ones too, for an admin caller. A token's hash is in
// what it returns: edges show the names, never the hash.
func (s *Service) ListTokens(ctx context.Context) ([]*Token, error) {
	if err := mayManageTokens(ctx); err != nil {
		return nil, err
	}
	return s.Store.ListTokens(ctx)
}

// RevokeToken revokes the token with name for an admin caller, and returns it: every request
// it makes from now on is refused. Revoking it again keeps the first revocation. Any name is
// looked up (one made before the naming rules can still be revoked), as given and canonical.
func (s *Service) RevokeToken(ctx context.Context, name string) (*Token, error) {
	if err := mayManageTokens(ctx); err != nil {
		return nil, err
	}
	if strings.TrimSpace(name) == "" {
		return nil, FieldErrorf(CodeBadRequest, "name", "name is required: name the token to revoke, as bot token list shows it")
	}
	now := s.Clock()
	err := s.Store.RevokeToken(ctx, name, now)
	if ErrorCode(err) == CodeNotFound && Canon(name) != name {
		name = Canon(name)
		err = s.Store.RevokeToken(ctx, name, now)
	}
	if ErrorCode(err) == CodeNotFound {
		return nil, &Error{Code: CodeNotFound, Err: err,
			Message: fmt.Sprintf("no token named %q: bot token list (GET /v1/tokens) shows the names", name)}
	}
	if err != nil {
		return nil, err
	}
	s.Revoked.Fire() // whoever holds requests open rechecks them now
	tokens, err := s.Store.ListTokens(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range tokens {
		if t.Name == name {
			return t, nil
		}
	}
	return nil, Errorf(CodeNotFound, "token %q was revoked and is gone from the list: bot token list shows the rest", name)
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
