package gateway_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestDeadlinesThroughTheAPI: the deadline fields go in on create and come back in the inquiry
// (checked against openapi.yaml by the harness's client), POST …/extend moves expires_at for a
// token that may answer, and every refusal is one sentence on its field.
func TestDeadlinesThroughTheAPI(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		created := b.ask(b.askA, choice("deploy-1", "expires_in", "2h", "remind", []any{"10m", "30m"},
			"escalate", []any{map[string]any{"after": "1h", "answerers": []any{"S1"}, "mention": true}},
			"extend", map[string]any{"by": "1h", "max": "2h"}), http.StatusCreated)
		require.Equal(t, []any{"30m", "10m"}, created["remind"])
		require.EqualValues(t, 0, created["reminders"])
		require.EqualValues(t, 0, created["escalation"])
		require.Equal(t, "0s", created["extended_by"])
		key := str(created["key"])
		before, err := time.Parse(time.RFC3339Nano, str(created["expires_at"]))
		require.NoError(t, err)

		e := b.do("POST", "/v1/inquiries/"+key+"/extend", b.askA, map[string]any{"by": "1h"}).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
		require.Contains(t, e["message"], "lacks the answer scope")
		// A token that both asks and answers asked this one: refused in a sentence about extending.
		both := b.token("both", "", inquiry.ScopeAsk, inquiry.ScopeAnswer)
		own := b.ask(both, choice("deploy-own", "expires_in", "2h", "extend", map[string]any{"by": "1h", "max": "2h"}), http.StatusCreated)
		e = b.do("POST", "/v1/inquiries/"+str(own["key"])+"/extend", both, nil).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
		require.Equal(t, `token "both" asked inquiry `+str(own["key"])+` and may not extend it: the people who may answer it give it more time, in Slack or with a token of their own`, e["message"])
		got := b.do("POST", "/v1/inquiries/"+key+"/extend", b.answerer, map[string]any{"by": "30m"}).json(t)
		after, err := time.Parse(time.RFC3339Nano, str(got["expires_at"]))
		require.NoError(t, err)
		require.Equal(t, 30*time.Minute, after.Sub(before))
		require.Equal(t, "30m", got["extended_by"])
		got = b.do("POST", "/v1/inquiries/"+key+"/extend", b.answerer, nil).json(t)
		require.Equal(t, "1h30m", got["extended_by"], "no body: extend.by")
		e = b.do("POST", "/v1/inquiries/"+key+"/extend", b.answerer, map[string]any{"by": "1h"}).errorOf(t, http.StatusBadRequest, inquiry.CodeBadRequest)
		require.Equal(t, "by", e["field"])
		require.Contains(t, e["message"], "more than the 30m left of extend.max 2h")

		events := b.do("GET", "/v1/inquiries/"+key+"/events", b.askA, nil).json(t)["events"].([]any)
		require.Equal(t, "extended", events[len(events)-1].(map[string]any)["type"])
		require.Equal(t, "alice", events[len(events)-1].(map[string]any)["by"])

		plain := b.ask(b.askA, choice("deploy-2", "expires_in", "1h"), http.StatusCreated)
		e = b.do("POST", "/v1/inquiries/"+str(plain["key"])+"/extend", b.answerer, nil).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
		require.Contains(t, e["message"], "does not allow more time")

		for _, tt := range []struct {
			body  map[string]any
			field string
		}{
			{choice("r1", "remind", []any{"10m"}), "remind"},
			{choice("r2", "expires_in", "1h", "remind", []any{"2h"}), "remind[0]"},
			{choice("r3", "expires_in", "1h", "escalate", []any{map[string]any{"after": "2h", "channel": "C2"}}), "escalate[0].after"},
			{choice("r4", "expires_in", "1h", "escalate", []any{map[string]any{"after": "5m", "channel": "general"}}), "escalate[0].channel"},
		} {
			e := b.do("POST", "/v1/inquiries", b.askA, tt.body).errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidInquiry)
			require.Equal(t, tt.field, e["field"])
		}
		e = b.do("POST", "/v1/inquiries", b.askA, choice("r5", "expires_in", "1h", "remind", []any{"soon"})).errorOf(t, http.StatusBadRequest, inquiry.CodeBadRequest)
		require.Contains(t, e["message"], "remind")
	})
}
