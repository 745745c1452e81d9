package storage

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// tokenRow is a tokens row as SQL sees it: its tags are the token columns. Scopes are stored
// comma-separated.
type tokenRow struct {
	ID         string   `db:"id"`
	Name       string   `db:"name"`
	Namespace  string   `db:"namespace"`
	Scopes     string   `db:"scopes"`
	SecretHash []byte   `db:"secret_hash"`
	CreatedAt  dbTime   `db:"created_at"`
	RevokedAt  nullTime `db:"revoked_at"`
	Bound      bool     `db:"namespace_bound"`
}

var tokenTable = tableOf[tokenRow]()

func (r *tokenRow) token() *inquiry.Token {
	t := &inquiry.Token{ID: r.ID, Name: r.Name, Namespace: r.Namespace, SecretHash: r.SecretHash,
		CreatedAt: r.CreatedAt.Time, RevokedAt: r.RevokedAt.Ptr(), NamespaceBound: r.Bound}
	for _, sc := range strings.Split(r.Scopes, ",") {
		if sc != "" {
			t.Scopes = append(t.Scopes, inquiry.Scope(sc))
		}
	}
	return t
}

// CreateToken stores a token; a name (or id) in use is CodeIDConflict.
func (s *Store) CreateToken(ctx context.Context, t *inquiry.Token) error {
	scopes := make([]string, len(t.Scopes))
	for i, sc := range t.Scopes {
		scopes[i] = string(sc)
	}
	hash := t.SecretHash
	if hash == nil {
		hash = []byte{}
	}
	row := &tokenRow{ID: t.ID, Name: t.Name, Namespace: t.Namespace, Scopes: strings.Join(scopes, ","),
		SecretHash: hash, CreatedAt: at(t.CreatedAt), RevokedAt: atPtr(t.RevokedAt), Bound: t.NamespaceBound}
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO tokens (`+tokenTable.cols+`) VALUES (`+tokenTable.marks+`)`),
		tokenTable.args(row)...)
	return translate(err, "create the token "+quote(t.Name))
}

func quote(s string) string { return `"` + s + `"` }

var tokenByIDQuery = `SELECT ` + tokenTable.cols + ` FROM tokens WHERE id = ?`

// Token returns a token by id, revoked or not. It reads the database every time (a revoked
// token is refused at once).
func (s *Store) Token(ctx context.Context, id string) (*inquiry.Token, error) {
	var row tokenRow
	err := s.db.GetContext(ctx, &row, s.q(tokenByIDQuery), id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("no such token")
	}
	if err != nil {
		return nil, translate(err, "read the token")
	}
	return row.token(), nil
}

// ListTokens lists every token, oldest first.
func (s *Store) ListTokens(ctx context.Context) ([]*inquiry.Token, error) {
	var rows []tokenRow
	if err := s.db.SelectContext(ctx, &rows, `SELECT `+tokenTable.cols+` FROM tokens ORDER BY created_at, name`); err != nil {
		return nil, translate(err, "list tokens")
	}
	ts := make([]*inquiry.Token, len(rows))
	for i := range rows {
		ts[i] = rows[i].token()
	}
	return ts, nil
}

// RevokeToken revokes the token with name. Revoking it again keeps the first revocation time.
func (s *Store) RevokeToken(ctx context.Context, name string, now time.Time) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE name = ?`), at(now), name)
	return s.oneRow(res, err, "revoke the token", "no token named "+quote(name)+": `bot token list` shows the names")
}

// CountTokens counts tokens that are not revoked.
func (s *Store) CountTokens(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM tokens WHERE revoked_at IS NULL`)
	return n, translate(err, "count tokens")
}

// Setting reads a server setting; CodeNotFound when unset.
func (s *Store) Setting(ctx context.Context, name string) (string, error) {
	var v string
	err := s.db.GetContext(ctx, &v, s.q(`SELECT value FROM settings WHERE name = ?`), name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", notFound("setting %s is not set", quote(name))
	}
	return v, translate(err, "read a setting")
}

// InitSetting stores value under name unless it is set, and returns what is stored: of replicas
// starting together, the first one's value wins for all.
func (s *Store) InitSetting(ctx context.Context, name, value string) (string, error) {
	if _, err := s.db.ExecContext(ctx, s.q(`INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`), name, value); err != nil {
		return "", translate(err, "store a setting")
	}
	return s.Setting(ctx, name)
}
