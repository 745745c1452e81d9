package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
)

// keepTokenFile writes a first start's admin token where the CLI on this machine reads it, unless
// that file already holds a token this database does not know: that is another database's token
// (a second `bot serve` in another directory), and replacing it would silently point the CLI at the
// wrong server. Then the token goes beside it, in token.<hash of the database>, and one sentence on
// stderr says where and how to use it. It returns the path written.
func (m *Main) keepTokenFile(ctx context.Context, getenv func(string) string, plain string) (string, error) {
	path, err := tokenFile(getenv)
	if err != nil {
		return "", err
	}
	if !m.tokenFileIsForeign(ctx, path) {
		return writeTokenFile(getenv, plain)
	}
	beside := path + "." + databaseHash(m.Config.DatabaseURL)
	if err := os.WriteFile(beside, []byte(plain+"\n"), 0o600); err != nil {
		return "", err
	}
	// WriteFile keeps the mode of a file that exists; the token is readable by its owner only.
	if err := os.Chmod(beside, 0o600); err != nil {
		return "", err
	}
	fmt.Fprintf(os.Stderr, "bot serve: %s holds the token of another database, so it was left as it is; "+
		"this database's admin token was written to %s instead: point the CLI at this server with BOT_TOKEN=$(cat %s) "+
		"(or copy that file over %s to make it the CLI's default)\n", path, beside, beside, path)
	return beside, nil
}

// tokenFileIsForeign reports whether the token file holds a token that does not authenticate
// against this database. A file that is missing or empty is not foreign; one that cannot be read,
// or a store that cannot answer, counts as foreign, so that nothing is replaced unchecked.
func (m *Main) tokenFileIsForeign(ctx context.Context, path string) bool {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	held := strings.TrimSpace(string(b))
	if held == "" {
		return false
	}
	_, err = inquiry.Authenticate(ctx, m.Store, held)
	return err != nil
}

// databaseHash names a database in a file name: a short hash of its URL with the password
// redacted (so none reaches the disk) and a relative SQLite path made absolute, since the same
// sqlite:inquiry-bot.db in two directories is two databases.
func databaseHash(databaseURL string) string {
	u := storage.RedactURL(databaseURL)
	if rest, ok := strings.CutPrefix(u, "sqlite:"); ok && rest != ":memory:" {
		file, query, _ := strings.Cut(rest, "?")
		if abs, err := filepath.Abs(file); err == nil {
			u = "sqlite:" + abs
			if query != "" {
				u += "?" + query
			}
		}
	}
	sum := sha256.Sum256([]byte(u))
	return hex.EncodeToString(sum[:6])
}
