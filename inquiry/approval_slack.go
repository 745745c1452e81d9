package inquiry

import (
	"fmt"
	"slices"
	"strings"
)

// The readings of team approvals that an edge showing them needs (Slack first): the tally as
// parts it can render in its own medium, whether a no was a veto, and whether the
// people of the answerers' user groups can give the quorum at all.

// Share is one answer's part of the votes of an inquiry that needs several people: who gave it,
// in the order they voted, out of how many it needs.
type Share struct {
	Value  string   // the option's value ("yes" and "no" for a Confirm)
	Label  string   // its label, as the asker wrote it
	Voters []string // who gave it, in the order they voted
	Of     int      // the quorum
	// Approval is set for the yes of a Confirm: its votes are approvals.
	Approval bool
	confirm  bool
}

// Noun names what the share counts: "approvals", "noes", or "for <label>" with the label as
// label renders it (escaped for mrkdwn, say); nil leaves it as it is.
func (s Share) Noun(label func(string) string) string {
	switch {
	case s.Approval:
		return "approvals"
	case s.confirm:
		return "noes"
	case label == nil:
		return "for " + s.Label
	}
	return "for " + label(s.Label)
}

// Count is the share as people read it, "1 of 2 approvals", the noun's label rendered by label.
func (s Share) Count(label func(string) string) string {
	return fmt.Sprintf("%d of %d %s", len(s.Voters), s.Of, s.Noun(label))
}

// Shares are the parts of votes for in, in the order of the offered answers, each answer that
// somebody gave; none when in needs one person.
func Shares(in *Inquiry, votes []Vote) []Share {
	if in.Quorum() <= 1 {
		return nil
	}
	var out []Share
	for _, o := range Offered(in) {
		if who := Voters(votes, o.Value); len(who) > 0 {
			out = append(out, shareOf(in, o, who))
		}
	}
	return out
}

// ShareOf is the share of value among votes (with no voters when nobody gave it).
func ShareOf(in *Inquiry, votes []Vote, value string) Share {
	o := Option{Value: value, Label: LabelOf(in, value)}
	return shareOf(in, o, Voters(votes, value))
}

func shareOf(in *Inquiry, o Option, who []string) Share {
	confirm := in.Kind == KindConfirm
	return Share{Value: o.Value, Label: o.Label, Voters: who, Of: in.Quorum(), Approval: confirm && o.Value == "yes", confirm: confirm}
}

// Vetoed reports whether a, the answer of in, is a no that one person's veto decided: a Confirm
// that needed several approvals, answered no with its veto on.
func Vetoed(in *Inquiry, a *Answer) bool {
	return a != nil && in.Kind == KindConfirm && in.Quorum() > 1 && in.VetoOn() && !a.Declined && a.Value.First() == "no"
}

// ReasonMissing reports whether r would answer in but for the reason in asks for: the reply that
// an edge meets with a box for the reason, or with the sentence saying one is needed.
func ReasonMissing(in *Inquiry, r Reply) bool {
	a, err := checkReply(in, r)
	return err == nil && checkReason(in, a) != nil
}

// GroupQuorumFits refuses an inquiry whose quorum more people must give than may answer it, once
// the members of the user groups among answerers are known (members, by group id): the people
// listed and the members, each counted once, less those requested_by names. The error is
// inquiry_unavailable (fatal): the question cannot be decided as asked, and its sentence says
// how many members the groups have. elsewhere is how many people its other channels name
// (PeopleElsewhere): they count towards the quorum too.
func GroupQuorumFits(in *Inquiry, answerers []string, members map[string][]string, elsewhere int) error {
	n := in.Quorum()
	if n <= 1 {
		return nil
	}
	var people, groups, requesters []string
	add := func(who string) {
		switch who = strings.TrimSpace(who); {
		case who == "" || slices.Contains(people, who) || slices.Contains(requesters, who):
		case in.requests(SlackUser(who, nil)):
			requesters = append(requesters, who)
		default:
			people = append(people, who)
		}
	}
	for _, a := range answerers {
		if strings.HasPrefix(a, "S") {
			groups = append(groups, a)
			continue
		}
		add(a)
	}
	if len(groups) == 0 {
		return nil
	}
	counts := make([]string, len(groups))
	for i, g := range groups {
		for _, m := range members[g] {
			add(m)
		}
		counts[i] = fmt.Sprintf("%s has %d", g, len(members[g]))
		if len(members[g]) == 1 {
			counts[i] += " member"
		} else {
			counts[i] += " members"
		}
	}
	if n <= len(people)+elsewhere {
		return nil
	}
	what := "user group " + counts[0]
	if len(groups) > 1 {
		what = "user groups " + strings.Join(counts[:len(counts)-1], ", ") + " and " + counts[len(counts)-1]
	}
	if len(requesters) > 0 {
		what += ", and " + strings.Join(requesters, ", ") + " asked for it (requested_by)"
	}
	if elsewhere > 0 {
		what += fmt.Sprintf(", and its other channels name %d", elsewhere)
	}
	total := len(people) + elsewhere
	fix := "add people to slack.answerers or to the group"
	if total > 0 {
		fix = fmt.Sprintf("ask for at most %d approvals, or %s", total, fix)
	}
	return Unavailable("approvals %d needs %d people, but only %d may answer: %s; %s", n, n, total, what, fix)
}
