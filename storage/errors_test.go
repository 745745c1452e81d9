package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
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
