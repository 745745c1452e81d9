package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

func TestAskPolicies(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		t.Run("no config answers by default", func(t *testing.T) {
			b := setup(t, withDB(db))
			got := b.ask(b.askA, choice("merge"), http.StatusOK)
			require.Equal(t, "answered", got["status"])
			a := got["answer"].(map[string]any)
			require.Equal(t, "default", a["source"])
			require.Equal(t, "hold", a["value"])
			require.Equal(t, false, a["declined"])
			require.Equal(t, "", a["answered_by"])
			require.Equal(t, "default", got["config"].(map[string]any)["policy"])
			require.Equal(t, "team-a", got["namespace"])
			require.True(t, strings.HasPrefix(str(got["key"]), "inq_"))

			// Without a default the assumption is a decline — a decision, not an error.
			got = b.ask(b.askA, confirm("deploy"), http.StatusOK)
			a = got["answer"].(map[string]any)
			require.Equal(t, true, a["declined"])
			require.Nil(t, a["value"])
			require.Equal(t, "default", a["source"])
		})
		t.Run("refuse is inquiry_declined, not fatal, nothing stored", func(t *testing.T) {
			b := setup(t, withDB(db))
			r := b.do("POST", "/v1/inquiries", b.askA, choice("merge", "config", askPolicy("refuse")))
			r.errorOf(t, http.StatusConflict, inquiry.CodeDeclined)
			b.requireNothingStored()
		})
		t.Run("slack on a server without slack is fatal at once, nothing stored", func(t *testing.T) {
			b := setup(t, withDB(db))
			start := time.Now()
			r := b.do("POST", "/v1/inquiries", b.askA, choice("merge", "wait", 30,
				"config", map[string]any{"policy": "ask", "transport": "slack"}))
			e := r.errorOf(t, http.StatusServiceUnavailable, inquiry.CodeUnavailable)
			require.Equal(t, true, e["fatal"])
			require.Contains(t, e["message"], "Slack")
			require.Empty(t, r.header.Get("Retry-After"), "a fatal error invites no retry")
			t.Logf("refused after %v", time.Since(start))
			// Bounded by the wait asked for, not by the machine's speed: a lookup that waited
			// would sit out the 30 s.
			require.Less(t, time.Since(start), 30*time.Second, "a transport lookup never waits")
			b.requireNothingStored()
		})
		t.Run("BOT_DEFAULT_POLICY=ask leaves it pending in the inbox", func(t *testing.T) {
			b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
			got := b.ask(b.askA, choice("merge"), http.StatusCreated)
			require.Equal(t, "pending", got["status"])
			require.Nil(t, got["answer"])
			require.Equal(t, map[string]any{"policy": "ask", "transport": "inbox"}, got["config"])

			r := b.do("GET", "/v1/inquiries?status=pending", b.answerer, nil)
			require.Equal(t, http.StatusOK, r.status)
			list := r.json(t)["inquiries"].([]any)
			require.Len(t, list, 1)
			require.Equal(t, got["key"], list[0].(map[string]any)["key"])
		})
		t.Run("an inquiry's own config overrides the server's", func(t *testing.T) {
			b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
			got := b.ask(b.askA, choice("merge", "config", askPolicy("default")), http.StatusOK)
			require.Equal(t, "answered", got["status"])
		})
	})
}

func TestAskedOnce(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		first := b.ask(b.askA, choice("deploy-42:merge", "run_id", "deploy-42", "expires_in", "2h"), http.StatusCreated)
		// The same id and content again (a re-entry computing a new expiry) is the same inquiry.
		again := b.ask(b.askA, choice("deploy-42:merge", "run_id", "deploy-42", "expires_in", "3h"), http.StatusOK)
		require.Equal(t, first["key"], again["key"])
		require.Equal(t, "pending", again["status"])

		// Other content under the same id is a conflict, and nothing changes.
		r := b.do("POST", "/v1/inquiries", b.askA, choice("deploy-42:merge", "run_id", "deploy-42", "question", "Merge later?"))
		r.errorOf(t, http.StatusConflict, inquiry.CodeIDConflict)

		// Another run, or another namespace, is another inquiry.
		b.ask(b.askA, choice("deploy-42:merge", "run_id", "deploy-43"), http.StatusCreated)
		b.ask(b.askB, choice("deploy-42:merge", "run_id", "deploy-42"), http.StatusCreated)
		require.Len(t, b.listAll(), 3)

		// Once answered, asking again returns the answered inquiry as it stands.
		r = b.do("POST", "/v1/inquiries/"+str(first["key"])+"/answer", b.answerer, map[string]any{"value": "merge"})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		again = b.ask(b.askA, choice("deploy-42:merge", "run_id", "deploy-42"), http.StatusOK)
		require.Equal(t, "answered", again["status"])
		require.Equal(t, "merge", again["answer"].(map[string]any)["value"])
	})
}

// TestRefusals sends every kind of bad input: each is answered with its code and one sentence,
// and nothing is stored.
func TestRefusals(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		thirteen := make([]any, 13)
		for i := range thirteen {
			thirteen[i] = fmt.Sprintf("option %d", i)
		}
		huge := `{"id": "big", "kind": "text", "question": "Big?", "context": "` + strings.Repeat("x", 1<<20) + `"}`
		cases := []struct {
			name   string
			body   any
			status int
			code   inquiry.Code
			field  string
			says   string
		}{
			{"not JSON", "hello", 400, inquiry.CodeBadRequest, "", "not valid JSON"},
			{"truncated JSON", `{"id": "a", "kind": "conf`, 400, inquiry.CodeBadRequest, "", "cut short"},
			{"truncated after a value", `{"id": "a",`, 400, inquiry.CodeBadRequest, "", "cut short"},
			{"empty body", "", 400, inquiry.CodeBadRequest, "", "empty"},
			{"not an object", `[1, 2]`, 400, inquiry.CodeBadRequest, "", "not a JSON object"},
			{"null", `null`, 400, inquiry.CodeBadRequest, "", "null"},
			{"trailing garbage", `{"id": "a"} x`, 400, inquiry.CodeBadRequest, "", "not valid JSON"},
			{"unknown field", confirm("a", "colour", "blue"), 400, inquiry.CodeBadRequest, "colour", "question"},
			{"unknown field in config", confirm("a", "config", map[string]any{"policy": "ask", "channel": "C1"}), 400, inquiry.CodeBadRequest, "config", "channel"},
			{"unknown field in an option", choice("a", "options", []any{map[string]any{"value": "a", "colour": "x"}, "b"}), 400, inquiry.CodeBadRequest, "options", "colour"},
			{"wrong type", confirm("a", "question", 5), 400, inquiry.CodeBadRequest, "question", "must be a string"},
			{"wrong type of a flag", choice("a", "multiple", "yes"), 400, inquiry.CodeBadRequest, "multiple", "true or false"},
			{"wrong nested type", confirm("a", "slack", map[string]any{"answerers": "U1"}), 400, inquiry.CodeBadRequest, "slack.answerers", "list of strings"},
			{"wrong option type", choice("a", "options", []any{1, 2}), 400, inquiry.CodeBadRequest, "options", "option"},
			{"wrong default type", choice("a", "default", 5), 400, inquiry.CodeBadRequest, "default", "string or a list of strings"},
			{"bad expires_at", confirm("a", "expires_at", "tomorrow"), 400, inquiry.CodeBadRequest, "expires_at", "RFC 3339"},
			{"wait not a number", confirm("a", "wait", "soon"), 400, inquiry.CodeBadRequest, "wait", "number"},
			{"wait too long", confirm("a", "wait", 56), 400, inquiry.CodeBadRequest, "wait", "55"},
			{"wait negative", confirm("a", "wait", -1), 400, inquiry.CodeBadRequest, "wait", "55"},
			{"both expiries", confirm("a", "expires_in", "2h", "expires_at", time.Now().Add(time.Hour).Format(time.RFC3339)), 422, inquiry.CodeInvalidInquiry, "expires_in", "not both"},
			{"bad expires_in", confirm("a", "expires_in", "soon"), 422, inquiry.CodeInvalidInquiry, "expires_in", "2h"},
			{"past expires_in", confirm("a", "expires_in", "-1h"), 422, inquiry.CodeInvalidInquiry, "expires_in", "future"},
			{"past expires_at", confirm("a", "expires_at", "2020-01-01T00:00:00Z"), 422, inquiry.CodeInvalidInquiry, "expires_at", "future"},
			{"no kind", map[string]any{"id": "a", "question": "Q?"}, 422, inquiry.CodeInvalidInquiry, "kind", "choice"},
			{"id of blanks", map[string]any{"id": "   ", "kind": "text", "question": "Q?"}, 422, inquiry.CodeInvalidInquiry, "id", "only blanks"},
			{"run_id of blanks", confirm("a", "run_id", " "), 422, inquiry.CodeInvalidInquiry, "run_id", "only blanks"},
			{"wait out of range", confirm("a", "wait", json.RawMessage("1e400")), 400, inquiry.CodeBadRequest, "wait", "1e400, which is out of range"},
			{"no question", map[string]any{"id": "a", "kind": "text"}, 422, inquiry.CodeInvalidInquiry, "question", "required"},
			{"too many options", choice("a", "options", thirteen, "default", nil), 422, inquiry.CodeInvalidInquiry, "options", "12"},
			{"duplicate labels", choice("a", "options", []any{"Hold", " hold "}, "default", nil), 422, inquiry.CodeInvalidInquiry, "options[1].value", "repeats"},
			{"default not an option", choice("a", "default", "ship"), 422, inquiry.CodeInvalidInquiry, "default", "not one of the option values"},
			{"options on a text", map[string]any{"id": "a", "kind": "text", "question": "Q?", "options": []any{"a", "b"}}, 422, inquiry.CodeInvalidInquiry, "options", "only for a choice"},
			{"unknown policy", confirm("a", "config", askPolicy("maybe")), 422, inquiry.CodeInvalidInquiry, "config.policy", "ask, default or refuse"},
			{"callback not http", confirm("a", "callback_url", "ftp://example.com/x"), 422, inquiry.CodeInvalidInquiry, "callback_url", "http"},
			{"callback with credentials", confirm("a", "callback_url", "https://u:p@example.com/x"), 422, inquiry.CodeInvalidInquiry, "callback_url", "password"},
			{"callback to loopback", confirm("a", "callback_url", "http://127.0.0.1:9/x"), 422, inquiry.CodeInvalidInquiry, "callback_url", "BOT_CALLBACK_HOSTS"},
			{"too large", huge, 413, inquiry.CodeTooLarge, "", "1 MiB"},
		}
		for _, c := range cases {
			r := b.do("POST", "/v1/inquiries", b.askA, c.body)
			e := r.errorOf(t, c.status, c.code)
			if c.field != "" {
				require.Equal(t, c.field, e["field"], "%s: %s", c.name, r.body)
			}
			require.Contains(t, e["message"], c.says, c.name)
			t.Logf("%-28s %d %s", c.name, r.status, e["message"])
		}
		b.requireNothingStored()

		// The same refusals guard the run endpoints.
		r := b.do("POST", "/v1/runs/r1/ask", b.askA, confirm("a", "colour", "blue"))
		r.errorOf(t, 400, inquiry.CodeBadRequest)
		r = b.do("POST", "/v1/runs/r1/ask", b.askA, confirm("a", "run_id", "r2"))
		r.errorOf(t, 422, inquiry.CodeInvalidInquiry)
		r = b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "r1", "resume_url": "http://10.0.0.1/x"})
		require.Equal(t, "resume_url", r.errorOf(t, 422, inquiry.CodeInvalidInquiry)["field"])
		r = b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "r1", "config": askPolicy("sometimes")})
		r.errorOf(t, 422, inquiry.CodeInvalidInquiry)
		r = b.do("POST", "/v1/runs", b.askA, map[string]any{"id": 7})
		r.errorOf(t, 400, inquiry.CodeBadRequest)
		r = b.do("POST", "/v1/runs", b.askA, map[string]any{"id": ""})
		r.errorOf(t, 422, inquiry.CodeInvalidInquiry)
		r = b.do("POST", "/v1/runs", b.askA, strings.Repeat(" ", MaxBody+1))
		r.errorOf(t, 413, inquiry.CodeTooLarge)
		b.requireNothingStored()

		// Query parameters.
		e := b.do("GET", "/v1/inquiries?status=done", b.askA, nil).errorOf(t, 400, inquiry.CodeBadRequest)
		require.Equal(t, `status "done" is not one of pending, answered, expired, cancelled or failed: use one of them, or leave it out for all`, e["message"])
		require.Equal(t, "status", e["field"])
		b.do("GET", "/v1/inquiries?limit=0", b.askA, nil).errorOf(t, 400, inquiry.CodeBadRequest)
		b.do("GET", "/v1/inquiries?limit=x", b.askA, nil).errorOf(t, 400, inquiry.CodeBadRequest)
		e = b.do("GET", "/v1/runs?status=sleeping", b.askA, nil).errorOf(t, 400, inquiry.CodeBadRequest)
		require.Equal(t, `status "sleeping" is not one of running, waiting, completed, failed or abandoned: use one of them, or leave it out for all`, e["message"])
		require.Equal(t, "status", e["field"])
	})
}

// MaxBody mirrors gateway.MaxBodyBytes for the tests.
const MaxBody = 1 << 20

func TestBodyLimitIsExact(t *testing.T) {
	t.Parallel()
	b := setup(t, withPolicy(inquiry.PolicyAsk))
	// Exactly 1 MiB is read (and refused for what it says); one byte more is too large.
	prefix := `{"id": "big", "kind": "text", "question": "Big?", "context": "`
	suffix := `"}`
	fill := MaxBody - len(prefix) - len(suffix)
	r := b.do("POST", "/v1/inquiries", b.askA, prefix+strings.Repeat("x", fill)+suffix)
	require.Equal(t, "context", r.errorOf(t, 422, inquiry.CodeInvalidInquiry)["field"])
	r = b.do("POST", "/v1/inquiries", b.askA, prefix+strings.Repeat("x", fill+1)+suffix)
	r.errorOf(t, 413, inquiry.CodeTooLarge)
	b.requireNothingStored()
}

func TestAuth(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		for name, header := range map[string]string{
			"missing":     "",
			"garbage":     "Bearer nonsense",
			"not bearer":  "Basic YWxhZGRpbjpvcGVuc2VzYW1l",
			"unknown":     "Bearer bot_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbb",
			"revoked":     "Bearer " + b.revoked,
			"bad secret":  "Bearer " + b.askA[:len(b.askA)-1] + "x",
			"empty token": "Bearer ",
		} {
			req, err := http.NewRequest("GET", b.url+"/v1/inquiries", nil)
			require.NoError(t, err)
			if header != "" {
				req.Header.Set("Authorization", header)
			}
			res, err := b.http.Do(req)
			require.NoError(t, err)
			res.Body.Close()
			require.Equal(t, http.StatusUnauthorized, res.StatusCode, name)
			require.Contains(t, res.Header.Get("WWW-Authenticate"), "Bearer", name)
		}
		b.do("POST", "/v1/inquiries", "", confirm("a")).errorOf(t, 401, inquiry.CodeUnauthenticated)
		b.do("POST", "/v1/inquiries", b.revoked, confirm("a")).errorOf(t, 401, inquiry.CodeUnauthenticated)

		mine := b.ask(b.askA, choice("mine"), http.StatusCreated)
		key := str(mine["key"])

		// Scopes: an asker may not answer; an answerer may not ask or cancel.
		e := b.do("POST", "/v1/inquiries/"+key+"/answer", b.askA, map[string]any{"value": "merge"}).errorOf(t, 403, inquiry.CodeForbidden)
		require.Contains(t, e["message"], "answer")
		b.do("POST", "/v1/inquiries", b.answerer, confirm("a")).errorOf(t, 403, inquiry.CodeForbidden)
		b.do("POST", "/v1/inquiries/"+key+"/cancel", b.answerer, nil).errorOf(t, 403, inquiry.CodeForbidden)
		b.do("POST", "/v1/runs", b.answerer, map[string]any{"id": "r"}).errorOf(t, 403, inquiry.CodeForbidden)

		// Namespaces: another namespace's asker is forbidden, not told "not found".
		e = b.do("GET", "/v1/inquiries/"+key, b.askB, nil).errorOf(t, 403, inquiry.CodeForbidden)
		require.Contains(t, e["message"], "namespace")
		b.do("GET", "/v1/inquiries/"+key+"?wait=1", b.askB, nil).errorOf(t, 403, inquiry.CodeForbidden)
		b.do("POST", "/v1/inquiries/"+key+"/cancel", b.askB, nil).errorOf(t, 403, inquiry.CodeForbidden)
		r := b.do("GET", "/v1/inquiries", b.askB, nil)
		require.Equal(t, 200, r.status)
		require.Empty(t, r.json(t)["inquiries"], "an ask token lists only its own namespace")

		// Answer and admin tokens read every namespace; the owner reads its own.
		for _, tok := range []string{b.askA, b.answerer, b.admin} {
			r := b.do("GET", "/v1/inquiries/"+key, tok, nil)
			require.Equal(t, 200, r.status, "body: %s", r.body)
		}
		r = b.do("GET", "/v1/inquiries", b.answerer, nil)
		require.Len(t, r.json(t)["inquiries"], 1)
		// Nothing was answered or cancelled by the refusals.
		require.Equal(t, "pending", b.do("GET", "/v1/inquiries/"+key, b.askA, nil).json(t)["status"])

		// Runs are per namespace.
		r = b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "run-1"})
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
		b.do("GET", "/v1/runs/run-1", b.askB, nil).errorOf(t, 404, inquiry.CodeNotFound)
		b.do("GET", "/v1/runs/run-1", b.admin, nil).errorOf(t, 404, inquiry.CodeNotFound) // admin acts in its own namespace
		require.Len(t, b.do("GET", "/v1/runs", b.askB, nil).json(t)["runs"], 0)
		require.Len(t, b.do("GET", "/v1/runs", b.admin, nil).json(t)["runs"], 1) // but lists every namespace
		require.Len(t, b.do("GET", "/v1/runs?namespace=team-b", b.admin, nil).json(t)["runs"], 0)
	})
}

func TestLongPoll(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		key := str(b.ask(b.askA, choice("merge"), http.StatusCreated)["key"])

		type polled struct {
			r  resp
			at time.Time
		}
		const wait = 30 * time.Second
		done := make(chan polled, 1)
		start := time.Now()
		go func() {
			r := b.do("GET", fmt.Sprintf("/v1/inquiries/%s?wait=%d", key, int(wait.Seconds())), b.askA, nil)
			done <- polled{r, time.Now()}
		}()
		// The poll is parked on the hub, not spinning.
		require.Eventually(t, func() bool { return b.hub.Waiters() == 1 }, 5*time.Second, 5*time.Millisecond)

		// The answer wakes the inquiry's waiters on the hub before it is acknowledged: a waiter
		// of the test's own has its wake-up by the time the POST returns.
		woken, unsubscribe := b.svc.Hub.Subscribe(key)
		r := b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "Merge"})
		answered := time.Now()
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		select {
		case <-woken:
		default:
			t.Fatal("the answer did not wake the inquiry's waiters on the hub")
		}
		unsubscribe()
		p := <-done
		t.Logf("long-poll returned %v after the answer was acknowledged (%v after it started)", p.at.Sub(answered), p.at.Sub(start))
		// Woken, not at the end of its wait: a poll that missed its wake-up still returns
		// "answered", but only when its 30 s run out. A bound of the wait itself, not of how
		// fast the machine is.
		require.Less(t, p.at.Sub(start), wait, "the long-poll was not woken: it returned at the end of its wait")
		require.Equal(t, http.StatusOK, p.r.status)
		got := p.r.json(t)
		require.Equal(t, "answered", got["status"])
		a := got["answer"].(map[string]any)
		require.Equal(t, "merge", a["value"])
		require.Equal(t, "alice", a["answered_by"])
		require.Equal(t, "person", a["source"])
		require.Equal(t, 0, b.hub.Waiters())

		// A resolved inquiry returns at once, whatever the wait.
		start = time.Now()
		require.Equal(t, "answered", b.do("GET", "/v1/inquiries/"+key+"?wait=55", b.askA, nil).json(t)["status"])
		t.Logf("a long-poll on a resolved inquiry returned after %v", time.Since(start))
		require.Less(t, time.Since(start), inquiry.MaxWait, "a resolved inquiry does not sit out the wait")

		// A wait that runs out returns the inquiry as it stands.
		key2 := str(b.ask(b.askA, choice("hold"), http.StatusCreated)["key"])
		start = time.Now()
		r = b.do("GET", "/v1/inquiries/"+key2+"?wait=0.3", b.askA, nil)
		require.Equal(t, "pending", r.json(t)["status"])
		require.GreaterOrEqual(t, time.Since(start), 250*time.Millisecond)

		// A caller that goes away leaves no waiter behind.
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", b.url+"/v1/inquiries/"+key2+"?wait=55", nil)
			req.Header.Set("Authorization", "Bearer "+b.askA)
			res, err := http.DefaultClient.Do(req)
			if err == nil {
				res.Body.Close()
			}
			errc <- err
		}()
		require.Eventually(t, func() bool { return b.hub.Waiters() == 1 }, 5*time.Second, 5*time.Millisecond)
		cancel()
		require.Error(t, <-errc)
		require.Eventually(t, func() bool { return b.hub.Waiters() == 0 }, 5*time.Second, 5*time.Millisecond)

		// Bad waits.
		b.do("GET", "/v1/inquiries/"+key2+"?wait=abc", b.askA, nil).errorOf(t, 400, inquiry.CodeBadRequest)
		b.do("GET", "/v1/inquiries/"+key2+"?wait=60", b.askA, nil).errorOf(t, 400, inquiry.CodeBadRequest)
		b.do("GET", "/v1/inquiries/"+key2+"?wait=NaN", b.askA, nil).errorOf(t, 400, inquiry.CodeBadRequest)
		b.do("GET", "/v1/inquiries/inq_nothere", b.askA, nil).errorOf(t, 404, inquiry.CodeNotFound)
	})
}

func TestAskWaitsForAnAnswer(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		done := make(chan resp, 1)
		go func() { done <- b.do("POST", "/v1/inquiries", b.askA, choice("merge", "wait", 30)) }()
		var key string
		require.Eventually(t, func() bool {
			list := b.listAll()
			if len(list) == 0 {
				return false
			}
			key = str(list[0].(map[string]any)["key"])
			return b.hub.Waiters() == 1
		}, 5*time.Second, 10*time.Millisecond)
		r := b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"text": " merge "})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		r = <-done
		// Created in this request, yet resolved within its wait: 200.
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Equal(t, "merge", r.json(t)["answer"].(map[string]any)["value"])

		// Nobody answers: the pending inquiry comes back after the wait, 201.
		start := time.Now()
		r = b.do("POST", "/v1/inquiries", b.askA, choice("later", "wait", 0.2))
		require.Equal(t, http.StatusCreated, r.status)
		require.Equal(t, "pending", r.json(t)["status"])
		require.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
	})
}

func TestConcurrentAnswers(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		key := str(b.ask(b.askA, choice("merge"), http.StatusCreated)["key"])
		const n = 20
		statuses := make([]int, n)
		codes := make([]string, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				value := "merge"
				if i%2 == 1 {
					value = "hold"
				}
				r := b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": value})
				statuses[i] = r.status
				if r.status != 200 {
					codes[i] = str(r.json(t)["error"].(map[string]any)["code"])
				}
			}(i)
		}
		wg.Wait()
		ok := 0
		for i := range statuses {
			if statuses[i] == 200 {
				ok++
				continue
			}
			require.Equal(t, 409, statuses[i])
			require.Equal(t, string(inquiry.CodeAlreadyResolved), codes[i])
		}
		require.Equal(t, 1, ok, "statuses: %v", statuses)

		e := b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "merge"}).errorOf(t, 409, inquiry.CodeAlreadyResolved)
		require.Contains(t, e["message"], "already answered")
	})
}

func TestAnswer(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		key := str(b.ask(b.askA, choice("merge"), http.StatusCreated)["key"])
		path := "/v1/inquiries/" + key + "/answer"

		e := b.do("POST", path, b.answerer, map[string]any{"value": "ship"}).errorOf(t, 422, inquiry.CodeInvalidAnswer)
		require.Equal(t, "value", e["field"])
		require.Contains(t, e["message"], "merge")
		b.do("POST", path, b.answerer, map[string]any{"text": "merge it please"}).errorOf(t, 422, inquiry.CodeInvalidAnswer)
		b.do("POST", path, b.answerer, map[string]any{"value": 3}).errorOf(t, 400, inquiry.CodeBadRequest)
		b.do("POST", path, b.answerer, map[string]any{"declined": true, "value": "merge"}).errorOf(t, 422, inquiry.CodeInvalidAnswer)
		b.do("POST", path, b.answerer, map[string]any{"decline": true}).errorOf(t, 400, inquiry.CodeBadRequest)
		b.do("POST", path, b.answerer, `{"value": "merge"`).errorOf(t, 400, inquiry.CodeBadRequest)
		b.do("POST", "/v1/inquiries/inq_nothere/answer", b.answerer, map[string]any{"value": "merge"}).errorOf(t, 404, inquiry.CodeNotFound)
		require.Equal(t, "pending", b.do("GET", "/v1/inquiries/"+key, b.answerer, nil).json(t)["status"], "a refused answer changes nothing")

		// Words that ARE an option choose it.
		r := b.do("POST", path, b.answerer, map[string]any{"text": "  HOLD "})
		require.Equal(t, 200, r.status, "body: %s", r.body)
		require.Equal(t, "hold", r.json(t)["answer"].(map[string]any)["value"])

		// A decline is a decision; prose is capped at the one ceiling.
		key = str(b.ask(b.askA, map[string]any{"id": "why", "kind": "text", "question": "Why?"}, http.StatusCreated)["key"])
		long := strings.Repeat("é", inquiry.DefaultAnswerChars+10)
		r = b.do("POST", "/v1/inquiries/"+key+"/answer", b.admin, map[string]any{"text": long})
		require.Equal(t, 200, r.status, "body: %s", r.body)
		a := r.json(t)["answer"].(map[string]any)
		require.Equal(t, true, a["truncated"])
		require.Equal(t, inquiry.DefaultAnswerChars, len([]rune(str(a["text"]))))
		require.Equal(t, "root", a["answered_by"])

		key = str(b.ask(b.askA, confirm("deploy"), http.StatusCreated)["key"])
		r = b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"declined": true})
		require.Equal(t, 200, r.status, "body: %s", r.body)
		require.Equal(t, true, r.json(t)["answer"].(map[string]any)["declined"])
	})
}

func TestCancel(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		key := str(b.ask(b.askA, choice("merge"), http.StatusCreated)["key"])
		e := b.do("POST", "/v1/inquiries/"+key+"/cancel", b.askA, map[string]any{"why": "x"}).errorOf(t, 400, inquiry.CodeBadRequest)
		require.Contains(t, e["message"], "takes no fields")
		r := b.do("POST", "/v1/inquiries/"+key+"/cancel", b.askA, nil)
		require.Equal(t, 200, r.status, "body: %s", r.body)
		got := r.json(t)
		require.Equal(t, "cancelled", got["status"])
		require.Nil(t, got["answer"])
		require.NotNil(t, got["resolved_at"])
		e = b.do("POST", "/v1/inquiries/"+key+"/cancel", b.askA, "{}").errorOf(t, 409, inquiry.CodeAlreadyResolved)
		require.Contains(t, e["message"], "cancelled")
		b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "merge"}).errorOf(t, 409, inquiry.CodeAlreadyResolved)
		b.do("POST", "/v1/inquiries/inq_nothere/cancel", b.askA, nil).errorOf(t, 404, inquiry.CodeNotFound)

		// An admin may cancel in any namespace.
		key = str(b.ask(b.askB, choice("merge"), http.StatusCreated)["key"])
		require.Equal(t, 200, b.do("POST", "/v1/inquiries/"+key+"/cancel", b.admin, nil).status)
	})
}

func TestList(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		var keys []string
		for i := 0; i < 5; i++ {
			run := "r1"
			if i >= 3 {
				run = "r2"
			}
			keys = append(keys, str(b.ask(b.askA, choice(fmt.Sprintf("q%d", i), "run_id", run), http.StatusCreated)["key"]))
		}
		r := b.do("POST", "/v1/inquiries/"+keys[0]+"/answer", b.answerer, map[string]any{"value": "merge"})
		require.Equal(t, 200, r.status)

		// Newest first, page by page.
		var seen []string
		cursor := ""
		for page := 0; page < 5; page++ {
			r := b.do("GET", "/v1/inquiries?limit=2&cursor="+cursor, b.askA, nil)
			require.Equal(t, 200, r.status, "body: %s", r.body)
			m := r.json(t)
			for _, it := range m["inquiries"].([]any) {
				seen = append(seen, str(it.(map[string]any)["key"]))
			}
			cursor = str(m["next_cursor"])
			if cursor == "" {
				break
			}
		}
		require.Equal(t, []string{keys[4], keys[3], keys[2], keys[1], keys[0]}, seen)

		count := func(q string) int {
			r := b.do("GET", "/v1/inquiries?"+q, b.askA, nil)
			require.Equal(t, 200, r.status, "body: %s", r.body)
			return len(r.json(t)["inquiries"].([]any))
		}
		require.Equal(t, 4, count("status=pending"))
		require.Equal(t, 1, count("status=answered"))
		require.Equal(t, 3, count("run_id=r1"))
		require.Equal(t, 2, count("run_id=r1&status=pending"))
		require.Equal(t, 0, count("run_id=nope"))
		e := b.do("GET", "/v1/inquiries?cursor=garbage", b.askA, nil).errorOf(t, 400, inquiry.CodeBadRequest)
		require.Equal(t, "cursor", e["field"])
	})
}

// Issue 12: answers land on the right question, honestly labelled. Each test runs over HTTP
// against the real server on SQLite and PostgreSQL; no sweeper runs, so whatever expires does so
// where it is looked at.

// boundToken creates a token bound to its namespace, as `bot token create --namespace` does.
func (b *bundle) boundToken(name, namespace string, scopes ...inquiry.Scope) string {
	plain, tok := inquiry.NewToken(name, namespace, scopes, time.Now())
	tok.NamespaceBound = true
	require.NoError(b.t, b.store.CreateToken(context.Background(), tok))
	return plain
}

func TestNoPersonAnswersAfterTheExpiry(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		rcv := newReceiver(t)
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withCallbackHosts(rcv.host()))
		inq := b.ask(b.askA, choice("merge-42", "expires_in", "1h", "default", "hold", "callback_url", rcv.URL+"/cb"), 201)
		key := str(inq["key"])

		b.later.Store(int64(time.Hour + 2*time.Second)) // two seconds past the expiry; no sweep ran
		b.advance(time.Hour + 2*time.Second)            // and the dispatcher's clock with it
		r := b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "merge"})
		e := r.errorOf(t, http.StatusConflict, inquiry.CodeAlreadyResolved)
		msg := str(e["message"])
		require.Contains(t, msg, "expired")
		require.Contains(t, msg, "hold (assumed: nobody answered in time)", "the sentence says what was assumed")

		got := b.do("GET", "/v1/inquiries/"+key, b.askA, nil).json(t)
		require.Equal(t, "expired", got["status"])
		a := got["answer"].(map[string]any)
		require.Equal(t, "expired", a["source"])
		require.Equal(t, "hold", a["value"])
		require.Equal(t, "", a["answered_by"])

		// The rest of the expiry (the callback) happens once, whoever looked first.
		cb := rcv.next(t)
		require.Contains(t, string(cb.body), `"status":"expired"`)
		b.do("GET", "/v1/inquiries/"+key, b.askA, nil)
		b.listAll()
		b.requireOneCallback(t, key)
		require.Equal(t, 1, rcv.count(), "the callback of one expiry is delivered once")
	})
}

func TestReadsAndListsSeeTheExpiry(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		soon := str(b.ask(b.askA, confirm("soon", "expires_in", "10m"), 201)["key"])
		later := str(b.ask(b.askA, confirm("later", "expires_in", "2h"), 201)["key"])
		b.later.Store(int64(11 * time.Minute))

		list := func(q string) []string {
			t.Helper()
			r := b.do("GET", "/v1/inquiries"+q, b.askA, nil)
			require.Equal(t, 200, r.status, "body: %s", r.body)
			var keys []string
			for _, it := range r.json(t)["inquiries"].([]any) {
				keys = append(keys, str(it.(map[string]any)["key"]))
			}
			return keys
		}
		require.Equal(t, []string{later}, list("?status=pending"), "a question past its expiry is not pending")
		require.Equal(t, []string{soon}, list("?status=expired"))
		for _, it := range b.listAll() {
			m := it.(map[string]any)
			want := map[string]string{soon: "expired", later: "pending"}[str(m["key"])]
			require.Equal(t, want, m["status"], m["key"])
		}
		got := b.do("GET", "/v1/inquiries/"+soon, b.askA, nil).json(t)
		require.Equal(t, "expired", got["status"])
		require.Equal(t, true, got["answer"].(map[string]any)["declined"], "no default: the expiry declines")
	})
}

func TestLongPollReturnsAtTheExpiry(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		at := time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)
		key := str(b.ask(b.askA, confirm("deploy", "expires_at", at, "default", "no"), 201)["key"])
		start := time.Now()
		r := b.do("GET", "/v1/inquiries/"+key+"?wait=40", b.askA, nil)
		took := time.Since(start)
		require.Equal(t, 200, r.status, "body: %s", r.body)
		got := r.json(t)
		require.Equal(t, "expired", got["status"])
		require.Equal(t, "no", got["answer"].(map[string]any)["value"])
		// Before, the poll sat out its whole wait and came back pending; it now ends at the
		// expiry, long before the 40 s it could have waited.
		require.Less(t, took, 30*time.Second)
	})
}

func TestARunsAskSeesTheExpiry(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		ask := choice("r1:merge", "expires_in", "30m", "default", "hold", "wait", 0)
		r := b.do("POST", "/v1/runs/r1/ask", b.askA, ask)
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)

		b.later.Store(int64(31 * time.Minute))
		r = b.do("POST", "/v1/runs/r1/ask", b.askA, ask) // the run re-enters after the expiry
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		got := r.json(t)
		require.Equal(t, "answered", got["status"])
		a := got["answer"].(map[string]any)
		require.Equal(t, "expired", a["source"])
		require.Equal(t, "hold", a["value"])
		require.Equal(t, "expired", got["inquiry"].(map[string]any)["status"])
	})
}

func TestAResumeCannotForgeAPerson(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		ask := map[string]any{"id": "r1:ship", "kind": "confirm", "question": "Ship it?", "wait": 0}
		r := b.do("POST", "/v1/runs/r1/ask", b.askA, ask)
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		key := str(r.json(t)["inquiry"].(map[string]any)["key"])

		// The agent claims the CTO said yes.
		forged := map[string]any{"answers": map[string]any{"r1:ship": map[string]any{
			"value": "yes", "source": "person", "answered_by": "U_CTO", "answered_at": "1999-01-01T00:00:00Z"}}}
		r = b.do("POST", "/v1/runs/r1/resume", b.askA, forged)
		require.Equal(t, 200, r.status, "body: %s", r.body)
		a := r.json(t)["answers"].(map[string]any)["r1:ship"].(map[string]any)
		require.Equal(t, "caller", a["source"], "the caller's word, never a person's")
		require.Equal(t, "agent-a", a["answered_by"], "labelled with the caller's token")
		at, err := time.Parse(time.RFC3339Nano, str(a["answered_at"]))
		require.NoError(t, err)
		require.WithinDuration(t, time.Now(), at, time.Minute, "answered_at is the server's")

		// The pending inquiry is resolved by it, honestly labelled, and the run's next ask says so.
		got := b.do("GET", "/v1/inquiries/"+key, b.askA, nil).json(t)
		require.Equal(t, "answered", got["status"])
		require.Equal(t, "caller", got["answer"].(map[string]any)["source"])
		require.Equal(t, "agent-a", got["answer"].(map[string]any)["answered_by"])
		r = b.do("POST", "/v1/runs/r1/ask", b.askA, ask)
		require.Equal(t, 200, r.status, "body: %s", r.body)
		require.Equal(t, "caller", r.json(t)["answer"].(map[string]any)["source"])

		// One that contradicts the resolved inquiry is refused; one that agrees is taken.
		r = b.do("POST", "/v1/runs/r1/resume", b.askA, map[string]any{"answers": map[string]any{"r1:ship": map[string]any{"value": "no"}}})
		e := r.errorOf(t, http.StatusConflict, inquiry.CodeAlreadyResolved)
		require.Contains(t, str(e["message"]), "contradicts")
		r = b.do("POST", "/v1/runs/r1/resume", b.askA, map[string]any{"answers": map[string]any{"r1:ship": map[string]any{"value": "yes"}}})
		require.Equal(t, 200, r.status, "body: %s", r.body)

		// An answer for a question the run never asked is bounded like a decision.
		r = b.do("POST", "/v1/runs/r1/resume", b.askA, map[string]any{"answers": map[string]any{"r1:other": map[string]any{"value": strings.Repeat("v", 151)}}})
		r.errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidAnswer)
		r = b.do("POST", "/v1/runs/r1/resume", b.askA, map[string]any{"answers": map[string]any{"r1:other": map[string]any{"text": strings.Repeat("w", 5000)}}})
		require.Equal(t, 200, r.status, "body: %s", r.body)
		o := r.json(t)["answers"].(map[string]any)["r1:other"].(map[string]any)
		require.Equal(t, "caller", o["source"])
		require.Len(t, o["text"], inquiry.StateTextChars)
	})
}

func TestAResumeAnswersAPendingInquiryLikeAnyAnswer(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		ask := choice("r2:merge", "wait", 0)
		r := b.do("POST", "/v1/runs/r2/ask", b.askA, ask)
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		// A value that is none of the options is refused, as on the answer endpoint, and nothing
		// is recorded.
		r = b.do("POST", "/v1/runs/r2/resume", b.askA, map[string]any{"answers": map[string]any{"r2:merge": map[string]any{"value": "yolo"}}})
		e := r.errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidAnswer)
		require.Equal(t, `answers["r2:merge"].value`, e["field"])
		run := b.do("GET", "/v1/runs/r2", b.askA, nil).json(t)
		require.Empty(t, run["answers"])
		require.Equal(t, "waiting", run["status"])
	})
}

func TestTheAskerNeverAnswersItsOwnQuestion(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		both := b.token("agent-both", "team-a", inquiry.ScopeAsk, inquiry.ScopeAnswer)
		key := str(b.ask(both, confirm("self"), 201)["key"])
		e := b.do("POST", "/v1/inquiries/"+key+"/answer", both, map[string]any{"value": "yes"}).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
		require.Contains(t, str(e["message"]), "asked")
		require.Equal(t, "pending", b.do("GET", "/v1/inquiries/"+key, both, nil).json(t)["status"])

		// Somebody else answers it; the admin token, the operator's own, may answer its own.
		r := b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "yes"})
		require.Equal(t, 200, r.status, "body: %s", r.body)
		own := str(b.ask(b.admin, confirm("operator"), 201)["key"])
		r = b.do("POST", "/v1/inquiries/"+own+"/answer", b.admin, map[string]any{"value": "no"})
		require.Equal(t, 200, r.status, "body: %s", r.body)
		require.Equal(t, "root", r.json(t)["answer"].(map[string]any)["answered_by"])
	})
}

func TestANamespacedAnswerTokenStaysInItsNamespace(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		ns1Ask := b.token("ns1-agent", "ns1", inquiry.ScopeAsk)
		ns1Answer := b.boundToken("ns1-people", "ns1", inquiry.ScopeAnswer)
		mine := str(b.ask(ns1Ask, confirm("mine"), 201)["key"])
		theirs := str(b.ask(b.askA, confirm("theirs"), 201)["key"])

		e := b.do("POST", "/v1/inquiries/"+theirs+"/answer", ns1Answer, map[string]any{"value": "yes"}).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
		require.Contains(t, str(e["message"]), "ns1")
		b.do("GET", "/v1/inquiries/"+theirs, ns1Answer, nil).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
		r := b.do("GET", "/v1/inquiries?status=pending", ns1Answer, nil)
		require.Equal(t, 200, r.status, "body: %s", r.body)
		list := r.json(t)["inquiries"].([]any)
		require.Len(t, list, 1)
		require.Equal(t, mine, list[0].(map[string]any)["key"])

		r = b.do("POST", "/v1/inquiries/"+mine+"/answer", ns1Answer, map[string]any{"value": "yes"})
		require.Equal(t, 200, r.status, "body: %s", r.body)
		require.Equal(t, "pending", b.do("GET", "/v1/inquiries/"+theirs, b.askA, nil).json(t)["status"])
		// An answer token whose namespace defaulted to its name still answers everywhere.
		r = b.do("POST", "/v1/inquiries/"+theirs+"/answer", b.answerer, map[string]any{"value": "yes"})
		require.Equal(t, 200, r.status, "body: %s", r.body)
	})
}

func TestTextIsComparedInOneForm(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		composed, decomposed := "caf\u00e9", "cafe\u0301"
		first := b.ask(b.askA, confirm(composed), 201)
		again := b.ask(b.askA, confirm(decomposed), 200) // asked once: the same inquiry
		require.Equal(t, first["key"], again["key"])
		require.Equal(t, composed, again["id"], "stored in NFC")

		// An option value with a byte order mark repeats the plain one.
		r := b.do("POST", "/v1/inquiries", b.askA, choice("bom", "options", []any{"merge", "\ufeffmerge"}, "default", nil))
		e := r.errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidInquiry)
		require.Equal(t, "options[1].value", e["field"])

		// An answer typed in the other form chooses the option.
		key := str(b.ask(b.askA, choice("menu", "options", []any{composed, "tea"}, "default", nil), 201)["key"])
		r = b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": decomposed})
		require.Equal(t, 200, r.status, "body: %s", r.body)
		require.Equal(t, composed, r.json(t)["answer"].(map[string]any)["value"])

		// Run ids too: a run asked in one form is found in the other.
		r = b.do("POST", "/v1/runs/"+decomposed+"/ask", b.askA, confirm("step", "wait", 0))
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		r = b.do("GET", "/v1/runs/"+composed, b.askA, nil)
		require.Equal(t, 200, r.status, "body: %s", r.body)
		require.Equal(t, "waiting", r.json(t)["status"])
	})
}

// TestAskWithoutIDDerivesOne: an ask without an id gets the id the server derives from its
// content, once, in Go: the same question asked again finds the same inquiry (200), another
// question is another inquiry, and a run's re-entry without an id finds its answer.
func TestAskWithoutIDDerivesOne(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		noID := func(m map[string]any) map[string]any { delete(m, "id"); return m }
		first := b.ask(b.askA, noID(choice("")), http.StatusCreated)
		id := str(first["id"])
		require.True(t, strings.HasPrefix(id, "auto:"), "derived id %q", id)
		require.Equal(t, inquiry.DerivedID("auto", &inquiry.Inquiry{Kind: inquiry.KindChoice, Question: "Merge now?",
			Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "hold"}}, Default: inquiry.One("hold")}), id)

		again := b.ask(b.askA, noID(choice("")), http.StatusOK)
		require.Equal(t, first["key"], again["key"], "the same content is the same inquiry")
		empty := b.ask(b.askA, choice(""), http.StatusOK)
		require.Equal(t, first["key"], empty["key"], "an empty id is no id")

		other := b.ask(b.askA, noID(choice("", "question", "Merge later?")), http.StatusCreated)
		require.NotEqual(t, first["key"], other["key"])
		require.NotEqual(t, id, other["id"])
		inRun := b.ask(b.askA, noID(choice("", "run_id", "deploy-42")), http.StatusCreated)
		require.Equal(t, id, inRun["id"], "the run is where, not what: the same id in another run")
		require.NotEqual(t, first["key"], inRun["key"])

		// A run's re-entry: the same question asked again without an id is answered from its state.
		ask := noID(confirm("", "wait", 0))
		r := b.do("POST", "/v1/runs/deploy-7/ask", b.askA, ask)
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		parked := r.json(t)["inquiry"].(map[string]any)
		require.True(t, strings.HasPrefix(str(parked["id"]), "auto:"), "derived id %q", parked["id"])
		ans := b.do("POST", "/v1/inquiries/"+str(parked["key"])+"/answer", b.answerer, map[string]any{"value": "yes"})
		require.Equal(t, http.StatusOK, ans.status, "body: %s", ans.body)
		r = b.do("POST", "/v1/runs/deploy-7/ask", b.askA, noID(confirm("", "wait", 0)))
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		re := r.json(t)
		require.Equal(t, "answered", re["status"])
		require.Equal(t, "yes", re["answer"].(map[string]any)["value"])
	})
}
