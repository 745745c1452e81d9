package blockkit

import (
	"fmt"
	"strings"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/slack-go/slack"
)

// Bounds of a proposal in a message. Slack's reference gives no limit for a preformatted rich
// text element, so the preformatted block keeps within the 3,000 characters of any text object;
// and it shows at most maxProposalLines lines, so a long diff does not bury the buttons.
const (
	maxProposalChars = maxText
	maxProposalLines = 50
	// maxEditChars is what the edit modal takes: a plain_text_input's initial_value and
	// max_length stop at 3,000 characters. A longer proposal is edited on the answer page.
	maxEditChars = maxInputLength
)

// Personal links: where a question names who may answer it, the shared message carries no link
// to its answer page (inquiry.Service.BrowserLink), since whoever holds one answers through it.
// A record whose Links.Answer is PersonalLinks (set for rendering by the Slack app, where
// inquiry.Service.OffersPersonalLinks) shows "View all" and "Edit on the web" as buttons without
// a URL (ActionPersonalPage), whose click gets the clicker alone a link of their own.
const (
	// PersonalLinks marks a record, as rendered, whose people each get a link of their own.
	PersonalLinks = "personal-links:"
	// PersonalView and PersonalEdit are ActionPersonalPage's values: what the link is for.
	PersonalView = "view"
	PersonalEdit = "edit"
)

// personalLinks reports whether rec's message offers personal links (PersonalLinks).
func personalLinks(rec *inquiry.Record) bool {
	return rec.Links != nil && rec.Links.Answer == PersonalLinks
}

// PersonalLinkModal gives one person their own link from the App Home, where an ephemeral would
// land in a channel they are not looking at: the question, sentence (the bot's mrkdwn) and a
// link button labelled label. It has no inputs and submits nothing.
func PersonalLinkModal(rec *inquiry.Record, sentence, label, link string) slack.ModalViewRequest {
	m := modal(rec, CallbackPersonalLink, "Your own link")
	m.Submit, m.Close = nil, plain("Close")
	sec := section(blockID(rec.Key, revView, "plink"), sentence)
	sec.Accessory = slack.NewAccessory(&slack.ButtonBlockElement{Type: slack.METButton,
		ActionID: ActionOpenPage, Text: plain(label), URL: link, Style: slack.StylePrimary})
	m.Blocks.BlockSet = append(m.Blocks.BlockSet, sec)
	return m
}

// CanEditInSlack reports whether the edit modal can hold the proposal of in: an editable
// proposal within a plain_text_input's 3,000 characters, its lines ended by LF as the modal
// holds them.
func CanEditInSlack(in *inquiry.Inquiry) bool {
	p := in.Proposal
	return p != nil && p.Editable && runes(inquiry.NormalizeNewlines(p.Content)) <= maxEditChars
}

// proposalBlocks renders the proposal of rec, if any: a label naming its format and its title
// (the asker's, literal), its first lines in a preformatted rich text block, whose text elements
// Slack shows as they are (no formatting, mention or link of the asker's takes effect), a
// sentence with a "View all" link to the answer page wherever it is shortened, and for an
// editable proposal the way to edit it. With controls false (the resolved message) the edit is
// left out.
func proposalBlocks(rec *inquiry.Record, rev string, controls bool) []slack.Block {
	p := rec.Proposal
	if p == nil {
		return nil
	}
	key := rec.Key
	format := p.FormatOrText()
	head := &line{}
	head.ours("*Proposal* (" + string(format) + ")")
	if strings.TrimSpace(p.Title) != "" {
		head.ours(":")
		head.theirs("“"+inquiry.OneLine(p.Title, inquiry.MaxProposalTitleChars)+"”", 0)
	}
	blocks := []slack.Block{head.block(blockID(key, rev, "pl"))}
	page := browserLink(rec)
	personal := controls && personalLinks(rec)
	blocks = append(blocks, preformatted(key, rev, "p", p.Content, page, personal)...)
	if !controls || !p.Editable {
		return blocks
	}
	switch {
	case CanEditInSlack(&rec.Inquiry):
		blocks = append(blocks, slack.NewActionBlock(blockID(key, rev, "edit"),
			slack.NewButtonBlockElement(ActionOpenEdit, key, plain("Edit and approve"))))
	case page != "":
		blocks = append(blocks, slack.NewActionBlock(blockID(key, rev, "edit"),
			&slack.ButtonBlockElement{Type: slack.METButton, ActionID: ActionOpenPage, Text: plain("Edit on the web"), URL: page}))
	case personal:
		blocks = append(blocks, slack.NewActionBlock(blockID(key, rev, "edit"),
			slack.NewButtonBlockElement(ActionPersonalPage, PersonalEdit, plain("Edit on the web"))))
	default:
		blocks = append(blocks, slack.NewContextBlock(blockID(key, rev, "edit"), mrkdwn(fmt.Sprintf(
			"This proposal has %s characters, more than Slack's editor takes (%s): approve or reject it here as it is.",
			thousands(runes(inquiry.NormalizeNewlines(p.Content))), thousands(maxEditChars)))))
	}
	return blocks
}

// preformatted shows content's first lines in a preformatted rich text block with block_id part
// part, and wherever it is shortened a sentence saying how much is shown, with a "View all"
// button to page when there is one, or else, with personal, one whose click gets the clicker a
// link of their own.
func preformatted(key, rev, part, content, page string, personal bool) []slack.Block {
	sh := inquiry.ExcerptOf(content, maxProposalLines, maxProposalChars)
	text := sh.Text
	if strings.TrimSpace(text) == "" {
		text = "(blank)" // Slack refuses an empty text
	}
	blocks := []slack.Block{slack.NewRichTextBlock(blockID(key, rev, part),
		&slack.RichTextPreformatted{Type: slack.RTEPreformatted, Elements: []slack.RichTextSectionElement{
			slack.NewRichTextSectionTextElement(text, nil),
		}})}
	if s := sh.Sentence(); s != "" {
		sec := section(blockID(key, rev, part+"cut"), s)
		switch {
		case page != "":
			sec.Accessory = slack.NewAccessory(&slack.ButtonBlockElement{Type: slack.METButton,
				ActionID: ActionOpenPage, Text: plain("View all"), URL: page})
		case personal:
			sec.Accessory = slack.NewAccessory(slack.NewButtonBlockElement(ActionPersonalPage, PersonalView, plain("View all")))
		}
		blocks = append(blocks, sec)
	}
	return blocks
}

// editedBlocks show the version a person approved when they edited the proposal: the proposal
// stays above it, so both read side by side.
func editedBlocks(rec *inquiry.Record) []slack.Block {
	a := rec.Answer
	if rec.Proposal == nil || a == nil || !a.Edited || a.Content == "" {
		return nil
	}
	blocks := []slack.Block{slack.NewContextBlock(blockID(rec.Key, revResolved, "el"),
		mrkdwn("*Approved with an edit*; whoever asked gets this version:"))}
	return append(blocks, preformatted(rec.Key, revResolved, "e", a.Content, browserLink(rec), false)...)
}

// EditModal is the modal behind "Edit and approve" of an editable proposal: the question, for a
// choice the answer to approve with, and the proposal in a multi-line input, prefilled, which
// the person edits. Its submission approves (a confirm's yes, or the choice) with the content as
// edited; the service records whether it differs from the proposal.
func EditModal(rec *inquiry.Record) slack.ModalViewRequest {
	in := &rec.Inquiry
	var inputs []slack.Block
	if in.Kind == inquiry.KindChoice {
		opts := inquiry.Offered(in)
		if len(opts) > maxSelectOptions {
			opts = opts[:maxSelectOptions]
		}
		var el slack.BlockElement
		switch {
		case in.Multiple && len(opts) <= maxCheckboxes:
			el = slack.NewCheckboxGroupsBlockElement(ActionChoice, options(opts)...)
		case in.Multiple:
			el = slack.NewOptionsMultiSelectBlockElement(slack.MultiOptTypeStatic, plain("Choose any that apply"), ActionChoice, options(opts)...)
		case len(opts) <= maxRadioButtons:
			el = slack.NewRadioButtonsBlockElement(ActionChoice, options(opts)...)
		default:
			el = slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, plain("Choose an answer"), ActionChoice, options(opts)...)
		}
		inputs = append(inputs, slack.NewInputBlock(BlockAnswer, plain("Your answer"), nil, el))
	}
	content := ""
	if in.Proposal != nil {
		// Lines ended by LF, as a text box holds them; Proposal.Edit restores the proposal's.
		content = inquiry.NormalizeNewlines(in.Proposal.Content)
	}
	el := slack.NewPlainTextInputBlockElement(nil, ActionContent).WithMultiline(true).WithMaxLength(maxEditChars)
	el.InitialValue = content
	inputs = append(inputs, slack.NewInputBlock(BlockContent, plain("The proposal, as you approve it"),
		plain(fmt.Sprintf("Whoever asked gets your version; the proposal is kept beside it. Up to %s characters.", thousands(maxEditChars))), el))
	m := modal(rec, CallbackEdit, "Edit and approve", inputs...)
	m.Submit = plain("Approve")
	return m
}

// readEdit reads the submission of EditModal: the content as edited (as Slack sent it: the
// caller, who has the proposal, gives it its line endings with Proposal.Edit), approved with a
// confirm's yes, or with the choice when the modal asked for one.
func readEdit(view slack.View, key string) (inquiry.Reply, error) {
	content, found := view.State.Values[BlockContent][ActionContent]
	if !found {
		return inquiry.Reply{}, fmt.Errorf("read view submission: %s for %s has no %s block in its state", view.CallbackID, key, BlockContent)
	}
	reply := inquiry.Reply{Value: inquiry.One("yes"), Content: content.Value}
	if a, ok := view.State.Values[BlockAnswer][ActionChoice]; ok {
		switch {
		case a.Type == slack.ActionType(slack.METCheckboxGroups) || a.Type == slack.ActionType(slack.MultiOptTypeStatic):
			vals := make([]string, 0, len(a.SelectedOptions))
			for _, o := range a.SelectedOptions {
				vals = append(vals, o.Value)
			}
			reply.Value = inquiry.Many(vals...)
		default:
			reply.Value = inquiry.One(a.SelectedOption.Value)
		}
	}
	return reply, nil
}
