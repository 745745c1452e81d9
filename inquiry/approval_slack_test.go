package inquiry_test

import (
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

func TestReasonMissing(t *testing.T) {
	t.Parallel()
	two := 2
	confirm := &inquiry.Inquiry{Kind: inquiry.KindConfirm, Approval: inquiry.Approval{Approvals: &two, Reason: inquiry.ReasonOnNo}}
	if !inquiry.ReasonMissing(confirm, inquiry.Reply{Text: "no"}) || inquiry.ReasonMissing(confirm, inquiry.Reply{Text: "yes"}) ||
		inquiry.ReasonMissing(confirm, inquiry.Reply{Text: "maybe"}) {
		t.Error("ReasonMissing: only a no without words lacks its reason")
	}
}

func TestGroupQuorumFits(t *testing.T) {
	t.Parallel()
	three := 3
	in := &inquiry.Inquiry{Kind: inquiry.KindConfirm, Approval: inquiry.Approval{Approvals: &three, RequestedBy: []string{"U3"}}}
	members := map[string][]string{"S1": {"U1", "U2", "U3"}, "S2": {"U2"}}
	for _, tc := range []struct {
		answerers []string
		elsewhere int
		want      string
	}{
		{[]string{"S1", "U4"}, 0, ""},
		{[]string{"S1"}, 1, ""}, // one person on another channel makes up the third
		{[]string{"S1"}, 0, "approvals 3 needs 3 people, but only 2 may answer: user group S1 has 3 members, and U3 asked for it (requested_by); ask for at most 2 approvals, or add people to slack.answerers or to the group"},
		{[]string{"S2"}, 1, "approvals 3 needs 3 people, but only 2 may answer: user group S2 has 1 member, and its other channels name 1; ask for at most 2 approvals, or add people to slack.answerers or to the group"},
		{[]string{"S1", "S2", "U1"}, 0, "approvals 3 needs 3 people, but only 2 may answer: user groups S1 has 3 members and S2 has 1 member, and U3 asked for it (requested_by); ask for at most 2 approvals, or add people to slack.answerers or to the group"},
		{[]string{"U1", "U2"}, 0, ""}, // no group: Ask's QuorumFits judged it
	} {
		err := inquiry.GroupQuorumFits(in, tc.answerers, members, tc.elsewhere)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.answerers, err)
		case tc.want != "" && (inquiry.ErrorMessage(err) != tc.want || !inquiry.Fatal(err)):
			t.Errorf("%v: %v (fatal %v), want %q", tc.answerers, err, inquiry.Fatal(err), tc.want)
		}
	}
}

func TestShares(t *testing.T) {
	t.Parallel()
	two := 2
	in := &inquiry.Inquiry{Kind: inquiry.KindConfirm, Approval: inquiry.Approval{Approvals: &two}}
	votes := []inquiry.Vote{{By: "U1", Value: inquiry.One("yes")}, {By: "U2", Value: inquiry.One("no")}}
	sh := inquiry.Shares(in, votes)
	if len(sh) != 2 || sh[0].Count(nil) != "1 of 2 approvals" || sh[1].Count(nil) != "1 of 2 noes" {
		t.Errorf("Shares = %+v", sh)
	}
	if got := inquiry.ShareOf(in, votes, "yes"); !got.Approval || len(got.Voters) != 1 {
		t.Errorf("ShareOf yes = %+v", got)
	}
}
