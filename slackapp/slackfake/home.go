package slackfake

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The App Home: views.publish sets the Home tab of one person (slack-go's PublishViewContext
// posts JSON {"user_id", "view", "hash"?} with the bot token), judged by the same Block Kit
// checker as every view, as a view of type home. OpenHome sends the app_home_opened event a
// person's opening of the tab fires, and ClickHome clicks a button in their Home tab, with the
// block_actions payload of a view container (slackapp/testdata/payloads/
// block_actions_button_with_confirm_home_view.json): no channel, no message, no response_url.

// Home is the Home tab the app published for one person.
type Home struct {
	ID   string
	Hash string
	User string
	// JSON is the view as the app sent it (its type, blocks, callback_id…).
	JSON json.RawMessage
	At   time.Time
}

// Blocks returns the blocks of the Home tab.
func (h Home) Blocks() json.RawMessage {
	var v struct {
		Blocks json.RawMessage `json:"blocks"`
	}
	_ = json.Unmarshal(h.JSON, &v)
	return v.Blocks
}

// Text is every text of the Home tab, joined by newlines, for assertions.
func (h Home) Text() string { return allText(h.Blocks()) }

// ActionIDs lists the action_ids of the Home tab's elements.
func (h Home) ActionIDs() []string { return actionIDs(h.Blocks()) }

// publishView sets the Home tab of user_id. A hash that is not the tab's current one is refused
// (hash_conflict), as Slack refuses a publish that raced another.
func (s *Server) publishView(req *request) (map[string]any, *apiError) {
	user := req.str("user_id")
	if user == "" {
		return nil, fail("invalid_arguments", "missing required field: user_id")
	}
	if !strings.HasPrefix(user, "U") && !strings.HasPrefix(user, "W") {
		return nil, fail("user_not_found")
	}
	raw, e := req.view(homeRefusal)
	if e != nil {
		return nil, e
	}
	cur, had := s.homes[user]
	if h := req.str("hash"); h != "" && (!had || h != cur.Hash) {
		return nil, fail("hash_conflict")
	}
	h := Home{ID: s.id("V"), User: user, JSON: raw, At: time.Now()}
	if had {
		h.ID = cur.ID // one Home tab per person: publishing replaces its content
	}
	h.Hash = fmt.Sprintf("%d.%s", time.Now().Unix(), s.id("h"))
	s.homes[user] = h
	s.homeLog = append(s.homeLog, h)
	return map[string]any{"view": wireHome(h, nil)}, nil
}

// wireHome is a Home tab as Slack shows it in API answers and payloads.
func wireHome(h Home, values map[string]any) map[string]any {
	v := View{ID: h.ID, Hash: h.Hash, JSON: h.JSON}
	out := wireView(&v, values)
	out["type"] = "home"
	return out
}

// HomeOf returns the Home tab published for user, if any.
func (s *Server) HomeOf(user string) (Home, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.homes[user]
	return h, ok
}

// Homes returns every Home tab published for user (for anybody when user is ""), oldest first.
func (s *Server) Homes(user string) []Home {
	return sentTo(s, &s.homeLog, user, func(h Home) string { return h.User })
}

// OpenHome has user open the app's Home tab: Slack sends app_home_opened (tab "home"), with
// the Home tab the app published for them before, if any.
func (s *Server) OpenHome(user string) (*Response, error) {
	s.mu.Lock()
	inner := obj{"type": "app_home_opened", "user": user, "channel": "D" + strings.TrimPrefix(strings.TrimPrefix(user, "U"), "W"),
		"tab": "home", "event_ts": s.nextTS()}
	if h, ok := s.homes[user]; ok {
		inner["view"] = wireHome(h, nil)
	}
	body := s.eventCallback(inner)
	s.mu.Unlock()
	return s.SendEvent(body)
}

// OpenMessagesTab has user open the Messages tab of the app: the same event, tab "messages".
func (s *Server) OpenMessagesTab(user string) (*Response, error) {
	s.mu.Lock()
	body := s.eventCallback(obj{"type": "app_home_opened", "user": user, "channel": "D" + strings.TrimPrefix(user, "U"),
		"tab": "messages", "event_ts": s.nextTS()})
	s.mu.Unlock()
	return s.SendEvent(body)
}

// ClickHome clicks a button in user's Home tab: the button whose action_id, value or label is
// which, in the block whose block_id contains within ("" for any block). A button with a
// confirmation dialog is confirmed.
func (s *Server) ClickHome(user, within, which string) (*Response, error) {
	s.mu.Lock()
	h, ok := s.homes[user]
	if !ok {
		s.mu.Unlock()
		return nil, fmt.Errorf("slackfake: click %q in the Home tab of %s: none was published", which, user)
	}
	f, ok := findElement(h.Blocks(), func(b, el obj) bool {
		return strings.Contains(str(b, "block_id"), within) && str(el, "type") == "button" &&
			(str(el, "action_id") == which || str(el, "value") == which ||
				strings.EqualFold(strings.TrimSpace(textOf(el, "text")), strings.TrimSpace(which)))
	})
	if !ok {
		s.mu.Unlock()
		return nil, fmt.Errorf("slackfake: click %q in the Home tab of %s: no such button (action_ids %v)", which, user, h.ActionIDs())
	}
	action := obj{"action_id": f.el["action_id"], "block_id": f.blockID, "text": f.el["text"], "type": "button",
		"action_ts": s.actionTS()}
	for _, k := range []string{"value", "style", "confirm"} {
		if v, ok := f.el[k]; ok {
			action[k] = v
		}
	}
	payload := obj{
		"type":       "block_actions",
		"user":       userWire(user),
		"api_app_id": AppID,
		"token":      VerificationToken,
		"container":  obj{"type": "view", "view_id": h.ID},
		"trigger_id": s.newTrigger(user, ""),
		"team":       obj{"id": TeamID, "domain": TeamDomain},
		"view":       wireHome(h, s.messageState(user, homeMessage(h))),
		"actions":    []any{action},
	}
	s.mu.Unlock()
	raw, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	return s.SendInteraction(raw)
}

// homeMessage stands for a Home tab where the person's picks are kept (messageState, pick): the
// state a view's block_actions carry in view.state.values.
func homeMessage(h Home) *Message { return &Message{Channel: "home", TS: h.ID, Blocks: h.Blocks()} }

// CheckHome ticks options (by value or label) in the checkboxes or multi-select of user's Home
// tab, in the block whose block_id contains within, replacing what was ticked before. As in an
// input block without dispatch_action, nothing is sent: the ticks go with the next click.
func (s *Server) CheckHome(user, within string, options ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.homes[user]
	if !ok {
		return fmt.Errorf("slackfake: check in the Home tab of %s: none was published", user)
	}
	f, ok := findElement(h.Blocks(), func(b, el obj) bool {
		return strings.Contains(str(b, "block_id"), within) && multiTypes[str(el, "type")]
	})
	if !ok {
		return fmt.Errorf("slackfake: check in the Home tab of %s: no checkboxes or multi-select in a block %q", user, within)
	}
	selected := []any{}
	for _, o := range options {
		opt, ok := matchOption(f.el, o)
		if !ok {
			return fmt.Errorf("slackfake: check %q: not an option of %s", o, str(f.el, "action_id"))
		}
		selected = append(selected, optionWire(opt))
	}
	s.pick(user, homeMessage(h), f.blockID, str(f.el, "action_id"), obj{"type": str(f.el, "type"), "selected_options": selected})
	return nil
}

// CheckAndSubmitHome ticks options as CheckHome does, then clicks "Submit" in the same block's
// question.
func (s *Server) CheckAndSubmitHome(user, within string, options ...string) (*Response, error) {
	if err := s.CheckHome(user, within, options...); err != nil {
		return nil, err
	}
	return s.ClickHome(user, within, "Submit")
}
