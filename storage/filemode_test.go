package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
)

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
