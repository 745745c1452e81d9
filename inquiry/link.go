package inquiry

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Answer links (the README's Answer in a browser): a link the bot signs lets whoever holds it
// answer one inquiry on the web page (package web), as one identity — the link's recipient, or
// "link" for the inquiry's general link. The rules live here: minting, checking and revoking a
// link, and the reasons a link is refused. The page only decodes a form, calls the service with the
// token and renders what came back.
//
// A link is stateless: its token carries the inquiry's key, the recipient, when it was issued
// and until when it works, signed with HMAC-SHA256 under the server's link secret. What is
// stored is only what undoes a link — a revocation (the inquiry, the recipient, when): a link
// issued at or before it no longer works. A link stops working anyway once its inquiry is no
// longer pending, since answering is the service's conditional update.

// Link limits.
const (
	// DefaultLinkTTL is how long a minted link works when neither its inquiry's expiry nor the
	// request says less: a link in a mailbox should not open a question forever.
	DefaultLinkTTL = 7 * 24 * time.Hour
	// MaxRecipientChars bounds a recipient: an e-mail address is at most 254 characters.
	MaxRecipientChars = 254
	// MaxLinkTokenChars bounds a token read from a URL before it is decoded: the longest token
	// signLink makes, of a key as long as NewKey's and a recipient of MaxRecipientChars characters
	// of four bytes each (an address may be UTF-8), so that no link the bot mints is refused.
	MaxLinkTokenChars = (linkPayloadMaxBytes*8+5)/6 + len(".") + (linkMACBytes*8+5)/6
	// GeneralLink is the identity of an answer through an inquiry's general link (links.answer),
	// which names no recipient.
	GeneralLink = "link"
	// linkPrefix starts the identity of an answer through a recipient's link: "link:alice@…".
	linkPrefix = "link:"
	// LinkPath is where the page of a token is served: LinkPath + token.
	LinkPath = "/a/"
)

// linkMACBytes is how much of the HMAC a token carries: 160 bits, beyond any guessing.
const linkMACBytes = 20

// linkPayloadMaxBytes is the longest payload signLink signs: the key, a NUL, the recipient, a NUL,
// the two times of eight bytes, and the name of the token that minted it (letters and digits of
// up to four bytes each).
// A personal link (PersonalLink) adds a NUL, the channel identity it answers as and, after
// another NUL, the group it was admitted through, each of at most MaxPersonalIDChars characters.
const linkPayloadMaxBytes = KeyChars + 1 + utf8.UTFMax*MaxRecipientChars + 1 + 16 + utf8.UTFMax*MaxTokenNameChars +
	1 + len(ChannelTeams) + 1 + 2*utf8.UTFMax*MaxPersonalIDChars + 1

// Link is what a checked token says: which inquiry it answers, for whom, when it was issued and
// until when it works.
type Link struct {
	Key       string    // the inquiry's key
	Recipient string    // "" for the general link
	IssuedAt  time.Time // a revocation undoes the links issued at or before it
	ExpiresAt time.Time // zero: with the inquiry
	// MintedBy is the token that minted the link for a question that names who may answer it,
	// vouching for its recipient (MayAnswer); "" for the server's own links and the general one.
	MintedBy string
	// As is the channel identity a personal link answers as, "slack:U123" or "teams:<aad id>"
	// (PersonalLink); "" for every other link. It is a field of its own, not MintedBy, because a
	// token's name may hold a colon.
	As string
	// Group is the channel's group (a Slack user group) through which MayAnswer admitted As when
	// the link was minted: the page cannot read a group's members, so the link carries the
	// vouch, until it expires.
	Group string
}

// Who is the identity an answer through the link is recorded as: "link:<recipient>",
// GeneralLink, or for a personal link the channel identity's own (a Slack user id as a click in
// Slack records it).
func (l *Link) Who() string {
	if l.As != "" {
		return LinkHolder(l).AnsweredBy()
	}
	if l.Recipient == "" {
		return GeneralLink
	}
	return linkPrefix + l.Recipient
}

// Links are the links a pending inquiry's response carries.
type Links struct {
	Answer string `json:"answer"`
}

// LinkRequest is the body of POST /v1/inquiries/{key}/links.
type LinkRequest struct {
	Recipient string `json:"recipient"`
	// ExpiresIn (a Go duration) makes the link stop working earlier than its inquiry.
	ExpiresIn string `json:"expires_in,omitempty"`
}

// MintedLink is a link minted for one recipient.
type MintedLink struct {
	URL       string    `json:"url"`
	Recipient string    `json:"recipient"`
	ExpiresAt time.Time `json:"expires_at"`
}

// LinkRevocation is what revoking a recipient's links recorded.
type LinkRevocation struct {
	InquiryKey string    `json:"inquiry_key"`
	Recipient  string    `json:"recipient"` // "" for the general link
	RevokedAt  time.Time `json:"revoked_at"`
}

// CodeGone is a link that worked once and works no more: it expired or was revoked. The page
// answers it with 410; the API never returns it.
const CodeGone Code = "gone"

// CheckRecipient returns a recipient as links carry it — a bare e-mail address, lower-cased —
// or the refusal in one sentence.
func CheckRecipient(s string) (string, error) {
	r := strings.TrimSpace(s)
	switch {
	case r == "":
		return "", FieldErrorf(CodeBadRequest, "recipient", "recipient is required: name the person the link is for by their e-mail address, such as alice@example.com")
	case utf8.RuneCountInString(r) > MaxRecipientChars:
		return "", FieldErrorf(CodeBadRequest, "recipient", "recipient is %d characters long but may have at most %d: give a bare e-mail address such as alice@example.com", utf8.RuneCountInString(r), MaxRecipientChars)
	}
	if !bareAddress(r) {
		return "", FieldErrorf(CodeBadRequest, "recipient", "recipient %q is not a bare e-mail address: give one such as alice@example.com, without a name or brackets", OneLine(r, 80))
	}
	return strings.ToLower(r), nil
}

// linkSecret is the key links are signed with, or the refusal when the server has none.
func (s *Service) linkSecret() ([]byte, error) {
	if len(s.LinkSecret) == 0 {
		return nil, Unavailable("answer links are off on this server: it has no link secret (bot serve makes one on its first start); answer through Slack or the API")
	}
	return s.LinkSecret, nil
}

// linkMAC is the signature of a token's payload.
func linkMAC(secret, payload []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("inquiry-bot link v1\x00"))
	m.Write(payload)
	return m.Sum(nil)[:linkMACBytes]
}

var linkEncoding = base64.RawURLEncoding.Strict() // one spelling per token: no stray padding bits

// signLink makes the token of l: payload "." signature, both base64url, so it sits in a URL
// path as it is.
func signLink(secret []byte, l Link) string {
	var p bytes.Buffer
	p.WriteString(l.Key)
	p.WriteByte(0)
	p.WriteString(l.Recipient)
	p.WriteByte(0)
	var n [16]byte
	binary.BigEndian.PutUint64(n[:8], uint64(l.IssuedAt.UnixMicro()))
	var exp int64
	if !l.ExpiresAt.IsZero() {
		exp = l.ExpiresAt.UnixMicro()
	}
	binary.BigEndian.PutUint64(n[8:], uint64(exp))
	p.Write(n[:])
	p.WriteString(l.MintedBy) // after the times, so that the links signed before it read as minted by nobody
	if l.As != "" {
		// After a NUL, which no token name holds, so that links signed before it read as they did.
		p.WriteByte(0)
		p.WriteString(l.As)
		p.WriteByte(0)
		p.WriteString(l.Group)
	}
	return linkEncoding.EncodeToString(p.Bytes()) + "." + linkEncoding.EncodeToString(linkMAC(secret, p.Bytes()))
}

// errForged is the refusal of a token the bot did not sign (or that was altered).
func errForged() *Error {
	return Errorf(CodeNotFound, "this link is not one the bot made, or it was altered: open the link exactly as it was sent to you, or ask whoever sent it for a new one")
}

// parseLink checks token's signature in constant time and reads it.
func parseLink(secret []byte, token string) (*Link, error) {
	if len(token) > MaxLinkTokenChars || !linkSpelling(token) {
		return nil, errForged()
	}
	payloadB64, macB64, ok := strings.Cut(token, ".")
	if !ok {
		return nil, errForged()
	}
	payload, err1 := linkEncoding.DecodeString(payloadB64)
	mac, err2 := linkEncoding.DecodeString(macB64)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, linkMAC(secret, payload)) {
		return nil, errForged()
	}
	key, rest, ok1 := bytes.Cut(payload, []byte{0})
	recipient, times, ok2 := bytes.Cut(rest, []byte{0})
	if !ok1 || !ok2 || len(times) < 16 {
		return nil, errForged() // signed by us, so never; but never trusted either
	}
	mintedBy, personal, isPersonal := bytes.Cut(times[16:], []byte{0})
	l := &Link{Key: string(key), Recipient: string(recipient), MintedBy: string(mintedBy),
		IssuedAt: time.UnixMicro(int64(binary.BigEndian.Uint64(times[:8]))).UTC()}
	if isPersonal {
		as, group, ok := bytes.Cut(personal, []byte{0})
		if !ok || LinkHolder(&Link{As: string(as)}).Channel == "" {
			return nil, errForged() // signed by us, so never
		}
		l.As, l.Group = string(as), string(group)
	}
	if exp := int64(binary.BigEndian.Uint64(times[8:])); exp != 0 {
		l.ExpiresAt = time.UnixMicro(exp).UTC()
	}
	return l, nil
}

// linkSpelling reports whether token is spelled as signLink spells one: base64url and one dot.
// The decoder skips CR and LF, so without this a link would answer under many spellings, each
// with a rate limit of its own.
func linkSpelling(token string) bool {
	dots := 0
	for i := 0; i < len(token); i++ {
		switch c := token[i]; {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
		case c == '.':
			dots++
		default:
			return false
		}
	}
	return dots == 1
}

// linkURL is where the page of token is: under PublicURL, or relative when it is unset.
func (s *Service) linkURL(token string) string {
	return strings.TrimRight(s.PublicURL, "/") + LinkPath + token
}

// linkExpiry is the end a link issued at now carries of its own: ttl from now (when positive),
// within DefaultLinkTTL. The inquiry's expiry is no part of it: a link stops with its inquiry
// whenever that expires (OpenLink reads the inquiry), so an extension of the deadline moves the
// end of every link already handed out, mailed ones included.
func linkExpiry(now time.Time, ttl time.Duration) time.Time {
	if ttl <= 0 || ttl > DefaultLinkTTL {
		ttl = DefaultLinkTTL
	}
	return now.Add(ttl)
}

// worksUntil is when a link whose own end is exp works until as rec stands now: exp, or rec's
// expiry when that comes first.
func worksUntil(rec *Record, exp time.Time) time.Time {
	if rec.ExpiresAt != nil && rec.ExpiresAt.Before(exp) {
		return *rec.ExpiresAt
	}
	return exp
}

// generalLink is the inquiry's general link. It is the same on every read (issued when the
// inquiry was created, until its expiry, within DefaultLinkTTL of its creation), so a response
// read twice carries one link and a revocation of it holds.
func generalLink(rec *Record) Link {
	return Link{Key: rec.Key, IssuedAt: rec.CreatedAt, ExpiresAt: linkExpiry(rec.CreatedAt, 0)}
}

// AnswerLinks returns the links a response carries for rec: its general answer link while it is
// pending, nil otherwise or when links are off. A question that names who may answer it has no
// general link (NamesAnswerers): a link that answers as anybody would be anybody's way around
// the names, the asker's first, since every response carries it.
func (s *Service) AnswerLinks(rec *Record) *Links {
	if rec == nil || rec.Status != StatusPending || len(s.LinkSecret) == 0 || NamesAnswerers(rec) {
		return nil
	}
	return &Links{Answer: s.linkURL(signLink(s.LinkSecret, generalLink(rec)))}
}

// mayManageLinks refuses a caller that neither asked rec nor is an admin: a link answers the
// inquiry, so it is the asker's to hand out (to a person, never to answer with itself).
func mayManageLinks(ctx context.Context, rec *Record) error {
	tok := CallerFrom(ctx)
	if tok == nil {
		return Errorf(CodeUnauthenticated, "no caller: minting or revoking a link needs the asker's token or an admin token; send Authorization: Bearer <token>")
	}
	if tok.IsAdmin() {
		return nil
	}
	if err := Visible(rec, tok.Namespace, false); err != nil {
		return err
	}
	if !tok.Has(ScopeAsk) || rec.AskedBy != tok.Name {
		return Errorf(CodeForbidden, "token %q did not ask inquiry %s: only the token that asked it, or an admin token, mints and revokes its links", tok.Name, rec.Key)
	}
	return nil
}

// mayMintLink decides whether the caller in ctx may mint a link of rec, and returns the name
// the link is minted by. For a question that names nobody, the asker or an admin mints it (a
// link is the asker's to hand to a person). For one that names who may answer, a link answers
// in place of the people named, so only a token that may answer it itself (MayAnswer) and did
// not ask it mints one, vouching for its recipient: the asker never holds a link that answers
// its own question.
func mayMintLink(ctx context.Context, rec *Record) (mintedBy string, err error) {
	if !NamesAnswerers(rec) {
		return "", mayManageLinks(ctx, rec)
	}
	tok := CallerFrom(ctx)
	if tok == nil {
		return "", mayManageLinks(ctx, rec)
	}
	if err := Visible(rec, tok.Namespace, tok.SeesAll()); err != nil {
		return "", err
	}
	if rec.AskedBy != "" && tok.Name == rec.AskedBy {
		return "", Errorf(CodeForbidden, "token %q asked inquiry %s, which names who may answer it, and an asker never holds a link that answers its own question: the people it names answer in Slack, through the links the bot mails them, or with tokens of their own", tok.Name, rec.Key)
	}
	if p := MayAnswer(rec, TokenHolder(tok)); !p.Allowed {
		return "", Errorf(CodeForbidden, "inquiry %s names who may answer it, so only a token that may answer it mints its links, and token %q may not (%s): ask someone who may answer it to mint the link", rec.Key, tok.Name, strings.TrimSuffix(p.Err().Error(), "."))
	}
	return tok.Name, nil
}

// MintLink mints a link of one recipient for the pending inquiry with key: an answer through it
// is recorded as "link:<recipient>" (via web). It works until the inquiry's expiry, or earlier
// (req.ExpiresIn, at most DefaultLinkTTL), and until the recipient's links are revoked. Who may
// mint it is mayMintLink's.
func (s *Service) MintLink(ctx context.Context, key string, req LinkRequest) (*MintedLink, error) {
	secret, err := s.linkSecret()
	if err != nil {
		return nil, err
	}
	rec, err := s.Store.Inquiry(ctx, key)
	if err != nil {
		return nil, err
	}
	mintedBy, err := mayMintLink(ctx, rec)
	if err != nil {
		return nil, err
	}
	recipient, err := CheckRecipient(req.Recipient)
	if err != nil {
		return nil, err
	}
	var ttl time.Duration
	if req.ExpiresIn != "" {
		ttl, err = time.ParseDuration(req.ExpiresIn)
		if err != nil || ttl <= 0 {
			return nil, FieldErrorf(CodeBadRequest, "expires_in", "expires_in %q is not a positive Go duration: use one such as 24h, or leave it out for the inquiry's expiry", OneLine(req.ExpiresIn, 40))
		}
		if ttl > DefaultLinkTTL {
			return nil, FieldErrorf(CodeBadRequest, "expires_in", "expires_in %s is longer than the %s a link may work: give at most 168h, or leave it out for the inquiry's expiry (within 168h)", ttl, DefaultLinkTTL)
		}
	}
	if rec, err = s.current(ctx, rec); err != nil {
		return nil, err
	}
	if rec.Status != StatusPending {
		return nil, AlreadyResolved(rec)
	}
	return s.mint(secret, rec, recipient, ttl, mintedBy), nil
}

// LinkFor mints the link of recipient for rec, a pending inquiry, as MintLink does but for the
// server itself: a transport that puts the question to named people (e-mail) sends each their
// own link, so that each answer names its person. It checks the recipient, not a caller.
func (s *Service) LinkFor(rec *Record, recipient string) (*MintedLink, error) {
	secret, err := s.linkSecret()
	if err != nil {
		return nil, err
	}
	if recipient, err = CheckRecipient(recipient); err != nil {
		return nil, err
	}
	if rec.Status != StatusPending {
		return nil, AlreadyResolved(rec)
	}
	return s.mint(secret, rec, recipient, 0, ""), nil
}

// mint signs the link of recipient for rec, issued now, until linkExpiry, minted by the token
// mintedBy ("" for the server's own).
func (s *Service) mint(secret []byte, rec *Record, recipient string, ttl time.Duration, mintedBy string) *MintedLink {
	now := s.Clock()
	l := Link{Key: rec.Key, Recipient: recipient, IssuedAt: now, ExpiresAt: linkExpiry(now, ttl), MintedBy: mintedBy}
	return &MintedLink{URL: s.linkURL(signLink(secret, l)), Recipient: recipient, ExpiresAt: worksUntil(rec, l.ExpiresAt)}
}

// RevokeLinks revokes every link of recipient for the inquiry with key issued until now; the
// recipient GeneralLink ("link") revokes its general link (links.answer) for good, and a channel
// identity ("slack:U1", "teams:<aad id>") the personal links of that person, which one that got
// out would otherwise answer as them until it expires. A link minted afterwards works.
func (s *Service) RevokeLinks(ctx context.Context, key, recipient string) (*LinkRevocation, error) {
	rec, err := s.Store.Inquiry(ctx, key)
	if err != nil {
		return nil, err
	}
	if err := mayManageLinks(ctx, rec); err != nil {
		return nil, err
	}
	who := ""
	if p, ok := personalRevocation(recipient); ok {
		who = p
	} else if strings.TrimSpace(recipient) != GeneralLink && strings.TrimSpace(recipient) != "answer" {
		if who, err = CheckRecipient(recipient); err != nil {
			return nil, err
		}
	}
	now := s.Clock()
	if err := s.Store.RevokeLinks(ctx, rec.Key, who, now); err != nil {
		return nil, err
	}
	return &LinkRevocation{InquiryKey: rec.Key, Recipient: who, RevokedAt: now}, nil
}

// OpenLink checks token and returns the inquiry it answers, as it stands now, with the link.
// A refusal says why, in one sentence: not a link of the bot (CodeNotFound), revoked
// (CodeGone, without the record), its inquiry no longer pending (CodeAlreadyResolved, with the
// record, so the page can show what happened and who answered), or the link expired before its
// inquiry (CodeGone).
func (s *Service) OpenLink(ctx context.Context, token string) (*Record, *Link, error) {
	secret, err := s.linkSecret()
	if err != nil {
		return nil, nil, err
	}
	l, err := parseLink(secret, token)
	if err != nil {
		return nil, nil, err
	}
	rec, err := s.Store.Inquiry(ctx, l.Key)
	if ErrorCode(err) == CodeNotFound {
		return nil, nil, &Error{Code: CodeNotFound, Err: err, Message: "the question of this link is gone (deleted after it was resolved): there is nothing left to answer"}
	}
	if err != nil {
		return nil, nil, err
	}
	// A revoked link is told nothing more, not even what was decided.
	revoked, ok, err := s.Store.LinksRevokedAt(ctx, rec.Key, l.revocable())
	if err != nil {
		return nil, nil, err
	}
	if ok && !l.IssuedAt.After(revoked) {
		return nil, l, Errorf(CodeGone, "this link was revoked at %s by whoever asked the question: ask them for a new link", revoked.UTC().Format("2006-01-02 15:04 MST"))
	}
	if rec, err = s.current(ctx, rec); err != nil {
		return nil, nil, err
	}
	if rec.Status != StatusPending {
		return rec, l, AlreadyResolved(rec)
	}
	if !l.ExpiresAt.IsZero() && !s.Clock().Before(l.ExpiresAt) {
		return rec, l, Errorf(CodeGone, "this link expired at %s: ask whoever sent it for a new one", l.ExpiresAt.UTC().Format("2006-01-02 15:04 MST"))
	}
	p := MayAnswer(rec, LinkHolder(l))
	if !p.Allowed {
		return nil, l, p.Err() // the page shows no question its link may not answer
	}
	if !p.Named && l.MintedBy != "" && NamesAnswerers(rec) {
		// Vouched for by the token that minted it: only while that token holds.
		if err := s.stillHeld(ctx, l.MintedBy); err != nil {
			return nil, l, err
		}
	}
	return rec, l, nil
}

// stillHeld refuses a link vouched for by the token name once that token is revoked or gone: a
// revoked token loses what it handed out in place of the people a question names.
func (s *Service) stillHeld(ctx context.Context, name string) error {
	tokens, err := s.Store.ListTokens(ctx)
	if err != nil {
		return err
	}
	for _, t := range tokens {
		if t.Name == name && t.RevokedAt == nil {
			return nil
		}
	}
	return Errorf(CodeGone, "the token that made this link (%s) was revoked, and this question names who may answer it: ask one of them for a new link", name)
}

// LinkSigned reports whether token is a link the bot signed, by its signature alone (nothing is
// read, nothing else is judged): an edge that keeps a limit per link keeps none for a forgery,
// so that forgeries cannot crowd the real links' limits out.
func (s *Service) LinkSigned(token string) bool {
	if len(s.LinkSecret) == 0 {
		return false
	}
	_, err := parseLink(s.LinkSecret, token)
	return err == nil
}

// CheckLinkReply is what the page's confirmation step shows: the reply read as the answer it
// stands for (CheckAnswer), refused as an answer through token would be. Prose over the one
// ceiling is refused, not cut: the person is there to shorten it.
func (s *Service) CheckLinkReply(ctx context.Context, token string, reply Reply) (*Record, Answer, error) {
	rec, _, err := s.OpenLink(ctx, token)
	if err != nil {
		return rec, Answer{}, err
	}
	if err := checkWords(reply.Text); err != nil {
		return rec, Answer{}, err
	}
	a, err := CheckAnswer(&rec.Inquiry, reply)
	return rec, a, err
}

// checkWords refuses prose over the ceiling from a person who can still shorten it.
func checkWords(text string) error {
	if n := utf8.RuneCountInString(text); n > DefaultAnswerChars {
		return FieldErrorf(CodeInvalidAnswer, "text", "your answer is %d characters long but may have at most %d: shorten it and send it again", n, DefaultAnswerChars)
	}
	return nil
}

// AnswerByLink records reply through token as the link's identity (Link.Who), via web: a vote
// where the inquiry needs several people, so a quorum counts it as one person's. Every rule of
// an answer applies (CheckAnswer, a reason, four eyes: requested_by may name "link:<recipient>"),
// and the first answer wins.
func (s *Service) AnswerByLink(ctx context.Context, token string, reply Reply) (*Record, error) {
	rec, l, err := s.OpenLink(ctx, token)
	if err != nil {
		return rec, err
	}
	if err := checkWords(reply.Text); err != nil {
		return rec, err
	}
	return s.answer(WithVia(ctx, ViaWeb), l.Key, reply, LinkHolder(l), SourcePerson)
}

// FormToken is the token a page's form carries for link token: bound to that very link, so a
// form of another link (or another site) cannot post an answer through it.
func (s *Service) FormToken(token string) string {
	if len(s.LinkSecret) == 0 {
		return ""
	}
	m := hmac.New(sha256.New, s.LinkSecret)
	m.Write([]byte("inquiry-bot form v1\x00"))
	m.Write([]byte(token))
	return linkEncoding.EncodeToString(m.Sum(nil)[:16])
}

// CheckForm refuses a form posted through link token unless it came from that link's page: its
// inquiry is the link's (key, as the page put it in the form) and its form token is the one
// FormToken gives token.
func (s *Service) CheckForm(token, form, key string) error {
	if secret, err := s.linkSecret(); err != nil {
		return err
	} else if l, err := parseLink(secret, token); err != nil {
		return err
	} else if key != l.Key {
		return Errorf(CodeForbidden, "this form answers another question (%s) than the link's (%s): open the link of the question you mean and answer on its page", OneLine(key, 40), l.Key)
	}
	want := s.FormToken(token)
	if want == "" || !hmac.Equal([]byte(want), []byte(form)) {
		return Errorf(CodeForbidden, "this form does not belong to this link (it came from another page or another link): open the link you were sent and answer on its page")
	}
	return nil
}

// revocable is who a revocation of the link names: its recipient, or a personal link's channel
// identity (in CanonID's form, as personalRevocation records it), so that revoking the general
// link ("") leaves personal links be.
func (l *Link) revocable() string {
	if l.As != "" {
		return CanonID(l.As)
	}
	return l.Recipient
}

// personalRevocation reads recipient as the channel identity of a person's personal links,
// "slack:U1" or "teams:<aad id>", in CanonID's form so that its spelling does not matter; ok is
// false for anything else (an e-mail address holds an "@", these never do).
func personalRevocation(recipient string) (string, bool) {
	r := CanonID(recipient)
	ch, id, ok := strings.Cut(r, ":")
	if !ok || id == "" || strings.Contains(id, "@") || !personalChannel(Channel(ch)) ||
		utf8.RuneCountInString(id) > MaxPersonalIDChars {
		return "", false
	}
	return r, true
}

// String shows a link without its token, for a log line.
func (l *Link) String() string {
	if l.As != "" {
		return fmt.Sprintf("personal link of %s for %s", l.Key, l.As)
	}
	return fmt.Sprintf("link of %s for %q", l.Key, l.Recipient)
}

// BrowserLink is the answer link a message everybody in a place sees (a Slack channel's) may
// offer: the general link, absolute under PublicURL, of a pending inquiry that names no
// answerers. Where answerers are named, a link everybody there holds would let anybody
// answer, so none is offered ("" then, as without PublicURL or links); nor where the general
// link may not answer (namesSomebody). The place offers a button instead whose click gives the
// clicker alone a link of their own (PersonalLink).
func (s *Service) BrowserLink(rec *Record) string {
	if s.PublicURL == "" || NamesAnswerers(rec) {
		return "" // named answerers, or an inquiry the general link may not answer
	}
	if l := s.AnswerLinks(rec); l != nil {
		return l.Answer
	}
	return ""
}
