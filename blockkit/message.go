package blockkit

import (
	"fmt"
	"slices"
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
	return message(rec, now, true)
}

// message is Message; replies says whether a reply in the message's thread answers (not in an
// escalation's channel, whose threads the bot does not follow).
func message(rec *inquiry.Record, now time.Time, replies bool) (text string, blocks []slack.Block) {
	in := &rec.Inquiry
	blocks = append(blocks, prose(rec.Key, revQuestion, in)...)
	blocks = append(blocks, controls(rec, revQuestion)...)
	if page := browserLink(rec); page != "" {
		// The answer page behind the inquiry's link (DESIGN §15), for whoever is not at a
		// desk with Slack's controls. A link button still sends a click: ActionOpenPage,
		// which is nobody's answer and is only acknowledged.
		blocks = append(blocks, slack.NewActionBlock(blockID(rec.Key, revQuestion, "web"),
			&slack.ButtonBlockElement{Type: slack.METButton, ActionID: ActionOpenPage, Text: plain("Answer in a browser"), URL: page}))
	}
	if ext := extendButton(rec); ext != nil {
		blocks = append(blocks, ext)
	}
	if line := approvalLine(rec); line != "" {
		blocks = append(blocks, slack.NewContextBlock(blockID(rec.Key, revQuestion, "tally"), mrkdwn(line)))
	}
	blocks = append(blocks, slack.NewContextBlock(blockID(rec.Key, revQuestion, "meta"),
		mrkdwn(metaLine(rec, now)), mrkdwn(whoLine(rec, replies))))

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

// browserLink is the answer page a message offers: the record's answer link when it is an
// absolute http(s) URL that fits a button (inquiry.Service.BrowserLink decides whether a
// message offers one at all).
func browserLink(rec *inquiry.Record) string {
	if rec.Links == nil || len(rec.Links.Answer) > maxURL {
		return ""
	}
	if u := rec.Links.Answer; strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return u
	}
	return ""
}

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

// controls renders what a person answers with, by kind, with the block_ids of revision rev (the
// question message, or the Home tab: the action_ids are the same, so a click answers the same
// way wherever it happened).
func controls(rec *inquiry.Record, rev string) []slack.Block {
	in, key := &rec.Inquiry, rec.Key
	actions := func(elems ...slack.BlockElement) *slack.ActionBlock {
		return slack.NewActionBlock(blockID(key, rev, "act"), elems...)
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
		if rec.Quorum() > 1 {
			// A team approval: each vote is one click on Yes or No, and a note needs the modal.
			elems := answerButtons(in, inquiry.ConfirmOptions)
			if in.AllowText {
				elems = append(elems, slack.NewButtonBlockElement(ActionOpenConfirm, key, plain("Answer with a note")))
			}
			return []slack.Block{actions(elems...)}
		}
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
			blocks = append(blocks, section(blockID(key, rev, "desc"), d))
		}
		blocks = append(blocks, actions(append(answerButtons(in, opts), ownWords...)...))
	case !in.Multiple:
		sel := slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, plain("Choose an answer"),
			ActionSelect, options(opts)...)
		if !slices.ContainsFunc(opts, func(o inquiry.Option) bool { return inquiry.NeedsReason(in, o.Value, false) }) {
			// An answer that must say why opens the reason modal instead, which confirms it.
			sel.Confirm = slack.NewConfirmationBlockObject(plain("Send this answer?"),
				plain(sendNote(rec)), plain("Send answer"), plain("Cancel"))
		}
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
			slack.NewInputBlock(blockID(key, rev, "pick"), plain("Choose any that apply, then Submit"), nil, pick),
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

// answerButtons are one button per answer, each with a confirmation dialog (a slip of one click
// sends nothing) — except an answer that must say why, whose click opens the reason modal.
func answerButtons(in *inquiry.Inquiry, opts []inquiry.Option) []slack.BlockElement {
	elems := make([]slack.BlockElement, 0, len(opts)+1)
	for i, o := range opts {
		b := slack.NewButtonBlockElement(chooseAction(i), o.Value, plain(clip(label(o), maxButtonText)))
		if !inquiry.NeedsReason(in, o.Value, false) {
			b = b.WithConfirm(confirmOption(in, o))
		}
		elems = append(elems, b)
	}
	return elems
}

// sendNote is the text of the select's confirmation: a vote of several may still change.
func sendNote(rec *inquiry.Record) string {
	if rec.Quorum() > 1 {
		return "Your vote counts towards the answer; you may change it until the question is decided."
	}
	return "Your choice goes straight back to whoever asked, and it cannot be changed afterwards."
}

// approvalLine says what a team approval needs and, once people voted, the tally as it grows:
// "Needs 2 approvals; one no stops it · 1 of 2 approvals: @ana". "" for an inquiry that asks
// none of it.
func approvalLine(rec *inquiry.Record) string {
	in := &rec.Inquiry
	var parts []string
	if n := rec.Quorum(); n > 1 {
		need := fmt.Sprintf("Needs %d people to choose the same answer", n)
		if in.Kind == inquiry.KindConfirm {
			need = fmt.Sprintf("Needs %d approvals; one no stops it", n)
			if !in.VetoOn() {
				need = fmt.Sprintf("Needs %d approvals, or %d noes", n, n)
			}
		}
		parts = append(parts, need)
		if t := Tally(in, rec.Votes); t != "" {
			parts = append(parts, t)
		} else {
			parts = append(parts, "no votes yet")
		}
	}
	switch in.Reason {
	case inquiry.ReasonOnNo:
		parts = append(parts, "a no must say why")
	case inquiry.ReasonAlways:
		parts = append(parts, "every answer must say why")
	}
	if len(in.RequestedBy) > 0 {
		parts = append(parts, "asked for by "+Names(in.RequestedBy)+", who may not answer")
	}
	return clip(strings.Join(parts, " · "), maxText)
}

// Tally renders the votes of an inquiry that needs several people for mrkdwn, "1 of 2
// approvals: <@U1>; 1 of 2 noes: <@U3>" (inquiry.Shares): voters as mentions or escaped names,
// labels escaped. "" when nobody voted.
func Tally(in *inquiry.Inquiry, votes []inquiry.Vote) string {
	var parts []string
	for _, sh := range inquiry.Shares(in, votes) {
		who := make([]string, len(sh.Voters))
		for i, v := range sh.Voters {
			who[i] = Who(v)
		}
		parts = append(parts, sh.Count(escapeLabel)+": "+strings.Join(who, ", "))
	}
	return strings.Join(parts, "; ")
}

func escapeLabel(s string) string { return short(s, maxOptionText) }

// Names renders people for mrkdwn as a list read aloud, "<@U1>, <@U2> and <@U4>": Slack user ids
// as mentions, anything else (a token's name) as escaped text (Who).
func Names(ids []string) string {
	who := make([]string, len(ids))
	for i, id := range ids {
		who[i] = Who(id)
	}
	if len(who) <= 1 {
		return strings.Join(who, "")
	}
	return strings.Join(who[:len(who)-1], ", ") + " and " + who[len(who)-1]
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
	assumed := Escape(inquiry.Assumed(in))
	switch {
	case in.ExpiresAt == nil:
		parts = append(parts, "no expiry")
		if in.HasDefault() {
			parts = append(parts, "default: "+assumed)
		}
	case in.ExpiresAt.After(now):
		parts = append(parts, "expires "+inquiry.Until(in.ExpiresAt.Sub(now))+" ("+when(*in.ExpiresAt, now)+")",
			"if nobody answers: "+assumed)
		if rec.ExtendedBy > 0 {
			parts = append(parts, "extended by "+rec.ExtendedBy.String())
		}
	default:
		parts = append(parts, "expired "+when(*in.ExpiresAt, now), "if nobody answers: "+assumed)
	}
	return clip(strings.Join(parts, " · "), maxText)
}

// whoLine says who may answer, and that a reply in the thread answers too. Only ids that look
// like Slack ids become mentions.
func whoLine(rec *inquiry.Record, replies bool) string {
	tail := ". You can also answer by replying in this thread."
	if !replies {
		tail = "."
	}
	ids := inquiry.Answerers(rec) // widened by the escalation steps taken
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
		if a != nil && a.Source == inquiry.SourcePerson && in.Quorum() > 1 && len(a.Votes) > 0 && !a.Declined {
			return decidedBy(in, a, full)
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
		line := ":hourglass: Expired — nobody decided (no answer" + by + ")"
		if d := decision(in, a, full); d != "" {
			line = ":hourglass: No answer" + by + " — assumed " + d
		}
		if t := Tally(in, a.Votes); t != "" && full {
			// The votes given in time, beside what was assumed: not enough to decide.
			line += "\nVotes given in time: " + t
		}
		return line
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

// voteWords is how much of each vote's reason the resolved message shows beside who decided.
const voteWords = 500

// decidedBy is the line of an answer that several people gave: who decided it (inquiry.Voters of
// the votes that chose it, in the order they voted) — "Approved by <@U1> and <@U2>", "Vetoed by
// <@U3>: “reason”", "*Merge* — chosen by <@U1>, <@U2> and <@U4>" — and, in full, the reasons the
// voters gave, one line each.
func decidedBy(in *inquiry.Inquiry, a *inquiry.Answer, full bool) string {
	v := a.Value.First()
	who := Names(inquiry.Voters(a.Votes, v))
	var line string
	shown := ""
	switch {
	case inquiry.Vetoed(in, a):
		line = ":no_entry: Vetoed by " + Who(a.AnsweredBy)
		if strings.TrimSpace(a.Text) != "" {
			line += ": " + quote(a.Text, full)
			shown = a.AnsweredBy
		}
	case in.Kind == inquiry.KindConfirm && v == "yes":
		line = ":white_check_mark: Approved by " + who
	case in.Kind == inquiry.KindConfirm:
		line = ":no_entry: Rejected by " + who
	default:
		l := inquiry.LabelOf(in, v)
		if full {
			l = Escape(l)
		} else {
			l = short(l, 300)
		}
		line = ":white_check_mark: *" + l + "* — chosen by " + who
	}
	if !full {
		return line
	}
	for _, vote := range a.Votes {
		if t := strings.TrimSpace(vote.Text); t != "" && vote.By != shown {
			line += "\n• " + Who(vote.By) + " (" + short(inquiry.RenderValue(in, vote.Value), maxOptionText) + "): “" + short(t, voteWords) + "”"
		}
	}
	return line
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
