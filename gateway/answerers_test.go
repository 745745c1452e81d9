package gateway_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// Who may answer through the API is the service's rule (inquiry.MayAnswer): the answer route
// checks nothing of its own.

// TestRequestedByComparedCanonically: requested_by names a token however its entry is spelled —
// blanks around it, full-width, another case — and that token may not answer (before: each of
// these spellings let token p0 answer its own request).
func TestRequestedByComparedCanonically(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		p0 := b.token("p0", "p0", inquiry.ScopeAnswer)
		for i, spelling := range []string{"p0 ", " p0", "ｐ０", "P0", "token:p0"} {
			q := b.ask(b.askA, confirm("four-eyes-"+string(rune('a'+i)), "requested_by", []string{"U_AUTHOR", spelling}), http.StatusCreated)
			key := str(q["key"])
			got := b.do("POST", "/v1/inquiries/"+key+"/answer", p0, map[string]any{"value": "yes"}).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
			require.Contains(t, got["message"], "asked for this approval (requested_by): someone else must give it", spelling)
			require.Equal(t, "pending", b.do("GET", "/v1/inquiries/"+key, b.admin, nil).json(t)["status"], spelling)
			r := b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "yes"})
			require.Equal(t, http.StatusOK, r.status, "someone else may: %s", r.body)
		}
	})
}

// TestRequestedByEntryLookingBlankRefused: an entry that is empty once trimmed — including
// characters that show as nothing — names nobody and is refused at create.
func TestRequestedByEntryLookingBlankRefused(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk))
	for _, blank := range []string{"\u3000", "\u2800", "\u115f"} {
		got := b.do("POST", "/v1/inquiries", b.askA, confirm("blank", "requested_by", []string{blank})).errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidInquiry)
		require.Equal(t, "requested_by[0]", got["field"])
	}
	for _, id := range []string{"\u2800\u2800", "\u115f"} {
		got := b.do("POST", "/v1/inquiries", b.askA, confirm(id)).errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidInquiry)
		require.Equal(t, "id", got["field"])
		require.Contains(t, got["message"], "show as nothing")
	}
	b.requireNothingStored()
}

// TestAnswerScopeIsTheServicesWord: an ask-only token that answers is refused by the service's
// rule, in its sentence, and nothing is recorded.
func TestAnswerScopeIsTheServicesWord(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk))
	q := b.ask(b.askA, confirm("scope"), http.StatusCreated)
	got := b.do("POST", "/v1/inquiries/"+str(q["key"])+"/answer", b.askB, map[string]any{"value": "yes"}).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
	require.Contains(t, got["message"], "lacks the answer scope answering needs")
	require.Equal(t, "pending", b.do("GET", "/v1/inquiries/"+str(q["key"]), b.admin, nil).json(t)["status"])
}

// TestAskTokenLearnsNoKeyByAnswering: a token that may answer nothing is refused before the key
// is looked up, so answering or extending tells it nothing of which keys exist.
func TestAskTokenLearnsNoKeyByAnswering(t *testing.T) {
	b := setup(t, withPolicy(inquiry.PolicyAsk))
	q := b.ask(b.askB, confirm("theirs"), http.StatusCreated)
	for _, key := range []string{str(q["key"]), "inq_3ocyaaaaaaaaaaaaaaaaaaaaaaaaa"} {
		got := b.do("POST", "/v1/inquiries/"+key+"/answer", b.askA, map[string]any{"value": "yes"}).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
		require.Contains(t, got["message"], "lacks the answer scope", key)
		got = b.do("POST", "/v1/inquiries/"+key+"/extend", b.askA, map[string]any{}).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
		require.Contains(t, got["message"], "lacks the answer scope", key)
	}
}
