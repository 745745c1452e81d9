package gateway_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConformanceCheckerCatches makes sure the checker every test leans on is not vacuous.
func TestConformanceCheckerCatches(t *testing.T) {
	t.Parallel()
	answer := `{"inquiry_id":"a","value":null,"text":"","declined":true,"truncated":false,"answered_by":"","source":"default","answered_at":"2026-12-01T12:00:00Z"}`
	inq := func(mod func(string) string) string {
		s := `{"key":"inq_1","id":"a","run_id":"","kind":"confirm","question":"Q?","context":"","options":[],"multiple":false,"allow_text":false,"default":null,"expires_at":null,"namespace":"n","config":{"policy":"default","transport":"inbox"},"status":"answered","answer":` + answer + `,"slack":{"channel":"","thread_ts":"","ts":"","permalink":"","answerers":[]},"failure":null,"created_at":"2026-12-01T12:00:00Z","resolved_at":"2026-12-01T12:00:00Z"}`
		return mod(s)
	}
	same := func(s string) string { return s }
	check := func(status int, body string) string {
		req, _ := http.NewRequest("GET", "http://x/v1/inquiries/inq_1", nil)
		res := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader([]byte(body)))}
		return checkResponse(req, nil, res, []byte(body))
	}
	require.Empty(t, check(200, inq(same)))
	require.Empty(t, check(200, inq(func(s string) string { return strings.Replace(s, `"default":null`, `"default":["a","b"]`, 1) })))
	require.Empty(t, check(200, inq(func(s string) string { return strings.Replace(s, `"default":null`, `"default":"yes"`, 1) })))
	for name, bad := range map[string]string{
		"extra property":      inq(func(s string) string { return strings.Replace(s, `"key":"inq_1"`, `"key":"inq_1","secret":1`, 1) }),
		"missing property":    inq(func(s string) string { return strings.Replace(s, `"context":"",`, ``, 1) }),
		"wrong type":          inq(func(s string) string { return strings.Replace(s, `"multiple":false`, `"multiple":"no"`, 1) }),
		"null options":        inq(func(s string) string { return strings.Replace(s, `"options":[]`, `"options":null`, 1) }),
		"bad enum":            inq(func(s string) string { return strings.Replace(s, `"status":"answered"`, `"status":"done"`, 1) }),
		"nested extra":        inq(func(s string) string { return strings.Replace(s, `"truncated":false`, `"truncated":false,"x":1`, 1) }),
		"value of wrong type": inq(func(s string) string { return strings.Replace(s, `"default":null`, `"default":5`, 1) }),
	} {
		require.NotEmpty(t, check(200, bad), name)
	}
	require.NotEmpty(t, check(201, inq(same)), "an undocumented status")
	require.NotEmpty(t, check(404, `{"error":{"code":"not_found","message":"x","fatal":true}}`), "fatal on a non-fatal code")
	require.NotEmpty(t, check(409, `{"error":{"code":"not_found","message":"x","fatal":false}}`), "a code with another status")
	require.NotEmpty(t, check(404, `{"error":{"code":"not_found","message":"x","fatal":false,"extra":1}}`), "extra error field")
	require.Empty(t, check(404, `{"error":{"code":"not_found","message":"x","fatal":false}}`))
}
