// Package storagetest gives tests a real database of their own: SQLite in a temporary directory
// always, and PostgreSQL when TEST_DATABASE_URL is set — which must then be reachable: a failure
// to connect fails the test, it never skips. Each PostgreSQL database is created for the test
// through the TEST_DATABASE_URL connection and dropped when the test ends, so tests run in
// parallel, commit, and LISTEN/NOTIFY without seeing each other.
package storagetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // the admin connection
)

// Env is the variable that names the PostgreSQL server of the tests.
const Env = "TEST_DATABASE_URL"

// Each runs fn as a parallel subtest "sqlite" with a fresh SQLite URL, and "postgres" with a
// fresh PostgreSQL URL when TEST_DATABASE_URL is set.
func Each(t *testing.T, fn func(t *testing.T, databaseURL string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, SQLiteURL(t))
	})
	if os.Getenv(Env) != "" {
		t.Run("postgres", func(t *testing.T) {
			t.Parallel()
			fn(t, PostgresURL(t))
		})
	}
}

// SQLiteURL is a DATABASE_URL of a new SQLite file in the test's temporary directory.
func SQLiteURL(t testing.TB) string {
	t.Helper()
	return "sqlite:" + filepath.Join(t.TempDir(), "bot.db")
}

var (
	adminOnce sync.Once
	adminDB   *sqlx.DB
	adminErr  error
)

// PostgresURL creates a database of the test's own and returns its URL; it is dropped (with
// FORCE, so leftover connections do not keep it) when the test ends. Without TEST_DATABASE_URL
// the test fails: call it only where PostgreSQL is wanted.
func PostgresURL(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(Env)
	if admin == "" {
		t.Fatalf("%s is not set: point it at a PostgreSQL server, e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", Env)
	}
	adminOnce.Do(func() {
		adminDB, adminErr = sqlx.Open("postgres", admin)
		if adminErr == nil {
			adminDB.SetMaxOpenConns(4)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			adminErr = adminDB.PingContext(ctx)
		}
	})
	if adminErr != nil {
		t.Fatalf("%s is set but PostgreSQL cannot be reached: %v", Env, adminErr)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "inqtest_" + hex.EncodeToString(b)
	if _, err := adminDB.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := adminDB.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	u.Path = "/" + name
	return u.String()
}
