package gateway

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// The bodies the decoder is tried on: every shape the API reads (the ask request embeds the
// inquiry, whose fields it takes as its own), and one with the kinds the API does not use yet.
type (
	testAnswer struct {
		Value    inquiry.Value `json:"value"`
		Text     string        `json:"text"`
		Declined bool          `json:"declined"`
	}
	testRun struct {
		ID        string          `json:"id"`
		Config    *inquiry.Config `json:"config"`
		ResumeURL string          `json:"resume_url"`
	}
	testResume struct {
		Answers map[string]inquiry.Answer `json:"answers"`
	}
	testKinds struct {
		N     int            `json:"n"`
		U     uint8          `json:"u"`
		F     float32        `json:"f"`
		M     map[string]int `json:"m"`
		L     [][]string     `json:"l"`
		P     *int           `json:"p"`
		Named string         `json:",omitempty"`
		Skip  string         `json:"-"`
		inner string
	}
)

var testTargets = []func() any{
	func() any { return &inquiry.AskRequest{} }, func() any { return &testAnswer{} }, func() any { return &testRun{} },
	func() any { return &testResume{} }, func() any { return &struct{}{} }, func() any { return &testKinds{} },
}

var testEngine = gin.New()

func decodeBody(body []byte, dst any) error {
	c := gin.CreateTestContextOnly(httptest.NewRecorder(), testEngine)
	c.Request = httptest.NewRequest("POST", "/", bytes.NewReader(body))
	c.Request.Header.Set("Content-Type", "application/json")
	return decode(c, dst, false)
}

// FuzzDecode holds the one decoder to encoding/json, which does the decoding: a body it takes,
// encoding/json takes too (refusing unknown fields) and decodes to the same value; and each
// refusal is a bad_request (or, for a field's text, the body's 422) in one sentence that says where it lies (never "does not fit").
func FuzzDecode(f *testing.F) {
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
		`{"value": ["merge", "hold"], "text": " HOLD ", "declined": false}`,
		`{"answers": {"nightly:go": {"value": "yes", "declined": false, "answered_at": "2026-12-01T14:00:00Z"}}}`,
		`{"n": -3, "u": 255, "f": 1.5, "m": {"a": 1}, "l": [["a"], []], "p": 7, "Named": "x"}`,
		`{"id": 1}`, `{"id": "a"`, `[]`, `null`, `"x"`, `{}`, ` {} `, `{"wait": 1e400}`, `{"expires_at": "soon"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, mk := range testTargets {
			got, want := mk(), mk()
			if err := decodeBody(body, got); err != nil {
				var e *inquiry.Error
				require.True(t, errors.As(err, &e), "%T: %v", got, err)
				// A field's text that no field takes, or that is not UTF-8, is the field's 422
				// where the service validates the body's fields; every other refusal is the body's.
				require.Contains(t, []inquiry.Code{inquiry.CodeBadRequest, unprocessable[reflect.TypeOf(got).Elem()]}, e.Code, "%T: %q: %v", got, body, err)
				require.NotContains(t, e.Message, "does not fit this endpoint", "%T: check took %q, which encoding/json refused", got, body)
				require.NotContains(t, e.Message, "\n")
				continue
			}
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(want), "%T: decode took %q", got, body)
			require.Equal(t, want, got, "%T: %q", got, body)
		}
	})
}

// TestDecode: what the decoder refuses beyond encoding/json, and what it takes as encoding/json
// does, each refusal naming its field.
func TestDecode(t *testing.T) {
	for _, c := range []struct {
		body  string
		dst   func() any
		field string // "" with says "" when taken
		says  string
	}{
		{`{"id": "a", "question": "Q", "id": "b"}`, testTargets[0], "id", `the field "id" is given twice: send it once`},
		{`{"id": "a", "i\u0064": "b"}`, testTargets[0], "id", "given twice"},
		{`{"config": {"policy": "ask", "policy": "refuse"}}`, testTargets[2], "config", `config has the field "policy" twice`},
		{`{"answers": {"a": {}, "a": {"text": "x"}}}`, testTargets[3], "answers", `answers has the key "a" twice`},
		{`{"options": [{"value": "a", "label": "A", "value": "b"}, "c"]}`, testTargets[0], "options", `options has the field "value" twice`},
		{`{"ID": "a"}`, testTargets[0], "ID", `unknown field "ID": the allowed fields are ` + strings.Join(jsonNames(reflect.TypeFor[inquiry.AskRequest]()), ", ")},
		{`{"config": {"Policy": "ask"}}`, testTargets[2], "config", `config has the unknown field "Policy": send an object {policy, transport}`},
		{`{"options": [{"Value": "a"}, "b"]}`, testTargets[0], "options", `an item of options has the unknown field "Value"`},
		{`{"answers": {"a": {"value": 5}}}`, testTargets[3], "answers.value", "answers.value must be a string or a list of strings"},
		{`{"answers": {"a": {"answered_at": "noon"}}}`, testTargets[3], "answers.answered_at", "RFC 3339"},
		{`{"answers": {"a\u0000": {}}}`, testTargets[3], "answers", "answers has a NUL character"},
		{`{"config": {"nope\ud800": 1}}`, testTargets[2], "config", `config has the escape \ud800`},
		{`{"n": 1.5}`, testTargets[5], "n", "n is 1.5, which is out of range for it: send a whole number of ordinary size"},
		{`{"u": 256}`, testTargets[5], "u", "out of range"},
		{`{"f": 1e39}`, testTargets[5], "f", "out of range"},
		{`{"m": {"a": "x"}}`, testTargets[5], "m", "m must be an object of whole numbers, but an item of it is a string"},
		{`{"l": [["a"], [1]]}`, testTargets[5], "l", "l must be a list of lists of strings, but an item of it is a number"},
		{`{"Skip": "x"}`, testTargets[5], "Skip", "unknown field"},
		{`{"inner": "x"}`, testTargets[5], "inner", "unknown field"},
		{`{"wait": tr`, testTargets[0], "", "cut short"},
		{`{"id": "a\u12`, testTargets[0], "", "cut short"},
		{`{"b": 1, "a": 2}`, testTargets[1], "a", `unknown field "a"`}, // the first name in sort order
		{`{"id": "a", "kind": "text", "question": "Q", "expires_in": "2h", "wait": 3}`, testTargets[0], "", ""},
		{`{"\u006e": 1, "Named": "x", "u": 0, "p": null}`, testTargets[5], "", ""},
		{` {"answers": {"a": {"value": ["x"]}, "b": null}} `, testTargets[3], "", ""},
	} {
		dst := c.dst()
		err := decodeBody([]byte(c.body), dst)
		if c.says == "" {
			require.NoError(t, err, c.body)
			continue
		}
		var e *inquiry.Error
		require.True(t, errors.As(err, &e), "%s: %v", c.body, err)
		require.Equal(t, inquiry.CodeBadRequest, e.Code, c.body)
		require.Equal(t, c.field, e.Field, "%s: %s", c.body, e.Message)
		require.Contains(t, e.Message, c.says, c.body)
		require.False(t, strings.Contains(e.Message, ". "), "one sentence: %s", e.Message)
	}
	var got inquiry.AskRequest
	require.NoError(t, decodeBody([]byte(`{"id": "a", "kind": "text", "question": "Q", "expires_in": "2h", "config": {"policy": "ask"}}`), &got))
	require.Equal(t, inquiry.AskRequest{Inquiry: inquiry.Inquiry{ID: "a", Kind: inquiry.KindText, Question: "Q"}, ExpiresIn: "2h", Config: &inquiry.Config{Policy: inquiry.PolicyAsk}}, got)
	require.Equal(t, "value, text, declined", fieldList(reflect.TypeFor[testAnswer]()))
	require.Equal(t, []string{"id", "run_id", "kind"}, jsonNames(reflect.TypeFor[inquiry.AskRequest]())[:3], "the inquiry's fields come first, in its order")
}

// jsonNames lists the json names of struct type t's fields in their order, an embedded
// struct's in its place: read from the type, so that a new field needs no change here.
func jsonNames(t reflect.Type) []string {
	var names []string
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || f.Anonymous || name == "-" {
			continue
		}
		names = append(names, cmp.Or(name, f.Name))
	}
	return names
}

// BenchmarkDecode is the decoder's own cost on a typical create body, without the HTTP path or
// the store.
func BenchmarkDecode(b *testing.B) {
	body := []byte(`{"id": "deploy-42:merge", "run_id": "deploy-42", "kind": "choice", "question": "Merge now?", "context": "CI is green.", "options": [{"value": "merge", "label": "Merge"}, "hold"], "default": "hold", "expires_in": "2h", "config": {"policy": "ask", "transport": "inbox"}}`)
	b.ReportAllocs()
	for b.Loop() {
		var got inquiry.AskRequest
		if err := decodeBody(body, &got); err != nil {
			b.Fatal(err)
		}
	}
}
