package inquiry

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Personal links: a message everybody in a channel sees cannot carry a link to the answer page
// of a question that names who may answer it (BrowserLink), since whoever holds such a link
// answers through it. So the place offers a button instead, and its click — verified by the
// channel as a click on an answer is — gives the clicker alone a link of their own. An answer
// or a vote through it is recorded as the same person their click would be (answered_by the
// same, via web), and MayAnswer judges it as that channel identity: requested_by, the question's
// answerers and a quorum's distinct people all apply, so nobody votes twice, once in the
// channel and once through their link.

// Personal link limits.
const (
	// PersonalLinkTTL is how long a personal link works at most: the person is at their
	// channel's message and opens it now, and a click mints another. It is short because a link
	// admitted through a group keeps that admission until it ends.
	PersonalLinkTTL = 24 * time.Hour
	// MaxPersonalIDChars bounds the channel identity and the group a personal link carries:
	// Slack's user and group ids are a dozen characters, an Entra object id 36.
	MaxPersonalIDChars = 254
)

// personalChannel reports whether ch is a channel whose people get personal links: one whose
// edge verifies who clicks (a signed Slack interaction, a Teams activity the Bot Framework
// signed).
func personalChannel(ch Channel) bool { return ch == ChannelSlack || ch == ChannelTeams }

// PersonalLink mints a link to the answer page of the pending inquiry with key for who, a person
// their channel's edge verified (Slack, Teams), absolute under PublicURL, working for
// PersonalLinkTTL at most and never past the inquiry. It is refused, in MayAnswer's own
// sentence, unless who may answer the inquiry; through it who answers as themselves, as if
// they had clicked. A person MayAnswer admitted through a group stays admitted through the
// link until it expires: the page cannot read the group's members again.
func (s *Service) PersonalLink(ctx context.Context, key string, who Identity) (string, error) {
	if !personalChannel(who.Channel) || who.ID == "" || who.Link != nil {
		return "", Errorf(CodeForbidden, "a personal link is only for a person Slack or Teams verified: open the question in Slack or Teams and click its button there")
	}
	if strings.ContainsRune(who.ID, 0) || !utf8.ValidString(who.ID) || utf8.RuneCountInString(who.ID) > MaxPersonalIDChars {
		return "", Errorf(CodeBadRequest, "the user id %q cannot carry a link: it must be at most %d characters of UTF-8 without NUL, as Slack's and Teams' ids are", OneLine(who.ID, 40), MaxPersonalIDChars)
	}
	secret, err := s.linkSecret()
	if err != nil {
		return "", err
	}
	if s.PublicURL == "" {
		return "", Unavailable("this server has no public address for its answer page (BOT_PUBLIC_URL is unset), so it cannot give you a link: answer in the channel, or ask the operator to set BOT_PUBLIC_URL")
	}
	rec, err := s.Store.Inquiry(ctx, key)
	if err != nil {
		return "", err
	}
	if rec, err = s.current(ctx, rec); err != nil {
		return "", err
	}
	if rec.Status != StatusPending {
		return "", AlreadyResolved(rec)
	}
	p := MayAnswer(rec, who)
	if !p.Allowed {
		return "", p.Err()
	}
	now := s.Clock()
	l := Link{Key: rec.Key, IssuedAt: now, ExpiresAt: linkExpiry(now, PersonalLinkTTL),
		As: who.String(), Group: admittedThrough(rec, who, p)}
	return s.linkURL(signLink(secret, l)), nil
}

// admittedThrough is the group of rec's answerers on who's channel through which MayAnswer
// admitted who (p), read once more: "" when who is named themselves, or when the channel names
// no answerers. A group whose members cannot be read now vouches for nobody.
func admittedThrough(rec *Record, who Identity, p Permission) string {
	if !p.Named || who.MemberOf == nil {
		return ""
	}
	var ids []string
	switch who.Channel {
	case ChannelSlack:
		ids = Answerers(rec)
	case ChannelTeams:
		ids = TeamsAnswerers(rec)
	}
	if slices.ContainsFunc(ids, who.named) {
		return ""
	}
	for _, id := range ids {
		if in, err := who.MemberOf(id); err == nil && in {
			return id
		}
	}
	return ""
}

// OffersPersonalLinks reports whether a shared message of rec offers each person a link of
// their own (a button whose click calls PersonalLink) in place of BrowserLink's: rec is pending
// and names who may answer it, and this server has links and a public address.
func (s *Service) OffersPersonalLinks(rec *Record) bool {
	return rec != nil && rec.Status == StatusPending && NamesAnswerers(rec) &&
		s.PublicURL != "" && len(s.LinkSecret) > 0
}
