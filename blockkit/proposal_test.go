package blockkit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/proposaltest"
)

const answerPage = proposaltest.AnswerPage

// slackMarkup is Slack's own markup in a proposal's lines: a golden shows it printed as it is.
var slackMarkup = proposaltest.Markup{JSON: "*check*", Markdown: "run `migrate` <!here>"}

// proposalOf is content of the format with n lines, 50 of which fit in 3,000 characters: the
// limit of a message's proposal is then its 50 lines.
func proposalOf(format inquiry.ProposalFormat, n int) string {
	return proposaltest.Content(format, n, slackMarkup)
}

// withProposal is a pending confirm with the proposal and the answer page's link.
func withProposal(p *inquiry.Proposal) *inquiry.Record {
	return proposaltest.With(record(inquiry.KindConfirm), p)
}

// proposalCases are the golden messages of proposals: each format at the message's limit (50
// lines) and one past it, one line at 3,000 characters and one past it, without the answer
// page's link, editable within Slack's input and one past it, and resolved.
func proposalCases() []goldenCase {
	var cases []goldenCase
	for _, g := range proposaltest.Goldens(slackMarkup) {
		cases = append(cases, goldenCase{g.Name, func() *inquiry.Record {
			return withProposal(&inquiry.Proposal{Format: g.Format, Content: g.Content, Title: "Change for *build* 77 <!here>"})
		}})
	}
	oneLine := func(n int) string { return strings.Repeat("x", n) }
	cases = append(cases, []goldenCase{
		{"proposal_chars_3000", func() *inquiry.Record {
			return withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: oneLine(3000)})
		}},
		{"proposal_chars_3001", func() *inquiry.Record {
			return withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: oneLine(3001)})
		}},
		{"proposal_shortened_no_link", func() *inquiry.Record {
			rec := withProposal(&inquiry.Proposal{Format: inquiry.FormatDiff, Content: proposalOf(inquiry.FormatDiff, 51)})
			rec.Links = nil
			return rec
		}},
		{"proposal_editable_3000", func() *inquiry.Record {
			return withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: oneLine(3000), Editable: true})
		}},
		{"proposal_editable_3001", func() *inquiry.Record {
			return withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: oneLine(3001), Editable: true})
		}},
		{"proposal_editable_3001_no_link", func() *inquiry.Record {
			rec := withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: oneLine(3001), Editable: true})
			rec.Links = nil
			return rec
		}},
		// A four-eyes question names who may answer it: no link in the shared message, buttons
		// whose click gets the clicker a link of their own.
		{"proposal_personal_view_all", func() *inquiry.Record {
			rec := approval(withProposal(&inquiry.Proposal{Format: inquiry.FormatDiff, Content: proposalOf(inquiry.FormatDiff, 300)}), 2)
			rec.Slack.Answerers = []string{"U0ALICE01", "U0BOB0002"}
			rec.Links = &inquiry.Links{Answer: blockkit.PersonalLinks}
			return rec
		}},
		{"proposal_personal_edit_3001", func() *inquiry.Record {
			rec := withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: oneLine(3001), Editable: true})
			rec.Slack.Answerers = []string{"U0ALICE01", "U0BOB0002"}
			rec.Links = &inquiry.Links{Answer: blockkit.PersonalLinks}
			return rec
		}},
		{"proposal_editable_choice", func() *inquiry.Record {
			rec := choice(3, false)
			rec.Proposal = &inquiry.Proposal{Format: inquiry.FormatJSON, Content: `{"replicas": 3}`, Editable: true}
			return rec
		}},
		{"proposal_resolved", func() *inquiry.Record {
			rec := withProposal(&inquiry.Proposal{Format: inquiry.FormatDiff, Content: proposalOf(inquiry.FormatDiff, 51), Editable: true})
			return resolved(rec, inquiry.StatusAnswered, &inquiry.Answer{Value: inquiry.One("yes"), AnsweredBy: "U024BE7LH",
				Source: inquiry.SourcePerson, Content: "+ replicas: 4", Edited: true})
		}},
	}...)
	return cases
}

// shownProposal returns the preformatted text of the message and the mrkdwn of its
// "Shortened" section and any edit control's kind.
func shownProposal(t *testing.T, blocks []slack.Block) (pre, cut string, view *slack.ButtonBlockElement, edit slack.Block) {
	t.Helper()
	for _, b := range blocks {
		switch b := b.(type) {
		case *slack.RichTextBlock:
			p := b.Elements[0].(*slack.RichTextPreformatted)
			pre = p.Elements[0].(*slack.RichTextSectionTextElement).Text
		case *slack.SectionBlock:
			if strings.HasSuffix(b.BlockID, "-pcut") {
				cut = b.Text.Text
				if b.Accessory != nil {
					view = b.Accessory.ButtonElement
				}
			}
		}
		if strings.HasSuffix(blockIDOf(b), "-edit") {
			edit = b
		}
	}
	return pre, cut, view, edit
}

func blockIDOf(b slack.Block) string {
	raw, _ := json.Marshal(b)
	var v struct {
		BlockID string `json:"block_id"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.BlockID
}

// TestProposalNeverCutSilently: whole at the limit with no sentence; one line past it, the first
// 50 lines, a sentence naming how much is shown and a View all button to the answer page; one
// character past without a link, the sentence alone.
func TestProposalNeverCutSilently(t *testing.T) {
	t.Parallel()
	for _, tc := range proposaltest.Cuts(50, 3000) {
		rec := withProposal(&inquiry.Proposal{Format: inquiry.FormatDiff, Content: tc.Content})
		if !tc.Link {
			rec.Links = nil
		}
		_, blocks := blockkit.Message(rec, now)
		pre, cut, view, _ := shownProposal(t, blocks)
		if pre != tc.Shown {
			t.Errorf("%s: shown %d characters, want %d", tc.Name, len([]rune(pre)), len([]rune(tc.Shown)))
		}
		if cut != tc.Sentence {
			t.Errorf("%s: sentence %q, want %q", tc.Name, cut, tc.Sentence)
		}
		switch {
		case tc.ViewAll && (view == nil || view.URL != answerPage || view.Text.Text != "View all"):
			t.Errorf("%s: View all button %+v, want a link to %s", tc.Name, view, answerPage)
		case !tc.ViewAll && view != nil:
			t.Errorf("%s: a button %+v where nothing is left out or nothing links", tc.Name, view)
		}
	}
}

// TestProposalEdit: an editable proposal within 3,000 characters has "Edit and approve", whose
// modal is prefilled with the content byte for byte; one character past, the button is "Edit on
// the web" to the answer page and no modal opens.
func TestProposalEdit(t *testing.T) {
	t.Parallel()
	content := "{\n\t\"replicas\": 3, \"note\": \"<!here> *é* & `x`\"\n}" + strings.Repeat(" ", 3000-47)
	rec := withProposal(&inquiry.Proposal{Format: inquiry.FormatJSON, Content: content, Editable: true})
	mustValid(t, rec)
	_, blocks := blockkit.Message(rec, now)
	_, _, _, edit := shownProposal(t, blocks)
	act, ok := edit.(*slack.ActionBlock)
	if !ok || act.Elements.ElementSet[0].(*slack.ButtonBlockElement).ActionID != blockkit.ActionOpenEdit {
		t.Fatalf("edit control %#v, want an Edit and approve button", edit)
	}
	m, ok := blockkit.ModalFor(rec, blockkit.ActionOpenEdit)
	if !ok {
		t.Fatal("ModalFor(open_edit) opens nothing")
	}
	if err := blockkit.ValidateView(m); err != nil {
		t.Fatal(err)
	}
	var in *slack.PlainTextInputBlockElement
	for _, b := range m.Blocks.BlockSet {
		if ib, ok := b.(*slack.InputBlock); ok && ib.BlockID == blockkit.BlockContent {
			in = ib.Element.(*slack.PlainTextInputBlockElement)
		}
	}
	if in == nil || in.InitialValue != content || in.MaxLength != 3000 || !in.Multiline {
		t.Fatalf("edit input %+v, want the content prefilled in a multiline input of 3,000", in)
	}

	rec.Proposal.Content += "x"
	_, blocks = blockkit.Message(rec, now)
	_, _, _, edit = shownProposal(t, blocks)
	act, ok = edit.(*slack.ActionBlock)
	if !ok {
		t.Fatalf("past 3,000: edit control %#v, want a link button", edit)
	}
	if b := act.Elements.ElementSet[0].(*slack.ButtonBlockElement); b.URL != answerPage || b.Text.Text != "Edit on the web" {
		t.Errorf("past 3,000: button %q to %q, want Edit on the web to the answer page", b.Text.Text, b.URL)
	}
	if _, ok := blockkit.ModalFor(rec, blockkit.ActionOpenEdit); ok {
		t.Error("past 3,000: ModalFor(open_edit) opens a modal Slack would refuse")
	}
}

// TestReadEditSubmission: the edit modal's submission is a yes (or the choice) with the content
// as typed.
func TestReadEditSubmission(t *testing.T) {
	t.Parallel()
	edited := "line one\n\tline two <!here> *x*"
	view := slack.View{CallbackID: blockkit.CallbackEdit, PrivateMetadata: key, State: &slack.ViewState{
		Values: map[string]map[string]slack.BlockAction{blockkit.BlockContent: {blockkit.ActionContent: {Value: edited}}}}}
	k, reply, err := blockkit.ReadSubmission(view)
	if err != nil || k != key || reply.Value.First() != "yes" || reply.Content != edited {
		t.Fatalf("confirm: %q %+v %v, want yes with the content", k, reply, err)
	}
	view.State.Values[blockkit.BlockAnswer] = map[string]slack.BlockAction{blockkit.ActionChoice: {
		Type: slack.ActionType(slack.METRadioButtons), SelectedOption: slack.OptionBlockObject{Value: "hold"}}}
	_, reply, err = blockkit.ReadSubmission(view)
	if err != nil || reply.Value.First() != "hold" || reply.Content != edited {
		t.Fatalf("choice: %+v %v, want hold with the content", reply, err)
	}
	delete(view.State.Values, blockkit.BlockContent)
	if _, _, err := blockkit.ReadSubmission(view); err == nil {
		t.Error("a submission without the content block read as an answer")
	}
}

// TestValidateRichText: the validator holds a preformatted block to 3,000 characters and refuses
// an empty one, so a rendering past them fails before Slack sees it.
func TestValidateRichText(t *testing.T) {
	t.Parallel()
	block := func(text string) []byte {
		b, _ := json.Marshal(map[string]any{"blocks": []any{map[string]any{"type": "rich_text", "elements": []any{
			map[string]any{"type": "rich_text_preformatted", "elements": []any{map[string]any{"type": "text", "text": text}}}}}}})
		return b
	}
	if err := blockkit.ValidateJSON(block(strings.Repeat("x", 3000))); err != nil {
		t.Errorf("3,000 characters: %v", err)
	}
	if err := blockkit.ValidateJSON(block(strings.Repeat("x", 3001))); err == nil || !strings.Contains(err.Error(), "3001 characters") {
		t.Errorf("3,001 characters: %v, want refused", err)
	}
	empty, _ := json.Marshal(map[string]any{"blocks": []any{map[string]any{"type": "rich_text", "elements": []any{
		map[string]any{"type": "rich_text_preformatted", "elements": []any{}}}}}})
	if err := blockkit.ValidateJSON(empty); err == nil {
		t.Error("an empty preformatted passed")
	}
}

// TestEditModalHoldsLF: the modal holds a CRLF proposal with its lines ended by LF, as a text
// box does (inquiry's Proposal.Edit gives a submission the proposal's line endings back).
func TestEditModalHoldsLF(t *testing.T) {
	t.Parallel()
	rec := withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: "a = 1\r\nb = 2\r\n", Editable: true})
	m, ok := blockkit.ModalFor(rec, blockkit.ActionOpenEdit)
	if !ok {
		t.Fatal("ModalFor(open_edit) opens nothing")
	}
	held := false
	for _, b := range m.Blocks.BlockSet {
		if ib, ok := b.(*slack.InputBlock); ok && ib.BlockID == blockkit.BlockContent {
			held = true
			if v := ib.Element.(*slack.PlainTextInputBlockElement).InitialValue; v != "a = 1\nb = 2\n" {
				t.Errorf("the modal holds %q, want the proposal's lines ended by LF", v)
			}
		}
	}
	if !held {
		t.Error("the edit modal has no content input")
	}
}

// TestProposalPersonalButtons: where the message offers personal links, "View all" of a
// shortened proposal and "Edit on the web" of one past the modal are buttons without a URL —
// nothing in the shared message answers — whose action asks for the clicker's own link; a
// proposal shown whole and one the modal holds get none, and the resolved message none.
func TestProposalPersonalButtons(t *testing.T) {
	t.Parallel()
	personal := func(content string, editable bool) *inquiry.Record {
		rec := withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: content, Editable: editable})
		rec.Slack.Answerers = []string{"U0ALICE01", "U0BOB0002"}
		rec.Links = &inquiry.Links{Answer: blockkit.PersonalLinks}
		return rec
	}
	button := func(t *testing.T, b *slack.ButtonBlockElement, text, value string) {
		t.Helper()
		if b == nil || b.URL != "" || b.ActionID != blockkit.ActionPersonalPage || b.Value != value || b.Text.Text != text {
			t.Fatalf("button %+v, want %q without a URL, action %s, value %s", b, text, blockkit.ActionPersonalPage, value)
		}
		if blockkit.BaseAction(b.ActionID) != blockkit.ActionPersonalPage {
			t.Fatal("the personal button's action is not one of ours")
		}
	}

	_, blocks := blockkit.Message(personal(proposalOf(inquiry.FormatText, 51), false), now)
	_, cut, view, edit := shownProposal(t, blocks)
	if cut == "" {
		t.Fatal("51 lines shown with no sentence")
	}
	button(t, view, "View all", blockkit.PersonalView)
	if edit != nil {
		t.Errorf("an edit control %#v on a proposal that is not editable", edit)
	}

	_, blocks = blockkit.Message(personal(strings.Repeat("x", 3001), true), now)
	_, _, view, edit = shownProposal(t, blocks)
	button(t, view, "View all", blockkit.PersonalView)
	act, ok := edit.(*slack.ActionBlock)
	if !ok {
		t.Fatalf("past 3,000: edit control %#v, want a button", edit)
	}
	button(t, act.Elements.ElementSet[0].(*slack.ButtonBlockElement), "Edit on the web", blockkit.PersonalEdit)

	_, blocks = blockkit.Message(personal(strings.Repeat("x", 3000), true), now)
	_, cut, view, edit = shownProposal(t, blocks)
	if cut != "" || view != nil {
		t.Errorf("a proposal shown whole: sentence %q, button %+v", cut, view)
	}
	if act, ok := edit.(*slack.ActionBlock); !ok || act.Elements.ElementSet[0].(*slack.ButtonBlockElement).ActionID != blockkit.ActionOpenEdit {
		t.Errorf("within 3,000: edit control %#v, want Edit and approve", edit)
	}

	done := resolved(personal(proposalOf(inquiry.FormatText, 51), true), inquiry.StatusAnswered, &inquiry.Answer{Value: inquiry.One("yes"), AnsweredBy: "U024BE7LH", Source: inquiry.SourcePerson})
	_, blocks = blockkit.Resolved(done, now)
	raw, _ := json.Marshal(blocks)
	if strings.Contains(string(raw), blockkit.ActionPersonalPage) {
		t.Error("a resolved message offers a personal link, which answers nothing")
	}
}

// TestPersonalLinkModal: the App Home's modal of a personal link is a valid view that submits
// nothing and opens the link.
func TestPersonalLinkModal(t *testing.T) {
	t.Parallel()
	link := "https://bot.example.com/a/aW5xX2V4YW1wbGUAAAAGYZKL.1UgL15Y6kq1lK9V0rZLys6HdZXc"
	m := blockkit.PersonalLinkModal(record(inquiry.KindConfirm), "Here is a link of your own.", "Open the whole proposal", link)
	if err := blockkit.ValidateView(m); err != nil {
		t.Fatal(err)
	}
	if m.Submit != nil || m.CallbackID != blockkit.CallbackPersonalLink {
		t.Errorf("submit %+v, callback %q: want no submit, %q", m.Submit, m.CallbackID, blockkit.CallbackPersonalLink)
	}
	raw, _ := json.Marshal(m)
	if !strings.Contains(string(raw), `"url":"`+link+`"`) {
		t.Errorf("the modal does not open the link: %s", raw)
	}
}
