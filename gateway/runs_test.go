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
	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

func TestRunLifecycle(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		rcv := newReceiver(t) // on 127.0.0.1: allow-listed
		b := setup(t, withDB(db), withCallbackHosts(rcv.host()))

		// Register: 201 new, 200 again (taking the config and resume URL given).
		r := b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "deploy-42", "config": askPolicy("ask")})
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
		run := r.json(t)
		require.Equal(t, "running", run["status"])
		require.Equal(t, "team-a", run["namespace"])
		require.Equal(t, map[string]any{}, run["answers"])
		require.Nil(t, run["waiting_on"])
		require.Equal(t, "/v1/runs/deploy-42", r.header.Get("Location"))
		r = b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "deploy-42", "resume_url": rcv.URL + "/resume?token=s3cret"})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Equal(t, rcv.URL+"/resume?token=s3cret", r.json(t)["resume_url"])
		require.Equal(t, map[string]any{"policy": "ask"}, r.json(t)["config"], "the config given first is kept")

		// Heartbeat.
		before := b.do("GET", "/v1/runs/deploy-42", b.askA, nil).json(t)["heartbeat_at"]
		b.later.Add(int64(time.Second)) // the service's clock moves on: the heartbeat comes later
		r = b.do("POST", "/v1/runs/deploy-42/heartbeat", b.askA, nil)
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.NotEqual(t, before, r.json(t)["heartbeat_at"])
		b.do("POST", "/v1/runs/nope/heartbeat", b.askA, nil).errorOf(t, 404, inquiry.CodeNotFound)
		b.do("GET", "/v1/runs/nope", b.askA, nil).errorOf(t, 404, inquiry.CodeNotFound)

		// Outcome 3: nobody answers within the wait — 202, the run waits on the whole inquiry.
		ask := map[string]any{"id": "deploy-42:why", "kind": "text", "question": "Why did the canary fail?", "wait": 0}
		r = b.do("POST", "/v1/runs/deploy-42/ask", b.askA, ask)
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		got := r.json(t)
		require.Equal(t, "waiting", got["status"])
		require.NotContains(t, got, "answer")
		inq := got["inquiry"].(map[string]any)
		require.Equal(t, "pending", inq["status"])
		require.Equal(t, "deploy-42", inq["run_id"])
		require.Equal(t, map[string]any{"policy": "ask", "transport": "inbox"}, inq["config"], "the run's config applies")
		run = b.do("GET", "/v1/runs/deploy-42", b.askA, nil).json(t)
		require.Equal(t, "waiting", run["status"])
		require.Equal(t, inq["key"], run["waiting_on"].(map[string]any)["key"])
		require.Equal(t, "Why did the canary fail?", run["waiting_on"].(map[string]any)["question"])

		// A later answer resumes it: the answer lands in the state (cut to 200) and the signed
		// resume callback arrives.
		long := strings.Repeat("the disk filled up; ", 20) // 400 characters
		r = b.do("POST", "/v1/inquiries/"+str(inq["key"])+"/answer", b.answerer, map[string]any{"text": long})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		cb := rcv.next(t)
		require.NoError(t, client.Verify(b.secret, cb.header.Get(client.HeaderSignature), cb.header.Get(client.HeaderTimestamp), cb.body, time.Now(), time.Minute))
		require.Error(t, client.Verify([]byte("another secret"), cb.header.Get(client.HeaderSignature), cb.header.Get(client.HeaderTimestamp), cb.body, time.Now(), time.Minute))
		require.Equal(t, "resume", cb.header.Get(client.HeaderEvent))
		require.NotEmpty(t, cb.header.Get(client.HeaderDelivery))
		require.Equal(t, "application/json", cb.header.Get("Content-Type"))
		checkSchema(t, "ResumeCallback", cb.body)
		var resume struct {
			Run       gateway.RunView `json:"run"`
			InquiryID string          `json:"inquiry_id"`
			Answer    inquiry.Answer  `json:"answer"`
			Inquiry   inquiry.Record  `json:"inquiry"`
		}
		require.NoError(t, json.Unmarshal(cb.body, &resume))
		require.Equal(t, "deploy-42:why", resume.InquiryID)
		require.Equal(t, strings.TrimSpace(long), resume.Answer.Text, "the callback carries the full answer")
		state := resume.Run.Answers["deploy-42:why"]
		require.Len(t, []rune(state.Text), inquiry.StateTextChars, "the run's state keeps the cut")
		require.True(t, state.Truncated)
		require.Equal(t, "waiting", string(resume.Run.Status), "a waiting run stays waiting until it is resumed")
		require.Equal(t, inquiry.StatusAnswered, resume.Inquiry.Status)

		run = b.do("GET", "/v1/runs/deploy-42", b.askA, nil).json(t)
		a := run["answers"].(map[string]any)["deploy-42:why"].(map[string]any)
		require.Len(t, []rune(str(a["text"])), inquiry.StateTextChars)
		require.Equal(t, true, a["truncated"])

		// Outcome 1: the re-entering process asks again and gets the state's answer, and no
		// second inquiry is made.
		r = b.do("POST", "/v1/runs/deploy-42/ask", b.askA, ask)
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		got = r.json(t)
		require.Equal(t, "answered", got["status"])
		require.Equal(t, str(a["text"]), got["answer"].(map[string]any)["text"])
		require.Equal(t, "running", got["run"].(map[string]any)["status"])
		require.Nil(t, got["run"].(map[string]any)["waiting_on"])
		r = b.do("GET", "/v1/inquiries?run_id=deploy-42", b.askA, nil)
		require.Len(t, r.json(t)["inquiries"], 1, "a question is never asked twice")

		// Outcome 2: answered within the wait — the full capped answer, the state's cut.
		done := make(chan resp, 1)
		go func() {
			done <- b.do("POST", "/v1/runs/deploy-42/ask", b.askA, map[string]any{
				"id": "deploy-42:note", "kind": "text", "question": "Anything to add?", "wait": 30})
		}()
		var key string
		require.Eventually(t, func() bool {
			r := b.do("GET", "/v1/inquiries?run_id=deploy-42&status=pending", b.askA, nil)
			list := r.json(t)["inquiries"].([]any)
			if len(list) == 0 {
				return false
			}
			key = str(list[0].(map[string]any)["key"])
			return b.hub.Waiters() == 1
		}, 5*time.Second, 10*time.Millisecond)
		r = b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"text": long})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		r = <-done
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		got = r.json(t)
		require.Equal(t, strings.TrimSpace(long), got["answer"].(map[string]any)["text"])
		note := got["run"].(map[string]any)["answers"].(map[string]any)["deploy-42:note"].(map[string]any)
		require.Len(t, []rune(str(note["text"])), inquiry.StateTextChars)

		// Policy default inside the run: outcome 2 at once.
		r = b.do("POST", "/v1/runs/deploy-42/ask", b.askA, choice("deploy-42:merge", "config", askPolicy("default")))
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Equal(t, "default", r.json(t)["answer"].(map[string]any)["source"])

		// Resume merges answers with the same cut; answers accumulate.
		r = b.do("POST", "/v1/runs/deploy-42/resume", b.askA, map[string]any{"answers": map[string]any{
			"deploy-42:manual": map[string]any{"text": long, "source": "person", "answered_by": "U9"},
		}})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		run = r.json(t)
		require.Equal(t, "running", run["status"])
		answers := run["answers"].(map[string]any)
		require.Len(t, answers, 4)
		manual := answers["deploy-42:manual"].(map[string]any)
		require.Len(t, []rune(str(manual["text"])), inquiry.StateTextChars)
		require.Equal(t, true, manual["truncated"])
		require.Equal(t, "deploy-42:manual", manual["inquiry_id"])
		b.do("POST", "/v1/runs/deploy-42/resume", b.askA, map[string]any{"answers": map[string]any{"x": map[string]any{"source": "robot"}}}).errorOf(t, 422, inquiry.CodeInvalidAnswer)
		b.do("POST", "/v1/runs/deploy-42/resume", b.askA, map[string]any{"answers": map[string]any{"x": map[string]any{"colour": "red"}}}).errorOf(t, 400, inquiry.CodeBadRequest)
		b.do("POST", "/v1/runs/deploy-42/resume", b.askA, map[string]any{"answers": []any{}}).errorOf(t, 400, inquiry.CodeBadRequest)
		b.do("POST", "/v1/runs/nope/resume", b.askA, map[string]any{"answers": map[string]any{}}).errorOf(t, 404, inquiry.CodeNotFound)

		// The list shows the run (for `bot runs`).
		r = b.do("GET", "/v1/runs?status=running", b.askA, nil)
		require.Len(t, r.json(t)["runs"], 1)

		// Finish.
		b.do("POST", "/v1/runs/deploy-42/finish", b.askA, map[string]any{"status": "running"}).errorOf(t, 400, inquiry.CodeBadRequest)
		b.do("POST", "/v1/runs/deploy-42/finish", b.askA, map[string]any{}).errorOf(t, 400, inquiry.CodeBadRequest)
		r = b.do("POST", "/v1/runs/deploy-42/finish", b.askA, map[string]any{"status": "completed"})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Equal(t, "completed", r.json(t)["status"])
		b.do("POST", "/v1/runs/nope/finish", b.askA, map[string]any{"status": "completed"}).errorOf(t, 404, inquiry.CodeNotFound)
		e := b.do("POST", "/v1/runs/deploy-42/ask", b.askA, confirm("deploy-42:again")).errorOf(t, 400, inquiry.CodeBadRequest)
		require.Contains(t, e["message"], "completed")
	})
}

func TestRunAskRegistersAndRefuses(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db))
		// A run nobody registered is registered by its first ask.
		r := b.do("POST", "/v1/runs/adhoc/ask", b.askA, confirm("adhoc:go", "default", "yes"))
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Equal(t, "yes", r.json(t)["answer"].(map[string]any)["value"])
		require.Equal(t, "running", b.do("GET", "/v1/runs/adhoc", b.askA, nil).json(t)["status"])

		// A run whose config refuses refuses every ask, not fatally.
		r = b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "strict", "config": askPolicy("refuse")})
		require.Equal(t, http.StatusCreated, r.status)
		b.do("POST", "/v1/runs/strict/ask", b.askA, confirm("strict:go")).errorOf(t, 409, inquiry.CodeDeclined)

		// A run whose transport cannot serve fails fatally at once.
		r = b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "slacky", "config": map[string]any{"policy": "ask", "transport": "slack"}})
		require.Equal(t, http.StatusCreated, r.status)
		b.do("POST", "/v1/runs/slacky/ask", b.askA, confirm("slacky:go", "wait", 10)).errorOf(t, 503, inquiry.CodeUnavailable)
		r = b.do("GET", "/v1/inquiries?run_id=slacky", b.askA, nil)
		require.Empty(t, r.json(t)["inquiries"])

		// A cancelled inquiry gives a waiting run nothing to record: the re-entry says so.
		r = b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "c", "config": askPolicy("ask")})
		require.Equal(t, http.StatusCreated, r.status)
		r = b.do("POST", "/v1/runs/c/ask", b.askA, confirm("c:go"))
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		key := str(r.json(t)["inquiry"].(map[string]any)["key"])
		require.Equal(t, 200, b.do("POST", "/v1/inquiries/"+key+"/cancel", b.askA, nil).status)
		b.do("POST", "/v1/runs/c/ask", b.askA, confirm("c:go")).errorOf(t, 409, inquiry.CodeAlreadyResolved)
	})
}

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
