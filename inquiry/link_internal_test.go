package inquiry

import (
	"strings"
	"testing"
	"time"
)

// TestLinkTokenRoundTrip: a token reads back as it was signed, and no changed character of it,
// nor another secret, passes.
func TestLinkTokenRoundTrip(t *testing.T) {
	secret := []byte("s3cret")
	issued := time.Date(2026, 12, 1, 12, 0, 0, 123000, time.UTC)
	l := Link{Key: "inq_abc", Recipient: "alice@example.com", IssuedAt: issued, ExpiresAt: issued.Add(time.Hour)}
	tok := signLink(secret, l)
	got, err := parseLink(secret, tok)
	if err != nil {
		t.Fatal(err)
	}
	if *got != l {
		t.Fatalf("got %+v, want %+v", *got, l)
	}
	if _, err := parseLink([]byte("other"), tok); ErrorCode(err) != CodeNotFound {
		t.Fatalf("another secret: %v", err)
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
	for i := range tok {
		for _, c := range []byte{'A', 'b', '9', '.'} {
			if tok[i] == c {
				continue
			}
			bad := tok[:i] + string(c) + tok[i+1:]
			if got, err := parseLink(secret, bad); err == nil && *got != l {
				t.Fatalf("changed at %d to %q: accepted as %+v", i, c, *got)
			}
		}
	}
	if !strings.ContainsAny(tok, alphabet) || strings.ContainsAny(tok, "/+=?#%") {
		t.Fatalf("token %q is not URL-safe", tok)
	}
	// The general link (no recipient, no expiry) reads back too.
	g := Link{Key: "inq_abc", IssuedAt: issued}
	if got, err := parseLink(secret, signLink(secret, g)); err != nil || *got != g || got.Who() != GeneralLink {
		t.Fatalf("general link: %+v %v", got, err)
	}
}

func TestCheckRecipient(t *testing.T) {
	for in, want := range map[string]string{"Alice@Example.com": "alice@example.com", " bob@example.com ": "bob@example.com"} {
		if got, err := CheckRecipient(in); err != nil || got != want {
			t.Errorf("CheckRecipient(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "alice", "Alice <alice@example.com>", "a@b@c", strings.Repeat("a", 250) + "@example.com", "alice@example.com\nBcc: x@y.z"} {
		if _, err := CheckRecipient(in); ErrorCode(err) != CodeBadRequest || ErrorField(err) != "recipient" {
			t.Errorf("CheckRecipient(%q): %v, want a bad_request on recipient", in, err)
		}
	}
}

func TestLinkExpiry(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	soon := now.Add(time.Hour)
	cases := []struct {
		expires *time.Time
		ttl     time.Duration
		want    time.Time
	}{
		{nil, 0, now.Add(DefaultLinkTTL)},
		{nil, 30 * 24 * time.Hour, now.Add(DefaultLinkTTL)},
		{nil, time.Minute, now.Add(time.Minute)},
		{&soon, 0, soon},
		{&soon, 2 * time.Hour, soon},
		{&soon, time.Minute, now.Add(time.Minute)},
	}
	for _, c := range cases {
		rec := &Record{Inquiry: Inquiry{ExpiresAt: c.expires}}
		if got := worksUntil(rec, linkExpiry(now, c.ttl)); !got.Equal(c.want) {
			t.Errorf("expires %v ttl %s: got %s, want %s", c.expires, c.ttl, got, c.want)
		}
	}
}

// TestLinkOutlivesAnExtension: a link carries no copy of its inquiry's expiry, so once the
// deadline is extended a link handed out before (a mailed one) works until the new deadline.
func TestLinkOutlivesAnExtension(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := &Service{LinkSecret: []byte("k"), Now: func() time.Time { return now }}
	deadline := now.Add(time.Hour)
	rec := &Record{Key: "inq_x", Status: StatusPending, Inquiry: Inquiry{ExpiresAt: &deadline}}
	m, err := s.LinkFor(rec, "carol@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if !m.ExpiresAt.Equal(deadline) {
		t.Errorf("the minted link says it works until %s, want the inquiry's expiry %s", m.ExpiresAt, deadline)
	}
	l, err := parseLink(s.LinkSecret, strings.TrimPrefix(m.URL, LinkPath))
	if err != nil {
		t.Fatal(err)
	}
	extended := deadline.Add(4 * time.Hour)
	if !l.ExpiresAt.After(extended) {
		t.Errorf("the link ends at %s, before the extended deadline %s: an extension would not reach it", l.ExpiresAt, extended)
	}
}

// TestLinkFor: the server's own minting (an e-mail transport's) gives a link that opens its
// inquiry as the recipient, and refuses what MintLink refuses of the recipient.
func TestLinkFor(t *testing.T) {
	s := &Service{LinkSecret: []byte("k"), PublicURL: "https://bot.example.com/",
		Now: func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }}
	rec := &Record{Key: "inq_x", Status: StatusPending}
	m, err := s.LinkFor(rec, "Carol@Example.com")
	if err != nil {
		t.Fatal(err)
	}
	tok, ok := strings.CutPrefix(m.URL, "https://bot.example.com"+LinkPath)
	if !ok {
		t.Fatalf("url %q", m.URL)
	}
	l, err := parseLink(s.LinkSecret, tok)
	if err != nil || l.Key != "inq_x" || l.Who() != "link:carol@example.com" || !l.ExpiresAt.Equal(m.ExpiresAt) {
		t.Fatalf("link %+v, %v", l, err)
	}
	if _, err := s.LinkFor(rec, "carol"); ErrorCode(err) != CodeBadRequest {
		t.Fatalf("bad recipient: %v", err)
	}
	if _, err := s.LinkFor(&Record{Key: "inq_y", Status: StatusAnswered}, "carol@example.com"); ErrorCode(err) != CodeAlreadyResolved {
		t.Fatalf("resolved: %v", err)
	}
	if _, err := (&Service{}).LinkFor(rec, "carol@example.com"); !Fatal(err) {
		t.Fatalf("no secret: %v", err)
	}
}

// TestLinkTokenHasOneSpelling: a token with a line break slipped in anywhere (which base64
// decoders skip) is refused, so that each link has one spelling, the one its rate limit and its
// form token are keyed by.
func TestLinkTokenHasOneSpelling(t *testing.T) {
	secret := []byte("s3cret")
	issued := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tok := signLink(secret, Link{Key: "inq_abc", IssuedAt: issued, ExpiresAt: issued.Add(time.Hour)})
	for i := 0; i <= len(tok); i++ {
		for _, c := range []string{"\n", "\r", "\r\n"} {
			if _, err := parseLink(secret, tok[:i]+c+tok[i:]); ErrorCode(err) != CodeNotFound {
				t.Fatalf("%q inserted at %d: accepted (%v)", c, i, err)
			}
		}
	}
	if _, err := parseLink(secret, tok); err != nil {
		t.Fatal(err)
	}
}

// TestLongestLinkOpens: the longest recipient CheckRecipient accepts — 254 characters, as many
// of them four bytes long as an address may have — on a key as long as NewKey makes, signs to a
// token that parseLink reads back: a link the bot mints is never refused as one it did not make.
func TestLongestLinkOpens(t *testing.T) {
	const wide = "𝔞" // four bytes in UTF-8
	domain := strings.Repeat(wide, 60) + "." + strings.Repeat(wide, 60) + "." + strings.Repeat(wide, 60) + ".example"
	local := strings.Repeat(wide, MaxRecipientChars-1-len([]rune(domain)))
	recipient, err := CheckRecipient(local + "@" + domain)
	if err != nil {
		t.Fatalf("the longest recipient is refused: %v", err)
	}
	if n := len([]rune(recipient)); n != MaxRecipientChars {
		t.Fatalf("the recipient has %d characters, want %d", n, MaxRecipientChars)
	}
	secret := []byte("s3cret")
	issued := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	l := Link{Key: NewKey(issued), Recipient: recipient, IssuedAt: issued, ExpiresAt: issued.Add(time.Hour)}
	tok := signLink(secret, l)
	got, err := parseLink(secret, tok)
	if err != nil {
		t.Fatalf("a %d-character token of the longest recipient is refused: %v", len(tok), err)
	}
	if *got != l {
		t.Fatalf("got %+v, want %+v", *got, l)
	}
}

// TestLinkPageWordsLimit: the page refuses prose over the one ceiling, counted in characters, for
// the person to shorten (it is not cut).
func TestLinkPageWordsLimit(t *testing.T) {
	for _, ch := range []string{"a", "é", "漢", "😀"} {
		if err := checkWords(strings.Repeat(ch, DefaultAnswerChars)); err != nil {
			t.Errorf("%d × %q: %v", DefaultAnswerChars, ch, err)
		}
		err := checkWords(strings.Repeat(ch, DefaultAnswerChars+1))
		if ErrorCode(err) != CodeInvalidAnswer || !strings.Contains(err.Error(), "2001 characters long but may have at most 2000") {
			t.Errorf("%d × %q: %v, want invalid_answer naming both lengths", DefaultAnswerChars+1, ch, err)
		}
	}
}
