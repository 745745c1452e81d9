package inquiry_test

import (
	"fmt"
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

// Who decided an answer that took several people, in the words every edge shows.
func ExampleDecidedBy() {
	two := 2
	off := false
	deploy := &inquiry.Inquiry{Kind: inquiry.KindConfirm, Question: "Deploy?", Approval: inquiry.Approval{Approvals: &two}}
	vote := func(by, value, text string) inquiry.Vote {
		return inquiry.Vote{By: by, Value: inquiry.One(value), Text: text}
	}
	show := func(in *inquiry.Inquiry, votes ...inquiry.Vote) {
		a := inquiry.Tally(in, votes)
		said, ok := inquiry.DecidedBy(in, a)
		fmt.Println(said, ok)
	}

	show(deploy, vote("U1", "yes", ""), vote("U2", "yes", ""))
	show(deploy, vote("U1", "yes", ""), vote("U3", "no", "not on a Friday"))
	noVeto := *deploy
	noVeto.Veto = &off
	show(&noVeto, vote("U1", "no", "tests are red"), vote("U2", "no", ""))
	three := 3
	merge := &inquiry.Inquiry{Kind: inquiry.KindChoice, Question: "Merge?", Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}},
		Approval: inquiry.Approval{Approvals: &three}}
	show(merge, vote("U1", "merge", ""), vote("U2", "merge", ""), vote("U3", "hold", ""), vote("U4", "merge", ""))

	// One person's answer is not a quorum's: the edge says "by U1" as it always did.
	_, ok := inquiry.DecidedBy(&inquiry.Inquiry{Kind: inquiry.KindConfirm}, &inquiry.Answer{Value: inquiry.One("yes"), AnsweredBy: "U1", Source: inquiry.SourcePerson})
	fmt.Println(ok)
	// Output:
	// approved by U1 and U2 true
	// vetoed by U3: "not on a Friday" true
	// rejected by U1 ("tests are red") and U2 true
	// chosen by U1, U2 and U4 true
	// false
}

// What an inquiry that needs several people asks of them, as a listing shows it.
func ExampleApprovalAsked() {
	two := 2
	off := false
	fmt.Println(inquiry.ApprovalAsked(&inquiry.Inquiry{Kind: inquiry.KindConfirm, Approval: inquiry.Approval{Approvals: &two, Reason: inquiry.ReasonOnNo}}))
	fmt.Println(inquiry.ApprovalAsked(&inquiry.Inquiry{Kind: inquiry.KindConfirm, Approval: inquiry.Approval{Approvals: &two, Veto: &off}}))
	fmt.Println(inquiry.ApprovalAsked(&inquiry.Inquiry{Kind: inquiry.KindChoice, Approval: inquiry.Approval{Approvals: &two, Reason: inquiry.ReasonAlways, RequestedBy: []string{"U9", "ci"}}}))
	fmt.Println(inquiry.ApprovalAsked(&inquiry.Inquiry{Kind: inquiry.KindChoice, Approval: inquiry.Approval{Reason: inquiry.ReasonOnNo}}))
	fmt.Printf("%q\n", inquiry.ApprovalAsked(&inquiry.Inquiry{Kind: inquiry.KindText}))
	// Output:
	// needs 2 approvals · a no needs a reason (a decline too)
	// needs 2 approvals, or 2 noes to refuse
	// needs 2 people to choose the same answer · every answer needs a reason · not to be answered by U9 or ci (they asked for it)
	// a decline needs a reason
	// ""
}

func TestDecidedByIsOnlyAQuorumsPersonAnswer(t *testing.T) {
	two := 2
	in := &inquiry.Inquiry{Kind: inquiry.KindConfirm, Approval: inquiry.Approval{Approvals: &two}}
	votes := []inquiry.Vote{{By: "U1", Value: inquiry.One("yes")}}
	for name, a := range map[string]*inquiry.Answer{
		"nil":                    nil,
		"expired with votes":     {Value: inquiry.One("no"), Source: inquiry.SourceExpired, Votes: votes},
		"declined at expiry":     {Declined: true, Source: inquiry.SourceExpired, Votes: votes},
		"handed back by caller":  {Value: inquiry.One("yes"), Source: inquiry.SourceCaller, AnsweredBy: "ci"},
		"a person without votes": {Value: inquiry.One("yes"), Source: inquiry.SourcePerson, AnsweredBy: "U1"},
	} {
		if said, ok := inquiry.DecidedBy(in, a); ok || said != "" {
			t.Errorf("%s: DecidedBy = %q, %v; want nothing", name, said, ok)
		}
	}
}

func TestAndList(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{{nil, ""}, {[]string{"U1"}, "U1"}, {[]string{"U1", "U2"}, "U1 and U2"}, {[]string{"U1", "U2", "U4"}, "U1, U2 and U4"}} {
		if got := inquiry.AndList(c.in); got != c.want {
			t.Errorf("AndList(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
