package storage

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// RevokeLinks records that the links of recipient to the inquiry with key issued until at no
// longer work; a later revocation moves the instant on, an earlier one keeps it.
func (s *Store) RevokeLinks(ctx context.Context, key, recipient string, t time.Time) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO link_revocations (inquiry_key, recipient, revoked_at) VALUES (?, ?, ?)
		ON CONFLICT (inquiry_key, recipient) DO UPDATE SET revoked_at = excluded.revoked_at
		WHERE link_revocations.revoked_at < excluded.revoked_at`), key, recipient, at(t))
	return translate(err, "revoke the links of inquiry "+quote(key))
}

// LinksRevokedAt returns when the links of recipient to the inquiry with key were last revoked.
func (s *Store) LinksRevokedAt(ctx context.Context, key, recipient string) (time.Time, bool, error) {
	var t dbTime
	err := s.db.QueryRowContext(ctx, s.q(`SELECT revoked_at FROM link_revocations WHERE inquiry_key = ? AND recipient = ?`), key, recipient).Scan(&t)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, translate(err, "read the revocations of inquiry "+quote(key))
	}
	return t.Time, true, nil
}
