package gateway_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestWaitOutOfBoundsIsOneAnswer: a wait outside 0..55 seconds is the same refusal wherever it
// is given — the long-poll's query, the ask's body, the ask inside a run — 400 bad_request on
// the field wait: wait is how long the request holds its connection, no rule of an inquiry
// (DESIGN §5; 422 is for the rules of §3). Before, the query said 400 and the bodies 422.
func TestWaitOutOfBoundsIsOneAnswer(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		r := b.do("POST", "/v1/inquiries", b.askA, confirm("waits"))
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
		key := str(r.json(t)["key"])
		require.Equal(t, http.StatusCreated, b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "r1"}).status)
		before := b.snapshot()

		for _, wait := range []float64{56, -1, 55.5} {
			for _, req := range []struct {
				method, path string
				body         any
			}{
				{"GET", fmt.Sprintf("/v1/inquiries/%s?wait=%g", key, wait), nil},
				{"POST", "/v1/inquiries", confirm("other", "wait", wait)},
				{"POST", "/v1/runs/r1/ask", confirm("step", "wait", wait)},
			} {
				e := b.do(req.method, req.path, b.askA, req.body).errorOf(t, http.StatusBadRequest, inquiry.CodeBadRequest)
				require.Equal(t, "wait", e["field"], "%s %s", req.method, req.path)
				require.Contains(t, e["message"], "between 0 and 55", "%s %s", req.method, req.path)
			}
		}
		require.Equal(t, before, b.snapshot(), "a refused wait stored something")
	})
}
