package storage_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
	"github.com/stretchr/testify/require"
)

func TestOpenRefusesOtherURLs(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "mysql://root:s3cret@db/bot", "inquiry-bot.db", "sqlite:", "file:bot.db", "sqlite3:bot.db",
		"postgres://user:s3cret@db:5432/bot?%zz"} {
		_, err := storage.Open(context.Background(), u)
		require.Error(t, err, u)
		require.Contains(t, err.Error(), "DATABASE_URL", u)
		require.Contains(t, err.Error(), "sqlite:PATH", u)
		require.NotContains(t, err.Error(), "s3cret", "a password never shows in an error")
	}
}

func TestOpenRefusesBadPostgresSettings(t *testing.T) {
	t.Parallel()
	_, err := storage.Open(context.Background(), "postgres://user:s3cret@db:5432/bot?sslmode=bogus")
	require.Error(t, err)
	require.Contains(t, err.Error(), "DATABASE_URL")
	require.Contains(t, err.Error(), "sslmode")
	require.NotContains(t, err.Error(), "s3cret")
}

func TestOpenSQLiteMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := storage.Open(ctx, "sqlite::memory:")
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, storage.DialectSQLite, s.Dialect())
	rec := create(t, s, newRecord("ns", "", "q"))
	got, err := s.Inquiry(ctx, rec.Key)
	require.NoError(t, err)
	require.Equal(t, rec, got)
	require.NoError(t, s.Ping(ctx))
}

// TestOpenSQLiteSettings checks the connection settings the store relies on: WAL, a busy timeout,
// foreign keys, and transactions that take the write lock at BEGIN.
func TestOpenSQLiteSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bot.db")
	s, err := storage.Open(ctx, "sqlite:"+path)
	require.NoError(t, err)
	defer s.Close()
	db := storage.DB(s)
	for pragma, want := range map[string]string{"journal_mode": "wal", "busy_timeout": "10000", "foreign_keys": "1"} {
		var got string
		require.NoError(t, db.GetContext(ctx, &got, "PRAGMA "+pragma))
		require.Equal(t, want, got, pragma)
	}

	// An immediate transaction holds the write lock before it writes anything: a writer beside
	// it waits (here until its context gives up), and goes through once it ends.
	tx, err := db.BeginTxx(ctx, nil)
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = s.InitSetting(short, "x", "1")
	require.Error(t, err)
	require.Equal(t, inquiry.CodeStorageUnavailable, inquiry.ErrorCode(err), "%v", err)
	require.NoError(t, tx.Rollback())
	v, err := s.InitSetting(ctx, "x", "1")
	require.NoError(t, err)
	require.Equal(t, "1", v)

	// Opening again migrates nothing and keeps the data.
	require.NoError(t, s.Migrate(ctx))
	s2, err := storage.Open(ctx, "sqlite:"+path)
	require.NoError(t, err)
	defer s2.Close()
	v, err = s2.Setting(ctx, "x")
	require.NoError(t, err)
	require.Equal(t, "1", v)
}

// closedPort returns a local TCP port nobody listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return strconv.Itoa(port)
}

// TestStorageUnavailable: a PostgreSQL that cannot be reached is storage_unavailable — a passing
// fault with a sentence that says to retry — never internal, never inquiry_unavailable.
func TestStorageUnavailable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u := "postgres://postgres@127.0.0.1:" + closedPort(t) + "/bot?sslmode=disable&connect_timeout=2"

	_, err := storage.Open(ctx, u)
	requireCode(t, err, inquiry.CodeStorageUnavailable)
	require.ErrorIs(t, err, inquiry.ErrStorageUnavailable)
	require.False(t, inquiry.Fatal(err))
	require.Equal(t, "the database cannot be reached right now; retry in a few seconds", inquiry.ErrorMessage(err))

	s, err := storage.OpenUnmigrated(u) // lib/pq connects lazily
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Inquiry(ctx, "inq_x")
	requireCode(t, err, inquiry.CodeStorageUnavailable)
	_, _, err = s.CreateInquiry(ctx, newRecord("ns", "", "q"), nil)
	requireCode(t, err, inquiry.CodeStorageUnavailable)
	_, err = s.Resolve(ctx, "inq_x", inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0})
	requireCode(t, err, inquiry.CodeStorageUnavailable)
	requireCode(t, s.Ping(ctx), inquiry.CodeStorageUnavailable)
}

// An SQLite file that cannot be opened is storage_unavailable too.
func TestSQLiteUnopenable(t *testing.T) {
	t.Parallel()
	_, err := storage.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "no", "such", "dir", "bot.db"))
	requireCode(t, err, inquiry.CodeStorageUnavailable)
}

func TestMigrateTwice(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		require.NoError(t, b.store.Migrate(context.Background()))
		s2, err := storage.Open(context.Background(), b.url)
		require.NoError(t, err)
		require.NoError(t, s2.Close())
	})
}

// TestColumnsAreTheSchema: the row structs' tags, from which the store makes every column list,
// name exactly the columns the migrations make, on both dialects. A column added to one and not
// the other fails here.
func TestColumnsAreTheSchema(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		for table, cols := range storage.Columns() {
			rows, err := b.db.Query("SELECT * FROM " + table + " LIMIT 0")
			require.NoError(t, err, table)
			got, err := rows.Columns()
			require.NoError(t, rows.Close())
			require.NoError(t, err, table)
			require.ElementsMatch(t, got, cols, "the columns of %s", table)
		}
	})
}

// withUmask022 sets the umask most shells and service managers give (022, under which SQLite
// creates 0644 files) for the test and restores it after. The umask belongs to the process, so
// the tests that use it are not parallel: Go runs them before any parallel test resumes.
func withUmask022(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
}

// requirePrivate checks the file exists and only its owner may read or write it.
func requirePrivate(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "%s is %s", path, fi.Mode().Perm())
}

// The SQLite file holds the callback secret and every token's hash: Open creates it 0600, and
// its -wal and -shm files after it, whatever the umask lets through.
func TestSQLiteFilesAreCreatedPrivate(t *testing.T) {
	withUmask022(t)
	ctx := context.Background()
	for _, form := range []string{"plain", "uri"} {
		t.Run(form, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bot.db")
			url := "sqlite:" + path
			if form == "uri" {
				url = "sqlite:file:" + path
			}
			s, err := storage.Open(ctx, url)
			require.NoError(t, err)
			defer s.Close()
			_, err = s.InitSetting(ctx, "callback_secret", "s3cret") // a write: the WAL and its index exist
			require.NoError(t, err)
			for _, p := range []string{path, path + "-wal", path + "-shm"} {
				requirePrivate(t, p)
			}
		})
	}
}

// A file that is already there keeps the mode its operator gave it, and its data.
func TestSQLiteExistingFileKeepsItsMode(t *testing.T) {
	withUmask022(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bot.db")
	s, err := storage.Open(ctx, "sqlite:"+path)
	require.NoError(t, err)
	_, err = s.InitSetting(ctx, "x", "1")
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, os.Chmod(path, 0o640)) // a group that backs it up may read it

	s, err = storage.Open(ctx, "sqlite:"+path)
	require.NoError(t, err)
	defer s.Close()
	v, err := s.Setting(ctx, "x")
	require.NoError(t, err)
	require.Equal(t, "1", v)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
}

// A database in a folder that is not there is refused at Open with a sentence naming the path,
// not as a database that cannot be reached right now.
func TestSQLiteMissingFolderIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "bot.db")
	_, err := storage.Open(context.Background(), "sqlite:"+path)
	require.Equal(t, inquiry.CodeStorageUnavailable, inquiry.ErrorCode(err), "%v", err)
	require.Contains(t, inquiry.ErrorMessage(err), path)
	require.Contains(t, inquiry.ErrorMessage(err), "DATABASE_URL")
}
