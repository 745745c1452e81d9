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

// keepTokenFile writes a first start's admin token where the CLI on this machine reads it, and
// also to token.<hash of the database> beside it, this database's own file. The CLI's file is
// left as it is when it holds another database's token (a second `bot serve` in another
// directory): replacing it would silently point the CLI at the wrong server. Then one sentence on
// stderr says where this database's token is and how to use it. It returns the path it wrote for
// the CLI (the file beside when the CLI's was kept).
func (m *Main) keepTokenFile(ctx context.Context, getenv func(string) string, plain string) (string, error) {
	path, err := tokenFile(getenv)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	beside := path + "." + databaseHash(m.Config.DatabaseURL)
	foreign := m.tokenFileIsForeign(ctx, path, beside)
	if err := writeSecret(beside, plain); err != nil {
		return "", err
	}
	if !foreign {
		return writeTokenFile(getenv, plain)
	}
	fmt.Fprintf(os.Stderr, "bot serve: %s holds the token of another database, so it was left as it is; "+
		"this database's admin token was written to %s instead: point the CLI at this server with BOT_TOKEN=$(cat %s) "+
		"(or copy that file over %s to make it the CLI's default)\n", path, beside, beside, path)
	return beside, nil
}

// tokenFileIsForeign reports whether the CLI's token file holds another database's token: one
// that does not authenticate against this database and was not written by an earlier database at
// this same URL (its own file beside holds the same token: that database is gone). A file that
// is missing or empty is not foreign; one that cannot be read, or a store that cannot answer,
// counts as foreign, so that nothing is replaced unchecked.
func (m *Main) tokenFileIsForeign(ctx context.Context, path, beside string) bool {
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
	if own, err := os.ReadFile(beside); err == nil && strings.TrimSpace(string(own)) == held {
		return false
	}
	_, err = inquiry.Authenticate(ctx, m.Store, held)
	return err != nil
}

// writeSecret writes a token readable by its owner only; WriteFile keeps the mode of a file that
// exists, hence the Chmod.
func writeSecret(path, plain string) error {
	if err := os.WriteFile(path, []byte(plain+"\n"), 0o600); err != nil {
		return err
	}
	return os.Chmod(path, 0o600)
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
