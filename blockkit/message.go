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
	blocks = append(blocks, proposalBlocks(rec, revQuestion, true)...)
	blocks = append(blocks, controls(rec, revQuestion)...)
	if page := browserLink(rec); page != "" {
		// The answer page behind the inquiry's link (the README's "Answer in a browser"), for whoever is not at a
		// desk with Slack's controls. A link button still sends a click: ActionOpenPage,
		// which is nobody's answer and is only acknowledged.
		blocks = append(blocks, slack.NewActionBlock(blockID(rec.Key, revQuestion, "web"),
			&slack.ButtonBlockElement{Type: slack.METButton, ActionID: ActionOpenPage, Text: plain("Answer in a browser"), URL: page}))
	}
	if ext := extendButton(rec); ext != nil {
		blocks = append(blocks, ext)
	}
	if b := approvalLine(rec).block(blockID(rec.Key, revQuestion, "tally")); b != nil {
		blocks = append(blocks, b)
	}
	var meta line
	metaLine(&meta, rec, now)
	meta.flush()
	whoLine(&meta, rec, replies)
	blocks = append(blocks, meta.block(blockID(rec.Key, revQuestion, "meta")))
	return notifyText(rec.Slack.Answerers, "Question: "+short(nonEmpty(in.Question, noQuestion), 300)), blocks
}

// notifyNames is how many people and groups the notification text of a message mentions: it is
// what phones notify with, and a question naming many answerers must not page them all in one
// line (the message itself says who may answer).
const notifyNames = 10

// notifyText is the notification text of a question message: the first notifyNames answerers
// that are Slack ids as mentions, "and 1,990 more" without mentions past them, then rest.
func notifyText(answerers []string, rest string) string {
	var b strings.Builder
	n := 0
	for _, id := range answerers {
		if !IsUserID(id) && !IsGroupID(id) {
			continue
		}
		if n < notifyNames {
			b.WriteString(Mention(id) + " ")
		}
		n++
	}
	if n > notifyNames {
		b.WriteString("and " + thousands(n-notifyNames) + " more · ")
	}
	return b.String() + rest
}

// thousands writes n with a comma between thousands: 1,990.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
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

// prose renders the asker's question and context, marked off from the bot's own lines: the
// question in sections of its own, the context under a "Context" label, both as literal text
// (plain_text: no formatting, mention or link of the asker's takes effect) split across as many
// sections as they need: nothing is cut.
func prose(key, rev string, in *inquiry.Inquiry) []slack.Block {
	var blocks []slack.Block
	for i, c := range chunkPlain(printed(nonEmpty(in.Question, noQuestion)), maxSectionText) {
		blocks = append(blocks, literalSection(blockID(key, rev, "q"+strconv.Itoa(i)), c))
	}
	if strings.TrimSpace(in.Context) != "" {
		blocks = append(blocks, slack.NewContextBlock(blockID(key, rev, "cl"), mrkdwn(contextLabel)))
		for i, c := range chunkPlain(printed(in.Context), maxSectionText) {
			blocks = append(blocks, literalSection(blockID(key, rev, "c"+strconv.Itoa(i)), c))
		}
	}
	return blocks
}

// contextLabel heads the asker's context.
const contextLabel = "*Context* given with the question:"

func section(id, text string) *slack.SectionBlock {
	return slack.NewSectionBlock(mrkdwn(text), nil, nil, slack.SectionBlockOptionBlockID(id))
}

// literalSection is a section of the asker's (or an answerer's) text, shown as it is.
func literalSection(id, text string) *slack.SectionBlock {
	return slack.NewSectionBlock(literal(text, "…"), nil, nil, slack.SectionBlockOptionBlockID(id))
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
			blocks = append(blocks, literalSection(blockID(key, rev, "desc"), clip(d, maxSectionText)))
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

// label is an option as its button or menu shows it, printed (inquiry.Printed).
func label(o inquiry.Option) string {
	return printed(nonEmpty(strings.TrimSpace(o.Label), nonEmpty(o.Value, "(no label)")))
}

func options(opts []inquiry.Option) []*slack.OptionBlockObject {
	out := make([]*slack.OptionBlockObject, len(opts))
	for i, o := range opts {
		var desc *slack.TextBlockObject
		if strings.TrimSpace(o.Description) != "" {
			desc = plain(clip(printed(o.Description), maxOptionDesc))
		}
		out[i] = slack.NewOptionBlockObject(o.Value, plain(clip(label(o), maxOptionText)), desc)
	}
	return out
}

// descriptions lists the options that have a description, one line each, as literal text.
func descriptions(opts []inquiry.Option) string {
	var lines []string
	for _, o := range opts {
		if d := strings.TrimSpace(o.Description); d != "" {
			lines = append(lines, "• "+label(o)+": "+printed(d))
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
// "Needs 2 approvals; one no stops it · 1 of 2 approvals: @ana". Empty for an inquiry that asks
// none of it.
func approvalLine(rec *inquiry.Record) *line {
	in := &rec.Inquiry
	l := &line{}
	sep := func() {
		if !l.empty() {
			l.ours(" · ")
		}
	}
	if n := rec.Quorum(); n > 1 {
		need := fmt.Sprintf("Needs %d people to choose the same answer", n)
		if in.Kind == inquiry.KindConfirm {
			need = fmt.Sprintf("Needs %d approvals; one no stops it", n)
			if !in.VetoOn() {
				need = fmt.Sprintf("Needs %d approvals, or %d noes", n, n)
			}
		}
		l.ours(need + " · ")
		if !tally(l, in, rec.Votes) {
			l.ours("no votes yet")
		}
	}
	switch in.Reason {
	case inquiry.ReasonOnNo:
		sep()
		l.ours("a no must say why")
	case inquiry.ReasonAlways:
		sep()
		l.ours("every answer must say why")
	}
	if len(in.RequestedBy) > 0 {
		sep()
		l.ours("asked for by ")
		names(l, in.RequestedBy)
		l.ours(", who may not answer")
	}
	return l
}

// tally adds the votes of an inquiry that needs several people to l, "1 of 2 approvals: <@U1>;
// 1 of 2 noes: <@U3>" (inquiry.Shares): voters as mentions or their names as text, labels as
// the asker's text. It reports whether anybody voted.
func tally(l *line, in *inquiry.Inquiry, votes []inquiry.Vote) bool {
	shares := inquiry.Shares(in, votes)
	for i, sh := range shares {
		if i > 0 {
			l.ours("; ")
		}
		if sh.Approval || in.Kind == inquiry.KindConfirm {
			l.ours(sh.Count(nil) + ": ")
		} else {
			l.ours(fmt.Sprintf("%d of %d for", len(sh.Voters), sh.Of))
			l.theirs("“"+inquiry.OneLine(sh.Label, maxOptionText)+"”", 0)
			l.ours(": ")
		}
		for j, v := range sh.Voters {
			if j > 0 {
				l.ours(", ")
			}
			l.who(v)
		}
	}
	return len(shares) > 0
}

// names adds people to l as a list read aloud, "<@U1>, <@U2> and <@U4>": Slack user ids as
// mentions, anything else (a token's name) as text of its own.
func names(l *line, ids []string) {
	for i, id := range ids {
		switch {
		case i == 0:
		case i == len(ids)-1:
			l.ours(" and ")
		default:
			l.ours(", ")
		}
		l.who(id)
	}
}

// confirmOption is the dialog behind a choice button: a slip of one click sends nothing.
func confirmOption(in *inquiry.Inquiry, o inquiry.Option) *slack.ConfirmationBlockObject {
	answer := label(o)
	if d := strings.TrimSpace(o.Description); d != "" {
		answer += " (" + printed(d) + ")"
	}
	text := "Your answer: " + answer + "\n\nQuestion: " + inquiry.OneLine(printed(nonEmpty(in.Question, noQuestion)), maxConfirmText)
	return slack.NewConfirmationBlockObject(plain("Send this answer?"), plain(clip(text, maxConfirmText)),
		plain("Send answer"), plain("Cancel"))
}

// metaLine adds to l which run asks, when the question expires and what is assumed then; the
// run id and the assumed answer are the asker's, quoted as text of their own.
func metaLine(l *line, rec *inquiry.Record, now time.Time) {
	in := &rec.Inquiry
	if rec.RunID != "" {
		l.theirs("run “"+inquiry.OneLine(rec.RunID, inquiry.MaxIDChars)+"”", 0)
		l.ours("· ")
	}
	assumed := func(lead string) {
		l.ours(lead)
		l.theirs("“"+inquiry.OneLine(inquiry.Assumed(in), 300)+"”", 0)
	}
	switch {
	case in.ExpiresAt == nil:
		l.ours("no expiry")
		if in.HasDefault() {
			assumed(" · default:")
		}
	case in.ExpiresAt.After(now):
		l.ours("expires " + inquiry.Until(in.ExpiresAt.Sub(now)) + " (" + when(*in.ExpiresAt, now) + ")")
		if rec.ExtendedBy > 0 {
			l.ours(" · extended by " + rec.ExtendedBy.String())
		}
		assumed(" · if nobody answers:")
	default:
		l.ours("expired " + when(*in.ExpiresAt, now))
		assumed(" · if nobody answers:")
	}
}

// whoLine adds to l who may answer, and that a reply in the thread answers too. Only ids that
// look like Slack ids become mentions; anything else an asker named is shown as text.
func whoLine(l *line, rec *inquiry.Record, replies bool) {
	tail := ". You can also answer by replying in this thread."
	if !replies {
		tail = "."
	}
	ids := inquiry.Answerers(rec) // widened by the escalation steps taken
	if len(ids) == 0 {
		l.ours("Anyone here may answer" + tail)
		return
	}
	var b strings.Builder
	b.WriteString("Who may answer: ")
	var others []string
	n := 0
	for i, id := range ids {
		if !IsUserID(id) && !IsGroupID(id) {
			others = append(others, id)
			continue
		}
		m := Mention(id)
		if b.Len()+len(m)+len(tail)+40 > maxText {
			fmt.Fprintf(&b, " and %d more", len(ids)-i)
			break
		}
		if n > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m)
		n++
	}
	if n == 0 {
		b.WriteString("nobody with a Slack id")
	}
	l.ours(b.String())
	if len(others) > 0 {
		l.ours(", and named but no Slack id:")
		l.theirs("“"+inquiry.OneLine(strings.Join(others, "”, “"), 500)+"”", 0)
	}
	l.ours(tail)
}

// Resolved renders the message after the inquiry left pending, for chat.update: the question
// and context kept, the controls gone, new block_ids, and what happened: the bot's line (who
// decided, when) and, under it as literal text, what was decided in the asker's or the
// answerer's words.
func Resolved(rec *inquiry.Record, now time.Time) (text string, blocks []slack.Block) {
	in := &rec.Inquiry
	blocks = append(blocks, prose(rec.Key, revResolved, in)...)
	blocks = append(blocks, proposalBlocks(rec, revResolved, false)...)
	o := outcome(rec, now)
	blocks = append(blocks, section(blockID(rec.Key, revResolved, "o0"), clip(o.head, maxSectionText)))
	for i, c := range chunkPlain(printed(o.words), maxSectionText) {
		blocks = append(blocks, literalSection(blockID(rec.Key, revResolved, "ow"+strconv.Itoa(i)), c))
	}
	blocks = append(blocks, editedBlocks(rec)...)
	if len(o.inTime) > 0 {
		// The votes given in time, beside what was assumed: not enough to decide.
		l := &line{}
		l.ours("Votes given in time: ")
		if tally(l, in, o.inTime) {
			blocks = append(blocks, l.block(blockID(rec.Key, revResolved, "votes")))
		}
	}
	blocks = append(blocks, reasons(rec.Key, in, o.reasons)...)
	meta := &line{}
	if rec.RunID != "" {
		meta.theirs("run “"+inquiry.OneLine(rec.RunID, inquiry.MaxIDChars)+"”", 0)
	}
	switch {
	case rec.ResolvedAt != nil:
		meta.ours("resolved " + when(*rec.ResolvedAt, now))
	case rec.Answer != nil && !rec.Answer.AnsweredAt.IsZero():
		meta.ours("resolved " + when(rec.Answer.AnsweredAt, now))
	}
	if b := meta.block(blockID(rec.Key, revResolved, "meta")); b != nil {
		blocks = append(blocks, b)
	}
	text = o.oneLine() + " — Question: " + short(nonEmpty(in.Question, noQuestion), 200)
	return text, blocks
}

// maxReasons is how many voters' reasons the resolved message shows, one context block each: a
// message holds at most 50 blocks.
const maxReasons = 20

// voteWords is how much of each vote's reason the resolved message shows beside who decided.
const voteWords = 500

// reasons are the reasons voters gave, one context block each: who, then what they chose and
// why in their own words.
func reasons(key string, in *inquiry.Inquiry, votes []inquiry.Vote) []slack.Block {
	var blocks []slack.Block
	for i, v := range votes {
		if i == maxReasons {
			blocks = append(blocks, slack.NewContextBlock(blockID(key, revResolved, "vmore"),
				mrkdwn(fmt.Sprintf("…and the reasons of %d more voters", len(votes)-i))))
			break
		}
		l := &line{}
		l.ours("• ")
		l.who(v.By)
		l.theirs("("+inquiry.OneLine(inquiry.RenderValue(in, v.Value), maxOptionText)+"): “"+inquiry.OneLine(v.Text, voteWords)+"”", 0)
		blocks = append(blocks, l.block(blockID(key, revResolved, "v"+strconv.Itoa(i))))
	}
	return blocks
}

// said is what an outcome says: head, the bot's own line (mrkdwn: what happened, who decided,
// when); words, what was decided or said in the asker's or the answerer's words (literal text);
// the reasons voters gave beside it; and, for an expiry, the votes given in time.
type said struct {
	head    string
	words   string
	reasons []inquiry.Vote
	inTime  []inquiry.Vote
}

// oneLine is the outcome as a notification text or a one-line summary: its words escaped and
// cut.
func (o said) oneLine() string {
	if strings.TrimSpace(o.words) == "" {
		return strings.TrimSuffix(o.head, ":")
	}
	return o.head + " " + short(o.words, 200)
}

// outcome is what happened to rec.
func outcome(rec *inquiry.Record, now time.Time) said {
	in, a := &rec.Inquiry, rec.Answer
	switch rec.Status {
	case inquiry.StatusAnswered:
		if a != nil && a.Source == inquiry.SourceDefault {
			return assumedByPolicy(in, a)
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
			return decidedBy(in, a)
		}
		if inquiry.IsDeclined(a) {
			if strings.TrimSpace(a.Text) != "" {
				return said{head: ":no_entry_sign: Declined" + by + ":", words: quote(a.Text)}
			}
			return said{head: ":no_entry_sign: Declined" + by}
		}
		if d := decision(in, a); d != "" {
			return said{head: ":white_check_mark: Answered" + by + ":", words: d}
		}
		return said{head: ":white_check_mark: Answered" + by}
	case inquiry.StatusExpired:
		if a == nil {
			d := inquiry.DefaultAnswerFor(in) // what expiry records
			a = &d
		}
		by := ""
		if in.ExpiresAt != nil {
			by = " by " + when(*in.ExpiresAt, now)
		}
		o := said{head: ":hourglass: Expired — nobody decided (no answer" + by + ")"}
		if d := decision(in, a); d != "" {
			o = said{head: ":hourglass: No answer" + by + " — assumed:", words: d}
		}
		if len(inquiry.Shares(in, a.Votes)) > 0 {
			o.inTime = a.Votes
		}
		return o
	case inquiry.StatusCancelled:
		return said{head: ":heavy_multiplication_x: Cancelled — the question was withdrawn"}
	case inquiry.StatusFailed:
		if rec.Failure != nil && strings.TrimSpace(rec.Failure.Message) != "" {
			return said{head: ":warning: Could not be asked:", words: rec.Failure.Message}
		}
		return said{head: ":warning: Could not be asked for an unknown reason"}
	}
	return said{head: ":hourglass_flowing_sand: Waiting for an answer"}
}

// decidedBy is the outcome of an answer that several people gave: who decided it (inquiry.Voters
// of the votes that chose it, in the order they voted) — "Approved by <@U1> and <@U2>", "Vetoed
// by <@U3>:" and the reason, "Chosen by <@U1>, <@U2> and <@U4>:" and the answer — and the reasons
// the other voters gave.
func decidedBy(in *inquiry.Inquiry, a *inquiry.Answer) said {
	v := a.Value.First()
	who := whoList(inquiry.Voters(a.Votes, v))
	var o said
	shown := ""
	switch {
	case inquiry.Vetoed(in, a):
		o.head = ":no_entry: Vetoed by " + Who(a.AnsweredBy)
		if strings.TrimSpace(a.Text) != "" {
			o.head += ":"
			o.words = quote(a.Text)
			shown = a.AnsweredBy
		}
	case in.Kind == inquiry.KindConfirm && v == "yes":
		o.head = ":white_check_mark: Approved by " + who
	case in.Kind == inquiry.KindConfirm:
		o.head = ":no_entry: Rejected by " + who
	default:
		o.head, o.words = ":white_check_mark: Chosen by "+who+":", inquiry.LabelOf(in, v)
	}
	for _, vote := range a.Votes {
		if strings.TrimSpace(vote.Text) != "" && vote.By != shown {
			o.reasons = append(o.reasons, vote)
		}
	}
	return o
}

// whoList renders people for mrkdwn as a list read aloud, "<@U1>, <@U2> and <@U4>" (Who).
func whoList(ids []string) string {
	who := make([]string, len(ids))
	for i, id := range ids {
		who[i] = Who(id)
	}
	if len(who) <= 1 {
		return strings.Join(who, "")
	}
	return strings.Join(who[:len(who)-1], ", ") + " and " + who[len(who)-1]
}

// assumedByPolicy is the outcome of an answer that policy default assumed: nobody was asked.
func assumedByPolicy(in *inquiry.Inquiry, a *inquiry.Answer) said {
	if d := decision(in, a); d != "" {
		return said{head: ":robot_face: Nobody was asked (policy default): assumed:", words: d}
	}
	return said{head: ":robot_face: Nobody was asked (policy default) and there is no default: declined"}
}

// decision is what an answer decided, as literal text: the option labels, the prose quoted; ""
// for a decline or no answer. The reading is inquiry's (DecisionOf).
func decision(in *inquiry.Inquiry, a *inquiry.Answer) string {
	d := inquiry.DecisionOf(in, a)
	if d.Declined || d.Empty() {
		return ""
	}
	var parts []string
	if len(d.Labels) > 0 {
		parts = append(parts, strings.TrimSpace(d.Chosen()))
	}
	if d.Words != "" {
		parts = append(parts, quote(d.Words))
	}
	s := strings.Join(parts, " — ")
	if d.Truncated {
		s += fmt.Sprintf(" (cut to %d characters)", inquiry.DefaultAnswerChars)
	}
	return s
}

// quote puts prose in quotation marks.
func quote(s string) string { return "“" + strings.TrimSpace(s) + "”" }

// Notice renders the message posted in an inquiry's thread when policy default assumed an
// answer and nobody was asked, so the assumption is recorded where people read.
func Notice(rec *inquiry.Record) (text string, blocks []slack.Block) {
	in := &rec.Inquiry
	a := rec.Answer
	if a == nil {
		d := inquiry.DefaultAnswerFor(in) // what policy default records
		a = &d
	}
	o := assumedByPolicy(in, a)
	text = o.oneLine() + " for “" + short(nonEmpty(in.Question, noQuestion), 200) + "”"
	blocks = append(blocks, section(blockID(rec.Key, revNotice, "0"), o.head))
	for i, c := range chunkPlain(printed(o.words), maxSectionText) {
		blocks = append(blocks, literalSection(blockID(rec.Key, revNotice, "w"+strconv.Itoa(i)), c))
	}
	q := &line{}
	q.ours("for the question")
	q.theirs("“"+inquiry.OneLine(nonEmpty(in.Question, noQuestion), 300)+"”", 0)
	if rec.RunID != "" {
		q.ours("· ")
		q.theirs("run “"+inquiry.OneLine(rec.RunID, inquiry.MaxIDChars)+"”", 0)
	}
	blocks = append(blocks, q.block(blockID(rec.Key, revNotice, "meta")))
	return text, blocks
}
