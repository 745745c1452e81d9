package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// resumeAnswers are n answers for ids no inquiry has, from <prefix>-<from>; each decides with
// the given items.
func resumeAnswers(prefix string, from, n int, items ...string) map[string]any {
	m := make(map[string]any, n)
	for i := from; i < from+n; i++ {
		m[fmt.Sprintf("%s-%04d", prefix, i)] = map[string]any{"value": items}
	}
	return m
}

// bigItems are 12 decisions of 150 characters that JSON escapes six bytes each: 2 kB sent,
// about 11 kB of state.
func bigItems() []string {
	items := make([]string, inquiry.MaxOptions)
	for i := range items {
		items[i] = fmt.Sprintf("%02d", i) + strings.Repeat("<", inquiry.MaxOptionValueChars-2)
	}
	return items
}

// unescaped is v as JSON with <, > and & as they are, the way most clients send them (Go's
// json.Marshal would send six bytes for each).
func unescaped(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return buf.Bytes()
}

// requireRunFull checks r is the refusal of a run past its bound: 422 invalid_answer on
// answers, naming the limit and the fix.
func requireRunFull(t *testing.T, r resp, limit string) {
	t.Helper()
	e := r.errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidAnswer)
	require.Equal(t, "answers", e["field"], "body: %s", r.body)
	require.Contains(t, e["message"], limit)
	require.Contains(t, e["message"], "finish this run and start another")
}

// Repeated resumes no longer grow a run without end: at most 1,000 answers and 1 MiB of state,
// 422 invalid_answer past either; a full run asks nobody.
func TestRunBoundOverHTTP(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db))
		b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "r1"})
		r := b.do("POST", "/v1/runs/r1/resume", b.askA, map[string]any{"answers": resumeAnswers("step", 0, inquiry.MaxRunAnswers, "ok")})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		requireRunFull(t, b.do("POST", "/v1/runs/r1/resume", b.askA, map[string]any{"answers": resumeAnswers("step", inquiry.MaxRunAnswers, 1, "ok")}), "1000 answers")
		requireRunFull(t, b.do("POST", "/v1/runs/r1/ask", b.askA, map[string]any{"id": "r1:more", "kind": "confirm", "question": "More?", "wait": 0}), "1000 answers")
		require.Empty(t, b.listAll(), "a full run asks nobody")
		run := b.do("GET", "/v1/runs/r1", b.askA, nil).json(t)
		require.Len(t, run["answers"], inquiry.MaxRunAnswers)

		// 120 answers of 2 kB each fit in one body but are 1.3 MB of state.
		b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "r2"})
		requireRunFull(t, b.do("POST", "/v1/runs/r2/resume", b.askA, unescaped(t, map[string]any{"answers": resumeAnswers("big", 0, 120, bigItems()...)})), "1 MiB")
		r = b.do("POST", "/v1/runs/r2/resume", b.askA, unescaped(t, map[string]any{"answers": resumeAnswers("big", 0, 60, bigItems()...)}))
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		requireRunFull(t, b.do("POST", "/v1/runs/r2/resume", b.askA, unescaped(t, map[string]any{"answers": resumeAnswers("big", 60, 60, bigItems()...)})), "1 MiB")
		r = b.do("GET", "/v1/runs/r2", b.askA, nil)
		require.Equal(t, http.StatusOK, r.status)
		require.Len(t, r.json(t)["answers"], 60)
		require.Less(t, len(r.body), inquiry.MaxRunStateBytes+4<<10, "a run is its state and a little more")
	})
}

// A listing of runs is bounded in bytes, not only in count: 20 runs of 0.9 MB each (18 MB,
// past the client's 16 MiB) list as one page of at most MaxRunPageBytes, most recent first, and
// `bot runs` (client.ListRuns with its default of 100) reads it.
func TestRunListPageIsBounded(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db))
		ctx := context.Background()
		items := bigItems()
		for i := range items {
			items[i] = strings.Repeat("x", inquiry.MaxOptionValueChars) // 150 bytes each: 1.9 kB an answer
		}
		const runs, perRun = 20, 480
		start := time.Now().Add(-time.Hour)
		for i := range runs {
			id := fmt.Sprintf("big-%02d", i)
			_, err := b.store.PutRun(ctx, &inquiry.Run{ID: id, Namespace: "team-a"}, start)
			require.NoError(t, err)
			answers := make(map[string]inquiry.Answer, perRun)
			for j := range perRun {
				qid := fmt.Sprintf("q-%04d", j)
				answers[qid] = inquiry.Answer{InquiryID: qid, Value: inquiry.Many(items...), AnsweredBy: "agent-a", Source: inquiry.SourceCaller, AnsweredAt: start}
			}
			run, err := b.store.RecordAnswers(ctx, "team-a", id, answers, inquiry.RunRunning, start.Add(time.Duration(i)*time.Second))
			require.NoError(t, err)
			require.Greater(t, inquiry.RunStateBytes(run), 900_000)
		}

		for _, tok := range []string{b.askA, b.admin} {
			r := b.do("GET", "/v1/runs?limit=500", tok, nil)
			require.Equal(t, http.StatusOK, r.status)
			require.LessOrEqual(t, len(r.body), inquiry.MaxRunPageBytes+1<<10, "one page, however many runs")
			got := r.json(t)["runs"].([]any)
			t.Logf("GET /v1/runs?limit=500 of %d runs of 0.9 MB: a page of %d runs, %d bytes", runs, len(got), len(r.body))
			require.NotEmpty(t, got)
			require.Less(t, len(got), runs)
			for i, v := range got {
				require.Equal(t, fmt.Sprintf("big-%02d", runs-1-i), v.(map[string]any)["id"], "most recently updated first")
			}
		}

		listed, err := client.New(b.url, b.askA).ListRuns(ctx, client.RunListOptions{Limit: 100})
		require.NoError(t, err, "bot runs reads the page")
		require.NotEmpty(t, listed)
		require.Equal(t, fmt.Sprintf("big-%02d", runs-1), listed[0].ID)
	})
}
