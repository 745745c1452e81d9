package inquiry_test

import (
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

// The person at an MCP client answers only the question its own connection asked, in its
// namespace, and only one that names nobody who may answer it.
func TestMayAnswerMCPUser(t *testing.T) {
	agent := &inquiry.Token{Name: "agent", Namespace: "ns", NamespaceBound: true, Scopes: []inquiry.Scope{inquiry.ScopeAsk}}
	other := &inquiry.Token{Name: "other", Namespace: "ns", NamespaceBound: true, Scopes: []inquiry.Scope{inquiry.ScopeAsk}}
	elsewhere := &inquiry.Token{Name: "agent", Namespace: "ns2", NamespaceBound: true, Scopes: []inquiry.Scope{inquiry.ScopeAsk}}
	rec := func(mod func(*inquiry.Record)) *inquiry.Record {
		r := &inquiry.Record{Key: "inq_1", Namespace: "ns", AskedBy: "agent"}
		r.Kind = inquiry.KindConfirm
		if mod != nil {
			mod(r)
		}
		return r
	}
	two := 2
	for _, c := range []struct {
		name    string
		rec     *inquiry.Record
		who     inquiry.Identity
		allowed bool
		refused inquiry.Refusal
	}{
		{"its own question", rec(nil), inquiry.MCPUser(agent), true, ""},
		{"another connection's question", rec(nil), inquiry.MCPUser(other), false, inquiry.RefusedNotNamed},
		{"another namespace", rec(nil), inquiry.MCPUser(elsewhere), false, inquiry.RefusedNamespace},
		{"no token", rec(nil), inquiry.MCPUser(nil), false, inquiry.RefusedNobody},
		{"a channel identity without a token", rec(nil), inquiry.Identity{Channel: inquiry.ChannelMCP, ID: "agent"}, false, inquiry.RefusedNobody},
		{"several approvals", rec(func(r *inquiry.Record) { r.Approvals = &two }), inquiry.MCPUser(agent), false, inquiry.RefusedNotNamed},
		{"slack answerers named", rec(func(r *inquiry.Record) { r.Slack.Answerers = []string{"U0ALICE01"} }), inquiry.MCPUser(agent), false, inquiry.RefusedNotNamed},
		{"requested by the token", rec(func(r *inquiry.Record) { r.RequestedBy = []string{"agent"} }), inquiry.MCPUser(agent), false, inquiry.RefusedRequester},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := inquiry.MayAnswer(c.rec, c.who)
			if p.Allowed != c.allowed || p.Refused != c.refused {
				t.Fatalf("MayAnswer = allowed %v refused %q (%v), want allowed %v refused %q", p.Allowed, p.Refused, p.Err(), c.allowed, c.refused)
			}
			if !p.Allowed && p.Err() == nil {
				t.Fatal("a refusal carries its sentence")
			}
		})
	}
}
