package inquiry

// The rule of which person may answer an inquiry in Slack, one place for every edge that asks
// it: a click or a thread reply (slackapp), and the App Home listing what waits for someone.

// Permission is what PersonMayAnswer found for one person and one inquiry.
type Permission struct {
	// Allowed: the person may answer it.
	Allowed bool
	// Named: slack.answerers names the person, themselves or through a user group they are in.
	// An inquiry without answerers allows everybody but names nobody: it waits for no one in
	// particular.
	Named bool
	// Requester: refused because requested_by names them (four eyes), whatever the answerers.
	Requester bool
	// Unchecked are the user groups among the answerers whose members could not be read: the
	// check failed closed on them, so the person may be one of them and should try again.
	Unchecked []string
}

// PersonMayAnswer decides whether the person user (a Slack user id) may answer rec: never when
// requested_by names them; with no slack.answerers, anybody; otherwise when the answerers list
// them or a user group of them they are a member of. member reports whether user is a member of
// the answerer id (false, nil for an id that is no user group); an error leaves that group
// unchecked, and the person is not admitted through it.
func PersonMayAnswer(rec *Record, user string, member func(id string) (bool, error)) Permission {
	if user == "" {
		return Permission{}
	}
	if NotRequester(rec, user) != nil {
		return Permission{Requester: true}
	}
	ids := Answerers(rec) // widened by the escalation steps taken
	if len(ids) == 0 {
		return Permission{Allowed: true}
	}
	for _, id := range ids {
		if id == user {
			return Permission{Allowed: true, Named: true}
		}
	}
	var p Permission
	for _, id := range ids {
		if member == nil {
			break
		}
		in, err := member(id)
		if err != nil {
			p.Unchecked = append(p.Unchecked, id)
			continue
		}
		if in {
			return Permission{Allowed: true, Named: true}
		}
	}
	return p
}
