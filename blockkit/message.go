package blockkit

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/slack-go/slack"
)

// Message renders the question message of a pending inquiry: the question and its context, the
// controls for its kind, and a context line with the run, the expiry, the default and who may
// answer. text is the notification text: the answerers' mentions and the question, escaped.
func Message(rec *inquiry.Record, now time.Time) (text string, blocks []slack.Block) {
	in := &rec.Inquiry
	blocks = append(blocks, prose(rec.Key, revQuestion, in)...)
	blocks = append(blocks, controls(rec)...)
	blocks = append(blocks, slack.NewContextBlock(blockID(rec.Key, revQuestion, "meta"),
		mrkdwn(metaLine(rec, now)), mrkdwn(whoLine(rec))))

	var b strings.Builder
	for _, id := range rec.Slack.Answerers {
		if IsUserID(id) || IsGroupID(id) {
			b.WriteString(Mention(id) + " ")
		}
	}
	b.WriteString("Question: " + short(nonEmpty(in.Question, noQuestion), 300))
	return b.String(), blocks
}

const noQuestion = "(no question given)"

// prose renders the question and the context as verbatim mrkdwn sections, split across as many
// sections as the escaped text needs: nothing is cut.
func prose(key, rev string, in *inquiry.Inquiry) []slack.Block {
	var blocks []slack.Block
	for i, c := range chunk(Escape(nonEmpty(in.Question, noQuestion)), maxSectionText, maxSectionText) {
		blocks = append(blocks, section(blockID(key, rev, "q"+strconv.Itoa(i)), c))
	}
	if strings.TrimSpace(in.Context) != "" {
		for i, c := range chunk("*Context*\n"+Escape(in.Context), maxSectionText, maxSectionText) {
			blocks = append(blocks, section(blockID(key, rev, "c"+strconv.Itoa(i)), c))
		}
	}
	return blocks
}

func section(id, text string) *slack.SectionBlock {
	return slack.NewSectionBlock(mrkdwn(text), nil, nil, slack.SectionBlockOptionBlockID(id))
}

// controls renders what a person answers with, by kind.
func controls(rec *inquiry.Record) []slack.Block {
	in, key := &rec.Inquiry, rec.Key
	actions := func(elems ...slack.BlockElement) *slack.ActionBlock {
		return slack.NewActionBlock(blockID(key, revQuestion, "act"), elems...)
	}
	var ownWords []slack.BlockElement
	if in.AllowText {
		ownWords = append(ownWords, slack.NewButtonBlockElement(ActionOwnWords, key, plain("Answer in my own words")))
	}
	switch in.Kind {
	case inquiry.KindText:
		return []slack.Block{actions(slack.NewButtonBlockElement(ActionOpenText, key, plain("Write an answer")).
			WithStyle(slack.StylePrimary))}
	case inquiry.KindConfirm:
		return []slack.Block{actions(slack.NewButtonBlockElement(ActionOpenConfirm, key, plain("Answer yes or no")).
			WithStyle(slack.StylePrimary))}
	case inquiry.KindChoice:
	default:
		return nil
	}

	opts := in.Options
	if len(opts) > maxSelectOptions {
		opts = opts[:maxSelectOptions] // not a valid inquiry; render what Slack can show
	}
	var blocks []slack.Block
	switch {
	case len(opts) == 0:
		if len(ownWords) > 0 {
			blocks = append(blocks, actions(ownWords...))
		}
	case !in.Multiple && len(opts) <= maxButtons:
		// Buttons show no description, so the descriptions get a section of their own.
		if d := descriptions(opts); d != "" {
			blocks = append(blocks, section(blockID(key, revQuestion, "desc"), d))
		}
		elems := make([]slack.BlockElement, 0, len(opts)+1)
		for i, o := range opts {
			elems = append(elems, slack.NewButtonBlockElement(chooseAction(i), o.Value,
				plain(clip(label(o), maxButtonText))).WithConfirm(confirmOption(in, o)))
		}
		blocks = append(blocks, actions(append(elems, ownWords...)...))
	case !in.Multiple:
		sel := slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, plain("Choose an answer"),
			ActionSelect, options(opts)...)
		sel.Confirm = slack.NewConfirmationBlockObject(plain("Send this answer?"),
			plain("Your choice goes straight back to whoever asked, and it cannot be changed afterwards."),
			plain("Send answer"), plain("Cancel"))
		blocks = append(blocks, actions(append([]slack.BlockElement{sel}, ownWords...)...))
	default:
		// An input block: ticking sends nothing, the Submit button reads the ticks from the
		// message state.
		var pick slack.BlockElement
		if len(opts) <= maxCheckboxes {
			pick = slack.NewCheckboxGroupsBlockElement(ActionPick, options(opts)...)
		} else {
			pick = slack.NewOptionsMultiSelectBlockElement(slack.MultiOptTypeStatic,
				plain("Choose any that apply"), ActionPick, options(opts)...)
		}
		blocks = append(blocks,
			slack.NewInputBlock(blockID(key, revQuestion, "pick"), plain("Choose any that apply, then Submit"), nil, pick),
			actions(append([]slack.BlockElement{
				slack.NewButtonBlockElement(ActionSubmit, key, plain("Submit")).WithStyle(slack.StylePrimary),
			}, ownWords...)...))
	}
	return blocks
}

func label(o inquiry.Option) string {
	return nonEmpty(strings.TrimSpace(o.Label), nonEmpty(o.Value, "(no label)"))
}

func options(opts []inquiry.Option) []*slack.OptionBlockObject {
	out := make([]*slack.OptionBlockObject, len(opts))
	for i, o := range opts {
		var desc *slack.TextBlockObject
		if strings.TrimSpace(o.Description) != "" {
			desc = plain(clip(o.Description, maxOptionDesc))
		}
		out[i] = slack.NewOptionBlockObject(o.Value, plain(clip(label(o), maxOptionText)), desc)
	}
	return out
}

// descriptions lists the options that have a description, one line each.
func descriptions(opts []inquiry.Option) string {
	var lines []string
	for _, o := range opts {
		if d := strings.TrimSpace(o.Description); d != "" {
			lines = append(lines, "• *"+Escape(label(o))+"*: "+Escape(d))
		}
	}
	return strings.Join(lines, "\n")
}

// confirmOption is the dialog behind a choice button: a slip of one click sends nothing.
func confirmOption(in *inquiry.Inquiry, o inquiry.Option) *slack.ConfirmationBlockObject {
	answer := label(o)
	if d := strings.TrimSpace(o.Description); d != "" {
		answer += " (" + d + ")"
	}
	text := "Your answer: " + answer + "\n\nQuestion: " + inquiry.OneLine(nonEmpty(in.Question, noQuestion), maxConfirmText)
	return slack.NewConfirmationBlockObject(plain("Send this answer?"), plain(clip(text, maxConfirmText)),
		plain("Send answer"), plain("Cancel"))
}

// metaLine says which run asks, when the question expires and what is assumed then.
func metaLine(rec *inquiry.Record, now time.Time) string {
	in := &rec.Inquiry
	var parts []string
	if rec.RunID != "" {
		parts = append(parts, "run "+Escape(rec.RunID))
	}
	assumed := "declined (no default)"
	if in.HasDefault() {
		assumed = Escape(inquiry.RenderValue(in, in.Default))
	}
	switch {
	case in.ExpiresAt == nil:
		parts = append(parts, "no expiry")
		if in.HasDefault() {
			parts = append(parts, "default: "+assumed)
		}
	case in.ExpiresAt.After(now):
		parts = append(parts, "expires "+until(in.ExpiresAt.Sub(now))+" ("+when(*in.ExpiresAt, now)+")",
			"if nobody answers: "+assumed)
	default:
		parts = append(parts, "expired "+when(*in.ExpiresAt, now), "if nobody answers: "+assumed)
	}
	return clip(strings.Join(parts, " · "), maxText)
}

// whoLine says who may answer, and that a reply in the thread answers too. Only ids that look
// like Slack ids become mentions.
func whoLine(rec *inquiry.Record) string {
	const tail = ". You can also answer by replying in this thread."
	ids := rec.Slack.Answerers
	if len(ids) == 0 {
		return "Anyone here may answer" + tail
	}
	var b strings.Builder
	b.WriteString("Who may answer: ")
	for i, id := range ids {
		m := Mention(id)
		if b.Len()+len(m)+len(tail)+40 > maxText {
			fmt.Fprintf(&b, " and %d more", len(ids)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m)
	}
	b.WriteString(tail)
	return b.String()
}

// Resolved renders the message after the inquiry left pending, for chat.update: the question
// and context kept, the controls gone, new block_ids, and one line that says what happened.
func Resolved(rec *inquiry.Record, now time.Time) (text string, blocks []slack.Block) {
	in := &rec.Inquiry
	blocks = append(blocks, prose(rec.Key, revResolved, in)...)
	for i, c := range chunk(outcome(rec, now, true), maxSectionText, maxSectionText) {
		blocks = append(blocks, section(blockID(rec.Key, revResolved, "o"+strconv.Itoa(i)), c))
	}
	var meta []string
	if rec.RunID != "" {
		meta = append(meta, "run "+Escape(rec.RunID))
	}
	switch {
	case rec.ResolvedAt != nil:
		meta = append(meta, "resolved "+when(*rec.ResolvedAt, now))
	case rec.Answer != nil && !rec.Answer.AnsweredAt.IsZero():
		meta = append(meta, "resolved "+when(rec.Answer.AnsweredAt, now))
	}
	if len(meta) > 0 {
		blocks = append(blocks, slack.NewContextBlock(blockID(rec.Key, revResolved, "meta"),
			mrkdwn(clip(strings.Join(meta, " · "), maxText))))
	}
	text = outcome(rec, now, false) + " — Question: " + short(nonEmpty(in.Question, noQuestion), 200)
	return text, blocks
}

// outcome is the line that says what happened. full keeps a prose answer whole (the message);
// otherwise it is cut to a one-liner (the notification text).
func outcome(rec *inquiry.Record, now time.Time, full bool) string {
	in, a := &rec.Inquiry, rec.Answer
	switch rec.Status {
	case inquiry.StatusAnswered:
		if a != nil && a.Source == inquiry.SourceDefault {
			return assumedByPolicy(in, a, full)
		}
		by := ""
		if a != nil && a.AnsweredBy != "" {
			by = " by " + Who(a.AnsweredBy)
		}
		if a != nil && a.Source == inquiry.SourceCaller {
			// Handed back through a run's resume: the caller's word, and the message says so.
			by = " by the run's caller" + strings.TrimPrefix(by, " by")
		}
		if inquiry.IsDeclined(a) {
			line := ":no_entry_sign: Declined" + by
			if a.Text != "" {
				line += ": " + quote(a.Text, full)
			}
			return line
		}
		if d := decision(in, a, full); d != "" {
			return ":white_check_mark: Answered" + by + ": " + d
		}
		return ":white_check_mark: Answered" + by
	case inquiry.StatusExpired:
		if a == nil {
			d := inquiry.DefaultAnswerFor(in) // what expiry records
			a = &d
		}
		by := ""
		if in.ExpiresAt != nil {
			by = " by " + when(*in.ExpiresAt, now)
		}
		if d := decision(in, a, full); d != "" {
			return ":hourglass: No answer" + by + " — assumed " + d
		}
		return ":hourglass: Expired — nobody decided (no answer" + by + ")"
	case inquiry.StatusCancelled:
		return ":heavy_multiplication_x: Cancelled — the question was withdrawn"
	case inquiry.StatusFailed:
		why := "for an unknown reason"
		if rec.Failure != nil && strings.TrimSpace(rec.Failure.Message) != "" {
			why = Escape(rec.Failure.Message)
			if !full {
				why = short(rec.Failure.Message, 300)
			}
		}
		return ":warning: Could not be asked: " + why
	}
	return ":hourglass_flowing_sand: Waiting for an answer"
}

// assumedByPolicy is the line for an answer that policy default assumed: nobody was asked.
func assumedByPolicy(in *inquiry.Inquiry, a *inquiry.Answer, full bool) string {
	if d := decision(in, a, full); d != "" {
		return ":robot_face: Nobody was asked (policy default): assumed " + d
	}
	return ":robot_face: Nobody was asked (policy default) and there is no default: declined"
}

// decision renders what an answer decided: the option labels in bold, the prose quoted, both
// escaped; "" for a decline or no answer. The reading is inquiry's (AnsweredWith, RenderValue).
func decision(in *inquiry.Inquiry, a *inquiry.Answer, full bool) string {
	d := inquiry.DecisionOf(in, a)
	if d.Declined || d.Empty() {
		return ""
	}
	var parts []string
	if len(d.Labels) > 0 {
		labels := strings.TrimSpace(d.Chosen())
		if full {
			parts = append(parts, "*"+Escape(labels)+"*")
		} else {
			parts = append(parts, "*"+short(labels, 300)+"*")
		}
	}
	if d.Words != "" {
		parts = append(parts, quote(d.Words, full))
	}
	s := strings.Join(parts, " — ")
	if d.Truncated {
		s += fmt.Sprintf(" _(cut to %d characters)_", inquiry.DefaultAnswerChars)
	}
	return s
}

// quote puts prose in quotation marks, whole or cut to one line.
func quote(s string, full bool) string {
	if !full {
		return "“" + short(s, 200) + "”"
	}
	return "“" + Escape(strings.TrimSpace(s)) + "”"
}

// Notice renders the message posted in an inquiry's thread when policy default assumed an
// answer and nobody was asked, so the assumption is recorded where people read.
func Notice(rec *inquiry.Record) (text string, blocks []slack.Block) {
	in := &rec.Inquiry
	a := rec.Answer
	if a == nil {
		d := inquiry.DefaultAnswerFor(in) // what policy default records
		a = &d
	}
	text = assumedByPolicy(in, a, false) + " for “" + short(nonEmpty(in.Question, noQuestion), 200) + "”"
	for i, c := range chunk(text, maxSectionText, maxSectionText) {
		blocks = append(blocks, section(blockID(rec.Key, revNotice, strconv.Itoa(i)), c))
	}
	if rec.RunID != "" {
		blocks = append(blocks, slack.NewContextBlock(blockID(rec.Key, revNotice, "meta"),
			mrkdwn(clip("run "+Escape(rec.RunID), maxText))))
	}
	return text, blocks
}
