package gateway_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// votesOf reads the votes of an inquiry as the API shows them, by voter.
func votesOf(t *testing.T, v any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	list, _ := v.([]any)
	for _, item := range list {
		vote := item.(map[string]any)
		by := str(vote["by"])
		require.NotContains(t, out, by, "one person counts once")
		out[by] = vote
	}
	return out
}

// TestApprovalsQuorumUnderConcurrentVotes: a single choice needing 3 of 20 permitted people, who
// vote at once (some changing their vote): exactly one resolution, an answer that 3 distinct
// people gave, every vote recorded once, a callback sent once.
func TestApprovalsQuorumUnderConcurrentVotes(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		rcv := newReceiver(t)
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withCallbackHosts(rcv.host()))
		created := b.ask(b.askA, choice("merge-42", "approvals", 3, "callback_url", rcv.URL+"/cb"), http.StatusCreated)
		require.EqualValues(t, 3, created["approvals"])
		key := str(created["key"])

		voters := make([]string, 20)
		for i := range voters {
			voters[i] = b.token(fmt.Sprintf("person-%02d", i), "", inquiry.ScopeAnswer)
		}
		var wg sync.WaitGroup
		statuses := make([][]int, len(voters))
		for i, tok := range voters {
			wg.Go(func() {
				values := []string{"hold"}
				if i%3 == 0 {
					values = []string{"hold", "merge"} // changes their vote
				} else if i%2 == 0 {
					values = []string{"merge"}
				}
				for _, v := range values {
					r := b.do("POST", "/v1/inquiries/"+key+"/answer", tok, map[string]any{"value": v})
					statuses[i] = append(statuses[i], r.status)
				}
			})
		}
		wg.Wait()
		for i, ss := range statuses {
			for _, st := range ss {
				require.Contains(t, []int{http.StatusOK, http.StatusConflict}, st, "voter %d", i)
			}
		}

		got := b.do("GET", "/v1/inquiries/"+key, b.askA, nil).json(t)
		require.Equal(t, "answered", got["status"])
		answer := got["answer"].(map[string]any)
		votes := votesOf(t, answer["votes"])
		winner := str(answer["value"])
		n := 0
		for _, v := range votes {
			if str(v["value"]) == winner {
				n++
			}
			require.Equal(t, "api", v["via"])
		}
		require.GreaterOrEqual(t, n, 3, "the winner was given by 3 distinct people: %v", votes)
		require.Equal(t, winner, str(votes[str(answer["answered_by"])]["value"]), "who decided gave the winning answer")
		require.Equal(t, "person", answer["source"])

		cb := rcv.next(t)
		require.Contains(t, string(cb.body), `"status":"answered"`)
		b.requireOneCallback(t, key)
		require.Equal(t, 1, rcv.count(), "one resolution, one callback")
	})
}

// TestApprovalsConfirm: with the veto on (the default) one no answers no at once; off, it takes
// as many noes as yeses; a person's later vote replaces the earlier one; while pending the
// inquiry shows the votes so far.
func TestApprovalsConfirm(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		bob := b.token("bob", "", inquiry.ScopeAnswer)
		carol := b.token("carol", "", inquiry.ScopeAnswer)
		vote := func(key, tok string, body map[string]any) map[string]any {
			r := b.do("POST", "/v1/inquiries/"+key+"/answer", tok, body)
			require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
			return r.json(t)
		}

		// Veto on: alice's yes waits for a second; bob's no decides at once.
		veto := str(b.ask(b.askA, confirm("veto", "approvals", 2, "reason", "on_no"), http.StatusCreated)["key"])
		pending := vote(veto, b.answerer, map[string]any{"value": "yes"})
		require.Equal(t, "pending", pending["status"])
		require.Nil(t, pending["answer"])
		require.Equal(t, "yes", str(votesOf(t, pending["votes"])["alice"]["value"]))
		done := vote(veto, bob, map[string]any{"value": "no", "text": "not on a Friday"})
		require.Equal(t, "answered", done["status"])
		answer := done["answer"].(map[string]any)
		require.Equal(t, "no", answer["value"])
		require.Equal(t, "bob", answer["answered_by"])
		require.Equal(t, "not on a Friday", answer["text"])
		require.Len(t, votesOf(t, answer["votes"]), 2)

		// Veto off: one no is one vote; alice changes her yes to no, and carol's no makes two.
		noVeto := str(b.ask(b.askA, confirm("no-veto", "approvals", 2, "veto", false), http.StatusCreated)["key"])
		require.Equal(t, "pending", vote(noVeto, bob, map[string]any{"value": "no"})["status"])
		require.Equal(t, "pending", vote(noVeto, b.answerer, map[string]any{"value": "yes"})["status"])
		changed := vote(noVeto, b.answerer, map[string]any{"value": "no"})
		require.Equal(t, "answered", changed["status"], "alice's no replaced her yes and made two noes")
		require.Len(t, votesOf(t, changed["answer"].(map[string]any)["votes"]), 2)

		// Two yeses answer yes; a vote after that is refused.
		yes := str(b.ask(b.askA, confirm("yes", "approvals", 2), http.StatusCreated)["key"])
		vote(yes, bob, map[string]any{"value": "yes"})
		out := vote(yes, carol, map[string]any{"value": "yes"})
		require.Equal(t, "yes", out["answer"].(map[string]any)["value"])
		require.Equal(t, "carol", out["answer"].(map[string]any)["answered_by"])
		b.do("POST", "/v1/inquiries/"+yes+"/answer", b.answerer, map[string]any{"value": "no"}).
			errorOf(t, http.StatusConflict, inquiry.CodeAlreadyResolved)

		// A decline counts towards nothing.
		dec := str(b.ask(b.askA, confirm("decline", "approvals", 2), http.StatusCreated)["key"])
		require.Equal(t, "pending", vote(dec, bob, map[string]any{"declined": true})["status"])
		require.Equal(t, "pending", vote(dec, carol, map[string]any{"value": "yes"})["status"])
	})
}

// TestApprovalsRefused: each bad quorum, veto or reason is refused with its sentence, and
// nothing is stored.
func TestApprovalsRefused(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		for _, tc := range []struct {
			body  map[string]any
			field string
			want  string
		}{
			{confirm("a", "approvals", 0), "approvals", "approvals 0 is not from 1 to 20"},
			{confirm("a", "approvals", 21), "approvals", "approvals 21 is not from 1 to 20"},
			{map[string]any{"id": "a", "kind": "text", "question": "Why?", "approvals": 2}, "approvals", "needs a confirm or a single choice, not a text question"},
			{choice("a", "multiple", true, "default", []any{"hold"}, "approvals", 2), "approvals", "not a multiple choice"},
			{choice("a", "veto", false), "veto", "veto is only for a confirm"},
			{confirm("a", "reason", "sometimes"), "reason", `reason "sometimes" is not one of on_no or always`},
			{confirm("a", "approvals", 3, "slack", map[string]any{"answerers": []any{"U1", "U2"}}), "approvals", "more than the 2 people slack.answerers allows"},
			{confirm("a", "requested_by", []any{""}), "requested_by[0]", "requested_by[0]"},
		} {
			got := b.do("POST", "/v1/inquiries", b.askA, tc.body).errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidInquiry)
			require.Contains(t, got["message"], tc.want)
			require.Equal(t, tc.field, got["field"])
		}
		b.requireNothingStored()
	})
}

// TestRequestedByMayNotAnswer: four eyes — whoever requested_by names may not answer, whatever
// their scopes (the operator's admin token too), and is told so.
func TestRequestedByMayNotAnswer(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		key := str(b.ask(b.askA, confirm("merge", "requested_by", []any{"alice", "root"}), http.StatusCreated)["key"])
		for _, tok := range []string{b.answerer, b.admin} {
			got := b.do("POST", "/v1/inquiries/"+key+"/answer", tok, map[string]any{"value": "yes"}).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
			require.Contains(t, got["message"], "asked for this approval (requested_by): someone else must give it")
		}
		bob := b.token("bob", "", inquiry.ScopeAnswer)
		require.Equal(t, http.StatusOK, b.do("POST", "/v1/inquiries/"+key+"/answer", bob, map[string]any{"value": "yes"}).status)
	})
}

// TestReasonRequired: an inquiry that asks for a reason refuses an answer without one.
func TestReasonRequired(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		onNo := str(b.ask(b.askA, confirm("on-no", "reason", "on_no"), http.StatusCreated)["key"])
		got := b.do("POST", "/v1/inquiries/"+onNo+"/answer", b.answerer, map[string]any{"value": "no"}).errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidAnswer)
		require.Contains(t, got["message"], "asks for a reason with a no")
		got = b.do("POST", "/v1/inquiries/"+onNo+"/answer", b.answerer, map[string]any{"declined": true}).errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidAnswer)
		require.Contains(t, got["message"], "asks for a reason with a decline")
		ok := b.do("POST", "/v1/inquiries/"+onNo+"/answer", b.answerer, map[string]any{"value": "no", "text": "tests are red"})
		require.Equal(t, http.StatusOK, ok.status)
		require.Equal(t, "tests are red", ok.json(t)["answer"].(map[string]any)["text"])

		always := str(b.ask(b.askA, confirm("always", "reason", "always"), http.StatusCreated)["key"])
		got = b.do("POST", "/v1/inquiries/"+always+"/answer", b.answerer, map[string]any{"value": "yes"}).errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidAnswer)
		require.Contains(t, got["message"], "asks for a reason with every answer")
		require.Equal(t, "pending", b.do("GET", "/v1/inquiries/"+always, b.askA, nil).json(t)["status"])
	})
}

// TestExpiryKeepsTheVotes: an inquiry that expires with some votes records them beside what was
// assumed.
func TestExpiryKeepsTheVotes(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		key := str(b.ask(b.askA, confirm("late", "approvals", 2, "default", "no", "expires_in", "1h"), http.StatusCreated)["key"])
		require.Equal(t, http.StatusOK, b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "yes"}).status)
		b.later.Add(int64(2 * time.Hour))
		got := b.do("GET", "/v1/inquiries/"+key, b.askA, nil).json(t)
		require.Equal(t, "expired", got["status"])
		answer := got["answer"].(map[string]any)
		require.Equal(t, "no", answer["value"])
		require.Equal(t, "expired", answer["source"])
		require.Equal(t, "yes", str(votesOf(t, answer["votes"])["alice"]["value"]))
	})
}

// TestResumeOnApprovals: what a run's caller hands back never stands in for the people an
// approval needs — the asker's resume is refused, a resume by a token that may answer is one
// vote (the run's state waits for the decision) — and an answer handed back for an inquiry that
// ended without one (cancelled) is refused, the run resuming without it.
func TestResumeOnApprovals(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		both := b.token("runner", "team-a", inquiry.ScopeAsk, inquiry.ScopeAnswer)
		require.Equal(t, http.StatusCreated, b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "r1"}).status, "one run of team-a, for both tokens")
		park := func(tok, id string, extra ...any) string {
			r := b.do("POST", "/v1/runs/r1/ask", tok, confirm(id, extra...))
			require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
			return str(r.json(t)["inquiry"].(map[string]any)["key"])
		}
		resume := func(tok, id string, answer map[string]any) resp {
			return b.do("POST", "/v1/runs/r1/resume", tok, map[string]any{"answers": map[string]any{id: answer}})
		}

		// The asker alone may not close a question two people must approve.
		key := park(b.askA, "two", "approvals", 2)
		got := resume(b.askA, "two", map[string]any{"value": "yes"}).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
		require.Contains(t, got["message"], "needs 2 people")
		require.Equal(t, "pending", b.do("GET", "/v1/inquiries/"+key, b.askA, nil).json(t)["status"])

		// A resume by a token that may answer is its vote; the question stays pending.
		key = park(b.askA, "vote", "approvals", 2)
		r := resume(both, "vote", map[string]any{"value": "yes"})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.NotContains(t, r.json(t)["answers"], "vote", "not decided yet")
		pending := b.do("GET", "/v1/inquiries/"+key, b.admin, nil).json(t)
		require.Equal(t, "pending", pending["status"])
		require.Len(t, votesOf(t, pending["votes"]), 1)

		// A cancelled question answers nothing: handing an answer back for it is a contradiction
		// (409), and the run resumes without it.
		key = park(b.askA, "gone")
		require.Equal(t, http.StatusOK, b.do("POST", "/v1/inquiries/"+key+"/cancel", b.askA, nil).status)
		resume(b.askA, "gone", map[string]any{"value": "no"}).errorOf(t, http.StatusConflict, inquiry.CodeAlreadyResolved)
		r = b.do("POST", "/v1/runs/r1/resume", b.askA, map[string]any{"answers": map[string]any{}})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Equal(t, "running", r.json(t)["status"])
	})
}

// TestQuorumCountsWithoutTheRequesters: the people who may approve are slack.answerers' users
// less those requested_by names.
func TestQuorumCountsWithoutTheRequesters(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		got := b.do("POST", "/v1/inquiries", b.askA, confirm("a", "approvals", 2, "requested_by", []any{"U1"},
			"slack", map[string]any{"answerers": []any{"U1", "U2"}})).errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidInquiry)
		require.Contains(t, got["message"], "more than the 1 people")
	})
}
