package gateway

import (
	"reflect"
	"testing"
)

// FuzzDecodeOnce checks the one-pass decoding against the field-by-field one: whenever
// decodeOnce takes a body, decodeFields takes it too and decodes the same value; whenever
// decodeFields refuses a body, decodeOnce does not take it.
func FuzzDecodeOnce(f *testing.F) {
	for _, s := range []string{
		`{"id": "deploy-42:merge", "run_id": "deploy-42", "kind": "choice", "question": "Merge now?", "options": [{"value": "merge", "label": "Merge"}, "hold"], "default": "hold", "expires_in": "2h"}`,
		`{"id":"b-1","kind":"choice","question":"Merge?","context":"CI is green.","options":[{"value":"merge","label":"Merge"},{"value":"hold","label":"Hold"}],"default":"hold","config":{"policy":"ask","transport":"inbox"}}`,
		`{"id": "t", "kind": "text", "question": "Why?", "context": "CI is red.", "default": "no idea", "expires_at": "2999-01-01T00:00:00Z"}`,
		`{"id": "s", "kind": "confirm", "question": "Deploy?", "config": {"policy": "ask", "transport": "slack"}, "slack": {"channel": "C1", "thread_ts": "1700000000.000100", "answerers": ["U0ALICE01", "S0TEAM001"]}}`,
		`{"id": "x\ud83d\ude00", "kind": "text", "question": "\u00e9\u0301?"}`,
		`{"id": "a\ud800", "kind": "text", "question": "Q"}`,
		`{"id": "a", "kind": "text", "question": "Q", "context": "\u0000"}`,
		`{"id": "a", "kind": "text", "question": "Q", "slack": null, "config": null, "options": null, "default": null, "wait": null, "expires_at": null}`,
		`{"id": "a", "id": "b", "kind": "text", "question": "Q"}`,
		`{"config": {"policy": "ask"}, "config": {"transport": "inbox"}}`,
		`{"ID": "a", "Kind": "text"}`,
		`{"i\u0064": "a"}`,
		`{"id": "a", "kind": "text"} {}`,
		`{"id": "a", "kind": "text"} x`,
		`{"id": "a", "config": {"policy": "ask", "nope": 1}}`,
		`{"id": "a", "options": [{"value": 1}]}`,
		`{"id": "a\"b\\", "question": "{\"id\": 1}, \"x\""}`,
		`{"id": 1}`, `{"id": "a"`, `[]`, `null`, `"x"`, `{}`, ` {} `, `{"wait": 1e400}`, `{"expires_at": "soon"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, mk := range []func() any{
			func() any { return &AskBody{} }, func() any { return &AnswerBody{} },
			func() any { return &RunBody{} }, func() any { return &struct{}{} },
		} {
			once, fields := mk(), mk()
			ok := decodeOnce(body, once)
			err := decodeFields(body, fields)
			if ok && err != nil {
				t.Fatalf("%T: decodeOnce took %q, decodeFields refused it: %v", once, body, err)
			}
			if ok && !reflect.DeepEqual(once, fields) {
				t.Fatalf("%T: %q decodes to\n%#v\nin one pass, to\n%#v\nfield by field", once, body, once, fields)
			}
		}
	})
}
