package inquiry_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

func TestPersonMayAnswer(t *testing.T) {
	groups := map[string][]string{"S0OPS0001": {"U0BOB0001"}}
	member := func(user string) func(id string) (bool, error) {
		return func(id string) (bool, error) {
			if id == "S0DOWN001" {
				return false, errors.New("usergroups.users.list: ratelimited")
			}
			return slices.Contains(groups[id], user), nil
		}
	}
	rec := func(answerers []string, requestedBy ...string) *inquiry.Record {
		r := &inquiry.Record{}
		r.Slack.Answerers = answerers
		r.Inquiry.Approval.RequestedBy = requestedBy
		return r
	}
	cases := []struct {
		name string
		rec  *inquiry.Record
		user string
		want inquiry.Permission
	}{
		{"nobody named: anybody, named nobody", rec(nil), "U0ALICE01", inquiry.Permission{Allowed: true}},
		{"listed", rec([]string{"U0ALICE01"}), "U0ALICE01", inquiry.Permission{Allowed: true, Named: true}},
		{"not listed", rec([]string{"U0ALICE01"}), "U0CAROL01", inquiry.Permission{}},
		{"in a listed group", rec([]string{"U0ALICE01", "S0OPS0001"}), "U0BOB0001", inquiry.Permission{Allowed: true, Named: true}},
		{"not in the group", rec([]string{"S0OPS0001"}), "U0CAROL01", inquiry.Permission{}},
		{"a group that cannot be read admits nobody", rec([]string{"S0DOWN001"}), "U0BOB0001", inquiry.Permission{Unchecked: []string{"S0DOWN001"}}},
		{"four eyes before the list", rec([]string{"U0ALICE01"}, "u0alice01"), "U0ALICE01", inquiry.Permission{Requester: true}},
		{"four eyes with nobody named", rec(nil, "U0ALICE01"), "U0ALICE01", inquiry.Permission{Requester: true}},
		{"nobody is no person", rec(nil), "", inquiry.Permission{}},
	}
	for _, c := range cases {
		got := inquiry.PersonMayAnswer(c.rec, c.user, member(c.user))
		if got.Allowed != c.want.Allowed || got.Named != c.want.Named || got.Requester != c.want.Requester || !slices.Equal(got.Unchecked, c.want.Unchecked) {
			t.Errorf("%s: PersonMayAnswer = %+v, want %+v", c.name, got, c.want)
		}
	}
}
