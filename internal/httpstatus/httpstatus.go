// Package httpstatus is the one table from an error code of the domain to an HTTP status, for
// every edge that answers over HTTP: the API (gateway) and the answer page (web).
package httpstatus

import (
	"net/http"

	"github.com/inquiry-bot/bot/inquiry"
)

// ClientClosedRequest is the status of a request whose client went away first: not in
// net/http, the one nginx and the proxies after it log for it.
const ClientClosedRequest = 499

var statusOf = map[inquiry.Code]int{
	inquiry.CodeBadRequest:           http.StatusBadRequest,
	inquiry.CodeUnauthenticated:      http.StatusUnauthorized,
	inquiry.CodeForbidden:            http.StatusForbidden,
	inquiry.CodeNotFound:             http.StatusNotFound,
	inquiry.CodeIDConflict:           http.StatusConflict,
	inquiry.CodeAlreadyResolved:      http.StatusConflict,
	inquiry.CodeDeclined:             http.StatusConflict,
	inquiry.CodeTooLarge:             http.StatusRequestEntityTooLarge,
	inquiry.CodeInvalidInquiry:       http.StatusUnprocessableEntity,
	inquiry.CodeInvalidAnswer:        http.StatusUnprocessableEntity,
	inquiry.CodeUnavailable:          http.StatusServiceUnavailable,
	inquiry.CodeStorageUnavailable:   http.StatusServiceUnavailable,
	inquiry.CodeInternal:             http.StatusInternalServerError,
	inquiry.CodeRateLimited:          http.StatusTooManyRequests,
	inquiry.CodeUnsupportedMediaType: http.StatusUnsupportedMediaType,
	inquiry.CodeGone:                 http.StatusGone,
	inquiry.CodeClientGone:           ClientClosedRequest,
}

// Known reports whether code is one of the table's: an edge answers any other as internal.
func Known(code inquiry.Code) bool {
	_, ok := statusOf[code]
	return ok
}

// Of returns the HTTP status for an error code (500 for a code it does not know).
func Of(code inquiry.Code) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}
