package inquiry

import (
	"errors"
	"fmt"
)

// Code names a class of error. The gateway maps each to an HTTP status in one table, slackapp to
// an ephemeral sentence; no other mapping exists.
type Code string

// Error codes, as they appear on the wire.
const (
	CodeBadRequest         Code = "bad_request"
	CodeUnauthenticated    Code = "unauthenticated"
	CodeForbidden          Code = "forbidden"
	CodeNotFound           Code = "not_found"
	CodeIDConflict         Code = "id_conflict"
	CodeAlreadyResolved    Code = "already_resolved"
	CodeDeclined           Code = "inquiry_declined"
	CodeTooLarge           Code = "too_large"
	CodeInvalidInquiry     Code = "invalid_inquiry"
	CodeInvalidAnswer      Code = "invalid_answer"
	CodeUnavailable        Code = "inquiry_unavailable"
	CodeStorageUnavailable Code = "storage_unavailable"
	CodeInternal           Code = "internal"
	// CodeRateLimited is a caller over a limit of the README's Limits (creates and answers, long-polls
	// held at once, requests without a valid token): it may retry after the answer's Retry-After.
	CodeRateLimited Code = "rate_limited"
	// CodeUnsupportedMediaType is a request body sent as something other than JSON.
	CodeUnsupportedMediaType Code = "unsupported_media_type"
	// CodeCallbackFailed is no error of a request: it is the failure an answered inquiry records
	// when its callback (or its run's resume) was given up, so the asker can see why.
	CodeCallbackFailed Code = "callback_failed"
	// CodeClientGone is a request whose client went away before its answer was ready (it
	// closed the connection, or only its side of it): no fault of the server's. The gateway
	// answers it 499, the status proxies give it, for the client that still reads.
	CodeClientGone Code = "client_closed_request"
)

// ClientGone is err, met because the request's client went away (its context was canceled),
// as the error the client is told of. A write may have been done all the same (a create taken
// into a batch commits with it), so the sentence says how to find out; repeating it is safe.
func ClientGone(err error) error {
	return &Error{Code: CodeClientGone, Err: err,
		Message: "the client closed its side of the connection before the answer was ready, so it is not known whether the request took effect: keep the connection open until the answer is read, and send the same request again (an ask with the same id is taken once, a second answer is refused as already_resolved)"}
}

// Error is the one error vocabulary: a code, one sentence a model or a person can act on, and
// the field it concerns when there is one.
type Error struct {
	Code    Code
	Message string
	Field   string // e.g. "options[2].label"
	Err     error  // the cause, if any; never shown to callers
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes every *Error match the sentinel of its code (sentinelCode), so callers test
// errors.Is(err, inquiry.ErrUnavailable) whatever the message.
func (e *Error) Is(target error) bool {
	code, ok := sentinelCode[target]
	return ok && e.Code == code
}

// Sentinels for conditions. ErrUnavailable is fatal: a transport that cannot serve (not
// configured, channel gone, token revoked) will not serve on a retry either. ErrDeclined (a
// refusal by policy) is not fatal: the run decides for itself and carries on.
var (
	ErrUnavailable        = errors.New("inquiry unavailable")
	ErrDeclined           = errors.New("inquiry declined")
	ErrNotFound           = errors.New("not found")
	ErrAlreadyResolved    = errors.New("already resolved")
	ErrStorageUnavailable = errors.New("storage unavailable")
)

// sentinelCode is the code each sentinel stands for, both ways: an *Error matches its code's
// sentinel, and a foreign error wrapping a sentinel has its code.
var sentinelCode = map[error]Code{
	ErrUnavailable:        CodeUnavailable,
	ErrDeclined:           CodeDeclined,
	ErrNotFound:           CodeNotFound,
	ErrAlreadyResolved:    CodeAlreadyResolved,
	ErrStorageUnavailable: CodeStorageUnavailable,
}

// Fatal reports whether err must stop every retry loop at once. Retry code consults it.
func Fatal(err error) bool { return err != nil && errors.Is(err, ErrUnavailable) }

// Errorf builds an *Error with a formatted sentence.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErrorf builds an *Error that names the offending field.
func FieldErrorf(code Code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Unavailable is a fatal error: the transport cannot serve. The message says how to fix it.
func Unavailable(format string, args ...any) *Error {
	return Errorf(CodeUnavailable, format, args...)
}

// ErrorCode returns the code of err, CodeInternal for anything foreign, "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	for sentinel, code := range sentinelCode {
		if errors.Is(err, sentinel) {
			return code
		}
	}
	return CodeInternal
}

// ErrorMessage returns the sentence to show for err; foreign errors get a generic sentence so
// that no internal detail (or secret) leaks to a caller.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Message
	}
	switch ErrorCode(err) {
	case CodeUnavailable:
		return "nobody can be asked: the transport is not available; do not retry, decide without asking"
	case CodeDeclined:
		return "nobody may be asked under this policy; decide yourself and say so"
	case CodeNotFound:
		return "not found"
	case CodeAlreadyResolved:
		return "this inquiry is no longer pending"
	case CodeStorageUnavailable:
		return "the database cannot be reached right now; retry in a few seconds"
	}
	return "internal error; the server log has the details"
}

// ErrorField returns the field an error names, if any.
func ErrorField(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Field
	}
	return ""
}
