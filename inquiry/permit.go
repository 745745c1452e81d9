package inquiry

import (
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	unorm "golang.org/x/text/unicode/norm"
)

// Who may answer (the one rule, for every channel). An edge — the API, Slack, an answer link,
// e-mail, the CLI, MCP, and every channel to come — hands the service the Identity of whoever
// gives an answer, as the edge saw it; MayAnswer alone decides whether that identity may answer
// or vote. No edge decides it, and an edge that cannot name who answers cannot answer.

// Channel is where an identity was seen: its prefix in Identity.String.
type Channel string

// The channels an identity comes from.
const (
	ChannelSlack Channel = "slack" // a Slack user id, U… or W…
	ChannelToken Channel = "token" // an API token's name: a person's tool, the CLI
	ChannelLink  Channel = "link"  // an answer link: its recipient, or none for the general link
)

// Identity is whoever gives an answer, as their channel saw them.
type Identity struct {
	Channel Channel
	// ID is the Slack user id, the token's name, or the link's recipient ("" for the general
	// link).
	ID string
	// Token is the token a ChannelToken identity authenticated with.
	Token *Token
	// Link is the verified link of a ChannelLink identity.
	Link *Link
	// MemberOf reports whether the identity is a member of the channel's group id (a Slack user
	// group): false, nil for an id that is no group of the channel; an error leaves the group
	// unchecked, and nobody is admitted through it. Nil where the channel has no groups.
	MemberOf func(group string) (bool, error)
}

// SlackUser is the identity of the Slack user user; memberOf reads the members of a user group.
func SlackUser(user string, memberOf func(group string) (bool, error)) Identity {
	return Identity{Channel: ChannelSlack, ID: user, MemberOf: memberOf}
}

// TokenHolder is the identity of whoever holds tok: the API, the CLI and MCP answer as it.
func TokenHolder(tok *Token) Identity {
	if tok == nil {
		return Identity{}
	}
	return Identity{Channel: ChannelToken, ID: tok.Name, Token: tok}
}

// LinkHolder is the identity of whoever holds the verified link l: its recipient, or anybody
// for the general link. A personal link (l.As) is its person as their channel knows them, so
// that MayAnswer judges it as it judges their click and records it as the same person; the
// group it was admitted through at mint (l.Group) counts as theirs, since the page cannot
// read a group's members. An As of no channel that has personal links is nobody.
func LinkHolder(l *Link) Identity {
	if l == nil {
		return Identity{}
	}
	if l.As == "" {
		return Identity{Channel: ChannelLink, ID: l.Recipient, Link: l}
	}
	ch, id, _ := strings.Cut(l.As, ":")
	if !personalChannel(Channel(ch)) || id == "" {
		return Identity{}
	}
	group := l.Group
	return Identity{Channel: Channel(ch), ID: id, Link: l,
		MemberOf: func(g string) (bool, error) { return group != "" && g == group, nil }}
}

// String is the identity with its channel: "slack:U1", "token:ops", "link:alice@example.com",
// or "link" for the general link.
func (id Identity) String() string {
	switch {
	case id.Channel == "":
		return ""
	case id.Channel == ChannelLink && id.ID == "":
		return GeneralLink
	}
	return string(id.Channel) + ":" + id.ID
}

// AnsweredBy is how an answer and a vote record the identity (answered_by, a vote's by): a
// Slack user id or a token's name as they are, a link as "link:<recipient>" or "link".
func (id Identity) AnsweredBy() string {
	if id.Channel == ChannelLink {
		return id.String()
	}
	return id.ID
}

// named reports whether id is the identity that entry names, compared in the one canonical form
// (CanonID). An entry names an identity by its id alone ("U1", "ops", "alice@example.com"), or
// with its channel ("slack:U1", "token:ops", "link:alice@example.com"; "email:" names a link's
// recipient too, since every mailed answer comes through the recipient's link).
func (id Identity) named(entry string) bool {
	if id.ID == "" {
		return false
	}
	e, me := CanonID(entry), CanonID(id.ID)
	if e == "" {
		return false
	}
	if e == me {
		return true
	}
	ch, rest, ok := strings.Cut(e, ":")
	if !ok || rest != me {
		return false
	}
	return Channel(ch) == id.Channel || (id.Channel == ChannelLink && ch == "email")
}

// CanonID is the one form in which identities are compared — requested_by entries, answerers,
// recipients: NFKC, blanks (and characters that look blank) trimmed at both ends, case folded.
// So "p0 ", a full-width "ｐ０" and "P0" all name the token p0.
func CanonID(s string) string {
	if isASCII(s) {
		return strings.ToLower(strings.TrimFunc(s, LooksBlank))
	}
	s = strings.TrimFunc(unorm.NFKC.String(s), LooksBlank)
	return cases.Fold().String(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// LooksBlank reports whether r shows as nothing or as a blank: white space, the characters
// Unicode says to ignore when they cannot be shown (Default_Ignorable_Code_Point: zero-width
// joiners, variation selectors, U+115F and U+3164, the Hangul fillers) and the blank Braille
// pattern U+2800. An id made only of these looks empty, and one beside another looks the same.
func LooksBlank(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) || r == '\u2800'
}

// Refusal is why an identity may not answer.
type Refusal string

// Refusals.
const (
	RefusedNobody    Refusal = "nobody"       // the edge named nobody
	RefusedScope     Refusal = "scope"        // a token without the answer scope
	RefusedNamespace Refusal = "namespace"    // a token bound to another namespace
	RefusedAsker     Refusal = "asker"        // the token that asked it (or a link it holds)
	RefusedRequester Refusal = "requester"    // requested_by names them: four eyes
	RefusedNotNamed  Refusal = "not_named"    // the question names who may answer, not them
	RefusedAnybody   Refusal = "general_link" // the general link, where a person must be named
)

// Permission is what MayAnswer found for one identity and one inquiry.
type Permission struct {
	// Allowed: the identity may answer (or vote on) the inquiry.
	Allowed bool
	// Named: the inquiry names the identity among who may answer on its channel, themselves or
	// through a group of theirs. An inquiry that names nobody there allows everybody but names
	// nobody: it waits for no one in particular.
	Named bool
	// Refused says why not, when not Allowed.
	Refused Refusal
	// Answerers are who the channel's answerers are, for a refusal that names them.
	Answerers []string
	// Unchecked are the groups among the answerers whose members could not be read: the rule
	// failed closed on them, so the person may be one of them and should try again.
	Unchecked []string

	err *Error
}

// Err is the refusal as an *Error of code forbidden, in one sentence; nil when Allowed.
func (p Permission) Err() error {
	if p.Allowed {
		return nil
	}
	if p.err == nil {
		return Errorf(CodeForbidden, "nobody who may answer this question was named: answer it in Slack, through your own link, or with a token of your own")
	}
	return p.err
}

func refuse(r Refusal, format string, args ...any) Permission {
	e := Errorf(CodeForbidden, format, args...)
	e.Err = r
	return Permission{Refused: r, err: e}
}

// Error makes a Refusal the cause of the *Error it refuses with, so that an edge can say it in
// its own words (RefusalOf).
func (r Refusal) Error() string { return "refused: " + string(r) }

// RefusalOf returns why err, an answer's refusal by MayAnswer, refused it; "" for any other
// error.
func RefusalOf(err error) Refusal {
	r, _ := errors.AsType[Refusal](err)
	return r
}

// NamesAnswerers reports whether rec names who may answer it — requested_by, approvals above
// one, or answerers on any channel (slack.answerers and the steps of escalation taken, e-mail
// recipients). Such a question has no general link, and its links are minted only for the
// people it names or by a token that may answer it and did not ask it.
func NamesAnswerers(rec *Record) bool {
	return len(rec.RequestedBy) > 0 || rec.Quorum() > 1 || len(Answerers(rec)) > 0 ||
		(rec.Email != nil && len(rec.Email.To) > 0) || len(TeamsAnswerers(rec)) > 0
}

// MayAnswer is the one rule of who may answer rec, for every channel:
//   - an edge that names nobody answers nothing;
//   - a token needs the answer scope, and a token bound to a namespace answers only its own;
//   - whoever requested_by names never answers (four eyes), whatever their scopes;
//   - the token that asked never answers (an agent does not approve its own question), unless
//     it is an admin token, the operator's own;
//   - the general link answers only a question that names nobody, and a recipient's link of a
//     question that names who may answer works only for a recipient it names (its e-mail
//     recipients) or when a token that may answer it, not its asker, minted the link;
//   - on a channel where the question names answerers, only they (or members of a group named)
//     answer there; where it names none, anybody who sees it does.
func MayAnswer(rec *Record, who Identity) Permission {
	if p, refused := whoever(who); refused {
		return p
	}
	if who.Channel == ChannelToken {
		t := who.Token
		if !t.SeesAll() && rec.Namespace != t.Namespace {
			return refuse(RefusedNamespace, "token %q answers only namespace %q and inquiry %s belongs to another: answer it with a token of that namespace, or one created without --namespace", t.Name, t.Namespace, rec.Key)
		}
	}
	if Requested(rec, who) {
		return refuse(RefusedRequester, "%s asked for this approval (requested_by): someone else must give it", who.AnsweredBy())
	}
	switch who.Channel {
	case ChannelToken:
		if rec.AskedBy != "" && rec.AskedBy == who.Token.Name && !who.Token.IsAdmin() {
			return refuse(RefusedAsker, "token %q asked inquiry %s and may not answer it: an asker never answers its own question; a person answers it in Slack or with a token of their own", who.Token.Name, rec.Key)
		}
		return Permission{Allowed: true}
	case ChannelLink:
		return linkMayAnswer(rec, who)
	case ChannelMCP:
		return mcpMayAnswer(rec, who)
	}
	return channelAnswerers(rec, who)
}

// whoever is the part of MayAnswer that needs no inquiry: an identity that names nobody, or a
// token without the answer scope, may answer nothing. The service asks it before it reads the
// inquiry, so that such a caller learns nothing of which keys exist.
func whoever(who Identity) (Permission, bool) {
	switch {
	case who.Channel == "",
		who.Channel == ChannelToken && who.Token == nil,
		who.Channel == ChannelLink && who.Link == nil,
		who.Channel != ChannelLink && who.ID == "":
		return refuse(RefusedNobody, "this answer names nobody who gives it, so it was not taken: answer in Slack, through your own link, or with a token of your own"), true
	case who.Channel == ChannelToken && !who.Token.Has(ScopeAnswer):
		return refuse(RefusedScope, "token %q lacks the answer scope answering needs: answer with a token created with `bot token create --scope answer`", who.Token.Name), true
	}
	return Permission{}, false
}

// Requested reports whether rec's requested_by names who: they asked for the approval and may
// not give it.
func Requested(rec *Record, who Identity) bool { return rec.requests(who) }

// requests reports whether requested_by names who.
func (a Approval) requests(who Identity) bool { return slices.ContainsFunc(a.RequestedBy, who.named) }

// linkMayAnswer is MayAnswer for a verified link.
func linkMayAnswer(rec *Record, who Identity) Permission {
	if !NamesAnswerers(rec) {
		return Permission{Allowed: true}
	}
	l := who.Link
	if l.Recipient == "" {
		switch {
		case rec.Quorum() > 1:
			return refuse(RefusedAnybody, "this question needs the approvals of %d distinct people, and this link names nobody (anybody who holds it answers through it): ask whoever sent it for a link of your own", rec.Quorum())
		case len(rec.RequestedBy) > 0:
			return refuse(RefusedAnybody, "this approval must come from someone other than who requested it, and this link names nobody (anybody who holds it answers through it): ask whoever sent it for a link of your own")
		}
		return refuse(RefusedAnybody, "this question names who may answer it, and this link names nobody (anybody who holds it answers through it): ask whoever sent it for a link of your own")
	}
	if rec.Email != nil && slices.ContainsFunc(rec.Email.To, who.named) {
		return Permission{Allowed: true, Named: true}
	}
	if l.MintedBy != "" && l.MintedBy != rec.AskedBy && !Requested(rec, Identity{Channel: ChannelToken, ID: l.MintedBy}) {
		return Permission{Allowed: true} // vouched for by a token that may answer it
	}
	return refuse(RefusedNotNamed, "this question names who may answer it and %s is not one of them, nor was this link made by someone who may answer it: ask one of the people it names to answer, or for a link of your own from them", l.Recipient)
}

// channelAnswerers is MayAnswer on a channel with answerers of its own (Slack's: users, and
// groups whose members who.MemberOf reads). A channel the rule does not know answers nothing:
// a new channel names its answerers here before its people can answer.
func channelAnswerers(rec *Record, who Identity) Permission {
	var ids []string
	switch who.Channel {
	case ChannelSlack:
		ids = Answerers(rec) // widened by the escalation steps taken
	case ChannelTeams:
		if rec.Teams == nil {
			// Never shown in Teams: a Teams click naming its key came from no card of it, and
			// "names nobody there" must not read as "anybody there answers".
			return refuse(RefusedNotNamed, "this question was not asked in Teams, so it is not answered there; nothing was recorded: answer it where it was asked")
		}
		ids = TeamsAnswerers(rec)
	default:
		return refuse(RefusedNobody, "answers from %s are not taken by this server: answer in Slack, through your own link, or with a token of your own", who.Channel)
	}
	if len(ids) == 0 {
		return Permission{Allowed: true}
	}
	if slices.ContainsFunc(ids, who.named) {
		return Permission{Allowed: true, Named: true}
	}
	var unchecked []string
	if who.MemberOf != nil {
		for _, id := range ids {
			in, err := who.MemberOf(id)
			if err != nil {
				unchecked = append(unchecked, id)
				continue
			}
			if in {
				return Permission{Allowed: true, Named: true}
			}
		}
	}
	p := refuse(RefusedNotNamed, "only %s may answer this question; nothing was recorded", strings.Join(ids, ", "))
	if len(unchecked) > 0 {
		p = refuse(RefusedNotNamed, "only %s may answer this question, and the members of %s could not be read just now; nothing was recorded: try again in a minute", strings.Join(ids, ", "), strings.Join(unchecked, ", "))
	}
	p.Answerers, p.Unchecked = ids, unchecked
	return p
}

// MayHandBack is the rule for a run's caller that hands back an answer it did not give as a
// person (a resume by a token that may not answer, recorded source caller): never for a
// question that names who may answer it — its answer is theirs to give — nor by a token
// requested_by names.
func MayHandBack(rec *Record, tok *Token) error {
	who := TokenHolder(tok)
	if who.Channel == "" {
		return Errorf(CodeUnauthenticated, "no caller: a resume needs the run's token; send Authorization: Bearer <token>")
	}
	if Requested(rec, who) {
		return Errorf(CodeForbidden, "%s asked for the approval of inquiry %s (requested_by): someone else must give it; let them answer, then resume with it", tok.Name, rec.Key)
	}
	if n := rec.Quorum(); n > 1 {
		return Errorf(CodeForbidden, "inquiry %s needs %d people's approvals, which a run's caller cannot give for them: let them answer it, and resume with it once decided, or leave it out", rec.Key, n)
	}
	if NamesAnswerers(rec) {
		return Errorf(CodeForbidden, "inquiry %s names who may answer it, and a run's caller cannot answer for them: let one of them answer it, and resume with that answer once it is decided, or leave it out", rec.Key)
	}
	return nil
}
