package inquiry

import (
	"fmt"
	"strings"
)

// How team approvals read, for every edge that shows them (the CLI, MCP results, Slack): who
// decided an answer that took several people, and what an inquiry asks of them. Tallied (in
// approval.go) is the tally of a pending one.

// DecidedBy says who decided a that took several people: "approved by U1 and U2" (a Confirm's
// yes), `vetoed by U3: "not on a Friday"` (the one no of a veto, with its reason), `rejected by
// U1 ("tests are red") and U2` (the noes of a Confirm without the veto), "chosen by U1, U2 and
// U4" (a Choice); a voter's words stand beside them. ok is false for an answer that is not a
// quorum's — one person's, assumed, handed back, or nil — which an edge shows by AnsweredBy as
// always.
func DecidedBy(in *Inquiry, a *Answer) (said string, ok bool) {
	if a == nil || a.Source != SourcePerson || a.Declined || in.Quorum() <= 1 || len(a.Votes) == 0 {
		return "", false
	}
	value := a.Value.First()
	if in.Kind == KindConfirm && value == "no" && in.VetoOn() {
		said = "vetoed by " + a.AnsweredBy
		if words := OneLine(a.Text, 61); words != "" {
			said += fmt.Sprintf(": %q", words)
		}
		return said, true
	}
	verb := "chosen"
	if in.Kind == KindConfirm {
		verb = "approved"
		if value == "no" {
			verb = "rejected"
		}
	}
	var who []string
	for _, v := range a.Votes {
		if v.Declined || v.Value.First() != value {
			continue
		}
		if words := OneLine(v.Text, 61); words != "" {
			who = append(who, fmt.Sprintf("%s (%q)", v.By, words))
		} else {
			who = append(who, v.By)
		}
	}
	return verb + " by " + AndList(who), true
}

// ApprovalAsked is what in asks of the people who answer it beyond one answer, joined with " ·
// ": how many must agree, when a reason is needed, who may not answer — "" when nothing.
func ApprovalAsked(in *Inquiry) string {
	var parts []string
	if n := in.Quorum(); n > 1 {
		switch {
		case in.Kind == KindConfirm && in.VetoOn():
			parts = append(parts, fmt.Sprintf("needs %d approvals", n))
		case in.Kind == KindConfirm:
			parts = append(parts, fmt.Sprintf("needs %d approvals, or %d noes to refuse", n, n))
		default:
			parts = append(parts, fmt.Sprintf("needs %d people to choose the same answer", n))
		}
	}
	switch {
	case in.Reason == ReasonAlways:
		parts = append(parts, "every answer needs a reason")
	case in.Reason == ReasonOnNo && in.Kind == KindConfirm:
		parts = append(parts, "a no needs a reason (a decline too)")
	case in.Reason == ReasonOnNo:
		parts = append(parts, "a decline needs a reason")
	}
	if len(in.RequestedBy) > 0 {
		parts = append(parts, "not to be answered by "+joinList(in.RequestedBy, "or")+" (they asked for it)")
	}
	return strings.Join(parts, " · ")
}

// AndList joins names as people write them: "U1", "U1 and U2", "U1, U2 and U4".
func AndList(names []string) string { return joinList(names, "and") }

func joinList(names []string, conj string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}
