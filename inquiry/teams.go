package inquiry

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// TransportTeams is the key of the Microsoft Teams transport: the question is posted as an
// Adaptive Card to the conversation its teams object names.
const TransportTeams = "teams"

// ChannelTeams is where a Teams user is seen: their Entra (AAD) object id.
const ChannelTeams Channel = "teams"

// TeamsTarget is where in Microsoft Teams an inquiry is asked: a conversation (a channel, a
// group chat or a personal chat the bot was added to), the Bot Framework serviceUrl that
// conversation is reached through, and who may answer there (Entra object ids; none: anybody
// in the conversation).
type TeamsTarget struct {
	Conversation string   `json:"conversation"`
	ServiceURL   string   `json:"service_url,omitempty"`
	Answerers    []string `json:"answerers,omitempty"`
}

// TeamsAnswerers are who may answer rec in Teams once its escalation steps so far are taken:
// teams.answerers and the Entra object ids each step taken adds (a step's Slack ids are Slack's).
// An empty list means anybody in the conversation, and a step cannot narrow that.
func TeamsAnswerers(rec *Record) []string {
	if rec.Teams == nil || len(rec.Teams.Answerers) == 0 {
		return nil
	}
	out := slices.Clone(rec.Teams.Answerers)
	for i := 0; i < rec.Escalation && i < len(rec.Escalate); i++ {
		for _, a := range rec.Escalate[i].Answerers {
			if EntraID(a) && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// ValidateTeams checks an inquiry's teams object against the transport that asks it: the teams
// transport, or a teams object (posted to beside the inquiry's other channels), needs a
// conversation; the service URL, when given, is an https URL; each answerer is named once.
func ValidateTeams(t *TeamsTarget, transport string) error {
	switch {
	case (transport == TransportTeams || t != nil) && (t == nil || strings.TrimSpace(t.Conversation) == ""):
		return invalid("teams.conversation", "the teams transport needs a conversation to post to: name it in teams.conversation (the id Teams gives the channel or chat the bot was added to)")
	case t == nil:
		return nil
	}
	if u := t.ServiceURL; u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return invalid("teams.service_url", "teams.service_url %q is not a URL: give the serviceUrl of the conversation's activities, such as \"https://smba.trafficmanager.net/teams/\"", u)
	}
	seen := map[string]bool{}
	for i, a := range t.Answerers {
		field := fmt.Sprintf("teams.answerers[%d]", i)
		c := norm(a)
		if c == "" {
			return invalid(field, "%s is empty: name each answerer by their Entra object id", field)
		}
		if seen[c] {
			return invalid(field, "%s names %q again: name each answerer once", field, a)
		}
		seen[c] = true
	}
	return nil
}

// TeamsConversationID reports whether s looks like a Teams conversation id, as an escalation
// step names one: a channel or a group chat ("19:…@thread.tacv2", "…@thread.skype",
// "…@thread.v2") or a personal chat ("a:…").
func TeamsConversationID(s string) bool {
	if len(s) < 3 || len(s) > 512 || strings.ContainsFunc(s, unicode.IsSpace) {
		return false
	}
	return strings.HasPrefix(s, "19:") && strings.Contains(s, "@thread.") || strings.HasPrefix(s, "a:")
}

// entraID matches an Entra (AAD) object id: a GUID, which is what Teams gives as aadObjectId.
var entraID = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// EntraID reports whether s is an Entra object id, as an escalation step names a Teams answerer.
func EntraID(s string) bool { return entraID.MatchString(strings.TrimSpace(s)) }

// CheckTeamsEscalation refuses an escalation step its transport cannot carry out
// (checkDeadlines lets either a Slack or a Teams form through, not knowing the transport): asked
// in Teams, a channel that is no Teams conversation or an answerer that is no Entra object id;
// asked in Slack, a Teams conversation or an Entra object id. Escalation goes through the
// transport alone, so a question posted to several channels escalates in its first.
func CheckTeamsEscalation(in *Inquiry, transport string) error {
	if transport != TransportTeams {
		for i, st := range in.Escalate {
			field := fmt.Sprintf("escalate[%d]", i)
			if st.Channel != "" && !channelID(st.Channel) {
				return invalid(field+".channel", "%s.channel %q is no Slack channel, and the question escalates through %s: name a Slack channel id such as \"C0123456789\", or ask through teams first", field, OneLine(st.Channel, 40), transport)
			}
			for j, a := range st.Answerers {
				if !answererID(a) {
					return invalid(fmt.Sprintf("%s.answerers[%d]", field, j), "%s.answerers[%d] %q is no Slack user or group id, and the question escalates through %s: name each person by their Slack id, such as \"U0123456789\"", field, j, OneLine(a, 40), transport)
				}
			}
		}
		return nil
	}
	for i, st := range in.Escalate {
		field := fmt.Sprintf("escalate[%d]", i)
		if st.Channel != "" && !TeamsConversationID(st.Channel) {
			return invalid(field+".channel", "%s.channel %q is no Teams conversation, and the question is asked in Teams: name one such as \"19:…@thread.tacv2\" (the bot says it when mentioned there)", field, OneLine(st.Channel, 40))
		}
		for j, a := range st.Answerers {
			if !EntraID(a) {
				return invalid(fmt.Sprintf("%s.answerers[%d]", field, j), "%s.answerers[%d] %q is no Entra object id, and the question is asked in Teams: name each person by their object id, such as \"b15a9416-0ad3-4172-9210-7beb711d3f70\"", field, j, OneLine(a, 40))
			}
		}
	}
	return nil
}
