package inquiry

import (
	"fmt"
	"strings"
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

// TeamsAnswerers are the answerers rec names in Teams (none for no teams object).
func TeamsAnswerers(rec *Record) []string {
	if rec.Teams == nil {
		return nil
	}
	return rec.Teams.Answerers
}

// ValidateTeams checks an inquiry's teams object against the transport that asks it: the teams
// transport needs a conversation, every other transport no teams object; the service URL, when
// given, is an https URL; each answerer is named once.
func ValidateTeams(t *TeamsTarget, transport string) error {
	switch {
	case transport == TransportTeams && (t == nil || strings.TrimSpace(t.Conversation) == ""):
		return invalid("teams.conversation", "the teams transport needs a conversation to post to: name it in teams.conversation (the id Teams gives the channel or chat the bot was added to)")
	case transport != TransportTeams && t != nil:
		return invalid("teams", "teams names a conversation but the inquiry is asked through the %s transport: set config.transport to \"teams\", or leave teams out", transport)
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
