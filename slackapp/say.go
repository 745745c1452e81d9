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
// there. An ephemeral is a saying (saying.go): the bot's words in mrkdwn, with ids as mentions
// (blockkit.Mention), and every piece of text of the asker's or of a person's quoted in a
// plain_text object of its own, never in mrkdwn; modal errors are plain text.

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
// as the vote left it. Nothing for an inquiry that one answer decides: its message says it all.
func sayVoted(before, after *inquiry.Record, user string) saying {
	var s saying
	if after == nil || after.Quorum() <= 1 {
		return s
	}
	in := &after.Inquiry
	if after.Status != inquiry.StatusPending {
		s.ours("Your vote is in, and it decided the question: ")
		decision(&s, in, after.Answer)
		s.ours(".")
		return s
	}
	mine, ok := voteOf(after.Votes, user)
	if !ok {
		return s
	}
	if mine.Declined {
		return say("Your vote is in: you declined, which counts towards no answer.")
	}
	v := mine.Value.First()
	share := inquiry.ShareOf(in, after.Votes, v)
	count := fmt.Sprintf("%d of %d so far.", len(share.Voters), share.Of) // the label is said just before
	if share.Approval || in.Kind == inquiry.KindConfirm {
		count = share.Count(nil) + " so far." // approvals, noes: the bot's words
	}
	label := "“" + inquiry.OneLine(inquiry.LabelOf(in, v), 200) + "”"
	if old, had := voteOf(before.Votes, user); had && (old.Declined || old.Value.First() != v) {
		s.ours("You changed your vote to ")
		s.theirs(label)
		s.ours(": " + count)
		return s
	}
	if share.Approval {
		return say("Your vote is in: " + count)
	}
	s.ours("Your vote for ")
	s.theirs(label)
	s.ours(" is in: " + count)
	return s
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
func sayNoReason(rec *inquiry.Record, err error) saying {
	example := "no: the tests fail"
	if opts := inquiry.Offered(&rec.Inquiry); rec.Kind == inquiry.KindChoice && len(opts) > 0 {
		example = inquiry.OneLine(opts[0].Label, 40) + ": because …"
	}
	s := quoted(inquiry.ErrorMessage(err))
	s.ours(". In this thread, reply with the answer and your reason, like ")
	s.theirs("“" + example + "”")
	s.ours(".")
	return s
}

// plainMessage is an error's sentence for a modal's input block: plain text, one line.
func plainMessage(err error) string { return inquiry.OneLine(inquiry.ErrorMessage(err), 300) }

// sayForbidden is the service's refusal of an answer (CodeForbidden) in Slack: four eyes in
// Slack's own words, any other refusal as the service says it (quoted: it may name a label or a
// person).
func sayForbidden(err error) saying {
	if inquiry.RefusalOf(err) == inquiry.RefusedRequester {
		return say(sayRequester)
	}
	if e, ok := errors.AsType[*inquiry.Error](err); ok {
		return quoted(e.Message)
	}
	return say(sayTryAgain)
}

// sayNotAnswerer refuses a person outside the answerers, naming who may answer: Slack ids as
// mentions, then any name that is no Slack id, quoted.
func sayNotAnswerer(ids, unchecked []string) saying {
	var s saying
	s.ours("only ")
	var others []string
	n := 0
	for _, id := range ids {
		if !blockkit.IsUserID(id) && !blockkit.IsGroupID(id) {
			others = append(others, inquiry.OneLine(id, 100))
			continue
		}
		if n > 0 {
			s.ours(", ")
		}
		s.ours(blockkit.Mention(id))
		n++
	}
	if len(others) > 0 {
		if n > 0 {
			s.ours(", ")
		}
		s.theirs("“" + strings.Join(others, "”, “") + "”")
	}
	s.ours(" may answer this question; nothing was recorded.")
	if len(unchecked) > 0 {
		groups := make([]string, len(unchecked))
		for i, id := range unchecked {
			groups[i] = blockkit.Mention(id) // Permission.Unchecked holds group ids only
		}
		s.ours(" (The members of " + strings.Join(groups, ", ") + " could not be checked just now; if you are one, try again in a minute.)")
	}
	return s
}

// sayResolved tells a late or second answerer what became of the question.
func sayResolved(rec *inquiry.Record, now time.Time) saying {
	in, a := &rec.Inquiry, rec.Answer
	var s saying
	switch rec.Status {
	case inquiry.StatusAnswered:
		if a != nil && a.Source == inquiry.SourceDefault {
			s.ours("already answered by policy, without asking anybody: ")
			decision(&s, in, a)
			s.ours(".")
			return s
		}
		s.ours("already answered by ")
		if a != nil && a.Source == inquiry.SourceCaller {
			s.ours("the run's caller ") // handed back through resume, not a person's click
		}
		if a != nil && a.AnsweredBy != "" {
			s.who(a.AnsweredBy)
		} else {
			s.ours("someone")
		}
		s.ours(": ")
		decision(&s, in, a)
		return s
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
			return say("this question expired" + at + "; nobody decided, and it had no default.")
		}
		s.ours("this question expired" + at + "; the run assumed ")
		decision(&s, in, a)
		s.ours(".")
		return s
	case inquiry.StatusCancelled:
		return say("this question was withdrawn by whoever asked it; nothing was recorded.")
	case inquiry.StatusFailed:
		s.ours("this question could not be asked: ")
		if rec.Failure != nil && rec.Failure.Message != "" {
			s.theirs(rec.Failure.Message)
		} else {
			s.ours("Slack could not show it")
		}
		return s
	}
	return say("this question is " + string(rec.Status) + ".")
}

// decision adds what an answer decided to s: the bot's "declined", the option labels and the
// prose (quoted) as the asker and whoever answered wrote them.
func decision(s *saying, in *inquiry.Inquiry, a *inquiry.Answer) {
	d := inquiry.DecisionOf(in, a)
	said := false
	switch {
	case d.Declined:
		s.ours("declined")
		said = true
	case len(d.Labels) > 0:
		s.theirs(d.Chosen())
		said = true
	}
	if d.Words != "" {
		if said {
			s.ours(" — ")
		}
		s.theirs("“" + inquiry.OneLine(d.Words, 200) + "”")
		said = true
	}
	if !said {
		s.ours("nothing")
	}
}

// sayInvalid tells a person why their reply was not taken.
func sayInvalid(rec *inquiry.Record, reply inquiry.Reply, err error) saying {
	in := &rec.Inquiry
	switch {
	case in.Kind == inquiry.KindText:
		return say("write your answer in words, then send it.")
	case reply.Value.IsList() && reply.Value.Len() == 0:
		return say("tick at least one answer, then press Submit.")
	case len(inquiry.Offered(in)) > 0 && (inquiry.ErrorField(err) == "text" || inquiry.ErrorField(err) == "value"):
		how := "Reply in the thread with exactly one of them, or use the buttons."
		if in.Multiple {
			how = "Reply in the thread with one or more of them, separated by commas, or use the buttons."
		}
		if in.AllowText {
			how = "Reply with exactly one of them, or answer in your own words."
			if in.Multiple {
				how = "Reply with one or more of them, separated by commas, or answer in your own words."
			}
		}
		s := say("that is none of the offered answers: ")
		s.theirs(offeredList(in))
		s.ours(". " + how)
		return s
	}
	s := say("that answer could not be taken: ")
	s.theirs(inquiry.ErrorMessage(err))
	return s
}

// questionLink adds a question to s, quoted and shortened, with a link to its message (where it
// is whole) when its permalink is known.
func questionLink(s *saying, rec *inquiry.Record) {
	s.theirs("“" + inquiry.OneLine(rec.Question, 120) + "”")
	if rec.Slack.Permalink != "" {
		s.ours(" (<" + rec.Slack.Permalink + "|view>)")
	}
}

// sayAnsweredOneOf tells a person which question of a thread their reply answered, when others
// (at least that many, when more) still wait there.
func sayAnsweredOneOf(rec *inquiry.Record, others int, more bool) saying {
	s := say("your reply answered ")
	questionLink(&s, rec)
	s.ours(". ")
	switch {
	case others == 1 && !more:
		s.ours("The other question in this thread still waits: a reply here answers the newest one you may answer, or use the buttons under it.")
		return s
	case more:
		s.ours(fmt.Sprintf("At least %d other questions in this thread still wait", others))
	default:
		s.ours(fmt.Sprintf("The %d other questions in this thread still wait", others))
	}
	s.ours(": a reply here answers the newest one you may answer, or use the buttons under each.")
	return s
}

// sayReadFor names the question a reply was judged against, when its thread holds several.
func sayReadFor(rec *inquiry.Record) saying {
	s := say("(Your reply was read as an answer to ")
	questionLink(&s, rec)
	s.ours(", the newest question in this thread you may answer.)")
	return s
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
func sayNoModal(rec *inquiry.Record) saying {
	s := "the form could not be opened just now: click the button again"
	if rec != nil && rec.Slack.ThreadTS == "" {
		s += ", or reply in the question's thread"
	}
	return say(s + ".")
}

// offeredList lists the offered answers by label, each in quotation marks so that a label
// holding a comma reads as one: quoted text of a saying.
func offeredList(in *inquiry.Inquiry) string {
	opts := inquiry.Offered(in)
	labels := make([]string, len(opts))
	for i, o := range opts {
		labels[i] = "“" + inquiry.OneLine(o.Label, 200) + "”"
	}
	return strings.Join(labels, ", ")
}

// slackTime renders t as a Slack date token, shown in each reader's time zone, with a UTC
// fallback.
func slackTime(t time.Time) string {
	return fmt.Sprintf("<!date^%d^{date_short_pretty} at {time}|%s>", t.Unix(), t.UTC().Format("2006-01-02 15:04 UTC"))
}
