package blockkit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/slack-go/slack"
)

// modal is the frame every inquiry modal shares: the key in private_metadata, the question and
// context on top.
func modal(rec *inquiry.Record, callbackID, title string, inputs ...slack.Block) slack.ModalViewRequest {
	blocks := prose(rec.Key, revView, &rec.Inquiry)
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      callbackID,
		PrivateMetadata: rec.Key,
		Title:           plain(title),
		Submit:          plain("Send answer"),
		Close:           plain("Cancel"),
		Blocks:          slack.Blocks{BlockSet: append(blocks, inputs...)},
	}
}

// answerInput is a required multi-line text input capped at the one answer ceiling.
func answerInput(label, hint string) *slack.InputBlock {
	el := slack.NewPlainTextInputBlockElement(plain("Your answer"), ActionAnswerText).
		WithMultiline(true).WithMaxLength(inquiry.DefaultAnswerChars)
	return slack.NewInputBlock(BlockAnswer, plain(label), plain(hint), el)
}

// ceiling is the hint under every prose input.
var ceiling = fmt.Sprintf("Up to %d characters.", inquiry.DefaultAnswerChars)

// TextModal is the modal behind the button of a Text inquiry: the question, and a multi-line
// input capped at inquiry.DefaultAnswerChars.
func TextModal(rec *inquiry.Record) slack.ModalViewRequest {
	return modal(rec, CallbackText, "Answer the question", answerInput("Your answer", ceiling))
}

// OwnWordsModal is the modal behind "Answer in my own words" of a Choice with allow_text: the
// question, the offered answers for reference, and a multi-line input. Words that are exactly an
// offered answer choose it (inquiry.Chosen).
func OwnWordsModal(rec *inquiry.Record) slack.ModalViewRequest {
	var extra []slack.Block
	if offered := inquiry.Offered(&rec.Inquiry); len(offered) > 0 {
		labels := make([]string, len(offered))
		for i, o := range offered {
			labels[i] = "• " + inquiry.OneLine(label(o), maxOptionText)
		}
		extra = append(extra, slack.NewContextBlock(blockID(rec.Key, revView, "offeredl"), mrkdwn("*Offered answers:*")))
		for i, c := range chunkPlain(strings.Join(labels, "\n"), maxSectionText) {
			extra = append(extra, literalSection(blockID(rec.Key, revView, fmt.Sprintf("offered%d", i)), c))
		}
	}
	extra = append(extra, answerInput("Your answer, in your own words",
		"Writing one of the offered answers exactly chooses it. "+ceiling))
	return modal(rec, CallbackOwnWords, "Answer in your own words", extra...)
}

// ConfirmModal is the modal behind the button of a Confirm inquiry: the question and context, a
// required Yes/No, and with allow_text an optional note capped at inquiry.DefaultAnswerChars.
func ConfirmModal(rec *inquiry.Record) slack.ModalViewRequest {
	in := &rec.Inquiry
	yesNo := slack.NewRadioButtonsBlockElement(ActionYesNo, options(inquiry.ConfirmOptions)...)
	var hint *slack.TextBlockObject
	if in.HasDefault() {
		hint = plain(clip("If nobody answers: "+printed(inquiry.RenderValue(in, in.Default)), maxInputHint))
	}
	inputs := []slack.Block{slack.NewInputBlock(BlockAnswer, plain("Your answer"), hint, yesNo)}
	switch {
	case in.Reason == inquiry.ReasonAlways:
		inputs = append(inputs, reasonInput(ceiling))
	case in.Reason == inquiry.ReasonOnNo:
		// Which answer the person picks is known only on submission: the service's sentence
		// shows on this block when a No comes without its reason.
		inputs = append(inputs, reasonInput("Required with a No. "+ceiling).WithOptional(true))
	case in.AllowText:
		note := slack.NewPlainTextInputBlockElement(plain("Anything the asker should know"), ActionNote).
			WithMultiline(true).WithMaxLength(inquiry.DefaultAnswerChars)
		inputs = append(inputs, slack.NewInputBlock(BlockNote, plain("Note"), plain(ceiling), note).WithOptional(true))
	}
	return modal(rec, CallbackConfirm, "Yes or no?", inputs...)
}

// reasonInput is the multi-line reason of an answer, capped at the one answer ceiling; required
// unless made optional.
func reasonInput(hint string) *slack.InputBlock {
	el := slack.NewPlainTextInputBlockElement(plain("Why you answer so"), ActionReason).
		WithMultiline(true).WithMaxLength(inquiry.DefaultAnswerChars)
	return slack.NewInputBlock(BlockReason, plain("Your reason"), plain(hint), el)
}

// ReasonModal is what a click on an answer that must say why opens instead of the plain
// confirmation dialog (inquiry.NeedsReason): the question, the answer clicked, preselected and
// still changeable, and a required multi-line reason capped at inquiry.DefaultAnswerChars. Its
// submission answers with the reason as the answer's text.
func ReasonModal(rec *inquiry.Record, clicked inquiry.Value) slack.ModalViewRequest {
	in := &rec.Inquiry
	opts := inquiry.Offered(in)
	if len(opts) > maxSelectOptions {
		opts = opts[:maxSelectOptions] // not a valid inquiry; render what Slack can show
	}
	var initial []*slack.OptionBlockObject
	for _, o := range options(opts) {
		if slices.Contains(clicked.Strings(), o.Value) {
			initial = append(initial, o)
		}
	}
	var el slack.BlockElement
	switch {
	case in.Kind == inquiry.KindConfirm:
		r := slack.NewRadioButtonsBlockElement(ActionYesNo, options(opts)...)
		if len(initial) > 0 {
			r.InitialOption = initial[0]
		}
		el = r
	case in.Multiple && len(opts) <= maxCheckboxes:
		c := slack.NewCheckboxGroupsBlockElement(ActionChoice, options(opts)...)
		c.InitialOptions = initial
		el = c
	case in.Multiple:
		m := slack.NewOptionsMultiSelectBlockElement(slack.MultiOptTypeStatic, plain("Choose any that apply"), ActionChoice, options(opts)...)
		m.InitialOptions = initial
		el = m
	case len(opts) <= maxRadioButtons:
		r := slack.NewRadioButtonsBlockElement(ActionChoice, options(opts)...)
		if len(initial) > 0 {
			r.InitialOption = initial[0]
		}
		el = r
	default:
		sel := slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, plain("Choose an answer"), ActionChoice, options(opts)...)
		if len(initial) > 0 {
			sel.InitialOption = initial[0]
		}
		el = sel
	}
	return modal(rec, CallbackReason, "Say why",
		slack.NewInputBlock(BlockAnswer, plain("Your answer"), nil, el),
		reasonInput("Whoever asked reads it with your answer. "+ceiling))
}
