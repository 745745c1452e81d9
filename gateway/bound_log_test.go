package gateway_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// requestLines returns the "http request" lines of a JSON log, decoded, with their sizes.
func requestLines(t *testing.T, log string) (lines []map[string]any, sizes []int) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 8<<20) // the unbounded line of before must still be read to be measured
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "log line %.200s", sc.Text())
		if m["msg"] == "http request" {
			lines = append(lines, m)
			sizes = append(sizes, len(sc.Bytes()))
		}
	}
	require.NoError(t, sc.Err())
	return lines, sizes
}

// requireExcerpt checks got is a clipped excerpt of sent: at most 200 characters of valid
// UTF-8 on one line, the start of what was sent, and marked as clipped.
func requireExcerpt(t *testing.T, got, sent, what string) {
	t.Helper()
	require.True(t, utf8.ValidString(got), "%s: valid UTF-8", what)
	require.LessOrEqual(t, utf8.RuneCountInString(got), 200, "%s: %.300s…", what, got)
	require.NotContains(t, got, "\n", what)
	require.True(t, strings.HasSuffix(got, "…"), "%s is marked as clipped: %.300s", what, got)
	require.True(t, strings.HasPrefix(sent, strings.TrimSuffix(got, "…")), "%s is the start of what was sent: %.300s", what, got)
}

// TestRequestSuppliedTextBoundedInLogAndAnswer: a long path or method, sent without a token, is
// neither written whole to the request log nor echoed whole in the 404 or 405 sentence; each
// holds a marked excerpt of at most 200 characters, valid UTF-8, on one line. The 7 kB path
// passes any request-line limit, so the bound holds on its own.
func TestRequestSuppliedTextBoundedInLogAndAnswer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var logs strings.Builder
	b := setup(t, withLog(&lockedWriter{mu: &mu, w: &logs}))

	long := "/nowhere/" + strings.Repeat("a", 7000)
	accents := "/nowhere/" + strings.Repeat("%C3%A9", 1000) // é: 2 bytes each, a cut could split one
	accentsSent := "/nowhere/" + strings.Repeat("é", 1000)
	key := strings.Repeat("k", 7000)
	method := strings.Repeat("M", 300)
	for _, c := range []struct {
		method, path, sentPath string
		status                 int
		code                   inquiry.Code
		clipped                []string // what the sentence must hold only an excerpt of
	}{
		{"GET", long, long, 404, inquiry.CodeNotFound, []string{long}},
		{"GET", accents, accentsSent, 404, inquiry.CodeNotFound, []string{accentsSent}},
		{"GET", "/nowhere/a%0Ab" + strings.Repeat("c", 300), "/nowhere/a\nb" + strings.Repeat("c", 300), 404, inquiry.CodeNotFound, []string{"/nowhere/a b" + strings.Repeat("c", 300)}},
		{method, "/nowhere", "/nowhere", 404, inquiry.CodeNotFound, []string{method}},
		{"PUT", "/v1/inquiries/" + key + "/answer", "/v1/inquiries/" + key + "/answer", 405, inquiry.CodeBadRequest, []string{"/v1/inquiries/" + key + "/answer"}},
		{method, "/healthz", "/healthz", 405, inquiry.CodeBadRequest, []string{method}},
	} {
		mu.Lock()
		logs.Reset()
		mu.Unlock()
		name := fmt.Sprintf("%.20s %.40s", c.method, c.path)
		r := b.do(c.method, c.path, "", nil)
		e := r.errorOf(t, c.status, c.code)
		msg := str(e["message"])
		require.Less(t, len(r.body), 1500, "%s: the answer is bounded: %d bytes", name, len(r.body))
		requireOneSentence(t, name, msg)
		for _, whole := range c.clipped {
			require.NotContains(t, msg, whole, "%s: echoed whole", name)
			require.Contains(t, msg, whole[:150], "%s: the sentence still shows what was asked for", name)
			require.Contains(t, msg, "…", name)
		}

		mu.Lock()
		lines, sizes := requestLines(t, logs.String())
		mu.Unlock()
		require.Len(t, lines, 1, name)
		require.Less(t, sizes[0], 2048, "%s: the log line is bounded", name)
		if len(c.sentPath) > 200 {
			requireExcerpt(t, str(lines[0]["path"]), strings.ReplaceAll(c.sentPath, "\n", " "), name+": logged path")
		} else {
			require.Equal(t, c.sentPath, lines[0]["path"])
		}
		if len(c.method) > 200 {
			requireExcerpt(t, str(lines[0]["method"]), c.method, name+": logged method")
		} else {
			require.Equal(t, c.method, lines[0]["method"])
		}
	}

	// A short path is logged and echoed as it was.
	mu.Lock()
	logs.Reset()
	mu.Unlock()
	e := b.do("GET", "/nowhere/short", "", nil).errorOf(t, 404, inquiry.CodeNotFound)
	require.Equal(t, "no endpoint GET /nowhere/short: see GET /openapi.yaml for the API", e["message"])
	mu.Lock()
	lines, _ := requestLines(t, logs.String())
	mu.Unlock()
	require.Equal(t, "/nowhere/short", lines[0]["path"])
}

// TestMegabytePathBounded: a 1 MB path, whatever answers it (a request-line limit may refuse it
// first), costs a bounded log line and a bounded answer, not a megabyte of each.
func TestMegabytePathBounded(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var logs strings.Builder
	b := setup(t, withLog(&lockedWriter{mu: &mu, w: &logs}))
	path := "/" + strings.Repeat("a", 1<<20-200) // within net/http's own 1 MB header limit
	req, err := http.NewRequest("GET", b.url+path, nil)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	n, err := bufio.NewReader(res.Body).Discard(1 << 21)
	require.ErrorContains(t, err, "EOF")
	require.Less(t, n, 2048, "the answer to a 1 MB path: %d bytes", n)
	mu.Lock()
	defer mu.Unlock()
	require.Less(t, logs.Len(), 4096, "the log for a 1 MB path: %d bytes", logs.Len())
}
