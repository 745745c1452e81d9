package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A second `bot serve` on another database, on the same machine (one XDG_CONFIG_HOME), keeps the
// token file the CLI reads for the first one and puts its own admin token beside it, saying where.
func TestSecondDatabaseKeepsTheTokenFile(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "cfg")
	first := startServerIn(t, t.TempDir(), "XDG_CONFIG_HOME="+cfg)
	require.True(t, strings.HasPrefix(first.admin, "bot_"))
	second := startServerIn(t, t.TempDir(), "XDG_CONFIG_HOME="+cfg)
	require.True(t, strings.HasPrefix(second.admin, "bot_"), "the second database shows its own admin token once")
	require.NotEqual(t, first.admin, second.admin)

	path := filepath.Join(cfg, "inquiry-bot", "token")
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, first.admin, strings.TrimSpace(string(saved)), "the token file still names the first server's database")

	beside := path + "." + databaseHash("sqlite:"+filepath.Join(second.dir, "bot.db"))
	requireTokenFile(t, beside, second.admin)

	// Each token is its own database's: the CLI pointed at the second server with BOT_TOKEN works.
	code, body := call(t, "GET", second.url+"/v1/inquiries", second.admin, "")
	require.Equal(t, 200, code, string(body))
	code, _ = call(t, "GET", second.url+"/v1/inquiries", first.admin, "")
	require.Equal(t, 401, code)

	// Its stderr is whole once it has exited.
	stopServer(t, second)
	log := second.stderr.String()
	require.Contains(t, log, beside, "stderr says where the new admin token is")
	require.Contains(t, log, "BOT_TOKEN", "and how to point the CLI at it")
	require.NotContains(t, log, second.admin, "no token in the log")
	require.NotContains(t, log, first.admin)
}

// A database made anew at the same DATABASE_URL (a development database deleted and started
// again) replaces the token file its predecessor wrote: that token can answer nothing any more.
func TestNewDatabaseAtTheSameURLReplacesItsTokenFile(t *testing.T) {
	dir := t.TempDir()
	first := startServerIn(t, dir)
	stopServer(t, first)
	// Start over with an empty database (SQLite's -wal and -shm files may be gone already).
	require.NoError(t, os.Remove(filepath.Join(dir, "bot.db")))
	for _, f := range []string{"bot.db-wal", "bot.db-shm"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	second := startServerIn(t, dir)
	require.True(t, strings.HasPrefix(second.admin, "bot_"), "the new database's first start")

	path := filepath.Join(dir, "cfg", "inquiry-bot", "token")
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, second.admin, strings.TrimSpace(string(saved)), "the token file is the new database's")
	stopServer(t, second)
	require.NotContains(t, second.stderr.String(), "BOT_TOKEN", "nothing to point elsewhere")
}

// databaseHash gives one name per database, and the same name to the same database.
func TestDatabaseHashNamesTheDatabase(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	t.Chdir(a)
	inA := databaseHash("sqlite:inquiry-bot.db")
	t.Chdir(b)
	require.NotEqual(t, inA, databaseHash("sqlite:inquiry-bot.db"), "the same relative SQLite path in two directories is two databases")
	require.Equal(t, inA, databaseHash("sqlite:"+filepath.Join(a, "inquiry-bot.db")))
	require.Equal(t, databaseHash("postgres://u:one@h:5432/db"), databaseHash("postgres://u:two@h:5432/db"),
		"the password is no part of the name")
	require.NotEqual(t, databaseHash("postgres://u@h:5432/one"), databaseHash("postgres://u@h:5432/two"))
}

// requireTokenFile: the token file at path is the owner's alone (0600) and holds token.
func requireTokenFile(t *testing.T, path, token string) {
	t.Helper()
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, token, strings.TrimSpace(string(saved)))
}
