package inquiry

import "fmt"

// Who one inquiry may call on in Slack. An ask token is often a model's, and one create must not
// page a company: slack.answerers names at most MaxSlackAnswerers entries, of which at most
// MaxSlackGroups user groups (a group pages all its members), and everyone the escalation steps
// name counts towards the same bounds — a step widens who may answer and its people are called on
// by the reminders after it, so a chain of steps is no way around the cap. Waking a whole channel
// (@here, remind_here) is the operator's to allow (Service.AllowBroadcast, BOT_ALLOW_BROADCAST).
const (
	MaxSlackAnswerers = 50
	MaxSlackGroups    = 5
)

// checkAnswererCaps refuses ids (the entries of field) past MaxSlackAnswerers entries or
// MaxSlackGroups user groups.
func checkAnswererCaps(field, what string, n int, ids []string) error {
	if n > MaxSlackAnswerers {
		return invalid(field, "%s names %d people and groups but may name at most %d: name a user group (S…) for a team instead of each person", what, n, MaxSlackAnswerers)
	}
	if g := countGroups(ids); g > MaxSlackGroups {
		return invalid(field, "%s names %d user groups but may name at most %d: each group pages all of its members, so name the %d that must answer", what, g, MaxSlackGroups, MaxSlackGroups)
	}
	return nil
}

func countGroups(ids []string) int {
	n := 0
	for _, id := range ids {
		if slackID(id, "S") {
			n++
		}
	}
	return n
}

// checkReach is Ask's check of whom an inquiry calls on beyond its own fields: everyone it names
// in Slack (slack.answerers and every escalation step's answerers, each once) within the caps,
// and remind_here only where the operator allows broadcasts.
func (s *Service) checkReach(in *Inquiry, ref SlackRef) error {
	if in.RemindHere && !s.AllowBroadcast {
		return invalid("remind_here", "this server does not allow @here reminders: ask its operator to set BOT_ALLOW_BROADCAST=true, or leave remind_here out")
	}
	if len(in.Escalate) == 0 {
		return nil // slack.answerers alone is ValidateSlack's
	}
	seen := make(map[string]bool, len(ref.Answerers))
	var all []string
	for _, id := range ref.Answerers {
		if !seen[id] {
			seen[id] = true
			all = append(all, id)
		}
	}
	for _, st := range in.Escalate {
		for _, id := range st.Answerers {
			if !seen[id] {
				seen[id] = true
				all = append(all, id)
			}
		}
	}
	what := fmt.Sprintf("slack.answerers with the answerers of the %d escalation step(s)", len(in.Escalate))
	return checkAnswererCaps("escalate", what, len(all), all)
}
