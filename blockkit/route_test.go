package blockkit_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/slack-go/slack"
)

// template loads a real captured payload from testdata/payloads as generic JSON.
func template(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "payloads", name))
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// parse turns a payload into what slack-go hands a handler.
func parse(t *testing.T, p map[string]any) slack.InteractionCallback {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var ic slack.InteractionCallback
	if err := json.Unmarshal(b, &ic); err != nil {
		t.Fatalf("slack-go cannot parse the payload: %v", err)
	}
	return ic
}

// blockActions builds a block_actions payload shaped like Slack's capture (the template), for
// an action on our rendered message, with the message state Slack would send.
func blockActions(t *testing.T, blocks []slack.Block, action map[string]any, state map[string]any) slack.InteractionCallback {
	t.Helper()
	p := template(t, "block_actions_checkboxes.json")
	p["message"].(map[string]any)["blocks"] = generic(t, blocks)
	action["action_ts"] = "1715342693.439462"
	p["actions"] = []any{action}
	if state == nil {
		state = map[string]any{}
	}
	p["state"] = map[string]any{"values": state}
	return parse(t, p)
}

// viewSubmission builds a view_submission payload shaped like Slack's capture for our modal,
// with the view state Slack would send.
func viewSubmission(t *testing.T, m slack.ModalViewRequest, state map[string]any) slack.InteractionCallback {
	t.Helper()
	p := template(t, "view_submission_radio_plain_text_input.json")
	view := p["view"].(map[string]any)
	for k, v := range generic(t, m).(map[string]any) {
		view[k] = v
	}
	view["state"] = map[string]any{"values": state}
	return parse(t, p)
}

// element is one interactive element of a rendered message, with its block.
type element struct {
	blockID string
	el      map[string]any
}

func elements(t *testing.T, blocks []slack.Block) []element {
	t.Helper()
	var out []element
	for _, b := range generic(t, blocks).([]any) {
		b := b.(map[string]any)
		if b["type"] != "actions" {
			continue
		}
		for _, e := range b["elements"].([]any) {
			out = append(out, element{b["block_id"].(string), e.(map[string]any)})
		}
	}
	return out
}

func find(t *testing.T, els []element, actionID string) element {
	t.Helper()
	for _, e := range els {
		if e.el["action_id"] == actionID {
			return e
		}
	}
	t.Fatalf("no element with action_id %q", actionID)
	return element{}
}

// click is the action Slack sends for a click on a button.
func click(e element) map[string]any {
	return map[string]any{"action_id": e.el["action_id"], "block_id": e.blockID, "text": e.el["text"],
		"value": e.el["value"], "type": "button"}
}

// checkReply checks the reply read back and what inquiry.CheckAnswer makes of it.
func checkReply(t *testing.T, rec *inquiry.Record, gotKey string, got inquiry.Reply, want inquiry.Value) {
	t.Helper()
	if gotKey != rec.Key {
		t.Errorf("key %q, want %q", gotKey, rec.Key)
	}
	if !got.Value.Equal(want) {
		t.Errorf("reply value %v (list %v), want %v (list %v)", got.Value, got.Value.IsList(), want, want.IsList())
	}
	a, err := inquiry.CheckAnswer(&rec.Inquiry, got)
	if err != nil {
		t.Fatalf("CheckAnswer: %v", err)
	}
	if !a.Value.Equal(want) {
		t.Errorf("answer value %v, want %v", a.Value, want)
	}
}

func TestRoundTripButtons(t *testing.T) {
	t.Parallel()
	for n := 2; n <= 5; n++ {
		rec := choice(n, false)
		_, blocks := blockkit.Message(rec, now)
		els := elements(t, blocks)
		for i, o := range rec.Options {
			e := find(t, els, fmt.Sprintf("inq:choose:%d", i))
			if e.el["confirm"] == nil {
				t.Errorf("%d options: button %d has no confirmation dialog", n, i)
			}
			ic := blockActions(t, blocks, click(e), nil)
			key, reply, ok := blockkit.ReadAction(ic, ic.ActionCallback.BlockActions[0])
			if !ok {
				t.Fatalf("%d options: click on %q not read", n, o.Value)
			}
			checkReply(t, rec, key, reply, inquiry.One(o.Value))
		}
	}
}

func TestRoundTripSelect(t *testing.T) {
	t.Parallel()
	for n := 6; n <= inquiry.MaxOptions; n++ {
		rec := choice(n, false)
		rec.Options = longOptions(n) // values at 150 characters still route
		_, blocks := blockkit.Message(rec, now)
		e := find(t, elements(t, blocks), blockkit.ActionSelect)
		if e.el["confirm"] == nil {
			t.Errorf("%d options: the select has no confirmation dialog", n)
		}
		for i, o := range e.el["options"].([]any) {
			ic := blockActions(t, blocks, map[string]any{"action_id": blockkit.ActionSelect, "block_id": e.blockID,
				"type": "static_select", "selected_option": o, "placeholder": e.el["placeholder"]}, nil)
			key, reply, ok := blockkit.ReadAction(ic, ic.ActionCallback.BlockActions[0])
			if !ok {
				t.Fatalf("%d options: choosing option %d not read", n, i)
			}
			checkReply(t, rec, key, reply, inquiry.One(rec.Options[i].Value))
		}
	}
}

func TestRoundTripSubmit(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 10, 11, 12} {
		rec := choice(n, true)
		_, blocks := blockkit.Message(rec, now)
		var pick map[string]any
		var pickBlock string
		for _, b := range generic(t, blocks).([]any) {
			if b := b.(map[string]any); b["type"] == "input" {
				pick, pickBlock = b["element"].(map[string]any), b["block_id"].(string)
			}
		}
		wantType := "checkboxes"
		if n > 10 {
			wantType = "multi_static_select"
		}
		if pick == nil || pick["type"] != wantType || pick["action_id"] != blockkit.ActionPick {
			t.Fatalf("%d options: pick element %v, want a %s", n, pick, wantType)
		}
		opts := pick["options"].([]any)
		submit := find(t, elements(t, blocks), blockkit.ActionSubmit)

		ticked := []any{opts[0], opts[n-1]}
		state := map[string]any{pickBlock: map[string]any{blockkit.ActionPick: map[string]any{"type": wantType, "selected_options": ticked}}}
		ic := blockActions(t, blocks, click(submit), state)
		key, reply, ok := blockkit.ReadAction(ic, ic.ActionCallback.BlockActions[0])
		if !ok {
			t.Fatalf("%d options: submit not read", n)
		}
		checkReply(t, rec, key, reply, inquiry.Many(rec.Options[0].Value, rec.Options[n-1].Value))

		// Nothing ticked: an empty list, which CheckAnswer refuses with a sentence.
		state = map[string]any{pickBlock: map[string]any{blockkit.ActionPick: map[string]any{"type": wantType, "selected_options": []any{}}}}
		ic = blockActions(t, blocks, click(submit), state)
		_, reply, ok = blockkit.ReadAction(ic, ic.ActionCallback.BlockActions[0])
		if !ok || !reply.Value.IsList() || reply.Value.Len() != 0 {
			t.Fatalf("%d options: empty submit read as %v, %v", n, reply, ok)
		}
		if _, err := inquiry.CheckAnswer(&rec.Inquiry, reply); err == nil {
			t.Errorf("%d options: an empty submit was accepted", n)
		}

		// A tick alone answers nothing.
		tick := map[string]any{"action_id": blockkit.ActionPick, "block_id": pickBlock, "type": wantType, "selected_options": ticked}
		ic = blockActions(t, blocks, tick, state)
		if _, _, ok := blockkit.ReadAction(ic, ic.ActionCallback.BlockActions[0]); ok {
			t.Errorf("%d options: a tick was read as an answer", n)
		}
	}
}

// TestRoundTripModals opens each modal from its button and submits it.
func TestRoundTripModals(t *testing.T) {
	t.Parallel()
	textRec := record(inquiry.KindText)
	confirmRec := record(inquiry.KindConfirm)
	confirmRec.AllowText = true
	ownRec := choice(3, false)
	ownRec.AllowText = true

	text := func(v string) map[string]any {
		return map[string]any{blockkit.BlockAnswer: map[string]any{blockkit.ActionAnswerText: map[string]any{"type": "plain_text_input", "value": v}}}
	}
	for _, tc := range []struct {
		name      string
		rec       *inquiry.Record
		button    string
		callback  string
		state     func(m slack.ModalViewRequest) map[string]any
		wantReply inquiry.Reply
		want      inquiry.Answer
	}{
		{"text", textRec, blockkit.ActionOpenText, blockkit.CallbackText,
			func(slack.ModalViewRequest) map[string]any { return text("Ship it <@U1> & go") },
			inquiry.Reply{Text: "Ship it <@U1> & go"}, inquiry.Answer{Text: "Ship it <@U1> & go"}},
		{"confirm yes with a note", confirmRec, blockkit.ActionOpenConfirm, blockkit.CallbackConfirm,
			func(m slack.ModalViewRequest) map[string]any {
				return map[string]any{
					blockkit.BlockAnswer: map[string]any{blockkit.ActionYesNo: map[string]any{"type": "radio_buttons", "selected_option": radio(t, m, "yes")}},
					blockkit.BlockNote:   map[string]any{blockkit.ActionNote: map[string]any{"type": "plain_text_input", "value": "after the backup"}},
				}
			},
			inquiry.Reply{Value: inquiry.One("yes"), Text: "after the backup"}, inquiry.Answer{Value: inquiry.One("yes"), Text: "after the backup"}},
		{"confirm no without a note", confirmRec, blockkit.ActionOpenConfirm, blockkit.CallbackConfirm,
			func(m slack.ModalViewRequest) map[string]any {
				return map[string]any{
					blockkit.BlockAnswer: map[string]any{blockkit.ActionYesNo: map[string]any{"type": "radio_buttons", "selected_option": radio(t, m, "no")}},
					blockkit.BlockNote:   map[string]any{blockkit.ActionNote: map[string]any{"type": "plain_text_input", "value": nil}},
				}
			},
			inquiry.Reply{Value: inquiry.One("no")}, inquiry.Answer{Value: inquiry.One("no")}},
		{"own words", ownRec, blockkit.ActionOwnWords, blockkit.CallbackOwnWords,
			func(slack.ModalViewRequest) map[string]any { return text("Wait for Bob") },
			inquiry.Reply{Text: "Wait for Bob"}, inquiry.Answer{Text: "Wait for Bob"}},
		{"own words that are an option", ownRec, blockkit.ActionOwnWords, blockkit.CallbackOwnWords,
			func(slack.ModalViewRequest) map[string]any { return text("  hold ") },
			inquiry.Reply{Text: "  hold "}, inquiry.Answer{Value: inquiry.One("hold")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, blocks := blockkit.Message(tc.rec, now)
			e := find(t, elements(t, blocks), tc.button)
			ic := blockActions(t, blocks, click(e), nil)
			action := ic.ActionCallback.BlockActions[0]
			if _, _, ok := blockkit.ReadAction(ic, action); ok {
				t.Fatalf("the %s button was read as an answer", tc.button)
			}
			if k, _ := blockkit.ParseBlockID(action.BlockID); k != tc.rec.Key || action.Value != tc.rec.Key {
				t.Fatalf("the %s button carries key %q in block_id and %q in value, want %q", tc.button, k, action.Value, tc.rec.Key)
			}
			m, ok := blockkit.ModalFor(tc.rec, action.ActionID)
			if !ok || m.CallbackID != tc.callback {
				t.Fatalf("ModalFor(%s) = %q, %v; want %q", action.ActionID, m.CallbackID, ok, tc.callback)
			}
			sub := viewSubmission(t, m, tc.state(m))
			key, reply, err := blockkit.ReadSubmission(sub.View)
			if err != nil {
				t.Fatalf("ReadSubmission: %v", err)
			}
			if key != tc.rec.Key || !reply.Value.Equal(tc.wantReply.Value) || reply.Text != tc.wantReply.Text || reply.Declined {
				t.Fatalf("ReadSubmission = %q, %+v; want %q, %+v", key, reply, tc.rec.Key, tc.wantReply)
			}
			a, err := inquiry.CheckAnswer(&tc.rec.Inquiry, reply)
			if err != nil {
				t.Fatalf("CheckAnswer: %v", err)
			}
			if !a.Value.Equal(tc.want.Value) || a.Text != tc.want.Text {
				t.Errorf("answer %v %q, want %v %q", a.Value, a.Text, tc.want.Value, tc.want.Text)
			}
		})
	}
}

// radio returns the Yes/No option object of the confirm modal with the given value, as Slack
// echoes it in the state.
func radio(t *testing.T, m slack.ModalViewRequest, value string) any {
	t.Helper()
	for _, b := range generic(t, m.Blocks).([]any) {
		b := b.(map[string]any)
		if b["block_id"] != blockkit.BlockAnswer {
			continue
		}
		for _, o := range b["element"].(map[string]any)["options"].([]any) {
			if o.(map[string]any)["value"] == value {
				return o
			}
		}
	}
	t.Fatalf("no radio option %q", value)
	return nil
}

// TestForeignPayloads checks that payloads of other apps are never taken for answers.
func TestForeignPayloads(t *testing.T) {
	t.Parallel()
	ic := parse(t, template(t, "block_actions_checkboxes.json"))
	for _, a := range ic.ActionCallback.BlockActions {
		if key, _, ok := blockkit.ReadAction(ic, a); ok {
			t.Errorf("foreign action %s read as an answer to %q", a.ActionID, key)
		}
	}
	if _, _, ok := blockkit.ReadAction(ic, nil); ok {
		t.Error("a nil action was read as an answer")
	}
	sub := parse(t, template(t, "view_submission_radio_plain_text_input.json"))
	if _, _, err := blockkit.ReadSubmission(sub.View); !errors.Is(err, blockkit.ErrNotOurs) {
		t.Errorf("foreign view: err %v, want ErrNotOurs", err)
	}
}

func TestReadSubmissionBroken(t *testing.T) {
	t.Parallel()
	state := &slack.ViewState{Values: map[string]map[string]slack.BlockAction{
		blockkit.BlockAnswer: {blockkit.ActionAnswerText: {Value: "x"}},
	}}
	for _, tc := range []struct {
		name string
		view slack.View
		want string
	}{
		{"no key", slack.View{CallbackID: blockkit.CallbackText, State: state}, "no inquiry key"},
		{"no state", slack.View{CallbackID: blockkit.CallbackText, PrivateMetadata: key}, "no state"},
		{"no answer block", slack.View{CallbackID: blockkit.CallbackConfirm, PrivateMetadata: key, State: &slack.ViewState{}}, "no inq:answer block"},
	} {
		if _, _, err := blockkit.ReadSubmission(tc.view); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	// An empty confirm is read as an empty reply for CheckAnswer to refuse.
	view := slack.View{CallbackID: blockkit.CallbackConfirm, PrivateMetadata: key, State: &slack.ViewState{
		Values: map[string]map[string]slack.BlockAction{blockkit.BlockAnswer: {blockkit.ActionYesNo: {}}}}}
	k, reply, err := blockkit.ReadSubmission(view)
	if err != nil || k != key || !reply.Value.IsZero() {
		t.Fatalf("empty confirm: %q %+v %v", k, reply, err)
	}
	if _, err := inquiry.CheckAnswer(&record(inquiry.KindConfirm).Inquiry, reply); err == nil {
		t.Error("an empty confirm was accepted")
	}
}

func TestParseBlockID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id, key string
		ok      bool
	}{
		{"inq|inq_abc|q-q0", "inq_abc", true},
		{"inq|inq_abc|r-o12", "inq_abc", true},
		{"inq|a|b|q-act", "a|b", true},
		{"inq||q-act", "", false},
		{"inq|inq_abc", "", false},
		{"inq:answer", "", false},
		{"x5guW", "", false},
		{"", "", false},
	} {
		key, ok := blockkit.ParseBlockID(tc.id)
		if key != tc.key || ok != tc.ok {
			t.Errorf("ParseBlockID(%q) = %q, %v; want %q, %v", tc.id, key, ok, tc.key, tc.ok)
		}
	}
}

func TestBaseAction(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"inq:choose:0":      blockkit.ActionChoose,
		"inq:choose:11":     blockkit.ActionChoose,
		"inq:choose":        "",
		"inq:choose:x":      "",
		"inq:select":        blockkit.ActionSelect,
		"inq:pick":          blockkit.ActionPick,
		"inq:submit":        blockkit.ActionSubmit,
		"inq:own_words":     blockkit.ActionOwnWords,
		"inq:open_text":     blockkit.ActionOpenText,
		"inq:open_confirm":  blockkit.ActionOpenConfirm,
		"select_options":    "",
		"inq:answer_text":   "",
		"interactions_deny": "",
	} {
		if got := blockkit.BaseAction(id); got != want {
			t.Errorf("BaseAction(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestBlockIDs checks that every block of every rendering carries the key, that block_ids are
// unique, and that the resolved message shares none with the question message.
func TestBlockIDs(t *testing.T) {
	t.Parallel()
	for _, tc := range goldenCases() {
		rec := tc.rec()
		rec.Status = inquiry.StatusPending
		_, question := blockkit.Message(rec, now)
		_, res := blockkit.Resolved(rec, now)
		_, notice := blockkit.Notice(rec)
		seen := map[string]string{}
		for name, blocks := range map[string][]slack.Block{"message": question, "resolved": res, "notice": notice} {
			for _, b := range blocks {
				id := b.ID()
				if k, ok := blockkit.ParseBlockID(id); !ok || k != rec.Key {
					t.Errorf("%s %s: block_id %q does not carry the key", tc.name, name, id)
				}
				if other, dup := seen[id]; dup {
					t.Errorf("%s %s: block_id %q repeats one of the %s", tc.name, name, id, other)
				}
				seen[id] = name
			}
		}
	}
}

func TestKeyLength(t *testing.T) {
	t.Parallel()
	rec := choice(3, false)
	rec.AllowText = true
	rec.Key = strings.Repeat("k", blockkit.MaxKeyChars)
	if _, err := blockkit.Render(rec, now); err != nil {
		t.Errorf("a key of MaxKeyChars: %v", err)
	}
	rec.Key = strings.Repeat("k", 300)
	_, err := blockkit.Render(rec, now)
	var verr *blockkit.ValidationError
	if !errors.As(err, &verr) || !strings.Contains(err.Error(), "block_id: 309 characters, limit 255") {
		t.Errorf("a 300-character key: err %v, want a block_id over its limit", err)
	}
}
