package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// unavailableMessage is what a caller reads when the database cannot serve right now.
const unavailableMessage = "the database cannot be reached right now; retry in a few seconds"

// conflictMessage is what a caller reads when PostgreSQL rolled the request back to break a
// deadlock or a serialization conflict: nothing of it was kept, and the same request again is
// the cure, so it reads as a passing fault (503 with Retry-After) rather than a bug.
const conflictMessage = "the database gave up this request in a conflict with another one, and kept nothing of it; retry in a few seconds"

// translate is the one translation of a driver error into the domain's vocabulary: step says what
// was being done ("resolve the inquiry"). An *inquiry.Error passes through untouched; a missing
// row is CodeNotFound; a unique violation CodeIDConflict; a database that cannot be reached (or
// cannot take more work right now, or rolled the request back in a conflict that a retry cures)
// CodeStorageUnavailable; everything else CodeInternal, with the cause kept for the log but
// never shown.
func translate(err error, step string) error {
	if err == nil {
		return nil
	}
	var e *inquiry.Error
	if errors.As(err, &e) {
		return err
	}
	cause := fmt.Errorf("%s: %w", step, err)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return &inquiry.Error{Code: inquiry.CodeNotFound, Message: "could not " + step + ": not found", Err: cause}
	case uniqueViolation(err):
		return &inquiry.Error{Code: inquiry.CodeIDConflict,
			Message: "could not " + step + ": one with the same name or id already exists; choose another", Err: cause}
	case conflict(err):
		return &inquiry.Error{Code: inquiry.CodeStorageUnavailable, Message: conflictMessage, Err: cause}
	case unavailable(err):
		return &inquiry.Error{Code: inquiry.CodeStorageUnavailable, Message: unavailableMessage, Err: cause}
	}
	return &inquiry.Error{Code: inquiry.CodeInternal,
		Message: "internal error: could not " + step + "; the server log has the details", Err: cause}
}

// translateBegin is translate for the failure of BEGIN. lib/pq begins every transaction READ
// WRITE, and a server in recovery (a hot standby, or a primary a fail-over demoted) refuses
// exactly that with 0A000 feature_not_supported ("cannot set transaction read-write mode during
// recovery"): at BEGIN the code means a standby, wherever else it means a bug. The code, not the
// message, decides: the message is in the server's language.
func translateBegin(err error, step string) error {
	if pq.As(err, pqerror.FeatureNotSupported) != nil {
		return &inquiry.Error{Code: inquiry.CodeStorageUnavailable, Message: unavailableMessage, Err: fmt.Errorf("%s: begin: %w", step, err)}
	}
	return translate(err, step)
}

// notFound is the error for a row that is not there.
func notFound(format string, args ...any) error {
	return inquiry.Errorf(inquiry.CodeNotFound, format, args...)
}

func uniqueViolation(err error) bool {
	if pq.As(err, pqerror.UniqueViolation) != nil {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return true
		}
	}
	return false
}

// conflict reports a transaction PostgreSQL rolled back to let another finish (a serialization
// failure or a deadlock): retrying it is the documented cure.
func conflict(err error) bool {
	return pq.As(err, pqerror.TRSerializationFailure, pqerror.TRDeadlockDetected) != nil
}

// unavailable reports a passing fault: the database is down, restarting, out of connections, or
// did not answer in time. Retrying in a few seconds is the cure, so it must not read as a bug.
func unavailable(err error) bool {
	if pe := pq.As(err); pe != nil {
		switch pe.Code.Class() {
		case pqerror.ClassConnectionException, pqerror.ClassInsufficientResources:
			return true
		}
		switch pe.Code {
		case pqerror.AdminShutdown, pqerror.CrashShutdown, pqerror.CannotConnectNow,
			pqerror.IdleSessionTimeout,           // the server closed the connection under us
			pqerror.ReadOnlySQLTransaction,       // a fail-over left us on a standby for a moment
			pqerror.ObjectNotInPrerequisiteState, // "recovery is in progress": a standby, or one being promoted
			pqerror.LockNotAvailable:             // lock_timeout: another holds the row a little longer
			return true
		}
		return false
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff { // the primary result code
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN:
			return true
		}
		return false
	}
	var netErr net.Error
	switch {
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.As(err, &netErr):
		return true
	}
	return false
}
