package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

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
	t.Parallel()
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
		time.Sleep(300 * time.Millisecond)
		require.Equal(t, 1, rcv.count(), "the callback of one expiry is delivered once")
	})
}

func TestReadsAndListsSeeTheExpiry(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
