package inquiry

import (
	"slices"
	"strings"
)

// Fan-out: an inquiry names the channels it goes to by their objects, is posted to each, and is
// settled on all of them by the first valid answer or the quorum counted across them. The
// transport (config.transport) comes first; it alone escalates.

// NamedChannels lists the channels req's objects name, in a fixed order: slack when its slack
// object names a channel, teams when it has a teams object, email when email.to names anybody.
func NamedChannels(req *AskRequest) []string {
	var out []string
	if req.Slack != nil && req.Slack.Channel != "" {
		out = append(out, TransportSlack)
	}
	if req.Teams != nil {
		out = append(out, TransportTeams)
	}
	if len(req.Email.Recipients()) > 0 {
		out = append(out, TransportEmail)
	}
	return out
}

// ChannelsFor is what an inquiry asked through transport posts to: the transport first, then
// every other channel named, each once. The inbox posts nowhere (nil).
func ChannelsFor(transport string, named []string) []string {
	if transport == "" || transport == TransportInbox {
		return nil
	}
	out := []string{transport}
	for _, ch := range named {
		if !slices.Contains(out, ch) {
			out = append(out, ch)
		}
	}
	return out
}

// checkInbox refuses an inquiry put to the inbox that names channels: the inbox shows the
// question nowhere, so the people those channels name would never see it.
func checkInbox(transport string, named []string) error {
	if transport != TransportInbox || len(named) == 0 {
		return nil
	}
	return invalid("config.transport", "config.transport \"inbox\" shows the question nowhere, yet it names %s: leave config.transport out to post to each channel named, or leave those objects out", strings.Join(named, " and "))
}

// QuorumFits refuses a quorum larger than the people who may answer rec, when they are known:
// on each channel it posts to, the users it names there (slack.answerers, teams.answerers, the
// email.to recipients), less those requested_by names. A channel that names nobody (anybody who
// sees it answers) or a Slack user group (counted when the question is posted) leaves the number
// unknown. A record posted nowhere counts slack.answerers, the names it has.
func QuorumFits(rec *Record) error {
	n := rec.Quorum()
	if n <= 1 {
		return nil
	}
	channels := rec.PostsTo()
	if len(channels) == 0 {
		channels = []string{TransportSlack}
	}
	total := 0
	var fields []string
	for _, ch := range channels {
		people, known := channelPeople(rec, ch)
		if !known {
			return nil
		}
		total += people
		fields = append(fields, answerersField(ch))
	}
	if n <= total {
		return nil
	}
	verb := "allow"
	if len(fields) == 1 {
		verb = "allows"
	}
	return invalid("approvals", "approvals %d is more than the %d people %s %s: ask for at most %d, or add answerers", n, total, strings.Join(fields, " and "), verb, total)
}

// PeopleElsewhere counts the people rec names on its channels other than ch, less those
// requested_by names; known is false when anybody may answer on one of them.
func PeopleElsewhere(rec *Record, ch string) (people int, known bool) {
	for _, c := range rec.PostsTo() {
		if c == ch {
			continue
		}
		n, ok := channelPeople(rec, c)
		if !ok {
			return 0, false
		}
		people += n
	}
	return people, true
}

// channelPeople counts the people rec names on channel ch, less those requested_by names;
// known is false when anybody there may answer or a group's members are not known yet.
func channelPeople(rec *Record, ch string) (people int, known bool) {
	var ids []string
	var who func(string) Identity
	switch ch {
	case TransportSlack:
		ppl, groups := countAnswerers(&rec.Inquiry, rec.Slack.Answerers)
		return len(ppl), !groups && len(ppl) > 0
	case TransportTeams:
		ids = TeamsAnswerers(rec)
		who = func(id string) Identity { return Identity{Channel: ChannelTeams, ID: id} }
	case TransportEmail:
		ids = rec.Email.Recipients()
		who = func(to string) Identity { return Identity{Channel: ChannelLink, ID: to} }
	default:
		return 0, false
	}
	if len(ids) == 0 {
		return 0, false
	}
	seen := map[string]bool{}
	for _, id := range ids {
		c := CanonID(id)
		if !seen[c] && !rec.requests(who(id)) {
			people++
		}
		seen[c] = true
	}
	return people, true
}

// answerersField names the field that lists ch's answerers.
func answerersField(ch string) string {
	if ch == TransportEmail {
		return "email.to"
	}
	return ch + ".answerers"
}
