package gateway_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// A body is JSON only when it says so (issue 14 item 8): a form, a multipart body or text/plain
// is refused with 415 unsupported_media_type, not parsed as JSON; a JSON name given twice is
// refused (400) rather than the last one winning.

// sendAs sends body with the Content-Type ct ("" sends none) and token.
func sendAs(t *testing.T, b *bundle, method, path, token, ct, body string) resp {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, b.url+path, rd)
	require.NoError(t, err)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := b.http.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return resp{status: res.StatusCode, header: res.Header, body: raw}
}

// bodies is every endpoint that reads a body, with a body it takes and the token to send it.
func bodies(b *bundle, w world) []struct{ path, token, body string } {
	return []struct{ path, token, body string }{
		{"/v1/inquiries", b.askA, `{"id": "typed", "kind": "confirm", "question": "Go?"}`},
		{"/v1/inquiries/" + w.choice + "/answer", b.answerer, `{"value": "merge"}`},
		{"/v1/inquiries/" + w.text + "/cancel", b.askA, `{}`},
		{"/v1/runs", b.askA, `{"id": "typed-run"}`},
		{"/v1/runs/nightly/ask", b.askA, `{"id": "typed", "kind": "confirm", "question": "Go?"}`},
		{"/v1/runs/nightly/resume", b.askA, `{"answers": {"nightly:go": {"value": "yes"}}}`},
		{"/v1/runs/nightly/heartbeat", b.askA, `{}`},
		{"/v1/runs/nightly/finish", b.askA, `{"status": "completed"}`},
	}
}

func TestBodyNotJSONRefused(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		w := populate(t, b)
		before := b.snapshot()
		for _, e := range bodies(b, w) {
			for _, c := range []struct{ ct, says string }{
				{"text/plain", `"text/plain"`},
				{"text/plain; charset=utf-8", `"text/plain"`},
				{"application/x-www-form-urlencoded", `"application/x-www-form-urlencoded"`},
				{"multipart/form-data; boundary=x", `"multipart/form-data"`},
				{"application/xml", `"application/xml"`},
				{"application/jsonx", `"application/jsonx"`},
				{"application/json; charset=iso-8859-1", "UTF-8"},
				{"not a media type", "no media type"},
				{"", "no Content-Type"},
			} {
				r := sendAs(t, b, "POST", e.path, e.token, c.ct, e.body)
				msg := r.errorOf(t, http.StatusUnsupportedMediaType, inquiry.CodeUnsupportedMediaType)["message"].(string)
				require.Contains(t, msg, c.says, "%s as %q", e.path, c.ct)
				require.Contains(t, msg, "Content-Type: application/json", "%s as %q: the sentence says the fix", e.path, c.ct)
			}
		}
		require.Equal(t, before, b.snapshot(), "a refused body changes nothing")
	})
}

func TestBodyJSONTaken(t *testing.T) {
	t.Parallel()
	b := setup(t, withPolicy(inquiry.PolicyAsk))
	w := populate(t, b)
	for i, ct := range []string{"application/json", "application/json; charset=utf-8", `Application/JSON; Charset="UTF-8"`, "application/problem+json"} {
		id := strings.Repeat("x", i+1)
		r := sendAs(t, b, "POST", "/v1/inquiries", b.askA, ct, `{"id": "`+id+`", "kind": "confirm", "question": "Go?"}`)
		require.Equal(t, http.StatusCreated, r.status, "as %q: %s", ct, r.body)
	}
	// No body, with no Content-Type or any: nothing to read as the wrong thing.
	for _, ct := range []string{"", "text/plain"} {
		require.Equal(t, http.StatusOK, sendAs(t, b, "POST", "/v1/runs/nightly/heartbeat", b.askA, ct, "").status)
	}
	require.Equal(t, http.StatusOK, sendAs(t, b, "POST", "/v1/inquiries/"+w.text+"/cancel", b.askA, "", "").status)
}

func TestDuplicateNameRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, withPolicy(inquiry.PolicyAsk))
	populate(t, b)
	before := b.snapshot()
	// A second config would switch the policy to default if the last one won.
	for _, path := range []string{"/v1/inquiries", "/v1/runs/nightly/ask"} {
		r := sendAs(t, b, "POST", path, b.askA, "application/json",
			`{"id": "dup", "kind": "confirm", "question": "Go?", "config": {"policy": "ask"}, "config": {"policy": "default"}}`)
		e := r.errorOf(t, http.StatusBadRequest, inquiry.CodeBadRequest)
		require.Equal(t, "config", e["field"])
		require.Contains(t, e["message"], `"config" is given twice`)
	}
	r := sendAs(t, b, "POST", "/v1/runs", b.askA, "application/json", `{"id": "r", "config": {"policy": "ask"}, "config": {"policy": "default"}}`)
	r.errorOf(t, http.StatusBadRequest, inquiry.CodeBadRequest)
	require.Equal(t, before, b.snapshot())
}

// An endpoint without fields says what to send instead of a list of no fields (issue 14 item 14).
func TestNoFieldsBodySentence(t *testing.T) {
	t.Parallel()
	b := setup(t, withPolicy(inquiry.PolicyAsk))
	w := populate(t, b)
	for _, path := range []string{"/v1/inquiries/" + w.text + "/cancel", "/v1/runs/nightly/heartbeat"} {
		for _, body := range []string{"null", "[]", `"x"`} {
			e := sendAs(t, b, "POST", path, b.askA, "application/json", body).errorOf(t, http.StatusBadRequest, inquiry.CodeBadRequest)
			msg := e["message"].(string)
			require.NotContains(t, msg, "with the fields", "%s %s", path, body)
			require.True(t, strings.HasSuffix(msg, "send an empty JSON object {} or no body"), "%s %s: %s", path, body, msg)
		}
	}
}
