package inquiry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Team approvals (the README's Team approvals): how many people must agree, whether one no stops
// it, who may not answer (four eyes), and when an answer must say why. The rules live here; an edge
// passes the fields through and shows the tally.

// MaxApprovals is the largest quorum an inquiry may ask for.
const MaxApprovals = 20

// MaxRequestedBy bounds requested_by, the people who may not answer.
const MaxRequestedBy = 20

// Approval is what an inquiry asks of a team. Its zero value is today's behaviour: the first
// permitted answer decides, nobody is excluded, no reason is asked for.
type Approval struct {
	// Approvals is how many distinct permitted people must give the same answer (nil: 1).
	Approvals *int `json:"approvals,omitempty"`
	// Veto (Confirm only; nil: on) makes one no answer no at once; off, Approvals noes are needed.
	Veto *bool `json:"veto,omitempty"`
	// RequestedBy names who asked for the approval (Slack user ids, token names): they may not
	// answer it.
	RequestedBy []string `json:"requested_by,omitempty"`
	// Reason says when an answer must give its reason in its text.
	Reason Reason `json:"reason,omitempty"`
}

// Reason is when an answer must say why.
type Reason string

// Reasons.
const (
	ReasonNone   Reason = ""       // never
	ReasonOnNo   Reason = "on_no"  // a no, or a decline
	ReasonAlways Reason = "always" // every answer
)

// Quorum is how many distinct people must agree: Approvals, or 1.
func (a Approval) Quorum() int {
	if a.Approvals == nil {
		return 1
	}
	return *a.Approvals
}

// VetoOn reports whether one no answers a Confirm no at once (the default).
func (a Approval) VetoOn() bool { return a.Veto == nil || *a.Veto }

// checkApproval is Validate's part for the fields of Approval.
func checkApproval(in *Inquiry) error {
	if n := in.Approvals; n != nil {
		switch {
		case *n < 1 || *n > MaxApprovals:
			return invalid("approvals", "approvals %d is not from 1 to %d: ask for how many distinct people must agree, or leave it out for 1", *n, MaxApprovals)
		case *n > 1 && (in.Kind == KindText || in.Multiple):
			what := "a text question"
			if in.Multiple {
				what = "a multiple choice"
			}
			return invalid("approvals", "approvals %d needs a confirm or a single choice, not %s: a quorum of free answers decides nothing; ask for 1, or make it a confirm", *n, what)
		}
	}
	if in.Veto != nil && in.Kind != KindConfirm {
		return invalid("veto", "veto is only for a confirm, not a %s: remove it", in.Kind)
	}
	if len(in.RequestedBy) > MaxRequestedBy {
		return invalid("requested_by", "requested_by names %d people but may name at most %d: name who asked for the approval", len(in.RequestedBy), MaxRequestedBy)
	}
	for i, who := range in.RequestedBy {
		field := fmt.Sprintf("requested_by[%d]", i)
		if err := checkID(field, who, "give a Slack user id (U…) or a token's name"); err != nil {
			return err
		}
		if utf8.RuneCountInString(who) > MaxSlackRefChars {
			return invalid(field, "%s is %d characters long but may have at most %d: give a Slack user id (U…) or a token's name", field, utf8.RuneCountInString(who), MaxSlackRefChars)
		}
	}
	switch in.Reason {
	case ReasonNone, ReasonOnNo, ReasonAlways:
	default:
		return invalid("reason", "reason %q is not one of on_no or always: use on_no for a reason with a no or a decline, always for every answer, or leave it out", string(in.Reason))
	}
	return nil
}

// countAnswerers splits slack.answerers into the people who may answer in (U…, W…; not those
// requested_by names) and reports whether there are user groups (S…), whose members are known
// only when the question is posted.
func countAnswerers(in *Inquiry, answerers []string) (people []string, groups bool) {
	for _, a := range answerers {
		if strings.HasPrefix(a, "S") {
			groups = true
			continue
		}
		if !in.requests(SlackUser(a, nil)) && !slices.Contains(people, a) {
			people = append(people, a)
		}
	}
	return people, groups
}

// checkReason refuses an answer without the reason the inquiry asks for.
func checkReason(in *Inquiry, a Answer) error {
	if strings.TrimSpace(a.Text) != "" {
		return nil
	}
	switch {
	case in.Reason == ReasonAlways:
		return answerErr("text", "this question asks for a reason with every answer: say why in text (in Slack, in the box that opens)")
	case in.Reason == ReasonOnNo && a.Declined:
		return answerErr("text", "this question asks for a reason with a decline: say why in text (in Slack, in the box that opens)")
	case in.Reason == ReasonOnNo && in.Kind == KindConfirm && a.Value.First() == "no":
		return answerErr("text", "this question asks for a reason with a no: say why in text (in Slack, in the box that opens)")
	}
	return nil
}

// NeedsReason reports whether answering in with value (or a decline) must say why: for an edge
// that asks for the reason before it sends (a Slack modal instead of a plain confirmation).
func NeedsReason(in *Inquiry, value string, declined bool) bool {
	return checkReason(in, Answer{Value: One(value), Declined: declined && value == ""}) != nil
}

// Via is how a vote or an answer came in.
type Via string

// The ways in.
const (
	ViaSlack Via = "slack"
	ViaAPI   Via = "api"
	ViaCLI   Via = "cli"
	ViaWeb   Via = "web"
	ViaEmail Via = "email"
	ViaMCP   Via = "mcp"
	ViaTeams Via = "teams"
)

type viaKey struct{}

// WithVia returns ctx carrying how what is answered in it came in.
func WithVia(ctx context.Context, v Via) context.Context { return context.WithValue(ctx, viaKey{}, v) }

// ViaFrom is how ctx's answer came in: what WithVia put there, else ViaAPI.
func ViaFrom(ctx context.Context) Via {
	if v, ok := ctx.Value(viaKey{}).(Via); ok && v != "" {
		return v
	}
	return ViaAPI
}

// Vote is one person's answer to an inquiry that needs several: a later vote of the same person
// replaces the earlier one until the inquiry resolves.
type Vote struct {
	By       string    `json:"by"`
	Value    Value     `json:"value"`
	Text     string    `json:"text"`
	Declined bool      `json:"declined,omitempty"`
	At       time.Time `json:"at"`
	Via      Via       `json:"via"`
}

// WithVote returns votes with v in place of any earlier vote of the same person.
func WithVote(votes []Vote, v Vote) []Vote {
	out := make([]Vote, 0, len(votes)+1)
	for _, old := range votes {
		if CanonID(old.By) != CanonID(v.By) { // one person, however their id was spelt
			out = append(out, old)
		}
	}
	return append(out, v)
}

// Tally reads votes for in: the answer they decide, or nil while they decide nothing yet. A
// Confirm with its veto on is answered no by the first no; otherwise an answer wins once Quorum
// distinct people gave it (a decline counts towards nothing). The decided answer carries every
// vote, the words of the vote that decided it, and that voter as who answered.
func Tally(in *Inquiry, votes []Vote) *Answer {
	n := in.Quorum()
	decide := func(v Vote) *Answer {
		return &Answer{InquiryID: in.ID, Value: v.Value, Text: v.Text, AnsweredBy: v.By, Source: SourcePerson,
			Votes: slices.Clone(votes)}
	}
	if in.Kind == KindConfirm && in.VetoOn() {
		for _, v := range votes {
			if !v.Declined && v.Value.First() == "no" {
				return decide(v)
			}
		}
	}
	for _, o := range Offered(in) {
		var last *Vote
		count := 0
		for i, v := range votes {
			if !v.Declined && v.Value.First() == o.Value {
				count, last = count+1, &votes[i]
			}
		}
		if count >= n {
			return decide(*last)
		}
	}
	return nil
}

// Voters names who gave value among votes, in the order they voted.
func Voters(votes []Vote, value string) []string {
	var out []string
	for _, v := range votes {
		if !v.Declined && v.Value.First() == value {
			out = append(out, v.By)
		}
	}
	return out
}

// Tallied is the tally of a pending inquiry that needs several answers, as people read it: "1
// of 2 approvals: U1" — "" when it needs one or has no vote yet. It reads Shares.
func Tallied(rec *Record) string {
	var parts []string
	for _, sh := range Shares(&rec.Inquiry, rec.Votes) {
		parts = append(parts, sh.Count(nil)+": "+strings.Join(sh.Voters, ", "))
	}
	return strings.Join(parts, "; ")
}
