package slackapp

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// The sentences people get in Slack: the one mapping of inquiry errors to what a person reads
// there. Ephemerals are mrkdwn, so every piece of user text goes through blockkit.Escape and
// every id through blockkit.Mention; modal errors are plain text.

const (
	sayGone          = "this question no longer exists: whoever asked it has removed it."
	sayTryAgain      = "your answer could not be recorded just now: please try again in a moment."
	sayTryAgainPlain = "Your answer could not be recorded just now: please try again in a moment."
	sayLostForm      = "This form lost its question: close it and answer in the question's thread instead."
	sayNobody        = "this answer names no Slack user, so it was not taken." // never sent: there is nobody to send it to
	// sayRequester refuses whoever requested_by names (inquiry.RefusedRequester, CodeForbidden).
	sayRequester = "You asked for this approval: someone else must give it."
)

// sayVoted confirms a vote to whoever gave it, on an inquiry that needs several people: the
// tally of their answer so far ("Your vote is in: 1 of 2 approvals so far."), that they changed
// it, or that it decided the question. before is the inquiry as it stood before the vote, after
// as the vote left it. "" for an inquiry that one answer decides: its message says it all.
func sayVoted(before, after *inquiry.Record, user string) string {
	if after == nil || after.Quorum() <= 1 {
		return ""
	}
	in := &after.Inquiry
	if after.Status != inquiry.StatusPending {
		return "Your vote is in, and it decided the question: " + decision(in, after.Answer) + "."
	}
	mine, ok := voteOf(after.Votes, user)
	if !ok {
		return ""
	}
	if mine.Declined {
		return "Your vote is in: you declined, which counts towards no answer."
	}
	v := mine.Value.First()
	share := inquiry.ShareOf(in, after.Votes, v)
	count := share.Count(blockkit.Escape) + " so far."
	label := blockkit.Escape(inquiry.LabelOf(in, v))
	if old, had := voteOf(before.Votes, user); had && (old.Declined || old.Value.First() != v) {
		return "You changed your vote to " + label + ": " + count
	}
	if share.Approval {
		return "Your vote is in: " + count
	}
	return "Your vote for " + label + " is in: " + count
}

// voteOf finds who's vote among votes.
func voteOf(votes []inquiry.Vote, who string) (inquiry.Vote, bool) {
	for _, v := range votes {
		if v.By == who {
			return v, true
		}
	}
	return inquiry.Vote{}, false
}

// sayNoReason is for a thread reply that must say why and does not: the service's sentence, and
// how a reply gives a reason.
func sayNoReason(rec *inquiry.Record, err error) string {
	example := "no: the tests fail"
	if opts := inquiry.Offered(&rec.Inquiry); rec.Kind == inquiry.KindChoice && len(opts) > 0 {
		example = inquiry.OneLine(opts[0].Label, 40) + ": because …"
	}
	return blockkit.Escape(inquiry.ErrorMessage(err)) + ". In this thread, reply with the answer and your reason, like “" +
		blockkit.Escape(example) + "”."
}

// plainMessage is an error's sentence for a modal's input block: plain text, one line.
func plainMessage(err error) string { return inquiry.OneLine(inquiry.ErrorMessage(err), 300) }

// sayForbidden is the service's refusal of an answer (CodeForbidden) in Slack: four eyes in
// Slack's own words, any other refusal as the service says it.
func sayForbidden(err error) string {
	if inquiry.RefusalOf(err) == inquiry.RefusedRequester {
		return sayRequester
	}
	if e, ok := errors.AsType[*inquiry.Error](err); ok {
		return blockkit.Escape(e.Message)
	}
	return sayTryAgain
}

// sayNotAnswerer refuses a person outside the answerers, naming who may answer.
func sayNotAnswerer(ids, unchecked []string) string {
	who := make([]string, len(ids))
	for i, id := range ids {
		who[i] = blockkit.Mention(id)
	}
	s := "only " + strings.Join(who, ", ") + " may answer this question; nothing was recorded."
	if len(unchecked) > 0 {
		groups := make([]string, len(unchecked))
		for i, id := range unchecked {
			groups[i] = blockkit.Mention(id)
		}
		s += " (The members of " + strings.Join(groups, ", ") + " could not be checked just now; if you are one, try again in a minute.)"
	}
	return s
}

// sayResolved tells a late or second answerer what became of the question.
func sayResolved(rec *inquiry.Record, now time.Time) string {
	in, a := &rec.Inquiry, rec.Answer
	switch rec.Status {
	case inquiry.StatusAnswered:
		if a != nil && a.Source == inquiry.SourceDefault {
			return "already answered by policy, without asking anybody: " + decision(in, a) + "."
		}
		by := "someone"
		if a != nil && a.AnsweredBy != "" {
			by = blockkit.Mention(a.AnsweredBy)
		}
		if a != nil && a.Source == inquiry.SourceCaller {
			by = "the run's caller " + by // handed back through resume, not a person's click
		}
		return "already answered by " + by + ": " + decision(in, a)
	case inquiry.StatusExpired:
		at := ""
		if in.ExpiresAt != nil {
			at = " at " + slackTime(*in.ExpiresAt)
		}
		if a == nil {
			d := inquiry.DefaultAnswerFor(in)
			a = &d
		}
		if inquiry.IsDeclined(a) {
			return "this question expired" + at + "; nobody decided, and it had no default."
		}
		return "this question expired" + at + "; the run assumed " + decision(in, a) + "."
	case inquiry.StatusCancelled:
		return "this question was withdrawn by whoever asked it; nothing was recorded."
	case inquiry.StatusFailed:
		why := "Slack could not show it"
		if rec.Failure != nil && rec.Failure.Message != "" {
			why = blockkit.Escape(rec.Failure.Message)
		}
		return "this question could not be asked: " + why
	}
	return "this question is " + string(rec.Status) + "."
}

// decision renders what an answer decided: option labels, prose quoted, escaped.
func decision(in *inquiry.Inquiry, a *inquiry.Answer) string {
	d := inquiry.DecisionOf(in, a)
	var parts []string
	switch {
	case d.Declined:
		parts = append(parts, "declined")
	case len(d.Labels) > 0:
		parts = append(parts, blockkit.Escape(d.Chosen()))
	}
	if d.Words != "" {
		parts = append(parts, "“"+blockkit.Escape(inquiry.OneLine(d.Words, 200))+"”")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " — ")
}

// sayInvalid tells a person why their reply was not taken.
func sayInvalid(rec *inquiry.Record, reply inquiry.Reply, err error) string {
	in := &rec.Inquiry
	switch {
	case in.Kind == inquiry.KindText:
		return "write your answer in words, then send it."
	case reply.Value.IsList() && reply.Value.Len() == 0:
		return "tick at least one answer, then press Submit."
	case len(inquiry.Offered(in)) > 0 && (inquiry.ErrorField(err) == "text" || inquiry.ErrorField(err) == "value"):
		how := "Reply in the thread with exactly one of them, or use the buttons."
		if in.AllowText {
			how = "Reply with exactly one of them, or answer in your own words."
		}
		return "that is none of the offered answers: " + offeredList(in) + ". " + how
	}
	return "that answer could not be taken: " + blockkit.Escape(inquiry.ErrorMessage(err))
}

// questionLink quotes a question, escaped and shortened, linked to its message when its
// permalink is known.
func questionLink(rec *inquiry.Record) string {
	q := "“" + blockkit.Escape(inquiry.OneLine(rec.Question, 120)) + "”"
	if rec.Slack.Permalink != "" {
		q = "<" + rec.Slack.Permalink + "|" + q + ">"
	}
	return q
}

// sayAnsweredOneOf tells a person which question of a thread their reply answered, when others
// (at least that many, when more) still wait there.
func sayAnsweredOneOf(rec *inquiry.Record, others int, more bool) string {
	s := "your reply answered " + questionLink(rec) + ". "
	switch {
	case others == 1 && !more:
		return s + "The other question in this thread still waits: a reply here answers the newest one you may answer, or use the buttons under it."
	case more:
		s += fmt.Sprintf("At least %d other questions in this thread still wait", others)
	default:
		s += fmt.Sprintf("The %d other questions in this thread still wait", others)
	}
	return s + ": a reply here answers the newest one you may answer, or use the buttons under each."
}

// sayReadFor names the question a reply was judged against, when its thread holds several.
func sayReadFor(rec *inquiry.Record) string {
	return "(Your reply was read as an answer to " + questionLink(rec) + ", the newest question in this thread you may answer.)"
}

// plainInvalid is sayInvalid for a modal's input block: plain text, no mrkdwn.
func plainInvalid(rec *inquiry.Record, reply inquiry.Reply, err error) string {
	in := &rec.Inquiry
	switch {
	case in.Kind == inquiry.KindText:
		return "Write your answer, or close this form."
	case in.Kind == inquiry.KindConfirm && reply.Value.IsZero():
		return "Choose Yes or No."
	case inquiry.ErrorField(err) == "text" && in.Kind == inquiry.KindConfirm:
		return "This question takes no note beside Yes or No: clear the note."
	}
	return inquiry.OneLine(inquiry.ErrorMessage(err), 300)
}

// sayNoModal is for a modal Slack would not open (the trigger_id lives three seconds).
func sayNoModal(rec *inquiry.Record) string {
	s := "the form could not be opened just now: click the button again"
	if rec != nil && rec.Slack.ThreadTS == "" {
		s += ", or reply in the question's thread"
	}
	return s + "."
}

// offeredList lists the offered answers by label, escaped.
func offeredList(in *inquiry.Inquiry) string {
	opts := inquiry.Offered(in)
	labels := make([]string, len(opts))
	for i, o := range opts {
		labels[i] = blockkit.Escape(o.Label)
	}
	return strings.Join(labels, ", ")
}

// slackTime renders t as a Slack date token, shown in each reader's time zone, with a UTC
// fallback.
func slackTime(t time.Time) string {
	return fmt.Sprintf("<!date^%d^{date_short_pretty} at {time}|%s>", t.Unix(), t.UTC().Format("2006-01-02 15:04 UTC"))
}
