package blockkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/slack-go/slack"
)

// Problem is one broken Block Kit rule: where it is and what is wrong.
type Problem struct {
	Path string // e.g. "blocks[2].elements[0].text"
	Msg  string // e.g. "80 characters, limit 75"
}

func (p Problem) String() string { return p.Path + ": " + p.Msg }

// ValidationError lists every broken rule of one payload, in document order.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// Validate checks message blocks against every Block Kit limit this package knows (see
// ValidateJSON). It returns nil or a *ValidationError.
func Validate(blocks []slack.Block) error {
	b, err := json.Marshal(blocks)
	if err != nil {
		return fmt.Errorf("validate blocks: %w", err)
	}
	return ValidateJSON(b)
}

// ValidateView checks a modal against every Block Kit limit this package knows (see
// ValidateViewJSON). It returns nil or a *ValidationError.
func ValidateView(v slack.ModalViewRequest) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("validate view: %w", err)
	}
	return ValidateViewJSON(b)
}

// ValidateJSON checks the blocks of a message as Slack receives them: a JSON array of blocks (the
// blocks form field of chat.postMessage and chat.update), or a message object with "blocks" and
// "text". Lengths are counted in characters (runes). The checks, with the limits of
// Slack's Block Kit reference:
//
//   - at most 50 blocks; block_id at most 255 characters and unique in the message;
//   - text objects: type plain_text or mrkdwn, 1..3000 characters, emoji only on plain_text,
//     plain_text where Slack allows nothing else;
//   - section: text or fields, text 3000, at most 10 fields of 2000; its accessory as an element;
//   - actions: 1..25 elements, action_ids unique in the block; context: 1..10 elements;
//     header: plain_text 150; input: label and hint plain_text 2000, an element;
//   - elements: action_id 255; button text 75, value 2000, url 3000, accessibility_label 75,
//     style primary or danger; selects: placeholder 150, 1..100 options or option_groups;
//     checkboxes and radio_buttons 1..10 options; plain_text_input max_length 1..3000,
//     min_length 0..3000, placeholder 150;
//   - option objects: text 75 (plain_text in menus), value 1..150 and unique in the element,
//     description 75, url 3000;
//   - confirmation dialogs: title 100, text 300, confirm and deny 30, all but text plain_text;
//   - message text at most 40,000 characters.
//
// Blocks of types it does not know are checked for type and block_id only. It returns nil or a
// *ValidationError naming every problem, e.g. "blocks[2].elements[0].text: 80 characters,
// limit 75".
func ValidateJSON(blocksJSON []byte) error {
	v, err := decodeJSON(blocksJSON)
	if err != nil {
		return fmt.Errorf("validate blocks: %w", err)
	}
	c := newChecker()
	switch t := v.(type) {
	case nil:
	case []any:
		c.blocks("blocks", t, maxMessageBlocks, "message")
	case map[string]any:
		if text, ok := t["text"]; ok {
			if s, ok := text.(string); !ok {
				c.add("text", "must be a string")
			} else if n := runes(s); n > maxMessageText {
				c.add("text", "%d characters, limit %d", n, maxMessageText)
			}
		}
		switch bl := t["blocks"].(type) {
		case nil:
		case []any:
			c.blocks("blocks", bl, maxMessageBlocks, "message")
		default:
			c.add("blocks", "must be an array of blocks")
		}
	default:
		c.add("blocks", "must be an array of blocks")
	}
	return c.err()
}

// ValidateViewJSON checks a view as Slack receives it (the view of views.open, views.push,
// views.update): type modal or home; a modal's title (required), submit and close plain_text of
// at most 24 characters, submit required when there is an input block; 1..100 blocks, each
// checked as in ValidateJSON; private_metadata 3000, callback_id and external_id 255; the whole
// view at most 250 kB. It returns nil or a *ValidationError.
func ValidateViewJSON(viewJSON []byte) error {
	v, err := decodeJSON(viewJSON)
	if err != nil {
		return fmt.Errorf("validate view: %w", err)
	}
	c := newChecker()
	if len(viewJSON) > maxViewBytes {
		c.add("view", "%d bytes, limit %d (view_too_large)", len(viewJSON), maxViewBytes)
	}
	view, ok := v.(map[string]any)
	if !ok {
		c.add("view", "must be an object")
		return c.err()
	}
	typ, _ := view["type"].(string)
	switch typ {
	case string(slack.VTModal):
		c.text("title", view["title"], maxViewTitle, plainOnly, true)
		c.text("submit", view["submit"], maxViewTitle, plainOnly, false)
		c.text("close", view["close"], maxViewTitle, plainOnly, false)
	case string(slack.VTHomeTab):
	default:
		c.add("type", "must be %q or %q, not %q", slack.VTModal, slack.VTHomeTab, typ)
	}
	switch bl := view["blocks"].(type) {
	case []any:
		if len(bl) == 0 {
			c.add("blocks", "a view needs at least one block")
		}
		c.blocks("blocks", bl, maxViewBlocks, "view")
	default:
		c.add("blocks", "required: a view needs an array of at least one block")
	}
	if c.inputs > 0 && typ == string(slack.VTModal) && view["submit"] == nil {
		c.add("submit", "required when the view has an input block")
	}
	c.str(view, "private_metadata", "private_metadata", maxPrivateMetadata)
	c.str(view, "callback_id", "callback_id", maxCallbackID)
	c.str(view, "external_id", "external_id", maxExternalID)
	return c.err()
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

type checker struct {
	problems []Problem
	blockIDs map[string]string // block_id -> path of its first use
	inputs   int               // input blocks seen
}

func newChecker() *checker { return &checker{blockIDs: map[string]string{}} }

func (c *checker) add(path, format string, args ...any) {
	c.problems = append(c.problems, Problem{Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) err() error {
	if len(c.problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: c.problems}
}

// textKind says which text objects a place accepts.
type textKind int

const (
	anyText   textKind = iota // plain_text or mrkdwn
	plainOnly                 // plain_text only
)

// str checks an optional string field's length.
func (c *checker) str(obj map[string]any, key, path string, max int) {
	v, ok := obj[key]
	if !ok || v == nil {
		return
	}
	s, ok := v.(string)
	if !ok {
		c.add(path, "must be a string")
		return
	}
	if n := runes(s); n > max {
		c.add(path, "%d characters, limit %d", n, max)
	}
}

// object returns v as a JSON object, or records that it is not one.
func (c *checker) object(path string, v any) (map[string]any, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		c.add(path, "must be an object")
	}
	return obj, ok
}

// array returns the array at obj[key]; present is false when the key is absent or null.
func (c *checker) array(obj map[string]any, key, path string) (arr []any, present bool) {
	v, ok := obj[key]
	if !ok || v == nil {
		return nil, false
	}
	arr, ok = v.([]any)
	if !ok {
		c.add(path, "must be an array")
		return nil, false
	}
	return arr, true
}

func (c *checker) blocks(path string, list []any, max int, surface string) {
	if len(list) > max {
		c.add(path, "%d blocks, limit %d per %s", len(list), max, surface)
	}
	for i, b := range list {
		c.block(fmt.Sprintf("%s[%d]", path, i), b)
	}
}

// uniqueID checks an id field (block_id, action_id) when present: a string of at most max
// characters, not among the ids already seen (which it joins).
func (c *checker) uniqueID(obj map[string]any, path, field string, max int, seen map[string]string, rule string) {
	id, present := obj[field]
	if !present || id == nil {
		return
	}
	at := path + "." + field
	s, ok := id.(string)
	if !ok {
		c.add(at, "must be a string")
		return
	}
	if runes(s) > max {
		c.add(at, "%d characters, limit %d", runes(s), max)
	}
	if first, dup := seen[s]; dup {
		c.add(at, "%q repeats %s (%s)", s, first, rule)
	} else {
		seen[s] = at
	}
}

// typed checks what blocks and elements have in common: an object with a "type", and an id
// (block_id, action_id) unique among seen. It returns the object and its type; ok is false when v
// is no object, and nothing more is to be checked.
func (c *checker) typed(path string, v any, idField string, maxID int, seen map[string]string,
	rule string) (obj map[string]any, typ string, ok bool) {
	obj, ok = c.object(path, v)
	if !ok {
		return nil, "", false
	}
	typ, _ = obj["type"].(string)
	if typ == "" {
		c.add(path+".type", "required")
	}
	c.uniqueID(obj, path, idField, maxID, seen, rule)
	return obj, typ, true
}

func (c *checker) block(path string, v any) {
	obj, typ, ok := c.typed(path, v, "block_id", maxBlockID, c.blockIDs, "block_ids must be unique")
	if !ok {
		return
	}
	switch typ {
	case "section":
		fields, hasFields := c.array(obj, "fields", path+".fields")
		if obj["text"] == nil && !hasFields {
			c.add(path, "a section needs text or fields")
		}
		c.text(path+".text", obj["text"], maxSectionText, anyText, false)
		if len(fields) > maxSectionFields {
			c.add(path+".fields", "%d fields, limit %d", len(fields), maxSectionFields)
		}
		for i, f := range fields {
			c.text(fmt.Sprintf("%s.fields[%d]", path, i), f, maxFieldText, anyText, true)
		}
		if acc := obj["accessory"]; acc != nil {
			c.element(path+".accessory", acc, map[string]string{})
		}
	case "actions":
		els := c.elements(obj, path, "an actions block", maxActionsBlock)
		ids := map[string]string{}
		for i, e := range els {
			c.element(fmt.Sprintf("%s.elements[%d]", path, i), e, ids)
		}
	case "context":
		els := c.elements(obj, path, "a context block", maxContextBlock)
		for i, e := range els {
			p := fmt.Sprintf("%s.elements[%d]", path, i)
			if o, ok := e.(map[string]any); ok && o["type"] == "image" {
				c.image(p, o)
				continue
			}
			c.text(p, e, maxText, anyText, true)
		}
	case "header":
		c.text(path+".text", obj["text"], maxHeaderText, plainOnly, true)
	case "input":
		c.inputs++
		c.text(path+".label", obj["label"], maxInputLabel, plainOnly, true)
		c.text(path+".hint", obj["hint"], maxInputHint, plainOnly, false)
		if obj["element"] == nil {
			c.add(path+".element", "required")
		} else {
			c.element(path+".element", obj["element"], map[string]string{})
		}
	case "image":
		c.image(path, obj)
	case "rich_text":
		els := c.elements(obj, path, "a rich_text block", maxActionsBlock)
		for i, e := range els {
			c.richText(fmt.Sprintf("%s.elements[%d]", path, i), e)
		}
	}
}

// richText checks one element of a rich_text block: a section, list, quote or preformatted
// with elements. Slack's reference names no length for their text; this package keeps each
// within the maxText of any text object, and so does the check.
func (c *checker) richText(path string, v any) {
	obj, ok := c.object(path, v)
	if !ok {
		return
	}
	switch typ, _ := obj["type"].(string); typ {
	case "rich_text_section", "rich_text_list", "rich_text_quote", "rich_text_preformatted":
	default:
		c.add(path+".type", "must be a rich_text_section, _list, _quote or _preformatted, not %q", typ)
		return
	}
	els := c.elements(obj, path, "a rich text element", maxViewBlocks)
	n := 0
	for i, e := range els {
		if o, ok := c.object(fmt.Sprintf("%s.elements[%d]", path, i), e); ok {
			s, _ := o["text"].(string)
			n += runes(s)
		}
	}
	if n > maxText {
		c.add(path, "%d characters of text, limit %d (this package's bound)", n, maxText)
	}
}

func (c *checker) image(path string, obj map[string]any) {
	c.str(obj, "alt_text", path+".alt_text", maxFieldText)
	c.str(obj, "image_url", path+".image_url", maxURL)
	c.text(path+".title", obj["title"], maxFieldText, plainOnly, false)
}

// elements returns the elements of a block (what, "an actions block", names it in the message),
// checking there are 1 to max of them.
func (c *checker) elements(obj map[string]any, path, what string, max int) []any {
	els, _ := c.array(obj, "elements", path+".elements")
	switch {
	case len(els) == 0:
		c.add(path+".elements", "%s needs at least one element", what)
	case len(els) > max:
		c.add(path+".elements", "%d elements, limit %d", len(els), max)
	}
	return els
}

// text checks a text object: its type, its emoji flag, and 1..max characters (max never above
// the 3000 of any text object). Problems of length name the object's path.
func (c *checker) text(path string, v any, max int, kind textKind, required bool) {
	if v == nil {
		if required {
			c.add(path, "required")
		}
		return
	}
	obj, ok := c.object(path, v)
	if !ok {
		return
	}
	typ, _ := obj["type"].(string)
	switch {
	case typ != "plain_text" && typ != "mrkdwn":
		c.add(path+".type", "must be plain_text or mrkdwn, not %q", typ)
	case kind == plainOnly && typ != "plain_text":
		c.add(path+".type", "must be plain_text here, not %q", typ)
	case typ == "mrkdwn" && obj["emoji"] != nil:
		c.add(path+".emoji", "only plain_text takes emoji")
	}
	s, ok := obj["text"].(string)
	if !ok {
		c.add(path+".text", "required: a string")
		return
	}
	max = min(max, maxText)
	switch n := runes(s); {
	case n == 0:
		c.add(path, "empty, at least 1 character")
	case n > max:
		c.add(path, "%d characters, limit %d", n, max)
	}
}

// element checks an interactive element. actionIDs holds the action_ids already used in the
// containing block, which must differ.
func (c *checker) element(path string, v any, actionIDs map[string]string) {
	obj, typ, ok := c.typed(path, v, "action_id", maxActionID, actionIDs, "action_ids must be unique in a block")
	if !ok {
		return
	}
	if cf := obj["confirm"]; cf != nil {
		c.confirm(path+".confirm", cf)
	}
	switch typ {
	case "button":
		c.text(path+".text", obj["text"], maxButtonText, plainOnly, true)
		c.str(obj, "value", path+".value", maxButtonValue)
		c.str(obj, "url", path+".url", maxURL)
		c.str(obj, "accessibility_label", path+".accessibility_label", maxAccessibility)
		c.style(obj, path+".style")
	case "static_select", "multi_static_select":
		c.text(path+".placeholder", obj["placeholder"], maxPlaceholder, plainOnly, false)
		opts, hasOpts := c.array(obj, "options", path+".options")
		groups, hasGroups := c.array(obj, "option_groups", path+".option_groups")
		switch {
		case hasOpts == hasGroups:
			c.add(path, "a static menu needs options or option_groups, one of them")
		case hasOpts:
			c.options(path+".options", opts, 1, maxSelectOptions, plainOnly)
		default:
			if len(groups) == 0 || len(groups) > maxSelectOptions {
				c.add(path+".option_groups", "%d option groups, limit 1..%d", len(groups), maxSelectOptions)
			}
			for i, g := range groups {
				p := fmt.Sprintf("%s.option_groups[%d]", path, i)
				if gobj, ok := c.object(p, g); ok {
					c.text(p+".label", gobj["label"], maxOptionText, plainOnly, true)
					gopts, _ := c.array(gobj, "options", p+".options")
					c.options(p+".options", gopts, 1, maxSelectOptions, plainOnly)
				}
			}
		}
		c.initialOptions(obj, path, plainOnly)
	case "external_select", "users_select", "conversations_select", "channels_select",
		"multi_external_select", "multi_users_select", "multi_conversations_select", "multi_channels_select",
		"datepicker", "timepicker", "datetimepicker", "number_input", "email_text_input", "url_text_input":
		c.text(path+".placeholder", obj["placeholder"], maxPlaceholder, plainOnly, false)
	case "overflow":
		opts, _ := c.array(obj, "options", path+".options")
		c.options(path+".options", opts, 1, maxSelectOptions, plainOnly)
	case "checkboxes":
		opts, _ := c.array(obj, "options", path+".options")
		c.options(path+".options", opts, 1, maxCheckboxes, anyText)
		c.initialOptions(obj, path, anyText)
	case "radio_buttons":
		opts, _ := c.array(obj, "options", path+".options")
		c.options(path+".options", opts, 1, maxRadioButtons, anyText)
		c.initialOptions(obj, path, anyText)
	case "plain_text_input":
		c.text(path+".placeholder", obj["placeholder"], maxPlaceholder, plainOnly, false)
		maxLen, hasMax := c.number(obj, "max_length", path+".max_length", 1, maxInputLength)
		minLen, hasMin := c.number(obj, "min_length", path+".min_length", 0, maxInputLength)
		if hasMax && hasMin && minLen > maxLen {
			c.add(path+".min_length", "%d is above max_length %d", minLen, maxLen)
		}
		if s, ok := obj["initial_value"].(string); ok && hasMax && int64(runes(s)) > maxLen {
			c.add(path+".initial_value", "%d characters, limit %d (max_length)", runes(s), maxLen)
		}
	}
}

func (c *checker) style(obj map[string]any, path string) {
	if v, ok := obj["style"]; ok && v != nil && v != "primary" && v != "danger" {
		c.add(path, "must be \"primary\" or \"danger\", not %v", v)
	}
}

// number checks an optional integer field lies in lo..hi.
func (c *checker) number(obj map[string]any, key, path string, lo, hi int64) (int64, bool) {
	v, ok := obj[key]
	if !ok || v == nil {
		return 0, false
	}
	num, ok := v.(json.Number)
	if !ok {
		c.add(path, "must be a number")
		return 0, false
	}
	n, err := num.Int64()
	if err != nil {
		c.add(path, "must be a whole number, not %s", num)
		return 0, false
	}
	if n < lo || n > hi {
		c.add(path, "%d, limit %d..%d", n, lo, hi)
	}
	return n, true
}

// options checks a list of option objects: lo..hi of them, each valid, values unique.
func (c *checker) options(path string, opts []any, lo, hi int, kind textKind) {
	switch {
	case len(opts) < lo:
		c.add(path, "%d options, at least %d", len(opts), lo)
	case len(opts) > hi:
		c.add(path, "%d options, limit %d", len(opts), hi)
	}
	seen := map[string]int{}
	for i, o := range opts {
		p := fmt.Sprintf("%s[%d]", path, i)
		val := c.option(p, o, kind)
		if val == "" {
			continue
		}
		if j, dup := seen[val]; dup {
			c.add(p+".value", "%q repeats %s[%d].value (option values must be unique)", val, path, j)
		} else {
			seen[val] = i
		}
	}
}

// option checks one option object and returns its value.
func (c *checker) option(path string, v any, kind textKind) string {
	obj, ok := c.object(path, v)
	if !ok {
		return ""
	}
	c.text(path+".text", obj["text"], maxOptionText, kind, true)
	c.text(path+".description", obj["description"], maxOptionDesc, kind, false)
	c.str(obj, "url", path+".url", maxURL)
	val, ok := obj["value"].(string)
	switch n := runes(val); {
	case !ok:
		c.add(path+".value", "required: a string")
	case n == 0:
		c.add(path+".value", "empty, at least 1 character")
	case n > maxOptionValue:
		c.add(path+".value", "%d characters, limit %d", n, maxOptionValue)
	}
	return val
}

func (c *checker) initialOptions(obj map[string]any, path string, kind textKind) {
	if o := obj["initial_option"]; o != nil {
		c.option(path+".initial_option", o, kind)
	}
	opts, _ := c.array(obj, "initial_options", path+".initial_options")
	for i, o := range opts {
		c.option(fmt.Sprintf("%s.initial_options[%d]", path, i), o, kind)
	}
}

// confirm checks a confirmation dialog object.
func (c *checker) confirm(path string, v any) {
	obj, ok := c.object(path, v)
	if !ok {
		return
	}
	c.text(path+".title", obj["title"], maxConfirmTitle, plainOnly, true)
	c.text(path+".text", obj["text"], maxConfirmText, anyText, true)
	c.text(path+".confirm", obj["confirm"], maxConfirmButton, plainOnly, true)
	c.text(path+".deny", obj["deny"], maxConfirmButton, plainOnly, true)
	c.style(obj, path+".style")
}
