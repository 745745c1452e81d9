package blockkit_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/slack-go/slack"
)

type obj = map[string]any

func pt(s string) obj { return obj{"type": "plain_text", "text": s} }
func md(s string) obj { return obj{"type": "mrkdwn", "text": s} }
func x(n int) string  { return strings.Repeat("x", n) }

func section(text any) obj { return obj{"type": "section", "text": text} }
func actions(els ...any) obj {
	return obj{"type": "actions", "elements": els}
}
func button(id string) obj {
	return obj{"type": "button", "action_id": id, "text": pt("Go"), "value": "v"}
}
func with(o obj, kv ...any) obj {
	c := obj{}
	for k, v := range o {
		c[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		c[kv[i].(string)] = kv[i+1]
	}
	return c
}
func opt(value string) obj { return obj{"text": pt("Label " + value), "value": value} }
func opts(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = opt(strings.Repeat("v", i+1))
	}
	return out
}
func sel(typ string, options ...any) obj {
	return obj{"type": typ, "action_id": "s", "options": options}
}
func input(el obj) obj { return obj{"type": "input", "label": pt("Label"), "element": el} }
func confirm(title, text, yes, no string) obj {
	return obj{"title": pt(title), "text": pt(text), "confirm": pt(yes), "deny": pt(no)}
}
func many(n int, b obj) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// TestValidateCatchesEveryLimit feeds one broken payload per limit and checks the problem is
// named with its path and its limit.
func TestValidateCatchesEveryLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		msg  any // a blocks array or a message object
		want string
	}{
		{"51 blocks", many(51, obj{"type": "divider"}), "blocks: 51 blocks, limit 50 per message"},
		{"section text 3001", []any{section(md(x(3001)))}, "blocks[0].text: 3001 characters, limit 3000"},
		{"section text empty", []any{section(md(""))}, "blocks[0].text: empty, at least 1 character"},
		{"section nothing", []any{obj{"type": "section"}}, "blocks[0]: a section needs text or fields"},
		{"11 fields", []any{obj{"type": "section", "fields": many(11, md("f"))}}, "blocks[0].fields: 11 fields, limit 10"},
		{"field 2001", []any{obj{"type": "section", "fields": []any{md(x(2001))}}}, "blocks[0].fields[0]: 2001 characters, limit 2000"},
		{"block_id 256", []any{with(section(md("a")), "block_id", x(256))}, "blocks[0].block_id: 256 characters, limit 255"},
		{"block_id repeated", []any{with(section(md("a")), "block_id", "b"), with(obj{"type": "divider"}, "block_id", "b")},
			`blocks[1].block_id: "b" repeats blocks[0].block_id`},
		{"26 elements", []any{actions(func() []any {
			var els []any
			for i := range 26 {
				els = append(els, button(strings.Repeat("a", i+1)))
			}
			return els
		}()...)}, "blocks[0].elements: 26 elements, limit 25"},
		{"no elements", []any{actions()}, "blocks[0].elements: an actions block needs at least one element"},
		{"button text 76", []any{actions(with(button("a"), "text", pt(x(76))))}, "blocks[0].elements[0].text: 76 characters, limit 75"},
		{"button text mrkdwn", []any{actions(with(button("a"), "text", md("Go")))}, `blocks[0].elements[0].text.type: must be plain_text here, not "mrkdwn"`},
		{"button no text", []any{actions(with(button("a"), "text", nil))}, "blocks[0].elements[0].text: required"},
		{"button value 2001", []any{actions(with(button("a"), "value", x(2001)))}, "blocks[0].elements[0].value: 2001 characters, limit 2000"},
		{"button url 3001", []any{actions(with(button("a"), "url", x(3001)))}, "blocks[0].elements[0].url: 3001 characters, limit 3000"},
		{"accessibility_label 76", []any{actions(with(button("a"), "accessibility_label", x(76)))}, "blocks[0].elements[0].accessibility_label: 76 characters, limit 75"},
		{"style", []any{actions(with(button("a"), "style", "green"))}, `blocks[0].elements[0].style: must be "primary" or "danger", not green`},
		{"action_id 256", []any{actions(button(x(256)))}, "blocks[0].elements[0].action_id: 256 characters, limit 255"},
		{"action_id repeated", []any{actions(button("a"), button("a"))}, `blocks[0].elements[1].action_id: "a" repeats blocks[0].elements[0].action_id`},
		{"101 options", []any{actions(sel("static_select", opts(101)...))}, "blocks[0].elements[0].options: 101 options, limit 100"},
		{"no options", []any{actions(obj{"type": "static_select", "action_id": "s"})}, "blocks[0].elements[0]: a static menu needs options or option_groups"},
		{"zero options", []any{actions(with(sel("static_select"), "options", []any{}))}, "blocks[0].elements[0].options: 0 options, at least 1"},
		{"option text 76", []any{actions(sel("static_select", with(opt("a"), "text", pt(x(76)))))}, "blocks[0].elements[0].options[0].text: 76 characters, limit 75"},
		{"option text mrkdwn in a menu", []any{actions(sel("static_select", with(opt("a"), "text", md("a"))))}, "blocks[0].elements[0].options[0].text.type: must be plain_text here"},
		{"option value 151", []any{actions(sel("static_select", opt(x(151))))}, "blocks[0].elements[0].options[0].value: 151 characters, limit 150"},
		{"option value empty", []any{actions(sel("static_select", opt("")))}, "blocks[0].elements[0].options[0].value: empty"},
		{"option description 76", []any{actions(sel("static_select", with(opt("a"), "description", pt(x(76)))))}, "blocks[0].elements[0].options[0].description: 76 characters, limit 75"},
		{"option url 3001", []any{actions(sel("overflow", with(opt("a"), "url", x(3001))))}, "blocks[0].elements[0].options[0].url: 3001 characters, limit 3000"},
		{"option values repeated", []any{actions(sel("static_select", opt("a"), opt("a")))}, `blocks[0].elements[0].options[1].value: "a" repeats blocks[0].elements[0].options[0].value`},
		{"101 option groups", []any{actions(obj{"type": "static_select", "action_id": "s", "option_groups": many(101, obj{"label": pt("g"), "options": []any{opt("a")}})})},
			"blocks[0].elements[0].option_groups: 101 option groups, limit 1..100"},
		{"option group label 76", []any{actions(obj{"type": "static_select", "action_id": "s", "option_groups": []any{obj{"label": pt(x(76)), "options": []any{opt("a")}}}})},
			"blocks[0].elements[0].option_groups[0].label: 76 characters, limit 75"},
		{"placeholder 151", []any{actions(with(sel("static_select", opt("a")), "placeholder", pt(x(151))))}, "blocks[0].elements[0].placeholder: 151 characters, limit 150"},
		{"multi select 101 options", []any{input(sel("multi_static_select", opts(101)...))}, "blocks[0].element.options: 101 options, limit 100"},
		{"11 checkboxes", []any{input(sel("checkboxes", opts(11)...))}, "blocks[0].element.options: 11 options, limit 10"},
		{"11 radio buttons", []any{input(sel("radio_buttons", opts(11)...))}, "blocks[0].element.options: 11 options, limit 10"},
		{"initial option", []any{input(with(sel("radio_buttons", opt("a")), "initial_option", opt(x(151))))}, "blocks[0].element.initial_option.value: 151 characters, limit 150"},
		{"confirm title 101", []any{actions(with(button("a"), "confirm", confirm(x(101), "t", "y", "n")))}, "blocks[0].elements[0].confirm.title: 101 characters, limit 100"},
		{"confirm text 301", []any{actions(with(button("a"), "confirm", confirm("t", x(301), "y", "n")))}, "blocks[0].elements[0].confirm.text: 301 characters, limit 300"},
		{"confirm button 31", []any{actions(with(button("a"), "confirm", confirm("t", "t", x(31), "n")))}, "blocks[0].elements[0].confirm.confirm: 31 characters, limit 30"},
		{"deny button 31", []any{actions(with(button("a"), "confirm", confirm("t", "t", "y", x(31))))}, "blocks[0].elements[0].confirm.deny: 31 characters, limit 30"},
		{"select confirm", []any{actions(with(sel("static_select", opt("a")), "confirm", confirm("t", "t", "y", x(31))))}, "blocks[0].elements[0].confirm.deny: 31 characters, limit 30"},
		{"11 context elements", []any{obj{"type": "context", "elements": many(11, md("c"))}}, "blocks[0].elements: 11 elements, limit 10"},
		{"context text 3001", []any{obj{"type": "context", "elements": []any{md(x(3001))}}}, "blocks[0].elements[0]: 3001 characters, limit 3000"},
		{"empty context", []any{obj{"type": "context", "elements": []any{}}}, "blocks[0].elements: a context block needs at least one element"},
		{"header 151", []any{obj{"type": "header", "text": pt(x(151))}}, "blocks[0].text: 151 characters, limit 150"},
		{"header mrkdwn", []any{obj{"type": "header", "text": md("h")}}, "blocks[0].text.type: must be plain_text here"},
		{"input label 2001", []any{with(input(obj{"type": "plain_text_input", "action_id": "a"}), "label", pt(x(2001)))}, "blocks[0].label: 2001 characters, limit 2000"},
		{"input hint 2001", []any{with(input(obj{"type": "plain_text_input", "action_id": "a"}), "hint", pt(x(2001)))}, "blocks[0].hint: 2001 characters, limit 2000"},
		{"input no element", []any{obj{"type": "input", "label": pt("l")}}, "blocks[0].element: required"},
		{"max_length 3001", []any{input(obj{"type": "plain_text_input", "max_length": 3001})}, "blocks[0].element.max_length: 3001, limit 1..3000"},
		{"max_length 0", []any{input(obj{"type": "plain_text_input", "max_length": 0})}, "blocks[0].element.max_length: 0, limit 1..3000"},
		{"min_length 3001", []any{input(obj{"type": "plain_text_input", "min_length": 3001})}, "blocks[0].element.min_length: 3001, limit 0..3000"},
		{"min above max", []any{input(obj{"type": "plain_text_input", "min_length": 10, "max_length": 5})}, "blocks[0].element.min_length: 10 is above max_length 5"},
		{"input placeholder 151", []any{input(obj{"type": "plain_text_input", "placeholder": pt(x(151))})}, "blocks[0].element.placeholder: 151 characters, limit 150"},
		{"initial value over max_length", []any{input(obj{"type": "plain_text_input", "max_length": 3, "initial_value": "abcd"})}, "blocks[0].element.initial_value: 4 characters, limit 3"},
		{"emoji on mrkdwn", []any{section(with(md("a"), "emoji", true))}, "blocks[0].text.emoji: only plain_text takes emoji"},
		{"unknown text type", []any{section(obj{"type": "markdown", "text": "a"})}, `blocks[0].text.type: must be plain_text or mrkdwn, not "markdown"`},
		{"text not a string", []any{section(obj{"type": "mrkdwn", "text": 3})}, "blocks[0].text.text: required: a string"},
		{"message text 40001", obj{"text": x(40001), "blocks": []any{}}, "text: 40001 characters, limit 40000"},
		{"blocks not an array", obj{"blocks": 3}, "blocks: must be an array of blocks"},
		{"block not an object", []any{1}, "blocks[0]: must be an object"},
		{"block without type", []any{obj{"block_id": "a"}}, "blocks[0].type: required"},
		{"accessory", []any{with(section(md("a")), "accessory", with(button("a"), "text", pt(x(76))))}, "blocks[0].accessory.text: 76 characters, limit 75"},
	} {
		b, err := json.Marshal(tc.msg)
		if err != nil {
			t.Fatal(err)
		}
		err = blockkit.ValidateJSON(b)
		var verr *blockkit.ValidationError
		if !errors.As(err, &verr) {
			t.Errorf("%s: err %v, want a *ValidationError", tc.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.name, err, tc.want)
		}
	}
}

func TestValidateViewCatchesEveryLimit(t *testing.T) {
	t.Parallel()
	ok := func() obj {
		return obj{"type": "modal", "title": pt("Title"), "submit": pt("Send"), "close": pt("Cancel"),
			"blocks": []any{input(obj{"type": "plain_text_input", "action_id": "a"})}}
	}
	for _, tc := range []struct {
		name string
		view obj
		want string
	}{
		{"title 25", with(ok(), "title", pt(x(25))), "title: 25 characters, limit 24"},
		{"no title", with(ok(), "title", nil), "title: required"},
		{"title mrkdwn", with(ok(), "title", md("t")), "title.type: must be plain_text here"},
		{"submit 25", with(ok(), "submit", pt(x(25))), "submit: 25 characters, limit 24"},
		{"close 25", with(ok(), "close", pt(x(25))), "close: 25 characters, limit 24"},
		{"no submit with an input", with(ok(), "submit", nil), "submit: required when the view has an input block"},
		{"private_metadata 3001", with(ok(), "private_metadata", x(3001)), "private_metadata: 3001 characters, limit 3000"},
		{"callback_id 256", with(ok(), "callback_id", x(256)), "callback_id: 256 characters, limit 255"},
		{"external_id 256", with(ok(), "external_id", x(256)), "external_id: 256 characters, limit 255"},
		{"101 blocks", with(ok(), "blocks", many(101, obj{"type": "divider"})), "blocks: 101 blocks, limit 100 per view"},
		{"null blocks", with(ok(), "blocks", nil), "blocks: required"},
		{"no blocks", with(ok(), "blocks", []any{}), "blocks: a view needs at least one block"},
		{"type", with(ok(), "type", "dialog"), `type: must be "modal" or "home", not "dialog"`},
		{"input block_ids repeated", with(ok(), "blocks", []any{with(input(obj{"type": "plain_text_input"}), "block_id", "a"), with(input(obj{"type": "plain_text_input"}), "block_id", "a")}),
			`blocks[1].block_id: "a" repeats blocks[0].block_id`},
		{"too large", with(ok(), "blocks", many(90, section(md(strings.Repeat("\u00e9", 3000))))), "view: "},
		{"a block inside", with(ok(), "blocks", []any{section(md(x(3001)))}), "blocks[0].text: 3001 characters, limit 3000"},
	} {
		b, err := json.Marshal(tc.view)
		if err != nil {
			t.Fatal(err)
		}
		if err := blockkit.ValidateViewJSON(b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.name, err, tc.want)
		}
	}
	b, _ := json.Marshal(ok())
	if err := blockkit.ValidateViewJSON(b); err != nil {
		t.Errorf("a valid view: %v", err)
	}
}

// TestValidateCountsCharacters checks that limits count characters, not bytes.
func TestValidateCountsCharacters(t *testing.T) {
	t.Parallel()
	blocks := []slack.Block{
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, strings.Repeat("🦀", 3000), false, true), nil, nil),
		slack.NewActionBlock("a", slack.NewButtonBlockElement("b", strings.Repeat("€", 2000),
			slack.NewTextBlockObject(slack.PlainTextType, strings.Repeat("日", 75), true, false))),
	}
	if err := blockkit.Validate(blocks); err != nil {
		t.Errorf("multi-byte text at the limits: %v", err)
	}
}

func TestValidateEdges(t *testing.T) {
	t.Parallel()
	if err := blockkit.Validate(nil); err != nil {
		t.Errorf("no blocks: %v", err)
	}
	if err := blockkit.ValidateJSON([]byte(`{"blocks": [`)); err == nil {
		t.Error("broken JSON accepted")
	}
	if err := blockkit.ValidateJSON([]byte(`[] []`)); err == nil {
		t.Error("two JSON values accepted")
	}
	// A ModalViewRequest left empty breaks several rules at once, all of them named.
	err := blockkit.ValidateView(slack.ModalViewRequest{})
	var verr *blockkit.ValidationError
	if !errors.As(err, &verr) || len(verr.Problems) < 2 {
		t.Fatalf("empty view: %v", err)
	}
	for _, want := range []string{`type: must be "modal" or "home", not ""`, "blocks: required"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("empty view: %v, want %q among the problems", err, want)
		}
	}
}
