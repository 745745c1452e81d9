package gateway

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/httpstatus"
)

// StatusOf returns the HTTP status for an error code (500 for a code it does not know).
func StatusOf(code inquiry.Code) int { return httpstatus.Of(code) }

// retryAfterSeconds is what a storage_unavailable answer asks the caller to wait: a passing
// fault, worth another try soon.
const retryAfterSeconds = "5"

// internalMessage is the generic sentence inquiry.ErrorMessage gives any foreign error.
var internalMessage = inquiry.ErrorMessage(errors.New("foreign"))

// ErrorBody is the body of every error answer.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the error itself: a code, one sentence a model or a person can act on, whether
// every retry must stop, and the field it concerns when there is one.
type ErrorDetail struct {
	Code    inquiry.Code `json:"code"`
	Message string       `json:"message"`
	Fatal   bool         `json:"fatal"`
	Field   string       `json:"field,omitempty"`
}

// errorDetail builds the body for err. Messages come from inquiry.ErrorMessage, so a foreign
// error (a driver's, a bug's) shows only a generic sentence.
func errorDetail(err error) ErrorDetail {
	code := inquiry.ErrorCode(err)
	if !httpstatus.Known(code) {
		code = inquiry.CodeInternal
	}
	msg := inquiry.ErrorMessage(err)
	if code == inquiry.CodeInternal {
		msg = internalMessage // whatever the cause said, it is not the caller's to read
	}
	return ErrorDetail{
		Code:    code,
		Message: oneLine(msg),
		Fatal:   inquiry.Fatal(err),
		Field:   inquiry.ErrorField(err),
	}
}

// oneLine keeps an error sentence on one line whatever a caller's input put into it.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return inquiry.OneLine(s, 0)
}

// abort answers c with err and stops the handler chain. Internal errors and storage faults are
// logged with the request id; their detail never reaches the caller.
func (s *Server) abort(c *gin.Context, err error) {
	d, status, retryAfter := s.errorAnswer(c.Request.Context(), requestID(c), err)
	if retryAfter != "" {
		c.Header("Retry-After", retryAfter)
	}
	c.Set(ctxErrorCode, string(d.Code))
	c.AbortWithStatusJSON(status, ErrorBody{Error: d})
}

// errorAnswer is abort's answer to err without a gin context (a parked long-poll has none): it
// logs what abort logs, and returns the body's detail, the status and the Retry-After ("" for
// none).
func (s *Server) errorAnswer(ctx context.Context, id string, err error) (ErrorDetail, int, string) {
	if errors.Is(ctx.Err(), context.Canceled) {
		// The request's own context ended it: net/http cancels it when the client closes the
		// connection, or only its side of it. A store call it cut short fails as the driver
		// words it (context.Canceled; PostgreSQL's "canceling statement due to user request";
		// a dial "operation was canceled", which reads as unavailable): no fault here, not
		// logged as one.
		switch inquiry.ErrorCode(err) {
		case inquiry.CodeInternal, inquiry.CodeStorageUnavailable:
			s.log.InfoContext(ctx, "request given up: its client went away", "request_id", id, "err", err)
			err = inquiry.ClientGone(err)
		}
	}
	d := errorDetail(err)
	retryAfter := ""
	switch d.Code {
	case inquiry.CodeInternal:
		s.log.ErrorContext(ctx, "request failed", "request_id", id, "err", err)
	case inquiry.CodeStorageUnavailable:
		s.log.WarnContext(ctx, "storage unavailable", "request_id", id, "err", err)
		retryAfter = retryAfterSeconds
	case inquiry.CodeRateLimited:
		if secs := retryAfterOf(err); secs > 0 {
			retryAfter = strconv.Itoa(secs)
		}
	}
	return d, StatusOf(d.Code), retryAfter
}

// abortStatus answers with a status the table does not give (the router's 405).
func (s *Server) abortStatus(c *gin.Context, status int, err error) {
	d := errorDetail(err)
	c.Set(ctxErrorCode, string(d.Code))
	c.AbortWithStatusJSON(status, ErrorBody{Error: d})
}

// logLevelFor is how loud a finished request is in the log.
func logLevelFor(status int) slog.Level {
	switch {
	case status >= 500:
		return slog.LevelWarn
	default:
		return slog.LevelInfo
	}
}
