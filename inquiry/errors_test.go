package inquiry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

func TestFatal(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"no error", nil, false},
		{"the sentinel", inquiry.ErrUnavailable, true},
		{"the sentinel wrapped", fmt.Errorf("post to slack: %w", inquiry.ErrUnavailable), true},
		{"the sentinel wrapped twice", fmt.Errorf("ask: %w", fmt.Errorf("post: %w", inquiry.ErrUnavailable)), true},
		{"an unavailable *Error", inquiry.Unavailable("channel %s is gone", "C1"), true},
		{"an unavailable *Error wrapped", fmt.Errorf("deliver 7: %w", inquiry.Unavailable("token revoked")), true},
		{"an unavailable code built by hand", &inquiry.Error{Code: inquiry.CodeUnavailable, Message: "gone"}, true},
		{"joined with another error", errors.Join(io.EOF, inquiry.ErrUnavailable), true},
		{"a registry miss", func() error { _, err := inquiry.NewRegistry().Lookup("slack"); return err }(), true},
		{"a refusal by policy", inquiry.ErrDeclined, false},
		{"a refusal by policy wrapped", fmt.Errorf("ask: %w", inquiry.Errorf(inquiry.CodeDeclined, "policy refuse")), false},
		{"storage that is down for now", inquiry.Errorf(inquiry.CodeStorageUnavailable, "database down"), false},
		{"the storage sentinel", fmt.Errorf("claim: %w", inquiry.ErrStorageUnavailable), false},
		{"a wrong inquiry", inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, "kind", "kind is required"), false},
		{"a foreign error", errors.New("connection reset by peer"), false},
		{"a cancelled context", context.Canceled, false},
		{"a deadline", fmt.Errorf("wait: %w", context.DeadlineExceeded), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, inquiry.Fatal(tc.err))
			require.Equal(t, tc.want, tc.err != nil && errors.Is(tc.err, inquiry.ErrUnavailable))
		})
	}
}

func TestErrorIs(t *testing.T) {
	t.Parallel()

	sentinels := map[inquiry.Code]error{
		inquiry.CodeUnavailable:        inquiry.ErrUnavailable,
		inquiry.CodeDeclined:           inquiry.ErrDeclined,
		inquiry.CodeNotFound:           inquiry.ErrNotFound,
		inquiry.CodeAlreadyResolved:    inquiry.ErrAlreadyResolved,
		inquiry.CodeStorageUnavailable: inquiry.ErrStorageUnavailable,
	}
	codes := []inquiry.Code{
		inquiry.CodeBadRequest, inquiry.CodeUnauthenticated, inquiry.CodeForbidden, inquiry.CodeNotFound,
		inquiry.CodeIDConflict, inquiry.CodeAlreadyResolved, inquiry.CodeDeclined, inquiry.CodeTooLarge,
		inquiry.CodeInvalidInquiry, inquiry.CodeInvalidAnswer, inquiry.CodeUnavailable,
		inquiry.CodeStorageUnavailable, inquiry.CodeInternal,
	}
	for _, code := range codes {
		err := fmt.Errorf("step: %w", inquiry.Errorf(code, "something about %s", code))
		for sentinelCode, sentinel := range sentinels {
			require.Equal(t, code == sentinelCode, errors.Is(err, sentinel), "code %s against %v", code, sentinel)
		}
	}
}

func TestErrorCode(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		err  error
		want inquiry.Code
	}{
		{"no error", nil, ""},
		{"a foreign error", errors.New("pq: relation does not exist"), inquiry.CodeInternal},
		{"a wrapped foreign error", fmt.Errorf("load: %w", io.ErrUnexpectedEOF), inquiry.CodeInternal},
		{"a cancelled context", context.Canceled, inquiry.CodeInternal},
		{"an *Error", inquiry.Errorf(inquiry.CodeIDConflict, "id in use"), inquiry.CodeIDConflict},
		{"a wrapped *Error", fmt.Errorf("create: %w", inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, "id", "id is required")), inquiry.CodeInvalidInquiry},
		{"an *Error with a cause", &inquiry.Error{Code: inquiry.CodeStorageUnavailable, Message: "down", Err: io.EOF}, inquiry.CodeStorageUnavailable},
		{"the unavailable sentinel wrapped", fmt.Errorf("x: %w", inquiry.ErrUnavailable), inquiry.CodeUnavailable},
		{"the declined sentinel", inquiry.ErrDeclined, inquiry.CodeDeclined},
		{"the not-found sentinel wrapped", fmt.Errorf("x: %w", inquiry.ErrNotFound), inquiry.CodeNotFound},
		{"the already-resolved sentinel", inquiry.ErrAlreadyResolved, inquiry.CodeAlreadyResolved},
		{"the storage sentinel", inquiry.ErrStorageUnavailable, inquiry.CodeStorageUnavailable},
		{"Unavailable", inquiry.Unavailable("gone"), inquiry.CodeUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, inquiry.ErrorCode(tc.err))
		})
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()

	const secret = "xoxb-123-secret"
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"no error", nil, ""},
		{"an *Error shows its sentence", inquiry.Errorf(inquiry.CodeIDConflict, "id %q is in use with other content: use another id", "a"), `id "a" is in use with other content: use another id`},
		{"an *Error never shows its cause", &inquiry.Error{Code: inquiry.CodeStorageUnavailable, Message: "the database cannot be reached right now; retry in a few seconds", Err: errors.New("dial postgres://bot:" + secret + "@db")}, "the database cannot be reached right now; retry in a few seconds"},
		{"a wrapped *Error shows its own sentence, not the wrapping", fmt.Errorf("token %s: %w", secret, inquiry.Errorf(inquiry.CodeForbidden, "this token may not answer")), "this token may not answer"},
		{"a foreign error is generic", errors.New("pq: password authentication failed for " + secret), "internal error; the server log has the details"},
		{"a wrapped unavailable sentinel is generic", fmt.Errorf("slack token %s revoked: %w", secret, inquiry.ErrUnavailable), "nobody can be asked: the transport is not available; do not retry, decide without asking"},
		{"a wrapped declined sentinel is generic", fmt.Errorf("%s: %w", secret, inquiry.ErrDeclined), "nobody may be asked under this policy; decide yourself and say so"},
		{"a wrapped not-found sentinel is generic", fmt.Errorf("%s: %w", secret, inquiry.ErrNotFound), "not found"},
		{"a wrapped already-resolved sentinel is generic", fmt.Errorf("%s: %w", secret, inquiry.ErrAlreadyResolved), "this inquiry is no longer pending"},
		{"a wrapped storage sentinel is generic", fmt.Errorf("%s: %w", secret, inquiry.ErrStorageUnavailable), "the database cannot be reached right now; retry in a few seconds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := inquiry.ErrorMessage(tc.err)
			require.Equal(t, tc.want, got)
			require.NotContains(t, got, secret)
			require.NotContains(t, got, "\n")
		})
	}
}

func TestErrorTextKeepsTheCauseForLogs(t *testing.T) {
	t.Parallel()
	cause := errors.New("dial tcp 10.0.0.5:5432: connection refused")
	err := &inquiry.Error{Code: inquiry.CodeStorageUnavailable, Message: "the database cannot be reached right now", Err: cause}

	require.Equal(t, "the database cannot be reached right now: dial tcp 10.0.0.5:5432: connection refused", err.Error())
	require.ErrorIs(t, err, cause)
	require.ErrorIs(t, err, inquiry.ErrStorageUnavailable)
	require.Equal(t, "id is required", inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, "id", "id is required").Error())
}

func TestErrorField(t *testing.T) {
	t.Parallel()
	require.Equal(t, "options[2].label", inquiry.ErrorField(inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, "options[2].label", "x")))
	require.Equal(t, "text", inquiry.ErrorField(fmt.Errorf("answer: %w", inquiry.FieldErrorf(inquiry.CodeInvalidAnswer, "text", "x"))))
	require.Empty(t, inquiry.ErrorField(inquiry.Errorf(inquiry.CodeNotFound, "x")))
	require.Empty(t, inquiry.ErrorField(errors.New("foreign")))
	require.Empty(t, inquiry.ErrorField(nil))
}

func TestErrorfFormats(t *testing.T) {
	t.Parallel()
	e := inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, "options", "a choice offers at most %d options but has %d", 12, 13)
	require.Equal(t, &inquiry.Error{Code: inquiry.CodeInvalidInquiry, Field: "options", Message: "a choice offers at most 12 options but has 13"}, e)

	u := inquiry.Unavailable("no transport %q", "teams")
	require.Equal(t, inquiry.CodeUnavailable, u.Code)
	require.Equal(t, `no transport "teams"`, u.Message)
	require.Empty(t, u.Field)
}
