package httpstatus_test

import (
	"net/http"
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/httpstatus"
)

func TestOf(t *testing.T) {
	cases := map[inquiry.Code]int{
		inquiry.CodeForbidden:          http.StatusForbidden,
		inquiry.CodeGone:               http.StatusGone,
		inquiry.CodeStorageUnavailable: http.StatusServiceUnavailable,
		inquiry.CodeClientGone:         httpstatus.ClientClosedRequest,
		inquiry.Code("no such code"):   http.StatusInternalServerError,
	}
	for code, want := range cases {
		if got := httpstatus.Of(code); got != want {
			t.Errorf("Of(%q) = %d, want %d", code, got, want)
		}
	}
}
