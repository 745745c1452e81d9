package slackfake

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// These tests are written against Slack's documented answers (see blockcheck.go for the
// sources), never against package blockkit.

type M = map[string]any

func pt(s string) M    { return M{"type": "plain_text", "text": s} }
func md(s string) M    { return M{"type": "mrkdwn", "text": s} }
func rep(n int) string { return strings.Repeat("a", n) }

func sectionB(text string) M { return M{"type": "section", "text": md(text)} }
func actionsB(els ...any) M  { return M{"type": "actions", "elements": els} }
func inputB(el M) M          { return M{"type": "input", "label": pt("Label"), "element": el} }
func buttonE(id string) M {
	return M{"type": "button", "text": pt("Go"), "action_id": id, "value": "v"}
}
func optionO(i int) M {
	return M{"text": pt(fmt.Sprintf("Option %d", i)), "value": fmt.Sprintf("v%d", i)}
}
func optionsN(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = optionO(i)
	}
	return out
}
func confirmO() M {
	return M{"title": pt("Sure?"), "text": pt("Really?"), "confirm": pt("Yes"), "deny": pt("No")}
}
func modalV(blocks ...any) M {
	return M{"type": "modal", "title": pt("Title"), "submit": pt("Send"), "close": pt("Cancel"), "blocks": blocks}
}
func nOf(n int, f func(i int) any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func errs(msg, pointer string) string { return "[ERROR] " + msg + " [json-pointer:" + pointer + "]" }

// judgeMessage runs the checker over a message's blocks the way chat.postMessage receives them.
func judgeMessage(t *testing.T, blocks any) []string {
	t.Helper()
	raw, err := json.Marshal(blocks)
	require.NoError(t, err)
	msgs, ok := checkMessageBlocks(raw)
	require.True(t, ok, "blocks are a JSON array")
	return msgs
}

// judgeView runs the checker over a view; a []byte is taken as the raw view.
func judgeView(t *testing.T, view any) (string, []string) {
	t.Helper()
	raw, ok := view.([]byte)
	if !ok {
		var err error
		raw, err = json.Marshal(view)
		require.NoError(t, err)
	}
	return checkViewJSON(raw)
}

// viewRefused is Slack's answer to a refused view: /view announced first, then each message.
func viewRefused(msgs ...string) []string {
	return append([]string{errs("failed to match all allowed schemas", "/view")}, msgs...)
}

// textOver is Slack's answer to a text object whose text is over its limit here.
func textOver(pointer string, limit int) []string {
	return []string{errs("failed to match all allowed schemas", pointer),
		errs(fmt.Sprintf("must be less than %d characters", limit+1), pointer+"/text")}
}

// Every limit, exactly at it (accepted) and one over (refused with Slack's answer).
func TestLimitsAtAndOver(t *testing.T) {
	type limitCase struct {
		name  string
		limit int
		view  bool
		build func(n int) any
		want  []string // one over the limit
	}
	inSelect := func(el M) any { return []any{actionsB(el)} }
	staticSelect := func(opts []any) M {
		return M{"type": "static_select", "action_id": "pick", "placeholder": pt("Choose"), "options": opts}
	}
	buttonWith := func(k string, v any) any {
		b := buttonE("go")
		b[k] = v
		return []any{actionsB(b)}
	}
	confirmWith := func(k string, n int) any {
		c := confirmO()
		c[k] = pt(rep(n))
		b := buttonE("go")
		b["confirm"] = c
		return []any{actionsB(b)}
	}
	modalWith := func(k string, v any) any {
		m := modalV(sectionB("hello"))
		m[k] = v
		return m
	}
	textInput := func(k string, v any) any {
		el := M{"type": "plain_text_input", "action_id": "answer", "multiline": true}
		el[k] = v
		return modalV(inputB(el))
	}
	inputWith := func(k string, v any) any {
		in := inputB(M{"type": "plain_text_input", "action_id": "answer"})
		in[k] = v
		return modalV(in)
	}
	inputOptions := func(typ string) func(n int) any {
		return func(n int) any { return []any{inputB(M{"type": typ, "action_id": "pick", "options": optionsN(n)})} }
	}
	el0 := "/blocks/0/elements/0"
	cases := []limitCase{
		{"blocks per message", 50, false,
			func(n int) any { return nOf(n, func(int) any { return M{"type": "divider"} }) },
			[]string{errs("no more than 50 items allowed", "/blocks")}},
		{"blocks per modal", 100, true,
			func(n int) any { return modalV(nOf(n, func(int) any { return M{"type": "divider"} })...) },
			viewRefused(errs("no more than 100 items allowed", "/view/blocks"))},
		{"section text", 3000, false,
			func(n int) any { return []any{sectionB(rep(n))} },
			textOver("/blocks/0/text", 3000)},
		{"section fields", 10, false,
			func(n int) any {
				return []any{M{"type": "section", "fields": nOf(n, func(int) any { return md("f") })}}
			},
			[]string{errs("no more than 10 items allowed", "/blocks/0/fields")}},
		{"section field text", 2000, false,
			func(n int) any { return []any{M{"type": "section", "fields": []any{md(rep(n))}}} },
			textOver("/blocks/0/fields/0", 2000)},
		{"header text", 150, false,
			func(n int) any { return []any{M{"type": "header", "text": pt(rep(n))}} },
			textOver("/blocks/0/text", 150)},
		{"block_id", 255, false,
			func(n int) any { return []any{M{"type": "divider", "block_id": rep(n)}} },
			[]string{errs("must be less than 256 characters", "/blocks/0/block_id")}},
		{"action_id", 255, false,
			func(n int) any { return []any{actionsB(buttonE(rep(n)))} },
			[]string{errs("must be less than 256 characters", el0+"/action_id")}},
		{"actions elements", 25, false,
			func(n int) any {
				return []any{actionsB(nOf(n, func(i int) any { return buttonE(fmt.Sprint("b", i)) })...)}
			},
			[]string{errs("no more than 25 items allowed", "/blocks/0/elements")}},
		{"context elements", 10, false,
			func(n int) any {
				return []any{M{"type": "context", "elements": nOf(n, func(int) any { return md("c") })}}
			},
			[]string{errs("no more than 10 items allowed", "/blocks/0/elements")}},
		{"button text", 75, false,
			func(n int) any { return buttonWith("text", pt(rep(n))) },
			textOver(el0+"/text", 75)},
		{"button value", 2000, false,
			func(n int) any { return buttonWith("value", rep(n)) },
			[]string{errs("must be less than 2001 characters", el0+"/value")}},
		{"button url", 3000, false,
			func(n int) any { return buttonWith("url", "https://example.com/"+rep(n-20)) },
			[]string{errs("must be less than 3001 characters", el0+"/url")}},
		{"button accessibility_label", 75, false,
			func(n int) any { return buttonWith("accessibility_label", rep(n)) },
			[]string{errs("must be less than 76 characters", el0+"/accessibility_label")}},
		{"confirm title", 100, false, func(n int) any { return confirmWith("title", n) },
			textOver(el0+"/confirm/title", 100)},
		{"confirm text", 300, false, func(n int) any { return confirmWith("text", n) },
			textOver(el0+"/confirm/text", 300)},
		{"confirm confirm", 30, false, func(n int) any { return confirmWith("confirm", n) },
			textOver(el0+"/confirm/confirm", 30)},
		{"confirm deny", 30, false, func(n int) any { return confirmWith("deny", n) },
			textOver(el0+"/confirm/deny", 30)},
		{"static_select options", 100, false,
			func(n int) any { return inSelect(staticSelect(optionsN(n))) },
			[]string{errs("no more than 100 items allowed", el0+"/options")}},
		{"static_select option_groups", 100, false,
			func(n int) any {
				return inSelect(M{"type": "static_select", "action_id": "pick", "option_groups": nOf(n, func(i int) any {
					return M{"label": pt(fmt.Sprint("G", i)), "options": []any{optionO(i)}}
				})})
			},
			[]string{errs("no more than 100 items allowed", el0+"/option_groups")}},
		{"option group options", 100, false,
			func(n int) any {
				return inSelect(M{"type": "static_select", "action_id": "pick",
					"option_groups": []any{M{"label": pt("G"), "options": optionsN(n)}}})
			},
			[]string{errs("no more than 100 items allowed", el0+"/option_groups/0/options")}},
		{"option group label", 75, false,
			func(n int) any {
				return inSelect(M{"type": "static_select", "action_id": "pick",
					"option_groups": []any{M{"label": pt(rep(n)), "options": optionsN(1)}}})
			},
			textOver(el0+"/option_groups/0/label", 75)},
		{"multi_static_select options", 100, false, inputOptions("multi_static_select"),
			[]string{errs("no more than 100 items allowed", "/blocks/0/element/options")}},
		{"select placeholder", 150, false,
			func(n int) any {
				s := staticSelect(optionsN(2))
				s["placeholder"] = pt(rep(n))
				return inSelect(s)
			},
			textOver(el0+"/placeholder", 150)},
		{"option text", 75, false,
			func(n int) any { return inSelect(staticSelect([]any{M{"text": pt(rep(n)), "value": "v"}})) },
			textOver(el0+"/options/0/text", 75)},
		{"option value", 150, false,
			func(n int) any { return inSelect(staticSelect([]any{M{"text": pt("t"), "value": rep(n)}})) },
			[]string{errs("must be less than 151 characters", el0+"/options/0/value")}},
		{"option description", 75, false,
			func(n int) any {
				return inSelect(staticSelect([]any{M{"text": pt("t"), "value": "v", "description": pt(rep(n))}}))
			},
			textOver(el0+"/options/0/description", 75)},
		{"overflow options", 5, false,
			func(n int) any { return inSelect(M{"type": "overflow", "action_id": "more", "options": optionsN(n)}) },
			[]string{errs("no more than 5 items allowed", el0+"/options")}},
		{"overflow option url", 3000, false,
			func(n int) any {
				return inSelect(M{"type": "overflow", "action_id": "more",
					"options": []any{M{"text": pt("t"), "value": "v", "url": "https://example.com/" + rep(n-20)}}})
			},
			[]string{errs("must be less than 3001 characters", el0+"/options/0/url")}},
		{"checkboxes options", 10, false, inputOptions("checkboxes"),
			[]string{errs("no more than 10 items allowed", "/blocks/0/element/options")}},
		{"radio_buttons options", 10, true,
			func(n int) any {
				return modalV(inputB(M{"type": "radio_buttons", "action_id": "pick", "options": optionsN(n)}))
			},
			viewRefused(errs("no more than 10 items allowed", "/view/blocks/0/element/options"))},
		{"plain_text_input max_length", 3000, true,
			func(n int) any { return textInput("max_length", n) },
			viewRefused(errs("must be less than 3000", "/view/blocks/0/element/max_length"))},
		{"plain_text_input min_length", 3000, true,
			func(n int) any { return textInput("min_length", n) },
			viewRefused(errs("must be less than 3000", "/view/blocks/0/element/min_length"))},
		{"plain_text_input placeholder", 150, true,
			func(n int) any { return textInput("placeholder", pt(rep(n))) },
			viewRefused(textOver("/view/blocks/0/element/placeholder", 150)...)},
		{"input label", 2000, true,
			func(n int) any { return inputWith("label", pt(rep(n))) },
			viewRefused(textOver("/view/blocks/0/label", 2000)...)},
		{"input hint", 2000, true,
			func(n int) any { return inputWith("hint", pt(rep(n))) },
			viewRefused(textOver("/view/blocks/0/hint", 2000)...)},
		{"modal title", 24, true, func(n int) any { return modalWith("title", pt(rep(n))) },
			viewRefused(textOver("/view/title", 24)...)},
		{"modal submit", 24, true, func(n int) any { return modalWith("submit", pt(rep(n))) },
			viewRefused(textOver("/view/submit", 24)...)},
		{"modal close", 24, true, func(n int) any { return modalWith("close", pt(rep(n))) },
			viewRefused(textOver("/view/close", 24)...)},
		{"modal private_metadata", 3000, true, func(n int) any { return modalWith("private_metadata", rep(n)) },
			viewRefused(errs("must be less than 3001 characters", "/view/private_metadata"))},
		{"modal callback_id", 255, true, func(n int) any { return modalWith("callback_id", rep(n)) },
			viewRefused(errs("must be less than 256 characters", "/view/callback_id"))},
		{"view external_id", 255, true, func(n int) any { return modalWith("external_id", rep(n)) },
			viewRefused(errs("must be less than 256 characters", "/view/external_id"))},
		{"markdown block text", 12000, false,
			func(n int) any { return []any{M{"type": "markdown", "text": rep(n)}} },
			// over the block's own limit and so over the message's cumulative one too
			[]string{errs("must be less than 12001 characters", "/blocks/0/text"),
				errs("markdown blocks must total less than 12001 characters", "/blocks")}},
		{"markdown total per message", 12000, false,
			func(n int) any {
				return []any{M{"type": "markdown", "text": rep(6000)}, M{"type": "markdown", "text": rep(n - 6000)}}
			},
			[]string{errs("markdown blocks must total less than 12001 characters", "/blocks")}},
		{"image block alt_text", 2000, false,
			func(n int) any {
				return []any{M{"type": "image", "image_url": "https://example.com/a.png", "alt_text": rep(n)}}
			},
			[]string{errs("must be less than 2001 characters", "/blocks/0/alt_text")}},
		{"image block image_url", 3000, false,
			func(n int) any {
				return []any{M{"type": "image", "image_url": "https://example.com/" + rep(n-20), "alt_text": "a"}}
			},
			[]string{errs("must be less than 3001 characters", "/blocks/0/image_url")}},
		{"image block title", 2000, false,
			func(n int) any {
				return []any{M{"type": "image", "image_url": "https://example.com/a.png", "alt_text": "a", "title": pt(rep(n))}}
			},
			textOver("/blocks/0/title", 2000)},
		{"image element image_url", 3000, false,
			func(n int) any {
				return []any{M{"type": "context", "elements": []any{M{"type": "image", "image_url": "https://example.com/" + rep(n-20), "alt_text": "a"}}}}
			},
			[]string{errs("must be less than 3001 characters", "/blocks/0/elements/0/image_url")}},
		{"video title", 199, false,
			func(n int) any {
				return []any{M{"type": "video", "alt_text": "a", "thumbnail_url": "https://example.com/t.png",
					"video_url": "https://example.com/v", "title": pt(rep(n))}}
			},
			textOver("/blocks/0/title", 199)},
		{"video author_name", 49, false,
			func(n int) any {
				return []any{M{"type": "video", "alt_text": "a", "thumbnail_url": "https://example.com/t.png",
					"video_url": "https://example.com/v", "title": pt("t"), "author_name": rep(n)}}
			},
			[]string{errs("must be less than 50 characters", "/blocks/0/author_name")}},
		{"context_actions elements", 5, false,
			func(n int) any {
				return []any{M{"type": "context_actions", "elements": nOf(n, func(i int) any {
					return M{"type": "icon_button", "icon": "trash", "text": pt("Delete"), "action_id": fmt.Sprint("i", i)}
				})}}
			},
			[]string{errs("no more than 5 items allowed", "/blocks/0/elements")}},
		{"workflow_button text", 75, false,
			func(n int) any {
				return []any{actionsB(M{"type": "workflow_button", "text": pt(rep(n)),
					"workflow": M{"trigger": M{"url": "https://slack.com/shortcuts/Ft0/abc"}}})}
			},
			textOver(el0+"/text", 75)},
		{"checkboxes initial_options", 10, false,
			func(n int) any {
				return []any{inputB(M{"type": "checkboxes", "action_id": "pick", "options": optionsN(10), "initial_options": optionsN(n)})}
			},
			[]string{errs("no more than 10 items allowed", "/blocks/0/element/initial_options")}},
		{"file_input max_files", 10, true,
			func(n int) any { return modalV(inputB(M{"type": "file_input", "action_id": "f", "max_files": n})) },
			viewRefused(errs("must be less than 10", "/view/blocks/0/element/max_files"))},
		{"conversation filter include", 4, false,
			func(n int) any {
				return inSelect(M{"type": "conversations_select", "action_id": "c",
					"filter": M{"include": nOf(n, func(i int) any { return []string{"im", "mpim", "private", "public", "im"}[i] })}})
			},
			[]string{errs("no more than 4 items allowed", el0+"/filter/include")}},
		{"rich_text_list indent", 8, false,
			func(n int) any {
				return []any{M{"type": "rich_text", "elements": []any{M{"type": "rich_text_list", "style": "ordered", "indent": n,
					"elements": []any{M{"type": "rich_text_section", "elements": []any{M{"type": "text", "text": "x"}}}}}}}}
			},
			[]string{errs("must be less than 8", "/blocks/0/elements/0/indent")}},
		{"table column_settings", 20, false,
			func(n int) any {
				return []any{M{"type": "table", "rows": []any{[]any{M{"type": "raw_text", "text": "x"}}},
					"column_settings": nOf(n, func(int) any { return M{"align": "left"} })}}
			},
			[]string{errs("no more than 20 items allowed", "/blocks/0/column_settings")}},
		{"table rows", 100, false,
			func(n int) any {
				return []any{M{"type": "table", "rows": nOf(n, func(int) any { return []any{M{"type": "raw_text", "text": "x"}} })}}
			},
			[]string{errs("no more than 100 items allowed", "/blocks/0/rows")}},
		{"table cells per row", 20, false,
			func(n int) any {
				return []any{M{"type": "table", "rows": []any{nOf(n, func(int) any { return M{"type": "raw_text", "text": "x"} })}}}
			},
			[]string{errs("no more than 20 items allowed", "/blocks/0/rows/0")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			judge := func(n int) []string {
				if c.view {
					_, msgs := judgeView(t, c.build(n))
					return msgs
				}
				return judgeMessage(t, c.build(n))
			}
			require.Empty(t, judge(c.limit), "exactly at the limit is accepted")
			require.Equal(t, c.want, judge(c.limit+1), "one over the limit is refused")
		})
	}
}

// Lower bounds, exactly at them and one under.
func TestLowerBounds(t *testing.T) {
	// A text object's text: 1..3000 characters ("must be more than 0 characters").
	require.Empty(t, judgeMessage(t, []any{sectionB("x")}))
	require.Equal(t, textOverMin("/blocks/0/text"), judgeMessage(t, []any{sectionB("")}))

	// plain_text_input max_length 1..3000, min_length 0..3000.
	input := func(k string, v int) M {
		return modalV(inputB(M{"type": "plain_text_input", "action_id": "a", k: v}))
	}
	code, msgs := judgeView(t, input("max_length", 1))
	require.Empty(t, code, msgs)
	code, msgs = judgeView(t, input("max_length", 0))
	require.Equal(t, "invalid_arguments", code)
	require.Equal(t, viewRefused(errs("must be greater than 1", "/view/blocks/0/element/max_length")), msgs)
	code, msgs = judgeView(t, input("min_length", 0))
	require.Empty(t, code, msgs)
	_, msgs = judgeView(t, input("min_length", -1))
	require.Equal(t, viewRefused(errs("must be greater than 0", "/view/blocks/0/element/min_length")), msgs)

	// An actions block needs an element; a checkbox group an option (Slack's schema: minItems 1).
	require.Equal(t, []string{errs("must provide at least 1 items", "/blocks/0/elements")},
		judgeMessage(t, []any{M{"type": "actions", "elements": []any{}}}))
	require.Equal(t, []string{errs("must provide at least 1 items", "/blocks/0/element/options")},
		judgeMessage(t, []any{inputB(M{"type": "checkboxes", "action_id": "c", "options": []any{}})}))

	// block_id and action_id are at least one character.
	require.Equal(t, []string{errs("must be more than 0 characters", "/blocks/0/block_id")},
		judgeMessage(t, []any{M{"type": "divider", "block_id": ""}}))
}

func textOverMin(pointer string) []string {
	return []string{errs("failed to match all allowed schemas", pointer), errs("must be more than 0 characters", pointer+"/text")}
}

// Lengths are counted in characters (code points, Slack's mb_strlen), not bytes.
func TestLengthsInCharacters(t *testing.T) {
	for _, ch := range []string{"é", "日", "👍"} {
		b := buttonE("go")
		b["text"] = pt(strings.Repeat(ch, 75))
		require.Empty(t, judgeMessage(t, []any{actionsB(b)}), "75 × %q", ch)
		b["text"] = pt(strings.Repeat(ch, 76))
		require.Equal(t, textOver("/blocks/0/elements/0/text", 75), judgeMessage(t, []any{actionsB(b)}))
	}
}

// A view over 250 kb is refused whole, with view_too_large (Block Kit reference).
func TestViewSize(t *testing.T) {
	sized := func(n int) []byte {
		var blocks []any
		for {
			blocks = append(blocks, sectionB(rep(2900)))
			raw, err := json.Marshal(modalV(blocks...))
			require.NoError(t, err)
			if len(raw) >= n {
				last := blocks[len(blocks)-1].(M)
				last["text"] = md(rep(2900 - (len(raw) - n)))
				raw, err = json.Marshal(modalV(blocks...))
				require.NoError(t, err)
				require.Len(t, raw, n)
				return raw
			}
		}
	}
	code, msgs := judgeView(t, sized(250_000))
	require.Empty(t, code, msgs)
	code, msgs = judgeView(t, sized(250_001))
	require.Equal(t, "view_too_large", code)
	require.Empty(t, msgs)
}

// Each refusal, with Slack's answer.
func TestRefusals(t *testing.T) {
	cases := []struct {
		name   string
		blocks any
		want   []string
	}{
		{"unknown block type", []any{M{"type": "sectionx", "text": md("hi")}},
			[]string{errs("unsupported type: sectionx", "/blocks/0/type")}},
		{"unknown element type", []any{actionsB(M{"type": "buttonx", "action_id": "a"})},
			[]string{errs("unsupported type: buttonx", "/blocks/0/elements/0/type")}},
		{"unknown text object type", []any{M{"type": "section", "text": M{"type": "markdown", "text": "hi"}}},
			[]string{errs("failed to match all allowed schemas", "/blocks/0/text"), errs("unsupported type: markdown", "/blocks/0/text/type")}},
		{"a block with no type", []any{M{"text": md("hi")}},
			[]string{errs("missing required field: type", "/blocks/0")}},
		{"unknown property on a block", []any{M{"type": "divider", "color": "red"}},
			[]string{errs("invalid additional property: color", "/blocks/0")}},
		{"unknown property on an element", []any{actionsB(M{"type": "button", "text": pt("Go"), "action_id": "a", "colour": "red"})},
			[]string{errs("invalid additional property: colour", "/blocks/0/elements/0")}},
		{"unknown property on a text object", []any{M{"type": "section", "text": M{"type": "mrkdwn", "text": "hi", "emoji": true}}},
			[]string{errs("failed to match all allowed schemas", "/blocks/0/text"), errs("invalid additional property: emoji", "/blocks/0/text")}},
		{"unknown property on an option", []any{inputB(M{"type": "checkboxes", "action_id": "c",
			"options": []any{M{"text": pt("A"), "value": "a", "url": "https://example.com"}}})},
			[]string{errs("invalid additional property: url", "/blocks/0/element/options/0")}},
		{"missing required: header text", []any{M{"type": "header"}},
			[]string{errs("missing required field: text", "/blocks/0")}},
		{"missing required: button text", []any{actionsB(M{"type": "button", "action_id": "a"})},
			[]string{errs("missing required field: text", "/blocks/0/elements/0")}},
		{"missing required: input label and element", []any{M{"type": "input"}},
			[]string{errs("missing required field: label", "/blocks/0"), errs("missing required field: element", "/blocks/0")}},
		{"missing required: option value", []any{inputB(M{"type": "checkboxes", "action_id": "c", "options": []any{M{"text": pt("A")}}})},
			[]string{errs("missing required field: value", "/blocks/0/element/options/0")}},
		{"missing required: confirm deny", []any{actionsB(M{"type": "button", "text": pt("Go"), "action_id": "a",
			"confirm": M{"title": pt("T"), "text": pt("X"), "confirm": pt("Y")}})},
			[]string{errs("missing required field: deny", "/blocks/0/elements/0/confirm")}},
		{"section with neither text nor fields", []any{M{"type": "section"}},
			[]string{errs("must define either `text` or `fields`", "/blocks/0")}},
		{"static_select with both options and option_groups", []any{actionsB(M{"type": "static_select", "action_id": "s",
			"options": optionsN(1), "option_groups": []any{M{"label": pt("G"), "options": optionsN(1)}}})},
			[]string{errs("must define only one of `options` or `option_groups`", "/blocks/0/elements/0")}},
		{"wrong JSON type: text as a string", []any{M{"type": "section", "text": "hi"}},
			[]string{errs("failed to match all allowed schemas", "/blocks/0/text"), errs("must provide an object", "/blocks/0/text")}},
		{"wrong JSON type: style null", []any{actionsB(M{"type": "button", "text": pt("Go"), "action_id": "a", "style": nil})},
			[]string{errs("must provide a string", "/blocks/0/elements/0/style")}},
		{"wrong JSON type: verbatim a string", []any{M{"type": "section", "text": M{"type": "mrkdwn", "text": "hi", "verbatim": "yes"}}},
			[]string{errs("failed to match all allowed schemas", "/blocks/0/text"), errs("must be a boolean", "/blocks/0/text/verbatim")}},
		{"wrong JSON type: elements an object", []any{M{"type": "actions", "elements": buttonE("a")}},
			[]string{errs("must provide an array", "/blocks/0/elements")}},
		{"wrong JSON type: max_length a fraction", []any{inputB(M{"type": "plain_text_input", "action_id": "a", "max_length": 10.5})},
			[]string{errs("must provide an integer", "/blocks/0/element/max_length")}},
		{"wrong JSON type: a block that is a string", []any{"divider"},
			[]string{errs("must provide an object", "/blocks/0")}},
		{"not one of the values", []any{actionsB(M{"type": "button", "text": pt("Go"), "action_id": "a", "style": "blue"})},
			[]string{errs("must be a valid enum value", "/blocks/0/elements/0/style")}},
		{"button text in mrkdwn", []any{actionsB(M{"type": "button", "text": md("*Go*"), "action_id": "a"})},
			[]string{errs("failed to match all allowed schemas", "/blocks/0/elements/0/text"), errs("unsupported type: mrkdwn", "/blocks/0/elements/0/text/type")}},
		{"a modal-only element in a message", []any{inputB(M{"type": "number_input", "action_id": "n", "is_decimal_allowed": false})},
			[]string{errs("unsupported type: number_input", "/blocks/0/element/type")}},
		{"duplicate block_id", []any{M{"type": "divider", "block_id": "x"}, M{"type": "divider", "block_id": "x"}},
			[]string{errs("duplicate block_id: x (also at /blocks/0)", "/blocks/1/block_id")}},
		{"duplicate action_id in a block", []any{actionsB(buttonE("go"), buttonE("go"))},
			[]string{errs("duplicate action_id: go (also at /blocks/0/elements/0)", "/blocks/0/elements/1/action_id")}},
		{"two tables", []any{
			M{"type": "table", "rows": []any{[]any{M{"type": "raw_text", "text": "x"}}}},
			M{"type": "table", "rows": []any{[]any{M{"type": "raw_text", "text": "y"}}}}},
			[]string{errs("only one table block is allowed per message", "/blocks/1")}},
		{"every violation is reported", []any{M{"type": "sectionx"}, M{"type": "header"}, actionsB(M{"type": "button", "text": pt(rep(76)), "action_id": "a"})},
			append([]string{errs("unsupported type: sectionx", "/blocks/0/type"), errs("missing required field: text", "/blocks/1")},
				textOver("/blocks/2/elements/0/text", 75)...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, judgeMessage(t, c.blocks))
			raw, err := json.Marshal(c.blocks)
			require.NoError(t, err)
			e := blocksRefusal(string(raw))
			require.NotNil(t, e)
			require.Equal(t, "invalid_blocks", e.code)
			require.Equal(t, c.want, e.messages)
		})
	}
}

func TestViewRefusals(t *testing.T) {
	cases := []struct {
		name string
		view any
		want []string
	}{
		{"unknown block type", modalV(M{"type": "sectionx"}),
			[]string{errs("unsupported type: sectionx", "/view/blocks/0/type")}},
		{"a message-only block in a modal", modalV(M{"type": "markdown", "text": "**hi**"}),
			[]string{errs("unsupported type: markdown", "/view/blocks/0/type")}},
		{"a view type other than modal", M{"type": "home", "blocks": []any{}},
			[]string{errs("unsupported type: home", "/view/type")}},
		{"unknown property on the view", func() any { m := modalV(sectionB("x")); m["colour"] = "red"; return m }(),
			[]string{errs("invalid additional property: colour", "/view")}},
		{"missing required: title", M{"type": "modal", "blocks": []any{}},
			[]string{errs("missing required field: title", "/view")}},
		{"missing required: blocks", M{"type": "modal", "title": pt("T")},
			[]string{errs("missing required field: blocks", "/view")}},
		{"blocks null", M{"type": "modal", "title": pt("T"), "blocks": nil},
			[]string{errs("must provide an array", "/view/blocks")}},
		{"submit null", M{"type": "modal", "title": pt("T"), "blocks": []any{}, "submit": nil},
			[]string{errs("failed to match all allowed schemas", "/view/submit"), errs("must provide an object", "/view/submit")}},
		{"an input block and no submit", M{"type": "modal", "title": pt("T"),
			"blocks": []any{inputB(M{"type": "plain_text_input", "action_id": "a"})}},
			[]string{errs("missing required field: submit", "/view")}},
		{"duplicate block_id", modalV(M{"type": "divider", "block_id": "d"}, M{"type": "divider", "block_id": "d"}),
			[]string{errs("duplicate block_id: d (also at /view/blocks/0)", "/view/blocks/1/block_id")}},
		{"optional not a boolean", modalV(func() M {
			in := inputB(M{"type": "plain_text_input", "action_id": "a"})
			in["optional"] = "yes"
			return in
		}()),
			[]string{errs("must be a boolean", "/view/blocks/0/optional")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, msgs := judgeView(t, c.view)
			require.Equal(t, "invalid_arguments", code)
			require.Equal(t, viewRefused(c.want...), msgs)
		})
	}

	// The view arrives as a JSON string in a form-encoded call: judged the same.
	inner, err := json.Marshal(modalV(M{"type": "sectionx"}))
	require.NoError(t, err)
	asString, err := json.Marshal(string(inner))
	require.NoError(t, err)
	code, msgs := checkViewJSON(asString)
	require.Equal(t, "invalid_arguments", code)
	require.Equal(t, viewRefused(errs("unsupported type: sectionx", "/view/blocks/0/type")), msgs)

	code, msgs = checkViewJSON(nil)
	require.Equal(t, "invalid_arguments", code)
	require.Equal(t, []string{"[ERROR] missing required field: view"}, msgs)
}

// What Slack accepts: input blocks in messages (Block Kit reference, since April 2021), every
// documented optional property, and an empty blocks array (which clears a message's blocks).
func TestAccepted(t *testing.T) {
	require.Empty(t, judgeMessage(t, []any{}))
	require.Empty(t, judgeMessage(t, []any{
		M{"type": "header", "text": pt("Header"), "block_id": "h"},
		M{"type": "section", "text": md("*hi*"), "fields": []any{pt("a"), md("b")},
			"accessory": M{"type": "image", "image_url": "https://example.com/a.png", "alt_text": "a"}, "expand": true},
		M{"type": "divider"},
		M{"type": "image", "image_url": "https://example.com/a.png", "alt_text": "a", "title": pt("A")},
		M{"type": "context", "elements": []any{md("a"), pt("b"), M{"type": "image", "slack_file": M{"id": "F1"}, "alt_text": "x"}}},
		actionsB(
			M{"type": "button", "text": M{"type": "plain_text", "text": "Go", "emoji": true}, "action_id": "a", "value": "v",
				"url": "https://example.com", "style": "danger", "accessibility_label": "Go now",
				"confirm": M{"title": pt("T"), "text": md("*sure?*"), "confirm": pt("Y"), "deny": pt("N"), "style": "danger"}},
			M{"type": "static_select", "action_id": "s", "placeholder": pt("Pick"), "options": optionsN(3),
				"initial_option": optionO(1), "confirm": confirmO(), "focus_on_load": false},
			M{"type": "overflow", "action_id": "o", "options": []any{M{"text": pt("Docs"), "value": "d", "url": "https://example.com"}}},
			M{"type": "datepicker", "action_id": "d", "initial_date": "2026-01-02"},
			M{"type": "timepicker", "action_id": "t", "initial_time": "10:00", "timezone": "Europe/Paris"},
			M{"type": "users_select", "action_id": "u"},
			M{"type": "conversations_select", "action_id": "c", "filter": M{"include": []any{"public", "im"}, "exclude_bot_users": true}},
		),
		inputB(M{"type": "checkboxes", "action_id": "cb", "options": []any{M{"text": md("*A*"), "value": "a", "description": md("_a_")}}}),
		inputB(M{"type": "plain_text_input", "action_id": "p", "multiline": true, "min_length": 0, "max_length": 3000,
			"dispatch_action_config": M{"trigger_actions_on": []any{"on_enter_pressed"}}}),
		M{"type": "rich_text", "elements": []any{
			M{"type": "rich_text_section", "elements": []any{
				M{"type": "text", "text": "Hi ", "style": M{"bold": true}},
				M{"type": "user", "user_id": "U1"},
				M{"type": "link", "url": "https://example.com", "text": "x"},
				M{"type": "emoji", "name": "wave"},
				M{"type": "date", "timestamp": 1700000000, "format": "{date_short}", "fallback": "then"},
			}},
			M{"type": "rich_text_list", "style": "bullet", "indent": 1, "elements": []any{
				M{"type": "rich_text_section", "elements": []any{M{"type": "text", "text": "item"}}}}},
			M{"type": "rich_text_quote", "elements": []any{M{"type": "text", "text": "q"}}},
			M{"type": "rich_text_preformatted", "elements": []any{M{"type": "text", "text": "code"}}, "border": 0},
		}},
		M{"type": "markdown", "text": "**bold**"},
		M{"type": "table", "rows": []any{[]any{M{"type": "raw_text", "text": "a"}, M{"type": "raw_number", "value": 1.5, "text": "1.5"}}},
			"column_settings": []any{M{"align": "right", "is_wrapped": true}}},
	}))
	code, msgs := judgeView(t, M{"type": "modal", "title": pt("T"), "blocks": []any{
		inputB(M{"type": "number_input", "action_id": "n", "is_decimal_allowed": true, "min_value": "0"}),
		inputB(M{"type": "email_text_input", "action_id": "e"}),
		inputB(M{"type": "rich_text_input", "action_id": "r"}),
		inputB(M{"type": "radio_buttons", "action_id": "rb", "options": optionsN(2), "initial_option": optionO(0)}),
	}, "submit": pt("Send"), "private_metadata": "", "callback_id": "cb", "clear_on_close": true, "notify_on_close": false,
		"external_id": "x1"})
	require.Empty(t, code, msgs)
}

// Not JSON, or not an array: Slack answers invalid_blocks_format.
func TestBlocksFormat(t *testing.T) {
	for _, raw := range []string{`{"type":"divider"}`, `[{"type":`, `"divider"`, `null`} {
		e := blocksRefusal(raw)
		require.NotNil(t, e, raw)
		require.Equal(t, "invalid_blocks_format", e.code, raw)
	}
	require.Nil(t, blocksRefusal(`[]`))
	require.Nil(t, viewRefusal(json.RawMessage(`{"type":"modal","title":{"type":"plain_text","text":"T"},"blocks":[]}`)))
}

// Every golden message and modal our renderer produces passes the fake's checker: the two
// agree today. They are read from blockkit's testdata, never rendered here.
func TestGoldenFilesPass(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "blockkit", "testdata", "*.golden"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var views, homes int
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			require.NoError(t, err)
			var golden struct {
				Blocks json.RawMessage `json:"blocks"`
				Modal  json.RawMessage `json:"modal"`
				Home   json.RawMessage `json:"home"`
			}
			require.NoError(t, json.Unmarshal(raw, &golden))
			if len(golden.Home) > 0 {
				homes++
				code, msgs := checkHomeJSON(golden.Home)
				require.Empty(t, code, "Slack would refuse the Home tab: %v", msgs)
				return
			}
			require.NotEmpty(t, golden.Blocks)
			msgs, ok := checkMessageBlocks(golden.Blocks)
			require.True(t, ok)
			require.Empty(t, msgs, "Slack would refuse the message")
			if len(golden.Modal) > 0 {
				views++
				code, msgs := checkViewJSON(golden.Modal)
				require.Empty(t, code, "Slack would refuse the modal: %v", msgs)
			}
		})
	}
	require.NotZero(t, views, "the goldens include modals")
	require.NotZero(t, homes, "the goldens include Home tabs")
}

// The table is closed: every schema a spec names exists, and every schema is reachable from a
// message or a view.
func TestSchemaTable(t *testing.T) {
	reached := map[string]bool{}
	var walk func(s spec)
	visit := func(name string) {
		sch, ok := schemas[name]
		require.True(t, ok, "schema %q is named but not defined", name)
		if reached[name] {
			return
		}
		reached[name] = true
		for _, f := range sch.fields {
			walk(f.spec)
		}
	}
	walk = func(s spec) {
		if s.items != nil {
			walk(*s.items)
		}
		if s.obj != "" {
			visit(s.obj)
		}
		for _, name := range s.types {
			visit(name)
		}
	}
	walk(sArr(0, 0, sTyped(blockTypes...)))
	visit("modal")
	visit("home")
	var unreached []string
	props := 0
	for name, sch := range schemas {
		props += len(sch.fields)
		if !reached[name] {
			unreached = append(unreached, name)
		}
	}
	sort.Strings(unreached)
	require.Empty(t, unreached)
	t.Logf("%d schemas (block, element, composition and view types), %d properties", len(schemas), props)
}
