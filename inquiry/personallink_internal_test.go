package inquiry

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"
)

// TestOldLinksStillOpen: a link signed before personal links — key, recipient, times and the
// minting token's name, spelled byte by byte as the bot signed it then — reads as it did: no
// personal identity, its recipient's link identity.
func TestOldLinksStillOpen(t *testing.T) {
	secret := []byte("s3cret")
	issued := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var p bytes.Buffer
	p.WriteString("inq_abc\x00bob@example.com\x00")
	var n [16]byte
	binary.BigEndian.PutUint64(n[:8], uint64(issued.UnixMicro()))
	binary.BigEndian.PutUint64(n[8:], uint64(issued.Add(time.Hour).UnixMicro()))
	p.Write(n[:])
	p.WriteString("ops-bot")
	tok := linkEncoding.EncodeToString(p.Bytes()) + "." + linkEncoding.EncodeToString(linkMAC(secret, p.Bytes()))

	l, err := parseLink(secret, tok)
	if err != nil {
		t.Fatal(err)
	}
	want := Link{Key: "inq_abc", Recipient: "bob@example.com", IssuedAt: issued, ExpiresAt: issued.Add(time.Hour), MintedBy: "ops-bot"}
	if *l != want {
		t.Fatalf("got %+v, want %+v", *l, want)
	}
	if who := LinkHolder(l); who.Channel != ChannelLink || who.AnsweredBy() != "link:bob@example.com" {
		t.Fatalf("an old link holds %+v, want link:bob@example.com", who)
	}
	if signLink(secret, want) != tok {
		t.Fatal("a link without a personal identity is no longer signed as before")
	}
}

// TestTokenNamedLikeAPersonIsNoPerson: a token's name may hold a colon, so a link minted by a
// token named "slack:U1" vouches as that token, never answers as the Slack user U1.
func TestTokenNamedLikeAPersonIsNoPerson(t *testing.T) {
	secret := []byte("s3cret")
	issued := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	l, err := parseLink(secret, signLink(secret, Link{Key: "inq_abc", Recipient: "bob@example.com", IssuedAt: issued, MintedBy: "slack:U1"}))
	if err != nil {
		t.Fatal(err)
	}
	if l.As != "" || l.MintedBy != "slack:U1" {
		t.Fatalf("got %+v", *l)
	}
	if who := LinkHolder(l); who.Channel != ChannelLink || who.AnsweredBy() != "link:bob@example.com" {
		t.Fatalf("the link holds %+v, want link:bob@example.com", who)
	}
}

// TestPersonalLinkRoundTrip: a personal link reads back whole, the longest identity and group
// included, and its holder is the channel identity with the group vouched for and no other.
func TestPersonalLinkRoundTrip(t *testing.T) {
	secret := []byte("s3cret")
	issued := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	long := string(bytes.Repeat([]byte("𝔞"), MaxPersonalIDChars))
	for _, l := range []Link{
		{Key: NewKey(issued), IssuedAt: issued, ExpiresAt: issued.Add(PersonalLinkTTL), As: "slack:U1", Group: "S1"},
		{Key: NewKey(issued), IssuedAt: issued, ExpiresAt: issued.Add(PersonalLinkTTL), As: "teams:" + long, Group: string(bytes.Repeat([]byte("𝔞"), MaxPersonalIDChars))},
	} {
		tok := signLink(secret, l)
		got, err := parseLink(secret, tok)
		if err != nil {
			t.Fatalf("a %d-character personal token is refused: %v", len(tok), err)
		}
		if *got != l {
			t.Fatalf("got %+v, want %+v", *got, l)
		}
	}
	who := LinkHolder(&Link{As: "slack:U1", Group: "S1"})
	if who.Channel != ChannelSlack || who.ID != "U1" || who.AnsweredBy() != "U1" {
		t.Fatalf("holder %+v", who)
	}
	if in, _ := who.MemberOf("S1"); !in {
		t.Fatal("the group vouched for at mint is not the holder's")
	}
	if in, _ := who.MemberOf("S2"); in {
		t.Fatal("a group not vouched for is the holder's")
	}
	if LinkHolder(&Link{As: "token:ops"}).Channel != "" {
		t.Fatal("a personal link of a channel without personal links holds somebody")
	}
}

// TestPersonalIdentityCannotBeGrafted: a link the bot signed for a recipient, minted by a token,
// with a personal identity appended to its MintedBy (or its MintedBy rewritten to look like
// one) is not a link the bot made: the signature covers every byte.
func TestPersonalIdentityCannotBeGrafted(t *testing.T) {
	secret := []byte("s3cret")
	issued := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tok := signLink(secret, Link{Key: "inq_abc", Recipient: "bob@example.com", IssuedAt: issued, MintedBy: "ops"})
	payloadB64, mac, _ := bytes.Cut([]byte(tok), []byte("."))
	payload, err := linkEncoding.DecodeString(string(payloadB64))
	if err != nil {
		t.Fatal(err)
	}
	for _, forged := range [][]byte{
		append(bytes.Clone(payload), "\x00slack:U1\x00"...),
		append(bytes.TrimSuffix(bytes.Clone(payload), []byte("ops")), "slack:U1"...),
	} {
		if _, err := parseLink(secret, linkEncoding.EncodeToString(forged)+"."+string(mac)); ErrorCode(err) != CodeNotFound {
			t.Errorf("payload %q under the original signature: %v, want not a link the bot made", forged, err)
		}
	}
}
