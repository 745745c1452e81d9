package inquiry_test

import (
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// Rules whose breakage only another package's tests used to catch, each tested where it lives.

// TestDerivedIDFixedVector: a question asked without an id gets the id its content derives, the
// same in every release. The vector is worked out outside Go: the SHA-256 of the content's JSON
// `{"kind":"confirm","question":"Deploy to production?","context":"","options":null,
// "multiple":false,"allow_text":false,"default":null}` begins 7c690f2015896aef (sha256sum).
func TestDerivedIDFixedVector(t *testing.T) {
	in := &inquiry.Inquiry{Kind: inquiry.KindConfirm, Question: "Deploy to production?"}
	if got, want := inquiry.DerivedID("bot-ask", in), "bot-ask:7c690f2015896aef"; got != want {
		t.Fatalf("DerivedID = %q, want %q", got, want)
	}
	later := *in
	later.ID, later.ExpiresAt = "other", new(time.Now())
	if inquiry.DerivedID("bot-ask", &later) != inquiry.DerivedID("bot-ask", in) {
		t.Error("the id and the expiry are no part of what a question asks")
	}
	other := *in
	other.Question = "Deploy to staging?"
	if inquiry.DerivedID("bot-ask", &other) == inquiry.DerivedID("bot-ask", in) {
		t.Error("another question derives another id")
	}
}

// TestDeriveIDIsTheServers: the server derives an id only when none is given, from the content
// as it is stored (canonical), with the fixed vector's digest under AutoIDPrefix.
func TestDeriveIDIsTheServers(t *testing.T) {
	in := &inquiry.Inquiry{Kind: inquiry.KindConfirm, Question: "Deploy to production?"}
	inquiry.DeriveID(in)
	if want := "auto:7c690f2015896aef"; in.ID != want {
		t.Fatalf("DeriveID gave %q, want %q", in.ID, want)
	}
	given := &inquiry.Inquiry{ID: " ", Kind: inquiry.KindConfirm, Question: "Deploy?"}
	if inquiry.DeriveID(given); given.ID != " " {
		t.Errorf("a given id, even a blank one Validate refuses, is the asker's: got %q", given.ID)
	}
	nfd := &inquiry.Inquiry{Kind: inquiry.KindChoice, Question: "Which?", Options: []inquiry.Option{{Value: "cafe\u0301", Label: "x"}, {Value: "b", Label: "b"}}}
	nfc := &inquiry.Inquiry{Kind: inquiry.KindChoice, Question: "Which?", Options: []inquiry.Option{{Value: "caf\u00e9", Label: "x"}, {Value: "b", Label: "b"}}}
	inquiry.DeriveID(nfd)
	inquiry.DeriveID(nfc)
	if nfd.ID != nfc.ID {
		t.Errorf("two spellings of one option derive %q and %q", nfd.ID, nfc.ID)
	}
	if nfd.Options[0].Value != "cafe\u0301" {
		t.Error("deriving leaves the asker's inquiry as it was")
	}
}

// TestVotersAreDistinct: a person's later vote replaces their earlier one, however their id is
// spelt, so one person never makes a quorum of two.
func TestVotersAreDistinct(t *testing.T) {
	two := 2
	in := &inquiry.Inquiry{Kind: inquiry.KindConfirm}
	in.Approvals = &two
	yes := inquiry.One("yes")
	var votes []inquiry.Vote
	for _, by := range []string{"U1", "U1", "u1 "} {
		votes = inquiry.WithVote(votes, inquiry.Vote{By: by, Value: yes})
	}
	if len(votes) != 1 {
		t.Fatalf("one person's three votes are %d votes: %+v", len(votes), votes)
	}
	if a := inquiry.Tally(in, votes); a != nil {
		t.Fatalf("one person decided a quorum of two: %+v", a)
	}
	votes = inquiry.WithVote(votes, inquiry.Vote{By: "link:alice@example.com", Value: yes})
	if a := inquiry.Tally(in, votes); a == nil || a.Value.First() != "yes" || len(a.Votes) != 2 {
		t.Fatalf("two people's yes: Tally = %+v", a)
	}
}
