package blockkit

import (
	"fmt"
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
			labels[i] = Escape(label(o))
		}
		for i, c := range chunk("*Offered answers:* "+strings.Join(labels, " · "), maxSectionText, maxSectionText) {
			extra = append(extra, section(blockID(rec.Key, revView, fmt.Sprintf("offered%d", i)), c))
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
		hint = plain(clip("If nobody answers: "+inquiry.RenderValue(in, in.Default), maxInputHint))
	}
	inputs := []slack.Block{slack.NewInputBlock(BlockAnswer, plain("Your answer"), hint, yesNo)}
	if in.AllowText {
		note := slack.NewPlainTextInputBlockElement(plain("Anything the asker should know"), ActionNote).
			WithMultiline(true).WithMaxLength(inquiry.DefaultAnswerChars)
		inputs = append(inputs, slack.NewInputBlock(BlockNote, plain("Note"), plain(ceiling), note).WithOptional(true))
	}
	return modal(rec, CallbackConfirm, "Yes or no?", inputs...)
}
