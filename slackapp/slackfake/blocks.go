package slackfake

import (
	"encoding/json"
	"strings"
)

// The fake reads blocks as the JSON the app sent, the way Slack's client does: it never needs
// slack-go's types, so it cannot share a bug with the app's rendering.

type obj = map[string]any

func decodeBlocks(raw json.RawMessage) []obj {
	var blocks []obj
	_ = json.Unmarshal(raw, &blocks)
	return blocks
}

// elements returns the interactive elements of a block: an actions block's elements, a section's
// accessory, an input block's element.
func elements(b obj) []obj {
	var out []obj
	switch b["type"] {
	case "actions":
		if els, ok := b["elements"].([]any); ok {
			for _, e := range els {
				if m, ok := e.(obj); ok {
					out = append(out, m)
				}
			}
		}
	case "section":
		if m, ok := b["accessory"].(obj); ok {
			out = append(out, m)
		}
	case "input":
		if m, ok := b["element"].(obj); ok {
			out = append(out, m)
		}
	}
	return out
}

func str(m obj, key string) string {
	s, _ := m[key].(string)
	return s
}

// textOf returns the text of a text object field.
func textOf(m obj, key string) string {
	if t, ok := m[key].(obj); ok {
		return str(t, "text")
	}
	return ""
}

func actionIDs(raw json.RawMessage) []string {
	var out []string
	for _, b := range decodeBlocks(raw) {
		for _, e := range elements(b) {
			if id := str(e, "action_id"); id != "" {
				out = append(out, id)
			}
		}
	}
	return out
}

func blockIDs(raw json.RawMessage) []string {
	var out []string
	for _, b := range decodeBlocks(raw) {
		out = append(out, str(b, "block_id"))
	}
	return out
}

// allText collects every "text" string in the blocks, in document order.
func allText(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var parts []string
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case obj:
			if s, ok := t["text"].(string); ok {
				parts = append(parts, s)
			}
			for _, k := range sortedKeys(t) {
				if k != "text" {
					walk(t[k])
				} else if _, ok := t[k].(string); !ok {
					walk(t[k])
				}
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(v)
	return strings.Join(parts, "\n")
}

// found is an element located in a message or a view.
type found struct {
	blockID string
	block   obj
	el      obj
}

// findElement returns the first element for which match is true.
func findElement(raw json.RawMessage, match func(b, el obj) bool) (found, bool) {
	for _, b := range decodeBlocks(raw) {
		for _, e := range elements(b) {
			if match(b, e) {
				return found{blockID: str(b, "block_id"), block: b, el: e}, true
			}
		}
	}
	return found{}, false
}

// optionsOf returns an element's options, those in option groups included.
func optionsOf(el obj) []obj {
	var out []obj
	add := func(list any) {
		if l, ok := list.([]any); ok {
			for _, o := range l {
				if m, ok := o.(obj); ok {
					out = append(out, m)
				}
			}
		}
	}
	add(el["options"])
	if groups, ok := el["option_groups"].([]any); ok {
		for _, g := range groups {
			if m, ok := g.(obj); ok {
				add(m["options"])
			}
		}
	}
	return out
}

// matchOption finds the option whose value is want, else whose label is want (any case).
func matchOption(el obj, want string) (obj, bool) {
	opts := optionsOf(el)
	for _, o := range opts {
		if str(o, "value") == want {
			return o, true
		}
	}
	for _, o := range opts {
		if strings.EqualFold(strings.TrimSpace(textOf(o, "text")), strings.TrimSpace(want)) {
			return o, true
		}
	}
	return nil, false
}

// optionWire is an option as Slack echoes it in payloads.
func optionWire(o obj) obj {
	out := obj{"text": o["text"], "value": o["value"]}
	if d, ok := o["description"]; ok {
		out["description"] = d
	}
	return out
}

var selectTypes = map[string]bool{"static_select": true, "external_select": true}
var multiTypes = map[string]bool{"checkboxes": true, "multi_static_select": true, "multi_external_select": true}
