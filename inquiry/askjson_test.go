package inquiry_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestAskRequestLeavesZerosOut: a request's JSON holds what its sender set — a veto turned off
// included — and decodes back to the same request; a record still shows every member.
func TestAskRequestLeavesZerosOut(t *testing.T) {
	off := false
	req := inquiry.AskRequest{Inquiry: inquiry.Inquiry{ID: "merge-42", Kind: inquiry.KindConfirm, Question: "Merge #42?",
		Approval: inquiry.Approval{Veto: &off}}, ExpiresIn: "2h"}
	raw, err := json.Marshal(req)
	require.NoError(t, err)
	require.JSONEq(t, `{"id": "merge-42", "kind": "confirm", "question": "Merge #42?", "veto": false, "expires_in": "2h"}`, string(raw))
	var back inquiry.AskRequest
	require.NoError(t, json.Unmarshal(raw, &back))
	require.Equal(t, req, back)

	raw, err = json.Marshal(&inquiry.AskRequest{Inquiry: inquiry.Inquiry{Context: "CI is green.", Multiple: true, Default: inquiry.Many("a")}})
	require.NoError(t, err)
	require.JSONEq(t, `{"context": "CI is green.", "multiple": true, "default": ["a"]}`, string(raw))

	raw, err = json.Marshal(inquiry.Record{Key: "k"})
	require.NoError(t, err)
	var members map[string]any
	require.NoError(t, json.Unmarshal(raw, &members))
	for _, name := range []string{"id", "run_id", "context", "options", "multiple", "allow_text", "default", "expires_at"} {
		require.Contains(t, members, name, "a record shows every member of its inquiry")
	}
}
