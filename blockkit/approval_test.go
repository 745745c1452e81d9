package blockkit_test

import (
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// The tally renders voters as mentions (a Slack id) or their names as text of their own (a
// token's name), labels as the asker's text in plain_text (never formatted), in the order people
// voted.
func TestTally(t *testing.T) {
	t.Parallel()
	confirm := approval(record(inquiry.KindConfirm), 2)
	pick := approval(choice(3, false), 2)
	pick.Options[1].Label = "Hold <&> @here *now*"
	for _, tc := range []struct {
		name  string
		rec   *inquiry.Record
		votes []inquiry.Vote
		want  string
	}{
		{"nobody", confirm, nil, "m:Needs 2 approvals; one no stops it · no votes yet"},
		{"one approval", confirm, []inquiry.Vote{vote("U1ANA0001", "yes", "")}, "m:Needs 2 approvals; one no stops it · 1 of 2 approvals: <@U1ANA0001>"},
		{"approval and no", confirm, []inquiry.Vote{vote("ci<b>", "no", ""), vote("U1ANA0001", "yes", "")},
			"m:Needs 2 approvals; one no stops it · 1 of 2 approvals: <@U1ANA0001>; 1 of 2 noes: |p:ci<b>"},
		{"choice", pick, []inquiry.Vote{vote("U1ANA0001", "hold", ""), vote("W2BOB0001", "hold", ""), vote("U3CAT0001", "merge", "")},
			"m:Needs 2 people to choose the same answer · 1 of 2 for|p:“Merge”|m:: <@U3CAT0001>; 2 of 2 for|p:“Hold <&> @here *now*”|m:: <@U1ANA0001>, <@W2BOB0001>"},
		{"a declined vote counts for nothing", confirm, []inquiry.Vote{{By: "U1ANA0001", Declined: true}}, "m:Needs 2 approvals; one no stops it · no votes yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := *tc.rec
			rec.Votes = tc.votes
			_, blocks := blockkit.Message(&rec, now)
			if got := contextLine(t, blocks, "q-tally"); got != tc.want {
				t.Errorf("tally = %q, want %q", got, tc.want)
			}
		})
	}
}

// contextLine renders the elements of the context block whose block_id ends in suffix as
// "m:<mrkdwn>|p:<plain_text>|…", and checks that no plain_text element turns emoji codes on.
func contextLine(t *testing.T, blocks []slack.Block, suffix string) string {
	t.Helper()
	for _, b := range blocks {
		c, ok := b.(*slack.ContextBlock)
		if !ok || !strings.HasSuffix(c.BlockID, "|"+suffix) {
			continue
		}
		var parts []string
		for _, e := range c.ContextElements.Elements {
			o := e.(*slack.TextBlockObject)
			if o.Type == slack.PlainTextType {
				if o.Emoji == nil || *o.Emoji {
					t.Errorf("%s: plain_text %q turns emoji codes on", suffix, o.Text)
				}
				parts = append(parts, "p:"+o.Text)
			} else {
				parts = append(parts, "m:"+o.Text)
			}
		}
		return strings.Join(parts, "|")
	}
	return ""
}

// A button whose answer must say why has no confirmation dialog (the reason modal confirms it);
// the others keep theirs. A Confirm of one person keeps its one modal button.
func TestReasonButtonsHaveNoConfirmation(t *testing.T) {
	t.Parallel()
	onNo := approval(record(inquiry.KindConfirm), 2)
	onNo.Reason = inquiry.ReasonOnNo
	_, blocks := blockkit.Message(onNo, now)
	els := elements(t, blocks)
	if len(els) != 2 {
		t.Fatalf("a Confirm of 2 approvals shows %d controls, want Yes and No", len(els))
	}
	for _, e := range els {
		_, has := e.el["confirm"]
		if want := e.el["value"] == "yes"; has != want {
			t.Errorf("button %v: confirmation dialog %v, want %v", e.el["value"], has, want)
		}
	}
	always := choice(8, false)
	always.Reason = inquiry.ReasonAlways
	_, blocks = blockkit.Message(always, now)
	if sel := find(t, elements(t, blocks), blockkit.ActionSelect); sel.el["confirm"] != nil {
		t.Errorf("the select of a choice that always asks why keeps its confirmation: %v", sel.el["confirm"])
	}
	single := record(inquiry.KindConfirm)
	single.Reason = inquiry.ReasonAlways
	_, blocks = blockkit.Message(single, now)
	find(t, elements(t, blocks), blockkit.ActionOpenConfirm)
}

// The reason modal opens with the answer clicked, and its submission reads back as that answer
// with the reason as its text, which CheckAnswer takes; the radio, checkbox and select forms.
func TestReasonModalSubmission(t *testing.T) {
	t.Parallel()
	confirm := approval(record(inquiry.KindConfirm), 2)
	confirm.Reason = inquiry.ReasonOnNo
	many := choice(11, false)
	many.Reason = inquiry.ReasonAlways
	multiple := choice(4, true)
	multiple.Reason = inquiry.ReasonAlways
	for _, tc := range []struct {
		name    string
		rec     *inquiry.Record
		clicked inquiry.Value
		state   map[string]any
		want    inquiry.Value
	}{
		{"confirm", confirm, inquiry.One("no"), map[string]any{"type": "radio_buttons", "selected_option": map[string]any{"value": "no"}}, inquiry.One("no")},
		{"select", many, inquiry.One("hold"), map[string]any{"type": "static_select", "selected_option": map[string]any{"value": "hold"}}, inquiry.One("hold")},
		{"checkboxes", multiple, inquiry.Many("merge", "hold"), map[string]any{"type": "checkboxes",
			"selected_options": []any{map[string]any{"value": "merge"}, map[string]any{"value": "hold"}}}, inquiry.Many("merge", "hold")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := blockkit.ReasonModal(tc.rec, tc.clicked)
			if err := blockkit.ValidateView(m); err != nil {
				t.Fatal(err)
			}
			action := blockkit.ActionChoice
			if tc.rec.Kind == inquiry.KindConfirm {
				action = blockkit.ActionYesNo
			}
			sub := viewSubmission(t, m, map[string]any{
				blockkit.BlockAnswer: map[string]any{action: tc.state},
				blockkit.BlockReason: map[string]any{blockkit.ActionReason: map[string]any{"type": "plain_text_input", "value": "the freeze & <ops>"}},
			})
			key, reply, err := blockkit.ReadSubmission(sub.View)
			if err != nil || key != tc.rec.Key || !reply.Value.Equal(tc.want) || reply.Text != "the freeze & <ops>" {
				t.Fatalf("ReadSubmission = %q, %+v, %v; want %v with the reason", key, reply, err, tc.want)
			}
			if _, err := inquiry.CheckAnswer(&tc.rec.Inquiry, reply); err != nil {
				t.Errorf("CheckAnswer: %v", err)
			}
		})
	}
}
