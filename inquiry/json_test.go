package inquiry_test

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// decodeCase is a JSON text and what decoding it gives: want, or a refusal.
type decodeCase[T any] struct {
	name    string
	in      string
	want    T
	wantErr bool
}

// runDecodeCases decodes each case's text into a fresh T. A refused one must fail, its error
// saying refusal when that is not empty; any other must decode to what same takes for want.
func runDecodeCases[T any](t *testing.T, tests []decodeCase[T], refusal string, same func(t *testing.T, want, got T)) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got T
			err := json.Unmarshal([]byte(tc.in), &got)
			if tc.wantErr {
				require.Error(t, err)
				if refusal != "" {
					require.Contains(t, err.Error(), refusal)
				}
				return
			}
			require.NoError(t, err)
			same(t, tc.want, got)
		})
	}
}

func TestValueMarshalJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		value inquiry.Value
		want  string
	}{
		{"nothing is null", inquiry.Value{}, `null`},
		{"one string", inquiry.One("x"), `"x"`},
		{"an empty string", inquiry.One(""), `""`},
		{"a list", inquiry.Many("a", "b"), `["a","b"]`},
		{"a list of one stays a list", inquiry.Many("a"), `["a"]`},
		{"an empty list", inquiry.Many(), `[]`},
		{"escaping", inquiry.One("say \"hi\"\n"), `"say \"hi\"\n"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(tc.value)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))

			// And back.
			var back inquiry.Value
			require.NoError(t, json.Unmarshal(got, &back))
			require.True(t, tc.value.Equal(back), "round trip of %s gave %#v", tc.want, back.Strings())
		})
	}
}

func TestValueUnmarshalJSON(t *testing.T) {
	t.Parallel()
	runDecodeCases(t, []decodeCase[inquiry.Value]{
		{"null", `null`, inquiry.Value{}, false},
		{"a string", `"merge"`, inquiry.One("merge"), false},
		{"a string with blanks around the JSON", ` "merge" `, inquiry.One("merge"), false},
		{"a list", `["a","b"]`, inquiry.Many("a", "b"), false},
		{"an empty list", `[]`, inquiry.Many(), false},
		{"a number is refused", `42`, inquiry.Value{}, true},
		{"a boolean is refused", `true`, inquiry.Value{}, true},
		{"an object is refused", `{"value":"a"}`, inquiry.Value{}, true},
		{"a list of numbers is refused", `[1,2]`, inquiry.Value{}, true},
		{"a nested list is refused", `[["a"]]`, inquiry.Value{}, true},
	}, "must be a string or a list of strings", func(t *testing.T, want, got inquiry.Value) {
		require.True(t, want.Equal(got), "got %#v (list %v)", got.Strings(), got.IsList())
	})
}

func TestValueInAnAnswer(t *testing.T) {
	t.Parallel()
	var a inquiry.Answer
	require.Error(t, json.Unmarshal([]byte(`{"inquiry_id":"x","value":5}`), &a), "a number is not a value")

	require.NoError(t, json.Unmarshal([]byte(`{"inquiry_id":"x","value":["merge","close"]}`), &a))
	require.True(t, inquiry.Many("merge", "close").Equal(a.Value))

	var none inquiry.Answer
	require.NoError(t, json.Unmarshal([]byte(`{"inquiry_id":"x","text":"hi"}`), &none))
	require.True(t, none.Value.IsZero(), "a missing value is nothing")
}

func TestValueMethods(t *testing.T) {
	t.Parallel()
	var zero inquiry.Value
	require.True(t, zero.IsZero())
	require.False(t, zero.IsList())
	require.Equal(t, "", zero.First())
	require.Equal(t, 0, zero.Len())
	require.Empty(t, zero.Strings())
	require.Equal(t, "", zero.String())

	one := inquiry.One("merge")
	require.False(t, one.IsZero())
	require.False(t, one.IsList())
	require.Equal(t, "merge", one.First())
	require.Equal(t, 1, one.Len())

	many := inquiry.Many("a", "b")
	require.False(t, many.IsZero())
	require.True(t, many.IsList())
	require.Equal(t, "a, b", many.String())
	require.Equal(t, 2, many.Len())

	empty := inquiry.Many()
	require.False(t, empty.IsZero(), "an empty list is a list, not nothing")
	require.True(t, empty.IsList())

	require.False(t, inquiry.One("a").Equal(inquiry.Many("a")), "one string and a list of one differ in form")
	require.False(t, inquiry.Many("a", "b").Equal(inquiry.Many("b", "a")), "order matters")
	require.True(t, inquiry.Many("a", "b").Equal(inquiry.Many("a", "b")))
	require.False(t, zero.Equal(empty))

	items := many.Strings()
	items[0] = "changed"
	require.Equal(t, "a", many.First(), "Strings returns a copy")

	src := []string{"x", "y"}
	v := inquiry.Many(src...)
	src[0] = "changed"
	require.Equal(t, "x", v.First(), "Many copies its arguments")
}

func TestOptionUnmarshalJSON(t *testing.T) {
	t.Parallel()
	runDecodeCases(t, []decodeCase[inquiry.Option]{
		{"a bare string is value and label", `"Merge"`, inquiry.Option{Value: "Merge", Label: "Merge"}, false},
		{"an object", `{"value":"merge","label":"Merge now","description":"after CI"}`, inquiry.Option{Value: "merge", Label: "Merge now", Description: "after CI"}, false},
		{"a label alone is the value too", `{"label":"Hold"}`, inquiry.Option{Value: "Hold", Label: "Hold"}, false},
		{"a value alone is the label too", `{"value":"hold"}`, inquiry.Option{Value: "hold", Label: "hold"}, false},
		{"an unknown field is refused", `{"value":"a","label":"A","colour":"red"}`, inquiry.Option{}, true},
		{"a misspelt field is refused", `{"value":"a","lable":"A"}`, inquiry.Option{}, true},
		{"a number is refused", `3`, inquiry.Option{}, true},
		{"a list is refused", `["a"]`, inquiry.Option{}, true},
		{"a label of the wrong type is refused", `{"value":"a","label":3}`, inquiry.Option{}, true},
	}, "", func(t *testing.T, want, got inquiry.Option) {
		require.Equal(t, want, got)
	})
}

// strictOption reads b as Option.UnmarshalJSON did before its fast path: the strict decoder
// alone, then the label and value defaults.
func strictOption(b []byte) (inquiry.Option, error) {
	type plain inquiry.Option
	var p plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return inquiry.Option{}, err
	}
	if p.Value == "" {
		p.Value = p.Label
	}
	if p.Label == "" {
		p.Label = p.Value
	}
	return inquiry.Option(p), nil
}

// optionBodies are objects the fast path of Option.UnmarshalJSON takes and ones it must hand on.
var optionBodies = []string{
	`{}`,
	`{"value":"merge","label":"Merge","description":"now"}`,
	`{ "label" : "Hold" , "value" : "hold" }`,
	`{"value":"a","value":"b"}`,                    // the last one wins, both ways
	`{"Value":"a","LABEL":"A"}`,                    // names in another case: the strict decoder's match
	`{"valu\u0065":"a"}`,                           // an escaped name
	`{"value":"a \"quoted\" {label}","label":"A"}`, // a value that looks like names
	`{"value":"a","colour":"red"}`,
	`{"value":{"label":"x"}}`,
	`{"value":["label"],"label":"A"}`,
	`{"value":"a","label":3}`,
	`{"value":"a"} {"value":"b"}`, // more after the object: the strict decoder reads the first
	`{"value":"a",}`,
	`{"value":"a"`,
	`{"value":"a\u0000b"}`,
	`{"description":"only"}`,
	`{"value":"é","label":"E"}`,
	`{"value":null,"label":"A"}`,
	"{\"value\":\"a\"}\n\t ",
	`{"value":"a"}x`,
	`{"value":"a" "label":"b"}`,
	`{"value" "a"}`,
	`{"value":"a",,"label":"b"}`,
	"{\"value\":\"tab\tin it\"}",
}

// FuzzOptionUnmarshalJSONAsStrict: whatever the bytes, Option.UnmarshalJSON gives what the strict
// decoder alone gives — the same option, or the same error (the seeds run in every go test).
func FuzzOptionUnmarshalJSONAsStrict(f *testing.F) {
	for _, body := range optionBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '{' || !json.Valid(b) {
			// The string form is TestStringsAsUnmarshal's; encoding/json hands an unmarshaler
			// only a valid value (it checks the whole input first), so invalid bytes never come.
			return
		}
		want, wantErr := strictOption(b)
		var got inquiry.Option
		err := got.UnmarshalJSON(b)
		if wantErr != nil {
			if err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("%q: got %+v, %v; the strict decoder: %v", b, got, err, wantErr)
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("%q: got %+v, %v; the strict decoder: %+v", b, got, err, want)
		}
	})
}

// TestOptionUnmarshalJSONAsStrict pins the fast path of Option.UnmarshalJSON (json.Unmarshal
// when every name is exactly one of Option's) to what the strict decoder alone gives: the same
// option, or the same error, for objects it takes and objects it must hand on.
func TestOptionUnmarshalJSONAsStrict(t *testing.T) {
	t.Parallel()
	strict := strictOption
	for _, body := range optionBodies {
		var got inquiry.Option
		err := got.UnmarshalJSON([]byte(body))
		want, wantErr := strict([]byte(body))
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error(), "%s", body)
			continue
		}
		require.NoError(t, err, "%s", body)
		require.Equal(t, want, got, "%s", body)
	}
}

// TestStringsAsUnmarshal: a string option and a string value read as json.Unmarshal reads the
// string (the plain ones without it), escapes, control characters and bad endings included.
func TestStringsAsUnmarshal(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`""`, `"hold"`, `"Merge now, please!"`, `"tab\there"`, `"a\"b"`, `"caf\u00e9"`, `"café"`,
		"\"\x7f\"", "\"a\tb\"", `"a`, `"a"b"`, `"\ud800"`, "\"\xff\"",
	} {
		var s string
		err := json.Unmarshal([]byte(body), &s)
		var v inquiry.Value
		var o inquiry.Option
		vErr, oErr := v.UnmarshalJSON([]byte(body)), o.UnmarshalJSON([]byte(body))
		if err != nil {
			require.EqualError(t, vErr, err.Error(), "%q", body)
			require.EqualError(t, oErr, err.Error(), "%q", body)
			continue
		}
		require.NoError(t, vErr, "%q", body)
		require.NoError(t, oErr, "%q", body)
		require.True(t, inquiry.One(s).Equal(v), "%q: %v", body, v)
		require.Equal(t, inquiry.Option{Value: s, Label: s}, o, "%q", body)
	}
}

func TestOptionsMixedInAnInquiry(t *testing.T) {
	t.Parallel()
	var in inquiry.Inquiry
	body := `{"id":"deploy-42:merge","kind":"choice","question":"Merge now?",
		"options":["Merge", {"value":"hold","label":"Hold","description":"until Monday"}],"default":"hold"}`
	require.NoError(t, json.Unmarshal([]byte(body), &in))
	require.Equal(t, []inquiry.Option{
		{Value: "Merge", Label: "Merge"},
		{Value: "hold", Label: "Hold", Description: "until Monday"},
	}, in.Options)
	require.True(t, inquiry.One("hold").Equal(in.Default))
	require.NoError(t, inquiry.Validate(&in, pureNow))

	var bad inquiry.Inquiry
	require.Error(t, json.Unmarshal([]byte(`{"options":[{"value":"a","extra":1}]}`), &bad))
}

func TestOptionMarshalJSON(t *testing.T) {
	t.Parallel()
	got, err := json.Marshal(inquiry.Option{Value: "merge", Label: "Merge"})
	require.NoError(t, err)
	require.JSONEq(t, `{"value":"merge","label":"Merge"}`, string(got), "no description, no field")

	got, err = json.Marshal(inquiry.Option{Value: "merge", Label: "Merge", Description: "now"})
	require.NoError(t, err)
	require.JSONEq(t, `{"value":"merge","label":"Merge","description":"now"}`, string(got))
}

func pureKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestRecordJSONFieldNames(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	resolved := created.Add(time.Minute)
	expires := created.Add(2 * time.Hour)
	rec := inquiry.Record{
		Key: "inq_2Xk",
		Inquiry: inquiry.Inquiry{
			ID: "deploy-42:merge", RunID: "deploy-42", Kind: inquiry.KindChoice, Question: "Merge now?",
			Options:   []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}},
			Default:   inquiry.One("hold"),
			ExpiresAt: &expires,
		},
		Namespace: "ci",
		Config:    inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportSlack},
		Status:    inquiry.StatusAnswered,
		Answer: &inquiry.Answer{
			InquiryID: "deploy-42:merge", Value: inquiry.One("merge"), AnsweredBy: "U123",
			Source: inquiry.SourcePerson, AnsweredAt: resolved,
		},
		Slack:      inquiry.SlackRef{Channel: "C1", TS: "1700000000.000100", Permalink: "https://x.slack.com/p1", Answerers: []string{"U123"}},
		Failure:    &inquiry.Failure{Code: inquiry.CodeUnavailable, Message: "gone", Fatal: true},
		CreatedAt:  created,
		ResolvedAt: &resolved,
	}
	raw, err := json.Marshal(rec)
	require.NoError(t, err)

	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	keys := pureKeys(t, raw)
	for _, want := range []string{
		"key", "id", "run_id", "kind", "question", "context", "options", "multiple", "allow_text",
		"default", "expires_at", "config", "status", "answer", "slack", "failure", "created_at", "resolved_at",
	} {
		require.Contains(t, keys, want)
	}
	require.NotContains(t, keys, "callback_url", "no callback, no field")
	require.NotContains(t, keys, "Inquiry", "the inquiry's fields are inline")

	require.Equal(t, []string{"answered_at", "answered_by", "declined", "inquiry_id", "source", "text", "truncated", "value"}, pureKeys(t, m["answer"]))
	require.Equal(t, []string{"answerers", "channel", "permalink", "thread_ts", "ts"}, pureKeys(t, m["slack"]))
	require.Equal(t, []string{"policy", "transport"}, pureKeys(t, m["config"]))
	require.Equal(t, []string{"code", "fatal", "message"}, pureKeys(t, m["failure"]))
	require.Equal(t, []string{"label", "value"}, pureKeys(t, pureFirst(t, m["options"])))

	require.JSONEq(t, `"hold"`, string(m["default"]))
	require.JSONEq(t, `"2026-11-30T14:00:00Z"`, string(m["expires_at"]))
	require.JSONEq(t, `"answered"`, string(m["status"]))
	require.JSONEq(t, `{"inquiry_id":"deploy-42:merge","value":"merge","text":"","declined":false,"truncated":false,
		"answered_by":"U123","source":"person","answered_at":"2026-11-30T12:01:00Z"}`, string(m["answer"]))

	var back inquiry.Record
	require.NoError(t, json.Unmarshal(raw, &back))
	require.True(t, inquiry.SameContent(&rec.Inquiry, &back.Inquiry))
	require.Equal(t, rec.Key, back.Key)
	require.Equal(t, rec.ID, back.ID)
	require.Equal(t, rec.RunID, back.RunID)
	require.True(t, rec.ExpiresAt.Equal(*back.ExpiresAt))
	require.Equal(t, rec.Config, back.Config)
	require.Equal(t, rec.Slack, back.Slack)
	require.Equal(t, *rec.Failure, *back.Failure)
	require.True(t, rec.Answer.Value.Equal(back.Answer.Value))
}

func pureFirst(t *testing.T, list json.RawMessage) json.RawMessage {
	t.Helper()
	var items []json.RawMessage
	require.NoError(t, json.Unmarshal(list, &items))
	require.NotEmpty(t, items)
	return items[0]
}

func TestPendingRecordJSON(t *testing.T) {
	t.Parallel()
	raw, err := json.Marshal(inquiry.Record{
		Key:     "inq_1",
		Inquiry: inquiry.Inquiry{ID: "notes", Kind: inquiry.KindText, Question: "Notes?"},
		Status:  inquiry.StatusPending,
	})
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	for _, null := range []string{"answer", "failure", "resolved_at", "expires_at", "default"} {
		require.Equal(t, "null", string(m[null]), "%s of a pending inquiry", null)
	}
}

// A whole inquiry as the API shows it (openapi.yaml: Inquiry) decodes into the types.
func TestWholeInquiryExampleDecodes(t *testing.T) {
	t.Parallel()
	body := `{"key": "inq_2Xk", "id": "deploy-42:merge", "run_id": "deploy-42", "kind": "choice",
 "question": "Merge now?", "context": "", "options": [{"value": "merge", "label": "Merge"}, {"value": "hold", "label": "Hold"}],
 "multiple": false, "allow_text": false, "default": "hold", "expires_at": "2026-12-01T14:00:00Z",
 "config": {"policy": "ask", "transport": "slack"}, "status": "answered",
 "answer": {"inquiry_id": "deploy-42:merge", "value": "merge", "text": "", "declined": false,
            "truncated": false, "answered_by": "U123", "source": "person", "answered_at": "2026-12-01T13:00:00Z"},
 "slack": {"channel": "C1", "thread_ts": "", "ts": "1700000000.000100", "permalink": "https://x", "answerers": []},
 "failure": null, "created_at": "2026-12-01T12:00:00Z", "resolved_at": "2026-12-01T13:00:00Z"}`
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	var rec inquiry.Record
	require.NoError(t, dec.Decode(&rec))

	require.Equal(t, "inq_2Xk", rec.Key)
	require.Equal(t, "deploy-42", rec.RunID)
	require.Equal(t, inquiry.PolicyAsk, rec.Config.Policy)
	require.Equal(t, inquiry.StatusAnswered, rec.Status)
	require.Equal(t, inquiry.SourcePerson, rec.Answer.Source)
	require.Equal(t, "merge", rec.Answer.Value.First())
	require.Equal(t, "1700000000.000100", rec.Slack.TS)
	require.Nil(t, rec.Failure)
	require.NoError(t, inquiry.Validate(&rec.Inquiry, time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)))
}

func TestKindPolicyStatus(t *testing.T) {
	t.Parallel()
	for _, k := range []inquiry.Kind{inquiry.KindChoice, inquiry.KindText, inquiry.KindConfirm} {
		require.True(t, k.Valid(), k)
	}
	for _, k := range []inquiry.Kind{"", "Choice", "poll"} {
		require.False(t, k.Valid(), k)
	}

	for in, want := range map[string]inquiry.Policy{"ask": inquiry.PolicyAsk, " DEFAULT ": inquiry.PolicyDefault, "Refuse": inquiry.PolicyRefuse} {
		got, err := inquiry.ParsePolicy(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got)
		require.True(t, got.Valid())
	}
	for _, in := range []string{"", "sometimes", "asks"} {
		_, err := inquiry.ParsePolicy(in)
		require.Error(t, err, in)
		require.Contains(t, err.Error(), "is not one of ask, default or refuse")
	}
	require.False(t, inquiry.Policy("").Valid())

	require.False(t, inquiry.StatusPending.Resolved())
	for _, s := range []inquiry.Status{inquiry.StatusAnswered, inquiry.StatusExpired, inquiry.StatusCancelled, inquiry.StatusFailed} {
		require.True(t, s.Valid(), s)
		require.True(t, s.Resolved(), s)
	}
	require.False(t, inquiry.Status("done").Valid())
	require.False(t, inquiry.Status("done").Resolved(), "an unknown status is not final")
}

func TestOffered(t *testing.T) {
	t.Parallel()
	choice := pureValid(inquiry.KindChoice)
	require.Equal(t, choice.Options, inquiry.Offered(choice))
	require.Equal(t, []inquiry.Option{{Value: "yes", Label: "Yes"}, {Value: "no", Label: "No"}}, inquiry.Offered(pureValid(inquiry.KindConfirm)))
	require.Nil(t, inquiry.Offered(pureValid(inquiry.KindText)))
}

func TestSameContent(t *testing.T) {
	t.Parallel()
	base := func() *inquiry.Inquiry {
		in := pureValid(inquiry.KindChoice)
		in.Default = inquiry.One("hold")
		in.ExpiresAt = pureAt(time.Hour)
		return in
	}
	tests := []struct {
		name string
		edit func(in *inquiry.Inquiry)
		want bool
	}{
		{"the same", func(*inquiry.Inquiry) {}, true},
		{"another expiry is the same question", func(in *inquiry.Inquiry) { in.ExpiresAt = pureAt(3 * time.Hour) }, true},
		{"no expiry is the same question", func(in *inquiry.Inquiry) { in.ExpiresAt = nil }, true},
		{"another id and run are the same content", func(in *inquiry.Inquiry) { in.ID, in.RunID = "other", "" }, true},
		{"another kind", func(in *inquiry.Inquiry) { in.Kind = inquiry.KindConfirm }, false},
		{"another question", func(in *inquiry.Inquiry) { in.Question = "Merge today?" }, false},
		{"another context", func(in *inquiry.Inquiry) { in.Context = "" }, false},
		{"another label", func(in *inquiry.Inquiry) { in.Options[1].Label = "Wait" }, false},
		{"a description added", func(in *inquiry.Inquiry) { in.Options[0].Description = "now" }, false},
		{"an option more", func(in *inquiry.Inquiry) { in.Options = append(in.Options, inquiry.Option{Value: "c", Label: "C"}) }, false},
		{"options reordered", func(in *inquiry.Inquiry) { in.Options[0], in.Options[1] = in.Options[1], in.Options[0] }, false},
		{"multiple", func(in *inquiry.Inquiry) { in.Multiple = true }, false},
		{"allow_text", func(in *inquiry.Inquiry) { in.AllowText = true }, false},
		{"another default", func(in *inquiry.Inquiry) { in.Default = inquiry.One("merge") }, false},
		{"no default", func(in *inquiry.Inquiry) { in.Default = inquiry.Value{} }, false},
	}
	for _, tc := range tests {
		a, b := base(), base()
		tc.edit(b)
		require.Equal(t, tc.want, inquiry.SameContent(a, b), tc.name)
		require.Equal(t, tc.want, inquiry.SameContent(b, a), "%s, the other way round", tc.name)
	}
}
