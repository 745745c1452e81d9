package slackfake

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// The fake's own Block Kit checker: an oracle independent of package blockkit, so that a wrong
// constant or a block type Slack does not know cannot pass both the renderer and the fake.
// Everything here is written from Slack's documentation and Slack's Block Kit reference, never from
// blockkit:
//
//   - the limits: Block Kit reference (docs.slack.dev/reference/block-kit/…), and where that reference is
//     silent the block or element's own reference page (cited beside the number);
//   - the shapes (properties, which are required, JSON types): the reference pages, with
//     slackapi/node-slack-sdk's @slack/types 3.2.0 (the npm package) as a cross-check;
//   - the surfaces: docs.slack.dev/blocks.json and the block-elements reference table;
//   - the answer's wording: the messages of slackhq/hack-json-schema, Slack's own JSON-schema
//     library, which match Slack's answers word for word ("missing required field: x",
//     "invalid additional property: x", "unsupported type: x", "must provide a string", "must
//     be less than N+1 characters", "no more than N items allowed", …; lengths counted in code
//     points, mb_strlen); the envelope "[ERROR] <message> [json-pointer:<pointer>]" under
//     response_metadata.messages, invalid_blocks for messages and invalid_arguments for views
//     (Slack's API errors), as quoted in public bug reports: grafana-cold-storage/oncall#5121 for
//     chat.postMessage, jeremeamia/slack-block-kit#3 for views.open (pointers under "/view").
//
// Slack's schema rejects what it does not know: a block or element type not listed here for the
// surface (a message or a modal) is "unsupported type", a property not listed is "invalid
// additional property". Newer blocks listed in @slack/types 3.2.0 (alert, card, carousel,
// container, data_table, plan, task_card) are deliberately not modelled: the renderer does not use
// them and their reference pages are still moving; add one from its page when it is needed.

// surface is where a block or element may appear.
type surface uint8

const (
	inMessage surface = 1 << iota // chat.postMessage, chat.update, chat.postEphemeral
	inModal                       // views.open, views.update, views.push
	anywhere  = inMessage | inModal
)

// kind is the JSON type a value must have.
type kind uint8

const (
	kString kind = iota + 1
	kBool
	kInt
	kNumber
	kArray
	kObject
)

// spec describes the values Slack accepts at one place.
type spec struct {
	kind kind
	// strings: length in characters (code points); maxLen 0 is unbounded
	minLen, maxLen int
	enum           []string
	// integers and numbers
	lo, hi       float64
	hasLo, hasHi bool
	// arrays: maxItems 0 is unbounded
	minItems, maxItems int
	items              *spec
	// objects: a fixed schema (obj), or one told apart by its "type" (types: type → schema)
	obj   string
	types map[string]string
	// text objects: the most characters their text may have here (0: the text object's 3000)
	textMax int
}

// field is a property an object may carry.
type field struct {
	name     string
	required bool
	spec     spec
}

// schema is an object Slack accepts: its properties, in the order Slack checks them.
type schema struct {
	fields []field
	where  surface    // for typed objects: the surfaces that accept the type (0: anywhere)
	anyOf  [][]string // at least one property of each group must be present
	oneOf  [][]string // exactly one property of each group must be present
	text   bool       // a text object: its "text" takes the textMax of the place it is in
}

const noLimit = -1

func sStr(maxLen int) spec          { return spec{kind: kString, maxLen: maxLen} }
func sStrN(minLen, maxLen int) spec { return spec{kind: kString, minLen: minLen, maxLen: maxLen} }
func sEnum(vals ...string) spec     { return spec{kind: kString, enum: vals} }
func sBool() spec                   { return spec{kind: kBool} }
func sNum() spec                    { return spec{kind: kNumber} }
func sObj(name string) spec         { return spec{kind: kObject, obj: name} }

func sInt(lo, hi int) spec {
	s := spec{kind: kInt}
	if lo != noLimit {
		s.lo, s.hasLo = float64(lo), true
	}
	if hi != noLimit {
		s.hi, s.hasHi = float64(hi), true
	}
	return s
}

func sArr(minItems, maxItems int, items spec) spec {
	return spec{kind: kArray, minItems: minItems, maxItems: maxItems, items: &items}
}

// sTyped accepts objects told apart by "type"; "t=s" maps type t to schema s, "t" to schema t.
func sTyped(types ...string) spec {
	m := make(map[string]string, len(types))
	for _, t := range types {
		if k, v, ok := strings.Cut(t, "="); ok {
			m[k] = v
		} else {
			m[t] = t
		}
	}
	return spec{kind: kObject, types: m}
}

// sPlain is a plain_text object whose text has at most limit characters here (0: 3000).
func sPlain(limit int) spec { s := sTyped("plain_text"); s.textMax = limit; return s }

// sText is a plain_text or mrkdwn object whose text has at most limit characters here.
func sText(limit int) spec { s := sTyped("plain_text", "mrkdwn"); s.textMax = limit; return s }

func fOpt(name string, s spec) field { return field{name: name, spec: s} }
func fReq(name string, s spec) field { return field{name: name, required: true, spec: s} }

// Properties many schemas share.
var (
	// block_id and action_id: 255 (Block Kit reference), at least 1 — as in the copy of Slack's own schema
	// (id api.slack.com/json-schema/block-kit/input/blocks) in gist bmorton/735dc806…, which also
	// gives an actions block's elements minItems 1.
	fBlockID     = fOpt("block_id", sStrN(1, 255))
	fActionID    = fOpt("action_id", sStrN(1, 255))
	fConfirm     = fOpt("confirm", sObj("confirm"))
	fFocus       = fOpt("focus_on_load", sBool())
	fPlaceholder = fOpt("placeholder", sPlain(150)) // selects and inputs: plain_text, 150 (Block Kit reference)
	fDispatch    = fOpt("dispatch_action_config", sObj("dispatch_action_config"))
	fMaxSelected = fOpt("max_selected_items", sInt(1, noLimit)) // multi-select: "Minimum number is 1"
	fStyle       = fOpt("style", sEnum("primary", "danger"))
	fRichStyle   = fOpt("style", sObj("rich_text_style"))
	fBorder      = fOpt("border", sInt(0, 1))
)

// The element types each block accepts (docs.slack.dev/blocks.json, "compatible-block-elements";
// the surfaces each element allows are in its schema's where).
var (
	selectTypesAll = []string{"static_select", "external_select", "users_select", "conversations_select",
		"channels_select", "multi_static_select", "multi_external_select", "multi_users_select",
		"multi_conversations_select", "multi_channels_select"}
	actionsElements = append([]string{"button", "checkboxes", "datepicker", "datetimepicker", "overflow",
		"radio_buttons", "timepicker", "workflow_button", "rich_text_input"}, selectTypesAll...)
	accessoryElements = append([]string{"button", "checkboxes", "datepicker", "image=image_element", "overflow",
		"radio_buttons", "timepicker", "workflow_button"}, selectTypesAll...)
	inputElements = append([]string{"checkboxes", "datepicker", "datetimepicker", "email_text_input", "file_input",
		"number_input", "plain_text_input", "radio_buttons", "rich_text_input", "timepicker", "url_text_input"},
		selectTypesAll...)
	blockTypes = []string{"actions", "context", "context_actions", "divider", "file", "header",
		"image=image_block", "input", "markdown", "rich_text", "section", "table", "video"}
	richTextInline = []string{"text=rt_text", "link=rt_link", "emoji=rt_emoji", "user=rt_user",
		"usergroup=rt_usergroup", "channel=rt_channel", "team=rt_team", "broadcast=rt_broadcast",
		"date=rt_date", "color=rt_color"}
)

// schemas is the fixed table of what Slack accepts.
var schemas = map[string]*schema{
	// --- Views (docs.slack.dev/reference/views/modal-views; Block Kit reference) ---
	"modal": {where: inModal, fields: []field{
		fReq("title", sPlain(24)),
		fReq("blocks", sArr(0, 100, sTyped(blockTypes...))), // 100 blocks in a modal (Block Kit reference)
		fOpt("close", sPlain(24)),
		fOpt("submit", sPlain(24)), // required when an input block is present: see checkView
		fOpt("private_metadata", sStr(3000)),
		fOpt("callback_id", sStr(255)),
		fOpt("clear_on_close", sBool()),
		fOpt("notify_on_close", sBool()),
		fOpt("external_id", sStr(255)),
	}},

	// The Home tab (docs.slack.dev/surfaces/app-home; views.publish): no title, submit or close;
	// 100 blocks, as a modal (Block Kit reference). Its elements are those of a modal's surface.
	"home": {where: inModal, fields: []field{
		fReq("blocks", sArr(0, 100, sTyped(blockTypes...))),
		fOpt("private_metadata", sStr(3000)),
		fOpt("callback_id", sStr(255)),
		fOpt("external_id", sStr(255)),
	}},

	// --- Blocks (docs.slack.dev/reference/block-kit/blocks/…) ---
	"actions": {fields: []field{fBlockID,
		fReq("elements", sArr(1, 25, sTyped(actionsElements...)))}}, // 25 (Block Kit reference)
	"context": {fields: []field{fBlockID,
		fReq("elements", sArr(1, 10, sTyped("image=image_element", "plain_text", "mrkdwn")))}}, // 10: context-block page
	"context_actions": {where: inMessage, fields: []field{fBlockID,
		fReq("elements", sArr(1, 5, sTyped("feedback_buttons", "icon_button")))}}, // 5: context-actions-block page
	"divider": {fields: []field{fBlockID}},
	"file": {where: inMessage, fields: []field{fBlockID,
		fReq("external_id", sStr(0)), fReq("source", sEnum("remote"))}},
	"header": {fields: []field{fBlockID,
		fReq("text", sPlain(150))}}, // 150: header-block page
	"image_block": {fields: []field{fBlockID,
		fReq("alt_text", sStr(2000)), // image-block page
		fOpt("image_url", sStr(3000)),
		fOpt("slack_file", sObj("slack_file")),
		fOpt("title", sPlain(2000))},
		oneOf: [][]string{{"image_url", "slack_file"}}},
	"input": {fields: []field{fBlockID,
		fReq("label", sPlain(2000)), // 2000 (Block Kit reference)
		fReq("element", sTyped(inputElements...)),
		fOpt("dispatch_action", sBool()),
		fOpt("hint", sPlain(2000)), // 2000 (Block Kit reference)
		fOpt("optional", sBool())}},
	"markdown": {where: inMessage, fields: []field{fBlockID,
		fReq("text", sStr(12000))}}, // markdown-block page; cumulative 12,000 per message (Block Kit reference)
	"rich_text": {fields: []field{fBlockID,
		fReq("elements", sArr(0, 0, sTyped("rich_text_section", "rich_text_list", "rich_text_quote", "rich_text_preformatted")))}},
	"section": {fields: []field{fBlockID,
		fOpt("text", sText(3000)),                // 1..3000 (Block Kit reference)
		fOpt("fields", sArr(1, 10, sText(2000))), // 10 items, 2000 each (Block Kit reference)
		fOpt("accessory", sTyped(accessoryElements...)),
		fOpt("expand", sBool())},
		anyOf: [][]string{{"text", "fields"}}},
	"table": {where: inMessage, fields: []field{fBlockID,
		fReq("rows", sArr(1, 100, sArr(1, 20, sTyped("raw_text", "raw_number", "rich_text")))), // table-block page: 100 rows, 20 cells
		fOpt("column_settings", sArr(0, 20, sObj("column_setting")))}},
	"video": {fields: []field{fBlockID,
		fReq("alt_text", sStr(0)),
		fReq("thumbnail_url", sStr(0)),
		fReq("video_url", sStr(0)),
		fReq("title", sPlain(199)), // video-block page: "less than 200 characters"
		fOpt("title_url", sStr(0)),
		fOpt("author_name", sStr(49)), // "less than 50 characters"
		fOpt("provider_name", sStr(0)),
		fOpt("provider_icon_url", sStr(0)),
		fOpt("description", sPlain(0))}},

	// --- Block elements (docs.slack.dev/reference/block-kit/block-elements/…) ---
	"button": {fields: []field{
		fReq("text", sPlain(75)), // plain_text only, 75 (Block Kit reference)
		fActionID,
		fOpt("url", sStr(3000)),   // 3000 (Block Kit reference)
		fOpt("value", sStr(2000)), // 2000 (Block Kit reference)
		fStyle, fConfirm,
		fOpt("accessibility_label", sStr(75)), // 75 (Block Kit reference)
		fOpt("visible_to_user_ids", sArr(0, 0, sStr(0)))}},
	"checkboxes": {fields: []field{fActionID,
		fReq("options", sArr(1, 10, sObj("option_any"))), // 10 (Block Kit reference)
		fOpt("initial_options", sArr(0, 10, sObj("option_any"))),
		fConfirm, fFocus}},
	"radio_buttons": {fields: []field{fActionID,
		fReq("options", sArr(1, 10, sObj("option_any"))), // 10 (Block Kit reference)
		fOpt("initial_option", sObj("option_any")),
		fConfirm, fFocus}},
	"static_select": {fields: []field{fActionID,
		fOpt("options", sArr(1, 100, sObj("option"))),             // 100 (Block Kit reference)
		fOpt("option_groups", sArr(1, 100, sObj("option_group"))), // 100 (Block Kit reference)
		fOpt("initial_option", sObj("option")),
		fConfirm, fFocus, fPlaceholder},
		oneOf: [][]string{{"options", "option_groups"}}},
	"multi_static_select": {fields: []field{fActionID,
		fOpt("options", sArr(1, 100, sObj("option"))),
		fOpt("option_groups", sArr(1, 100, sObj("option_group"))),
		fOpt("initial_options", sArr(0, 0, sObj("option"))),
		fMaxSelected, fConfirm, fFocus, fPlaceholder},
		oneOf: [][]string{{"options", "option_groups"}}},
	"external_select": {fields: []field{fActionID,
		fOpt("initial_option", sObj("option")),
		fOpt("min_query_length", sInt(0, noLimit)),
		fConfirm, fFocus, fPlaceholder}},
	"multi_external_select": {fields: []field{fActionID,
		fOpt("initial_options", sArr(0, 0, sObj("option"))),
		fOpt("min_query_length", sInt(0, noLimit)),
		fMaxSelected, fConfirm, fFocus, fPlaceholder}},
	"users_select": {fields: []field{fActionID,
		fOpt("initial_user", sStr(0)),
		fConfirm, fFocus, fPlaceholder}},
	"multi_users_select": {fields: []field{fActionID,
		fOpt("initial_users", sArr(0, 0, sStr(0))),
		fMaxSelected, fConfirm, fFocus, fPlaceholder}},
	"conversations_select": {fields: []field{fActionID,
		fOpt("initial_conversation", sStr(0)),
		fOpt("default_to_current_conversation", sBool()),
		fOpt("response_url_enabled", sBool()),
		fOpt("filter", sObj("conversation_filter")),
		fConfirm, fFocus, fPlaceholder}},
	"multi_conversations_select": {fields: []field{fActionID,
		fOpt("initial_conversations", sArr(0, 0, sStr(0))),
		fOpt("default_to_current_conversation", sBool()),
		fOpt("filter", sObj("conversation_filter")),
		fMaxSelected, fConfirm, fFocus, fPlaceholder}},
	"channels_select": {fields: []field{fActionID,
		fOpt("initial_channel", sStr(0)),
		fOpt("response_url_enabled", sBool()),
		fConfirm, fFocus, fPlaceholder}},
	"multi_channels_select": {fields: []field{fActionID,
		fOpt("initial_channels", sArr(0, 0, sStr(0))),
		fMaxSelected, fConfirm, fFocus, fPlaceholder}},
	"overflow": {fields: []field{fActionID,
		fReq("options", sArr(1, 5, sObj("option_url"))), // overflow-menu-element page: 1..5
		fConfirm}},
	"datepicker": {fields: []field{fActionID,
		fOpt("initial_date", sStr(0)),
		fConfirm, fFocus, fPlaceholder}},
	"datetimepicker": {fields: []field{fActionID,
		fOpt("initial_date_time", sInt(0, noLimit)),
		fConfirm, fFocus}},
	"timepicker": {fields: []field{fActionID,
		fOpt("initial_time", sStr(0)),
		fOpt("timezone", sStr(0)),
		fConfirm, fFocus, fPlaceholder}},
	"plain_text_input": {fields: []field{fActionID,
		fOpt("initial_value", sStr(0)),
		fOpt("multiline", sBool()),
		fOpt("min_length", sInt(0, 3000)), // 0..3000 (Block Kit reference)
		fOpt("max_length", sInt(1, 3000)), // 1..3000 (Block Kit reference)
		fDispatch, fFocus, fPlaceholder}},
	// Modals only (block-elements reference table: "Input · Modals").
	"email_text_input": {where: inModal, fields: []field{fActionID,
		fOpt("initial_value", sStr(0)), fDispatch, fFocus, fPlaceholder}},
	"url_text_input": {where: inModal, fields: []field{fActionID,
		fOpt("initial_value", sStr(0)), fDispatch, fFocus, fPlaceholder}},
	"number_input": {where: inModal, fields: []field{
		fReq("is_decimal_allowed", sBool()),
		fActionID,
		fOpt("initial_value", sStr(0)),
		fOpt("min_value", sStr(0)),
		fOpt("max_value", sStr(0)),
		fDispatch, fFocus, fPlaceholder}},
	"file_input": {where: inModal, fields: []field{fActionID,
		fOpt("filetypes", sArr(0, 0, sStr(0))),
		fOpt("max_files", sInt(1, 10))}}, // file-input-element page: 1..10
	// Modals and Home tabs, not messages (block-elements reference table).
	"rich_text_input": {where: inModal, fields: []field{fActionID,
		fOpt("initial_value", sTyped("rich_text")),
		fDispatch, fFocus, fPlaceholder}},
	"image_element": {fields: []field{
		fReq("alt_text", sStr(0)),
		fOpt("image_url", sStr(3000)),
		fOpt("slack_file", sObj("slack_file"))},
		oneOf: [][]string{{"image_url", "slack_file"}}},
	"workflow_button": {fields: []field{
		fReq("text", sPlain(75)), // workflow-button-element page: 75
		fReq("workflow", sObj("workflow")),
		fActionID, fStyle,
		fOpt("accessibility_label", sStr(75))}},
	"feedback_buttons": {where: inMessage, fields: []field{fActionID,
		fReq("positive_button", sObj("feedback_button")),
		fReq("negative_button", sObj("feedback_button"))}},
	"icon_button": {where: inMessage, fields: []field{
		fReq("icon", sStr(0)),
		fReq("text", sPlain(0)),
		fActionID,
		fOpt("accessibility_label", sStr(75)),
		fOpt("value", sStr(2000)),
		fConfirm,
		fOpt("visible_to_user_ids", sArr(0, 0, sStr(0)))}},

	// --- Composition objects (docs.slack.dev/reference/block-kit/composition-objects/…) ---
	"plain_text": {text: true, fields: []field{
		fReq("text", sStrN(1, 3000)), // text object: 1..3000 (Block Kit reference section; text-object page)
		fOpt("emoji", sBool())}},
	"mrkdwn": {text: true, fields: []field{
		fReq("text", sStrN(1, 3000)),
		fOpt("verbatim", sBool())}},
	"confirm": {fields: []field{ // 100 / 300 / 30 / 30 (Block Kit reference); all four required (page)
		fReq("title", sPlain(100)),
		fReq("text", sText(300)),
		fReq("confirm", sPlain(30)),
		fReq("deny", sPlain(30)),
		fStyle}},
	// Options of selects and multi-selects: plain_text only (option-object page).
	"option": {fields: []field{
		fReq("text", sPlain(75)),          // 75 (Block Kit reference)
		fReq("value", sStr(150)),          // 150 (Block Kit reference)
		fOpt("description", sPlain(75))}}, // 75 (Block Kit reference)
	// Options of checkboxes and radio buttons may be mrkdwn (option-object page).
	"option_any": {fields: []field{
		fReq("text", sText(75)),
		fReq("value", sStr(150)),
		fOpt("description", sText(75))}},
	// Options of overflow menus may carry a url (Block Kit reference: "url 3000, overflow only").
	"option_url": {fields: []field{
		fReq("text", sPlain(75)),
		fReq("value", sStr(150)),
		fOpt("description", sPlain(75)),
		fOpt("url", sStr(3000))}},
	"option_group": {fields: []field{
		fReq("label", sPlain(75)),                       // option-group-object page: 75
		fReq("options", sArr(1, 100, sObj("option")))}}, // 100 (option-group-object page)
	"dispatch_action_config": {fields: []field{
		fOpt("trigger_actions_on", sArr(1, 2, sEnum("on_enter_pressed", "on_character_entered")))}},
	"conversation_filter": {fields: []field{
		fOpt("include", sArr(1, 4, sEnum("im", "mpim", "private", "public"))), // "The array cannot be empty"
		fOpt("exclude_external_shared_channels", sBool()),
		fOpt("exclude_bot_users", sBool())}},
	"slack_file": {fields: []field{
		fOpt("url", sStr(0)),
		fOpt("id", sStr(0))},
		oneOf: [][]string{{"url", "id"}}}, // "If both are provided then the payload will be rejected"
	"workflow": {fields: []field{
		fReq("trigger", sObj("workflow_trigger"))}},
	"workflow_trigger": {fields: []field{
		fReq("url", sStr(0)),
		fOpt("customizable_input_parameters", sArr(0, 0, sObj("workflow_parameter")))}},
	"workflow_parameter": {fields: []field{
		fReq("name", sStr(0)),
		fReq("value", sStr(0))}},
	"feedback_button": {fields: []field{
		fReq("text", sPlain(0)),
		fOpt("accessibility_label", sStr(75)),
		fReq("value", sStr(0))}},
	"column_setting": {fields: []field{
		fOpt("align", sEnum("left", "center", "right")),
		fOpt("is_wrapped", sBool())}},
	"raw_text": {fields: []field{
		fReq("text", sStrN(1, 0))}},
	"raw_number": {fields: []field{
		fReq("value", sNum()),
		fReq("text", sStrN(1, 0))}},

	// --- Rich text (docs.slack.dev/reference/block-kit/blocks/rich-text-block) ---
	"rich_text_section": {fields: []field{
		fReq("elements", sArr(0, 0, sTyped(richTextInline...)))}},
	"rich_text_list": {fields: []field{
		fReq("elements", sArr(0, 0, sTyped("rich_text_section"))),
		fReq("style", sEnum("bullet", "ordered")),
		fOpt("indent", sInt(0, 8)),
		fOpt("offset", sInt(0, noLimit)),
		fBorder}},
	"rich_text_quote": {fields: []field{
		fReq("elements", sArr(0, 0, sTyped(richTextInline...))),
		fBorder}},
	"rich_text_preformatted": {fields: []field{
		fReq("elements", sArr(0, 0, sTyped("text=rt_text", "link=rt_link"))),
		fBorder}},
	"rich_text_style": {fields: []field{
		fOpt("bold", sBool()), fOpt("italic", sBool()), fOpt("strike", sBool()), fOpt("code", sBool()),
		fOpt("underline", sBool()), fOpt("highlight", sBool()), fOpt("client_highlight", sBool()),
		fOpt("unlink", sBool())}},
	"rt_text":      {fields: []field{fReq("text", sStr(0)), fRichStyle}},
	"rt_link":      {fields: []field{fReq("url", sStr(0)), fOpt("text", sStr(0)), fOpt("unsafe", sBool()), fRichStyle}},
	"rt_emoji":     {fields: []field{fReq("name", sStr(0)), fOpt("unicode", sStr(0)), fOpt("url", sStr(0)), fRichStyle}},
	"rt_user":      {fields: []field{fReq("user_id", sStr(0)), fRichStyle}},
	"rt_usergroup": {fields: []field{fReq("usergroup_id", sStr(0)), fRichStyle}},
	"rt_channel":   {fields: []field{fReq("channel_id", sStr(0)), fRichStyle}},
	"rt_team":      {fields: []field{fReq("team_id", sStr(0)), fRichStyle}},
	"rt_broadcast": {fields: []field{fReq("range", sEnum("here", "channel", "everyone")), fRichStyle}},
	"rt_date": {fields: []field{fReq("timestamp", sInt(0, noLimit)), fReq("format", sStr(0)),
		fOpt("url", sStr(0)), fOpt("fallback", sStr(0)), fRichStyle}},
	"rt_color": {fields: []field{fReq("value", sStr(0)), fRichStyle}},
}

// Limits of a whole message or view, beyond what each object carries.
const (
	maxMessageBlocksSlack = 50      // blocks per message (Block Kit reference)
	maxMarkdownTotal      = 12000   // markdown blocks, cumulative per message (Block Kit reference)
	maxViewSize           = 250_000 // views.open: view_too_large above "250 kb" (Block Kit reference); read as 250,000 bytes
)

// problem is one violation: a message in Slack's words and a JSON pointer to where it is.
type problem struct{ pointer, msg string }

func (p problem) String() string { return "[ERROR] " + p.msg + " [json-pointer:" + p.pointer + "]" }

type checker struct {
	where    surface
	problems []problem
}

func (c *checker) add(pointer, format string, args ...any) {
	c.problems = append(c.problems, problem{pointer, fmt.Sprintf(format, args...)})
}

func (c *checker) messages() []string {
	out := make([]string, len(c.problems))
	for i, p := range c.problems {
		out[i] = p.String()
	}
	return out
}

func pointerTo(base, key string) string {
	return base + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// value checks v against s at pointer.
func (c *checker) value(pointer string, v any, s spec) {
	switch s.kind {
	case kString:
		str, ok := v.(string)
		if !ok {
			c.add(pointer, "must provide a string")
			return
		}
		n := utf8.RuneCountInString(str) // Slack counts with mb_strlen: code points
		switch {
		case s.maxLen > 0 && n > s.maxLen:
			c.add(pointer, "must be less than %d characters", s.maxLen+1)
		case n < s.minLen:
			c.add(pointer, "must be more than %d characters", s.minLen-1)
		case len(s.enum) > 0 && !inList(s.enum, str):
			c.add(pointer, "must be a valid enum value")
		}
	case kBool:
		if _, ok := v.(bool); !ok {
			c.add(pointer, "must be a boolean")
		}
	case kInt, kNumber:
		f, ok := v.(float64)
		switch {
		case !ok && s.kind == kInt, ok && s.kind == kInt && f != math.Trunc(f):
			c.add(pointer, "must provide an integer")
		case !ok:
			c.add(pointer, "must provide a number")
		case s.hasHi && f > s.hi:
			c.add(pointer, "must be less than %s", num(s.hi))
		case s.hasLo && f < s.lo:
			c.add(pointer, "must be greater than %s", num(s.lo))
		}
	case kArray:
		list, ok := v.([]any)
		if !ok {
			c.add(pointer, "must provide an array")
			return
		}
		switch {
		case s.maxItems > 0 && len(list) > s.maxItems:
			c.add(pointer, "no more than %d items allowed", s.maxItems)
			return
		case len(list) < s.minItems:
			c.add(pointer, "must provide at least %d items", s.minItems)
			return
		}
		for i, item := range list {
			c.value(fmt.Sprintf("%s/%d", pointer, i), item, *s.items)
		}
	case kObject:
		before := len(c.problems)
		m, ok := v.(map[string]any)
		switch {
		case !ok:
			c.add(pointer, "must provide an object")
		case s.obj != "":
			c.object(pointer, m, schemas[s.obj], s)
		default:
			c.typed(pointer, m, s)
		}
		// A text object with a limit of its own is, in Slack's schema, an allOf of that limit and
		// the text object; a failure inside is announced at the object first
		// (grafana-cold-storage/oncall#5121: "failed to match all allowed schemas
		// [json-pointer:/blocks/0/text]" before "must be less than 3001 characters
		// [json-pointer:/blocks/0/text/text]"; jeremeamia/slack-block-kit#3: the same for
		// /view/title).
		if s.textMax > 0 && len(c.problems) > before {
			c.problems = append(c.problems[:before],
				append([]problem{{pointer, "failed to match all allowed schemas"}}, c.problems[before:]...)...)
		}
	}
}

// typed checks an object told apart by its "type", as Slack's schema does: the type first, then
// the schema of that type, if this surface accepts it.
func (c *checker) typed(pointer string, m map[string]any, s spec) {
	t, present := m["type"]
	if !present {
		c.add(pointer, "missing required field: type")
		return
	}
	name, ok := t.(string)
	if !ok {
		c.add(pointerTo(pointer, "type"), "must provide a string")
		return
	}
	sch := schemas[s.types[name]]
	if sch == nil || (sch.where != 0 && sch.where&c.where == 0) {
		c.add(pointerTo(pointer, "type"), "unsupported type: %s", name)
		return
	}
	c.object(pointer, m, sch, s)
}

// object checks an object against its schema: required properties first (Slack stops at a
// missing one), then each property, then the properties the schema does not know.
func (c *checker) object(pointer string, m map[string]any, sch *schema, s spec) {
	missing := false
	for _, f := range sch.fields {
		if _, ok := m[f.name]; f.required && !ok {
			c.add(pointer, "missing required field: %s", f.name)
			missing = true
		}
	}
	if missing {
		return
	}
	known := map[string]bool{}
	if s.types != nil {
		known["type"] = true
	}
	for _, f := range sch.fields {
		known[f.name] = true
		v, ok := m[f.name]
		if !ok {
			continue
		}
		fs := f.spec
		if sch.text && f.name == "text" && s.textMax > 0 {
			fs.maxLen = s.textMax
		}
		c.value(pointerTo(pointer, f.name), v, fs)
	}
	for _, k := range propertyNames(m) {
		if !known[k] {
			c.add(pointer, "invalid additional property: %s", k)
		}
	}
	// Wording of the two rules below is the fake's: Slack's is not documented (an answer quoted
	// in slackapi/java-slack-sdk#1017 begins "must define either `…").
	for _, g := range sch.anyOf {
		if countPresent(m, g) == 0 {
			c.add(pointer, "must define either %s", quoteList(g))
		}
	}
	for _, g := range sch.oneOf {
		if n := countPresent(m, g); n == 0 {
			c.add(pointer, "must define either %s", quoteList(g))
		} else if n > 1 {
			c.add(pointer, "must define only one of %s", quoteList(g))
		}
	}
}

// blockList checks what applies to a list of blocks as a whole: block_ids unique within the
// message or view ("block_id should be unique for each message", Block Kit reference), and action_ids
// unique within their block ("unique within the containing block", Block Kit reference). Slack's
// wording for these is not documented; these messages are the fake's.
func (c *checker) blockList(pointer string, blocks []any) {
	seen := map[string]int{}
	for i, b := range blocks {
		m, ok := b.(map[string]any)
		if !ok {
			continue
		}
		bp := fmt.Sprintf("%s/%d", pointer, i)
		if id, ok := m["block_id"].(string); ok {
			if j, dup := seen[id]; dup {
				c.add(pointerTo(bp, "block_id"), "duplicate block_id: %s (also at %s/%d)", id, pointer, j)
			} else {
				seen[id] = i
			}
		}
		if els, ok := m["elements"].([]any); ok && (m["type"] == "actions" || m["type"] == "context_actions") {
			ids := map[string]int{}
			for j, e := range els {
				em, _ := e.(map[string]any)
				id, ok := em["action_id"].(string)
				if !ok {
					continue
				}
				if k, dup := ids[id]; dup {
					c.add(fmt.Sprintf("%s/elements/%d/action_id", bp, j), "duplicate action_id: %s (also at %s/elements/%d)", id, bp, k)
				} else {
					ids[id] = j
				}
			}
		}
	}
}

// checkMessageBlocks judges the blocks argument of chat.postMessage, chat.update and
// chat.postEphemeral (a JSON array), returning Slack's messages; ok is false when the argument
// is not a JSON array at all (Slack: invalid_blocks_format).
func checkMessageBlocks(raw []byte) (msgs []string, ok bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	blocks, isList := v.([]any)
	if !isList {
		return nil, false
	}
	c := &checker{where: inMessage}
	c.value("/blocks", blocks, sArr(0, maxMessageBlocksSlack, sTyped(blockTypes...)))
	if len(blocks) <= maxMessageBlocksSlack {
		c.blockList("/blocks", blocks)
		tables, markdown := 0, 0
		for i, b := range blocks {
			m, _ := b.(map[string]any)
			switch m["type"] {
			case "table":
				// One table per message (table-block page; the wording is the fake's).
				if tables++; tables > 1 {
					c.add(fmt.Sprintf("/blocks/%d", i), "only one table block is allowed per message")
				}
			case "markdown":
				if s, ok := m["text"].(string); ok {
					markdown += utf8.RuneCountInString(s)
				}
			}
		}
		if markdown > maxMarkdownTotal {
			c.add("/blocks", "markdown blocks must total less than %d characters", maxMarkdownTotal+1)
		}
	}
	return c.messages(), true
}

// checkViewJSON judges the view of views.open, views.update and views.push, returning the error
// code Slack answers with and its messages ("" when the view is accepted).
func checkViewJSON(raw []byte) (code string, msgs []string) { return checkViewOf(raw, "modal") }

// checkHomeJSON judges the view of views.publish: a Home tab, as checkViewJSON judges a modal.
func checkHomeJSON(raw []byte) (code string, msgs []string) { return checkViewOf(raw, "home") }

// checkViewOf judges a view that must be of type typ.
func checkViewOf(raw []byte, typ string) (code string, msgs []string) {
	if len(raw) == 0 {
		return "invalid_arguments", []string{"[ERROR] missing required field: view"}
	}
	if len(raw) > maxViewSize {
		return "view_too_large", nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "invalid_arguments", []string{problem{"/view", "must provide an object"}.String()}
	}
	if s, ok := v.(string); ok { // a form-encoded call sends the view as a JSON string
		if len(s) > maxViewSize {
			return "view_too_large", nil
		}
		v = nil
		if json.Unmarshal([]byte(s), &v) != nil {
			return "invalid_arguments", []string{problem{"/view", "must provide an object"}.String()}
		}
	}
	c := &checker{where: inModal}
	c.value("/view", v, sTyped(typ))
	if m, ok := v.(map[string]any); ok {
		if blocks, ok := m["blocks"].([]any); ok && len(blocks) <= 100 {
			c.blockList("/view/blocks", blocks)
			// "submit is required when an input block is within the blocks array" (Block Kit reference,
			// modal-views page); the wording is the fake's, in the style of Slack's schema.
			if _, has := m["submit"]; !has && m["type"] == "modal" {
				for _, b := range blocks {
					if bm, _ := b.(map[string]any); bm["type"] == "input" {
						c.add("/view", "missing required field: submit")
						break
					}
				}
			}
		}
	}
	if len(c.problems) == 0 {
		return "", nil
	}
	// Slack announces a refused view at /view first ("[ERROR] failed to match all allowed
	// schemas [json-pointer:/view]" heads the views.open answers quoted in public reports).
	c.problems = append([]problem{{"/view", "failed to match all allowed schemas"}}, c.problems...)
	return "invalid_arguments", c.messages()
}

// blocksRefusal is Slack's answer to a message whose blocks it refuses, nil when it accepts them.
func blocksRefusal(blocks string) *apiError {
	msgs, ok := checkMessageBlocks([]byte(blocks))
	switch {
	case !ok:
		return fail("invalid_blocks_format")
	case len(msgs) > 0:
		return fail("invalid_blocks", msgs...)
	}
	return nil
}

// viewRefusal is Slack's answer to a view it refuses, nil when it accepts it.
func viewRefusal(raw json.RawMessage) *apiError {
	if code, msgs := checkViewJSON(raw); code != "" {
		return fail(code, msgs...)
	}
	return nil
}

// homeRefusal is Slack's answer to a Home tab it refuses, nil when it accepts it.
func homeRefusal(raw json.RawMessage) *apiError {
	if code, msgs := checkHomeJSON(raw); code != "" {
		return fail(code, msgs...)
	}
	return nil
}

func inList(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func countPresent(m map[string]any, keys []string) int {
	n := 0
	for _, k := range keys {
		if _, ok := m[k]; ok {
			n++
		}
	}
	return n
}

func quoteList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = "`" + k + "`"
	}
	return strings.Join(q, " or ")
}

func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprint(f)
}

// propertyNames returns an object's property names in a stable order.
func propertyNames(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
