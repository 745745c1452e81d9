package gateway

import "testing"

// TestStringWithInvalidUTF8 places the first bytes that are not UTF-8 in the string value that
// holds them, nested or in a list; in a name they are the body's, no field's.
func TestStringWithInvalidUTF8(t *testing.T) {
	for _, c := range []struct {
		body, path string
		at         int
	}{
		{`{"id": "a` + "\xff" + `"}`, "id", 9},
		{`{"proposal": {"title": "t", "content": "x` + "\xe2\x82" + `"}}`, "proposal.content", 41},
		{`{"options": ["a", {"value": "b", "label": "` + "\xc0\xaf" + `"}]}`, "options[1].label", 43},
		{`{"a": [1, true, null, {"b": [[], "ok"]}], "c": "` + "\xed\xa0\x80" + `"}`, "c", 48},
		{`{"id` + "\xff" + `": "a"}`, "", 0},
		{`{"id": "a", "text": "fine"}`, "", 0},
		{`{"id": "a` + "\xff", "", 0}, // not JSON
	} {
		path, at := stringWithInvalidUTF8([]byte(c.body))
		if path != c.path || at != c.at {
			t.Errorf("%q: got %q at %d, want %q at %d", c.body, path, at, c.path, c.at)
		}
	}
}
