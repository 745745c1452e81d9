package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/lib/pq"
	"github.com/stretchr/testify/require"
)

func TestTranslate(t *testing.T) {
	t.Parallel()
	mine := inquiry.Errorf(inquiry.CodeAlreadyResolved, "no longer pending")
	for _, tc := range []struct {
		name string
		err  error
		want inquiry.Code
	}{
		{"nil", nil, ""},
		{"ours passes through", fmt.Errorf("wrapped: %w", mine), inquiry.CodeAlreadyResolved},
		{"no rows", sql.ErrNoRows, inquiry.CodeNotFound},
		{"unique violation", &pq.Error{Code: "23505"}, inquiry.CodeIDConflict},
		{"admin shutdown", &pq.Error{Code: "57P01"}, inquiry.CodeStorageUnavailable},
		{"cannot connect now", &pq.Error{Code: "57P03"}, inquiry.CodeStorageUnavailable},
		{"too many connections", &pq.Error{Code: "53300"}, inquiry.CodeStorageUnavailable},
		{"connection failure", &pq.Error{Code: "08006"}, inquiry.CodeStorageUnavailable},
		{"read-only standby", &pq.Error{Code: "25006"}, inquiry.CodeStorageUnavailable},
		{"sql client unable to establish connection", &pq.Error{Code: "08001"}, inquiry.CodeStorageUnavailable},
		{"server rejected the connection", &pq.Error{Code: "08004"}, inquiry.CodeStorageUnavailable},
		{"connection does not exist", &pq.Error{Code: "08003"}, inquiry.CodeStorageUnavailable},
		{"protocol violation", &pq.Error{Code: "08P01"}, inquiry.CodeStorageUnavailable},
		{"crash shutdown", &pq.Error{Code: "57P02"}, inquiry.CodeStorageUnavailable},
		{"idle session timeout", &pq.Error{Code: "57P05"}, inquiry.CodeStorageUnavailable},
		{"in recovery", &pq.Error{Code: "55000", Message: "recovery is in progress"}, inquiry.CodeStorageUnavailable},
		{"lock not available", &pq.Error{Code: "55P03"}, inquiry.CodeStorageUnavailable},
		{"serialization failure", &pq.Error{Code: "40001"}, inquiry.CodeStorageUnavailable},
		{"deadlock", &pq.Error{Code: "40P01"}, inquiry.CodeStorageUnavailable},
		{"wrapped by a step", fmt.Errorf("claim: %w", &pq.Error{Code: "55000"}), inquiry.CodeStorageUnavailable},
		{"no such host", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "db.internal", IsNotFound: true}}, inquiry.CodeStorageUnavailable},
		{"dns lookup", &net.DNSError{Err: "server misbehaving", Name: "db.internal", IsTemporary: true}, inquiry.CodeStorageUnavailable},
		{"connect timeout", &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}, inquiry.CodeStorageUnavailable},
		{"refused, unwrapped", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), inquiry.CodeStorageUnavailable},
		{"host unreachable", fmt.Errorf("dial: %w", syscall.EHOSTUNREACH), inquiry.CodeStorageUnavailable},
		{"network unreachable", fmt.Errorf("dial: %w", syscall.ENETUNREACH), inquiry.CodeStorageUnavailable},
		{"not null violation", &pq.Error{Code: "23502"}, inquiry.CodeInternal},
		{"undefined table", &pq.Error{Code: "42P01"}, inquiry.CodeInternal},
		{"query canceled", &pq.Error{Code: "57014"}, inquiry.CodeInternal},
		{"database dropped", &pq.Error{Code: "57P04"}, inquiry.CodeInternal},
		{"cannot change runtime parameter", &pq.Error{Code: "55P02"}, inquiry.CodeInternal},
		{"transaction integrity constraint", &pq.Error{Code: "40002"}, inquiry.CodeInternal},
		{"bad connection", driver.ErrBadConn, inquiry.CodeStorageUnavailable},
		{"connection done", sql.ErrConnDone, inquiry.CodeStorageUnavailable},
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, inquiry.CodeStorageUnavailable},
		{"timeout", context.DeadlineExceeded, inquiry.CodeStorageUnavailable},
		{"syntax error", &pq.Error{Code: "42601"}, inquiry.CodeInternal},
		{"check violation", &pq.Error{Code: "23514"}, inquiry.CodeInternal},
		{"canceled", context.Canceled, inquiry.CodeInternal},
		{"anything else", errors.New("boom"), inquiry.CodeInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := translate(tc.err, "do the thing")
			require.Equal(t, tc.want, inquiry.ErrorCode(err))
			if tc.err != nil && tc.want != inquiry.CodeAlreadyResolved {
				require.ErrorIs(t, err, tc.err, "the cause is kept")
				require.NotContains(t, inquiry.ErrorMessage(err), tc.err.Error(), "the cause is never shown")
			}
		})
	}
	require.Equal(t, "the database cannot be reached right now; retry in a few seconds",
		inquiry.ErrorMessage(translate(driver.ErrBadConn, "x")))
}

// TestTranslateBegin: a BEGIN refused with 0A000 is a standby (lib/pq begins READ WRITE, which a
// server in recovery refuses so); the same code elsewhere is a bug.
func TestTranslateBegin(t *testing.T) {
	t.Parallel()
	standby := &pq.Error{Code: "0A000", Message: "cannot set transaction read-write mode during recovery"}
	err := translateBegin(standby, "resolve the inquiry")
	require.Equal(t, inquiry.CodeStorageUnavailable, inquiry.ErrorCode(err))
	require.Equal(t, unavailableMessage, inquiry.ErrorMessage(err))
	require.ErrorIs(t, err, standby)
	require.Equal(t, inquiry.CodeInternal, inquiry.ErrorCode(translate(standby, "resolve the inquiry")))
	require.Equal(t, inquiry.CodeStorageUnavailable, inquiry.ErrorCode(translateBegin(&pq.Error{Code: "57P03"}, "x")))
	require.Equal(t, inquiry.CodeInternal, inquiry.ErrorCode(translateBegin(errors.New("boom"), "x")))
}

// TestSQLiteBusyIsUnavailable: a writer that meets another's write lock past the busy timeout
// ("database is locked", SQLITE_BUSY) is a passing fault, as on PostgreSQL a lock timeout is.
func TestSQLiteBusyIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "busy.db")
	holder, err := sql.Open("sqlite", path+"?_pragma=journal_mode(WAL)")
	require.NoError(t, err)
	defer holder.Close()
	_, err = holder.ExecContext(ctx, "CREATE TABLE t (x INTEGER)")
	require.NoError(t, err)
	tx, err := holder.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer tx.Rollback()                                      //nolint:errcheck
	_, err = tx.ExecContext(ctx, "INSERT INTO t VALUES (1)") // holds the one write lock
	require.NoError(t, err)

	other, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(0)")
	require.NoError(t, err)
	defer other.Close()
	_, err = other.ExecContext(ctx, "INSERT INTO t VALUES (2)")
	require.ErrorContains(t, err, "database is locked")
	got := translate(err, "write")
	require.Equal(t, inquiry.CodeStorageUnavailable, inquiry.ErrorCode(got))
	require.Equal(t, unavailableMessage, inquiry.ErrorMessage(got))
}
