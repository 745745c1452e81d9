package gateway_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestProposalThroughTheAPI: a question asked with a proposal reads back with it whole; an edit
// approved with yes is recorded as content and edited beside the proposal; every bad proposal
// or edit is refused with its sentence, and nothing is stored or answered by it.
func TestProposalThroughTheAPI(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		line := "-\told := \"héllo\" <script>alert(1)</script>\n"
		diff := strings.Repeat(line, inquiry.MaxProposalBytes/len(line))
		diff += strings.Repeat("+", inquiry.MaxProposalBytes-len(diff)) // exactly 256 KiB
		proposal := map[string]any{"format": "diff", "content": diff, "title": "PR #42", "editable": true}
		rec := b.ask(b.askA, confirm("merge", "proposal", proposal), http.StatusCreated)
		key := str(rec["key"])
		got := b.do("GET", "/v1/inquiries/"+key, b.answerer, nil).json(t)["proposal"].(map[string]any)
		require.Equal(t, proposal, got, "the proposal as asked")

		path := "/v1/inquiries/" + key + "/answer"
		e := b.do("POST", path, b.answerer, map[string]any{"value": "no", "content": "x"}).errorOf(t, 422, inquiry.CodeInvalidAnswer)
		require.Equal(t, "content", e["field"])
		require.Contains(t, e["message"], `approved with "yes"`)
		e = b.do("POST", path, b.answerer, map[string]any{"value": "yes", "content": diff + "+"}).errorOf(t, 422, inquiry.CodeInvalidAnswer)
		require.Contains(t, e["message"], "262145 bytes but may have at most 262144")

		edited := strings.Replace(diff, "héllo", "hello", 1)
		r := b.do("POST", path, b.answerer, map[string]any{"value": "yes", "content": edited})
		require.Equal(t, 200, r.status, "body: %s", r.body)
		read := b.do("GET", "/v1/inquiries/"+key, b.answerer, nil).json(t)
		a := read["answer"].(map[string]any)
		require.Equal(t, "yes", a["value"])
		require.Equal(t, true, a["edited"])
		require.Equal(t, edited, a["content"], "the approved version, byte for byte")
		require.Equal(t, diff, read["proposal"].(map[string]any)["content"], "the proposed version, kept")

		// A no with a reason works as it always did; a proposal that is not editable takes no content.
		fixed := str(b.ask(b.askA, confirm("fixed", "reason", "on_no", "proposal", map[string]any{"content": "rm -rf build/"}), http.StatusCreated)["key"])
		e = b.do("POST", "/v1/inquiries/"+fixed+"/answer", b.answerer, map[string]any{"value": "yes", "content": "rm -rf tmp/"}).errorOf(t, 422, inquiry.CodeInvalidAnswer)
		require.Contains(t, e["message"], "not editable")
		r = b.do("POST", "/v1/inquiries/"+fixed+"/answer", b.answerer, map[string]any{"value": "no", "text": "wrong directory"})
		require.Equal(t, 200, r.status, "body: %s", r.body)
		a = r.json(t)["answer"].(map[string]any)
		require.Equal(t, "wrong directory", a["text"])
		require.Nil(t, a["content"])
		require.Nil(t, a["edited"])

		for name, c := range map[string]struct {
			proposal    any
			field, says string
		}{
			"over 256 KiB":   {map[string]any{"content": diff + "+"}, "proposal.content", "262145 bytes but may have at most 262144 (256 KiB)"},
			"unknown format": {map[string]any{"format": "html", "content": "<b>"}, "proposal.format", "not one of text, markdown, diff or json"},
			"json broken":    {map[string]any{"format": "json", "content": "{\"a\": 1,\n\"b\"}"}, "proposal.content", "at line 2, column 4"},
			"empty content":  {map[string]any{"format": "text", "content": ""}, "proposal.content", "is empty"},
			"long title":     {map[string]any{"content": "x", "title": strings.Repeat("t", 201)}, "proposal.title", "at most 200"},
			"editable text":  {map[string]any{"content": "x", "editable": true}, "proposal.editable", "not a text question"},
		} {
			body := confirm("bad-"+strings.ReplaceAll(name, " ", "-"), "proposal", c.proposal)
			if name == "editable text" {
				body["kind"] = "text"
			}
			e := b.do("POST", "/v1/inquiries", b.askA, body).errorOf(t, 422, inquiry.CodeInvalidInquiry)
			require.Equal(t, c.field, e["field"], name)
			require.Contains(t, e["message"], c.says, name)
		}
		// Invalid UTF-8 in the proposal is the proposal's to mend, named as its field; so is a
		// lone surrogate escaped.
		raw := []byte(`{"id": "bad-utf8", "kind": "confirm", "question": "Q?", "proposal": {"content": "a` + "\xff" + `"}}`)
		e = b.do("POST", "/v1/inquiries", b.askA, raw).errorOf(t, 422, inquiry.CodeInvalidInquiry)
		require.Equal(t, "proposal.content", e["field"])
		require.Contains(t, e["message"], "proposal.content is not valid UTF-8 (byte 82 ")
		raw = []byte(`{"id": "bad-utf16", "kind": "confirm", "question": "Q?", "proposal": {"title": "t", "content": "a\udc00"}}`)
		e = b.do("POST", "/v1/inquiries", b.askA, raw).errorOf(t, 422, inquiry.CodeInvalidInquiry)
		require.Equal(t, "proposal", e["field"])
		require.Contains(t, e["message"], `\udc00`)
		e = b.do("POST", "/v1/inquiries", b.askA, confirm("bad-field", "proposal", map[string]any{"content": "x", "colour": "red"})).errorOf(t, 400, inquiry.CodeBadRequest)
		require.Contains(t, e["message"], "colour")
	})
}

// TestResumeWithAnEditedProposal: a run's caller that hands back an edit through resume has it
// checked and recorded as on the answer endpoint, not dropped.
func TestResumeWithAnEditedProposal(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		ask := confirm("r3:apply", "wait", 0, "proposal", map[string]any{"format": "json", "content": `{"replicas": 2}`, "editable": true})
		r := b.do("POST", "/v1/runs/r3/ask", b.askA, ask)
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		r = b.do("POST", "/v1/runs/r3/resume", b.askA, map[string]any{"answers": map[string]any{"r3:apply": map[string]any{"value": "yes", "content": `{"replicas": 3`}}})
		e := r.errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidAnswer)
		require.Contains(t, e["message"], "content is not JSON")
		r = b.do("POST", "/v1/runs/r3/resume", b.askA, map[string]any{"answers": map[string]any{"r3:apply": map[string]any{"value": "yes", "content": `{"replicas": 3}`}}})
		require.Equal(t, 200, r.status, "body: %s", r.body)
		a := r.json(t)["answers"].(map[string]any)["r3:apply"].(map[string]any)
		require.Equal(t, `{"replicas": 3}`, a["content"])
		require.Equal(t, true, a["edited"])
	})
}
