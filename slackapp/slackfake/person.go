package slackfake

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Response is what the app answered to something the person did.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// Elapsed is how long the app took to answer (to ack, over Socket Mode).
	Elapsed time.Duration
	// RetryNum is, for an event, the retry number of the delivery the app acked (0 the first,
	// 1..3 when Slack had to deliver it again).
	RetryNum int
}

func (r *Response) String() string {
	return fmt.Sprintf("%d %s (%s)", r.Status, strings.TrimSpace(string(r.Body)), r.Elapsed)
}

// ViewErrors returns the errors of a {"response_action":"errors"} answer to a view submission,
// nil for any other answer.
func (r *Response) ViewErrors() map[string]string {
	var v struct {
		ResponseAction string            `json:"response_action"`
		Errors         map[string]string `json:"errors"`
	}
	if json.Unmarshal(r.Body, &v) != nil || v.ResponseAction != "errors" {
		return nil
	}
	return v.Errors
}

// Sign returns the X-Slack-Signature of body sent at ts: "v0=" and the hex HMAC-SHA256 of
// "v0:{ts}:{body}" keyed by the signing secret.
func Sign(secret string, ts time.Time, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%d:", ts.Unix())
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// SendOption changes how Send signs and sends a request.
type SendOption func(*sendConfig)

type sendConfig struct {
	secret   string
	at       *time.Time
	unsigned bool
	header   http.Header
}

// WithTimestamp signs the request as sent at t.
func WithTimestamp(t time.Time) SendOption { return func(c *sendConfig) { c.at = &t } }

// WithSecret signs the request with another secret.
func WithSecret(secret string) SendOption { return func(c *sendConfig) { c.secret = secret } }

// Unsigned sends the request without signature headers.
func Unsigned() SendOption { return func(c *sendConfig) { c.unsigned = true } }

// WithHeader adds a header (after signing, so it may also replace a signature header).
func WithHeader(key, value string) SendOption {
	return func(c *sendConfig) { c.header.Set(key, value) }
}

// Send POSTs body to the app at path ("/slack/interactions", "/slack/events",
// "/slack/commands"), signed as Slack signs requests unless told otherwise. An answer that does
// not come within the ack timeout is Slack's timeout: Send hangs up, keeps it in Timeouts and
// fails with ErrNotAcked. Send delivers once; SendEvent delivers an event again as Slack does.
func (s *Server) Send(path, contentType string, body []byte, opts ...SendOption) (*Response, error) {
	resp, err := s.post(path, contentType, body, opts...)
	if errors.Is(err, ErrNotAcked) {
		s.timedOut(sentTimeout(path, body), err)
	}
	return resp, err
}

// post is one signed POST to the app, given up at the ack timeout (ErrNotAcked).
func (s *Server) post(path, contentType string, body []byte, opts ...SendOption) (*Response, error) {
	c := sendConfig{secret: SigningSecret, header: http.Header{}}
	for _, o := range opts {
		o(&c)
	}
	s.mu.Lock()
	base, now, wait := s.appURL, s.now, s.ackTimeout
	s.mu.Unlock()
	if base == "" {
		return nil, errors.New("slackfake: SetAppURL was not called: the person does not know where the app listens")
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", "Slackbot 1.0 (+https://api.slack.com/robots)")
	if !c.unsigned {
		at := now()
		if c.at != nil {
			at = *c.at
		}
		req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(at.Unix(), 10))
		req.Header.Set("X-Slack-Signature", Sign(c.secret, at, body))
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &notAcked{what: "no answer to POST " + path, wait: wait}
		}
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &notAcked{what: "no whole answer to POST " + path, wait: wait}
		}
		return nil, err
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b, Elapsed: time.Since(start)}, nil
}

// SendInteraction sends an interaction payload (JSON) the way Slack does: over Socket Mode when
// the app is connected, else as the payload field of a signed form post to /slack/interactions.
// Not acked within the ack timeout, it failed as in Slack: the person saw an error
// (FailedInteractions), and the error is ErrNotAcked.
func (s *Server) SendInteraction(payload []byte, opts ...SendOption) (*Response, error) {
	socket := s.SocketConnected()
	var (
		resp *Response
		err  error
	)
	if socket {
		resp, err = s.socketSend("interactive", payload, true, 0)
	} else {
		form := url.Values{"payload": {string(payload)}}
		resp, err = s.post("/slack/interactions", "application/x-www-form-urlencoded", []byte(form.Encode()), opts...)
	}
	if errors.Is(err, ErrNotAcked) {
		s.timedOut(interactionTimeout(KindInteraction, interactionType(payload), socket), err)
	}
	return resp, err
}

// SendEvent sends an Events API body (JSON): over Socket Mode when the app is connected, else
// as a signed post to /slack/events. Not acked within the ack timeout, it is delivered again as
// Slack does (X-Slack-Retry-Num 1, 2, 3), and the answer is the one to the delivery acked
// (Response.RetryNum); after the third retry it fails with ErrNotAcked.
func (s *Server) SendEvent(body []byte, opts ...SendOption) (*Response, error) {
	return s.deliverEvent(body, 0, opts...)
}

func (s *Server) newTrigger(user, channel string) string {
	s.seq++
	id := fmt.Sprintf("%d.%s.%x", 3000000000000+s.seq, strings.TrimPrefix(TeamID, "T"), s.lastTS^int64(s.seq)*7919)
	s.triggers[id] = &trigger{user: user, channel: channel, issued: time.Now()}
	return id
}

func (s *Server) newResponseURL(channel, user, threadTS string) string {
	id := s.id("R")
	s.respURLs[id] = &responseURL{channel: channel, user: user, threadTS: threadTS, issued: time.Now()}
	return s.srv.URL + "/response/" + id
}

func userWire(user string) obj {
	name := "user_" + strings.ToLower(user)
	return obj{"id": user, "username": name, "name": name, "team_id": TeamID}
}

func (s *Server) actionTS() string { return s.nextTS() }

// pickKey keys what one person has selected in one message, which Slack's client keeps and
// sends along as state.values.
func pickKey(user, channel, ts string) string { return user + "|" + channel + "|" + ts }

// messageState is the state.values of a message for a person: every stateful element, with what
// they selected or typed so far.
func (s *Server) messageState(user string, m *Message) obj {
	picked := s.picks[pickKey(user, m.Channel, m.TS)]
	values := obj{}
	for _, b := range decodeBlocks(m.Blocks) {
		bid := str(b, "block_id")
		for _, e := range elements(b) {
			typ, aid := str(e, "type"), str(e, "action_id")
			if typ == "button" || typ == "overflow" || aid == "" {
				continue
			}
			if v, ok := picked[bid][aid]; ok {
				setState(values, bid, aid, v)
				continue
			}
			switch {
			case multiTypes[typ]:
				setState(values, bid, aid, obj{"type": typ, "selected_options": []any{}})
			case selectTypes[typ] || typ == "radio_buttons":
				setState(values, bid, aid, obj{"type": typ, "selected_option": nil})
			case typ == "plain_text_input":
				setState(values, bid, aid, obj{"type": typ, "value": nil})
			}
		}
	}
	return values
}

func setState(values obj, blockID, actionID string, v any) {
	b, ok := values[blockID].(obj)
	if !ok {
		b = obj{}
		values[blockID] = b
	}
	b[actionID] = v
}

func (s *Server) pick(user string, m *Message, blockID, actionID string, v obj) {
	k := pickKey(user, m.Channel, m.TS)
	if s.picks[k] == nil {
		s.picks[k] = map[string]map[string]any{}
	}
	if s.picks[k][blockID] == nil {
		s.picks[k][blockID] = map[string]any{}
	}
	s.picks[k][blockID][actionID] = v
}

// blockActions builds a block_actions payload for an action in a message, shaped like
// slackapp/testdata/payloads/block_actions_*.json.
func (s *Server) blockActions(user string, m *Message, action obj) obj {
	container := obj{"type": "message", "message_ts": m.TS, "channel_id": m.Channel, "is_ephemeral": false}
	threadTS := ""
	if m.ThreadTS != "" && m.ThreadTS != m.TS {
		container["thread_ts"], threadTS = m.ThreadTS, m.ThreadTS
	}
	chName := ""
	if ch := s.channels[m.Channel]; ch != nil {
		chName = ch.name
	}
	return obj{
		"type":                  "block_actions",
		"user":                  userWire(user),
		"api_app_id":            AppID,
		"token":                 VerificationToken,
		"container":             container,
		"trigger_id":            s.newTrigger(user, m.Channel),
		"team":                  obj{"id": TeamID, "domain": TeamDomain},
		"enterprise":            nil,
		"is_enterprise_install": false,
		"channel":               obj{"id": m.Channel, "name": chName},
		"message":               wireMessage(m),
		"state":                 obj{"values": s.messageState(user, m)},
		"response_url":          s.newResponseURL(m.Channel, user, threadTS),
		"actions":               []any{action},
	}
}

// Click clicks a button in the message at (channel, ts) as user: the button whose action_id,
// value or label is which. A button with a confirmation dialog is confirmed.
func (s *Server) Click(user, channel, ts, which string) (*Response, error) {
	payload, err := s.ClickPayload(user, channel, ts, which)
	if err != nil {
		return nil, err
	}
	return s.SendInteraction(payload)
}

// ClickPayload builds the block_actions payload Click would send, without sending it (to send
// it altered, unsigned, or signed at another time).
func (s *Server) ClickPayload(user, channel, ts, which string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.message(channel, ts)
	if m == nil {
		return nil, fmt.Errorf("slackfake: click %q: no message %s in %s", which, ts, channel)
	}
	f, ok := findElement(m.Blocks, func(_, el obj) bool {
		return str(el, "type") == "button" && (str(el, "action_id") == which || str(el, "value") == which ||
			strings.EqualFold(strings.TrimSpace(textOf(el, "text")), strings.TrimSpace(which)))
	})
	if !ok {
		return nil, fmt.Errorf("slackfake: click %q: no such button in message %s (action_ids %v)", which, ts, m.ActionIDs())
	}
	action := obj{"action_id": f.el["action_id"], "block_id": f.blockID, "text": f.el["text"], "type": "button",
		"action_ts": s.actionTS()}
	if v, ok := f.el["value"]; ok {
		action["value"] = v
	}
	if st, ok := f.el["style"]; ok {
		action["style"] = st
	}
	if c, ok := f.el["confirm"]; ok {
		action["confirm"] = c
	}
	return json.Marshal(s.blockActions(user, m, action))
}

// Select chooses an option (by value or label) in a static select of the message as user.
func (s *Server) Select(user, channel, ts, option string) (*Response, error) {
	s.mu.Lock()
	m := s.message(channel, ts)
	if m == nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("slackfake: select %q: no message %s in %s", option, ts, channel)
	}
	var opt obj
	f, ok := findElement(m.Blocks, func(_, el obj) bool {
		if !selectTypes[str(el, "type")] {
			return false
		}
		o, found := matchOption(el, option)
		opt = o
		return found
	})
	if !ok {
		s.mu.Unlock()
		return nil, fmt.Errorf("slackfake: select %q: no select offers it in message %s", option, ts)
	}
	typ := str(f.el, "type")
	s.pick(user, m, f.blockID, str(f.el, "action_id"), obj{"type": typ, "selected_option": optionWire(opt)})
	action := obj{"action_id": f.el["action_id"], "block_id": f.blockID, "type": typ,
		"selected_option": optionWire(opt), "action_ts": s.actionTS()}
	if p, ok := f.el["placeholder"]; ok {
		action["placeholder"] = p
	}
	if c, ok := f.el["confirm"]; ok {
		action["confirm"] = c
	}
	return s.picked(user, m, f, action)
}

// Check ticks options (by value or label) in the checkboxes or multi-select of the message as
// user, replacing what was ticked before. Ticking sends nothing when the element sits in an
// input block without dispatch_action, as in Slack; otherwise it sends a block_actions.
func (s *Server) Check(user, channel, ts string, options ...string) (*Response, error) {
	s.mu.Lock()
	m := s.message(channel, ts)
	if m == nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("slackfake: check: no message %s in %s", ts, channel)
	}
	f, ok := findElement(m.Blocks, func(_, el obj) bool { return multiTypes[str(el, "type")] })
	if !ok {
		s.mu.Unlock()
		return nil, fmt.Errorf("slackfake: check: no checkboxes or multi-select in message %s", ts)
	}
	selected := []any{}
	for _, o := range options {
		opt, ok := matchOption(f.el, o)
		if !ok {
			s.mu.Unlock()
			return nil, fmt.Errorf("slackfake: check %q: not an option of %s", o, str(f.el, "action_id"))
		}
		selected = append(selected, optionWire(opt))
	}
	typ := str(f.el, "type")
	s.pick(user, m, f.blockID, str(f.el, "action_id"), obj{"type": typ, "selected_options": selected})
	action := obj{"action_id": f.el["action_id"], "block_id": f.blockID, "type": typ,
		"selected_options": selected, "action_ts": s.actionTS()}
	return s.picked(user, m, f, action)
}

// picked ends a Select or a Check, called with s.mu held, which it releases: the block_actions
// payload of action is sent, unless the element sits in an input block without dispatch_action
// (then, as in Slack, the pick waits for the form's submission and nothing is sent).
func (s *Server) picked(user string, m *Message, f found, action obj) (*Response, error) {
	dispatch := f.block["type"] != "input" || f.block["dispatch_action"] == true
	payload := s.blockActions(user, m, action)
	s.mu.Unlock()
	if !dispatch {
		return &Response{Status: http.StatusOK}, nil
	}
	return s.sendPayload(payload)
}

// CheckAndSubmit ticks options as Check does, then clicks the message's "Submit" button.
func (s *Server) CheckAndSubmit(user, channel, ts string, options ...string) (*Response, error) {
	if r, err := s.Check(user, channel, ts, options...); err != nil || r.Status != http.StatusOK {
		return r, err
	}
	return s.Click(user, channel, ts, "Submit")
}

// SubmitView submits the modal viewID (the one most recently opened for user when "") as user,
// filling its input blocks in order with values: text for a text input, an option's value or
// label for radio buttons and selects, comma-separated options for checkboxes and multi-selects,
// "" to leave an input as it opened (empty, or with its initial value or options, as Slack
// submits them). Like Slack's client it refuses to submit an empty required input or
// text over max_length. After the app answers, the view is closed, kept open (errors), or
// replaced (update), as the answer says.
func (s *Server) SubmitView(user, viewID string, values ...string) (*Response, error) {
	s.mu.Lock()
	var v *View
	if viewID == "" {
		for i := len(s.viewSeq) - 1; i >= 0 && v == nil; i-- {
			if x := s.views[s.viewSeq[i]]; x.Open && x.User == user {
				v = x
			}
		}
	} else {
		v = s.views[viewID]
	}
	if v == nil || !v.Open || v.User != user {
		s.mu.Unlock()
		return nil, fmt.Errorf("slackfake: submit view %q: no such modal open for %s", viewID, user)
	}
	var sent struct {
		Blocks json.RawMessage `json:"blocks"`
	}
	_ = json.Unmarshal(v.JSON, &sent)
	state := obj{}
	i := 0
	for _, b := range decodeBlocks(sent.Blocks) {
		if b["type"] != "input" {
			continue
		}
		el, _ := b["element"].(obj)
		val := ""
		if i < len(values) {
			val = values[i]
		}
		i++
		bid, aid, typ := str(b, "block_id"), str(el, "action_id"), str(el, "type")
		optional, _ := b["optional"].(bool)
		if val == "" {
			// Left as the modal opened it: an initial value or selection is submitted as it is.
			val = initialOf(el)
		}
		if val == "" && !optional {
			s.mu.Unlock()
			return nil, fmt.Errorf("slackfake: submit view: required input %s is empty: Slack's client would not submit it", bid)
		}
		switch {
		case typ == "plain_text_input":
			if max, ok := el["max_length"].(float64); ok && utf8.RuneCountInString(val) > int(max) {
				s.mu.Unlock()
				return nil, fmt.Errorf("slackfake: submit view: input %s takes at most %d characters: Slack's client would not submit %d", bid, int(max), utf8.RuneCountInString(val))
			}
			if val == "" {
				setState(state, bid, aid, obj{"type": typ, "value": nil})
			} else {
				setState(state, bid, aid, obj{"type": typ, "value": val})
			}
		case selectTypes[typ] || typ == "radio_buttons":
			var sel any
			if val != "" {
				opt, ok := matchOption(el, val)
				if !ok {
					s.mu.Unlock()
					return nil, fmt.Errorf("slackfake: submit view: %q is not an option of input %s", val, bid)
				}
				sel = optionWire(opt)
			}
			setState(state, bid, aid, obj{"type": typ, "selected_option": sel})
		case multiTypes[typ]:
			selected := []any{}
			if val != "" {
				for _, part := range strings.Split(val, ",") {
					opt, ok := matchOption(el, strings.TrimSpace(part))
					if !ok {
						s.mu.Unlock()
						return nil, fmt.Errorf("slackfake: submit view: %q is not an option of input %s", part, bid)
					}
					selected = append(selected, optionWire(opt))
				}
			}
			setState(state, bid, aid, obj{"type": typ, "selected_options": selected})
		default:
			setState(state, bid, aid, obj{"type": typ})
		}
	}
	payload := obj{
		"type":                  "view_submission",
		"team":                  obj{"id": TeamID, "domain": TeamDomain},
		"user":                  userWire(user),
		"api_app_id":            AppID,
		"token":                 VerificationToken,
		"trigger_id":            s.newTrigger(user, v.Channel),
		"view":                  wireView(v, state),
		"response_urls":         []any{},
		"enterprise":            nil,
		"is_enterprise_install": false,
	}
	id := v.ID
	s.mu.Unlock()

	resp, err := s.sendPayload(payload)
	if err != nil {
		return nil, err
	}
	s.afterSubmit(id, resp)
	return resp, nil
}

// initialOf is what an input element holds when the person leaves it as it opened, in the form
// SubmitView takes values: its initial_value, the value of its initial_option, or the values of
// its initial_options joined by commas; "" when it opens empty.
func initialOf(el obj) string {
	if v := str(el, "initial_value"); v != "" {
		return v
	}
	if o, ok := el["initial_option"].(obj); ok {
		return str(o, "value")
	}
	if list, ok := el["initial_options"].([]any); ok {
		var vals []string
		for _, x := range list {
			if o, ok := x.(obj); ok {
				vals = append(vals, str(o, "value"))
			}
		}
		return strings.Join(vals, ",")
	}
	return ""
}

// afterSubmit does to the view what the app's answer says.
func (s *Server) afterSubmit(id string, resp *Response) {
	if resp.Status != http.StatusOK {
		return // Slack shows the person an error and keeps the modal open
	}
	var ans struct {
		ResponseAction string          `json:"response_action"`
		View           json.RawMessage `json:"view"`
	}
	_ = json.Unmarshal(resp.Body, &ans)
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.views[id]
	switch ans.ResponseAction {
	case "errors":
	case "update":
		v.JSON = ans.View
		s.fillView(v, ans.View)
	case "push":
		nv := &View{ID: s.id("V"), User: v.User, Channel: v.Channel, JSON: ans.View, Open: true, Opened: time.Now()}
		s.fillView(nv, ans.View)
		s.views[nv.ID] = nv
		s.viewSeq = append(s.viewSeq, nv.ID)
	case "clear":
		for _, x := range s.views {
			if x.User == v.User {
				x.Open = false
			}
		}
	default:
		v.Open = false
	}
}

// sendPayload marshals an interaction payload and sends it.
func (s *Server) sendPayload(payload obj) (*Response, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	return s.SendInteraction(b)
}

// escapeText encodes a person's text the way Slack stores message text: & < > as entities.
func escapeText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// ReplyInThread posts text as user in the thread of threadTS, and sends the app the message
// event (event_callback, a unique event_id), shaped like
// slackapp/testdata/payloads/message_event_thread_reply.json.
func (s *Server) ReplyInThread(user, channel, threadTS, text string) (*Response, error) {
	return s.postAsPerson(user, channel, threadTS, text)
}

// Say posts text as user at the top of a channel (not in a thread) and sends the app the event.
func (s *Server) Say(user, channel, text string) (*Response, error) {
	return s.postAsPerson(user, channel, "", text)
}

func (s *Server) postAsPerson(user, channel, threadTS, text string) (*Response, error) {
	s.mu.Lock()
	ch := s.channels[channel]
	if ch == nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("slackfake: post as %s: no channel %s", user, channel)
	}
	m := &Message{Channel: channel, TS: s.nextTS(), ThreadTS: threadTS, User: user, Text: escapeText(text), PostedAt: time.Now()}
	ch.msgs = append(ch.msgs, m)
	ev := obj{
		"client_msg_id": fmt.Sprintf("%08x-0000-4000-8000-%012x", s.lastTS&0xffffffff, s.seq),
		"type":          "message", "user": user, "text": m.Text, "ts": m.TS, "team": TeamID,
		"user_team": TeamID, "source_team": TeamID, "user_profile": obj{},
		"channel": channel, "event_ts": m.TS, "channel_type": "channel",
	}
	if threadTS != "" {
		ev["thread_ts"] = threadTS
		if p := s.message(channel, threadTS); p != nil {
			ev["parent_user_id"] = p.User
		}
	}
	body := s.eventCallback(ev)
	s.mu.Unlock()
	return s.SendEvent(body)
}

// Event sends the app an arbitrary inner event (a bot message, a message_changed…) wrapped in
// an event_callback with a unique event_id.
func (s *Server) Event(inner map[string]any) (*Response, error) {
	s.mu.Lock()
	body := s.eventCallback(inner)
	s.mu.Unlock()
	return s.SendEvent(body)
}

// eventCallback wraps an inner event, remembering it for RedeliverLastEvent. Called with s.mu
// held.
func (s *Server) eventCallback(inner obj) []byte {
	body, _ := json.Marshal(obj{
		"token":      VerificationToken,
		"team_id":    TeamID,
		"api_app_id": AppID,
		"event":      inner,
		"type":       "event_callback",
		"event_id":   s.id("Ev"),
		"event_time": s.now().Unix(),
		"authorizations": []any{obj{"enterprise_id": nil, "team_id": TeamID, "user_id": BotUserID,
			"is_bot": true, "is_enterprise_install": false}},
		"is_ext_shared_channel": false,
		"event_context":         "4-" + TeamID,
	})
	s.lastEvt = body
	return body
}

// RedeliverLastEvent sends the last event again as Slack's retry number n, with
// X-Slack-Retry-Num and X-Slack-Retry-Reason: http_timeout (retry_attempt n over Socket Mode).
// Not acked in time, it is delivered again with the next number while n is below 3, as
// SendEvent does.
func (s *Server) RedeliverLastEvent(n int) (*Response, error) {
	s.mu.Lock()
	body := s.lastEvt
	s.mu.Unlock()
	if body == nil {
		return nil, errors.New("slackfake: no event sent yet")
	}
	return s.deliverEvent(body, n)
}

// Command runs a slash command as user in channel. Not acked within the ack timeout, it failed
// as in Slack: the person saw an error (FailedInteractions), and the error is ErrNotAcked.
func (s *Server) Command(user, channel, command, text string) (*Response, error) {
	s.mu.Lock()
	chName := ""
	if ch := s.channels[channel]; ch != nil {
		chName = ch.name
	}
	fields := map[string]string{
		"token": VerificationToken, "team_id": TeamID, "team_domain": TeamDomain, "channel_id": channel,
		"channel_name": chName, "user_id": user, "user_name": "user_" + strings.ToLower(user), "command": command,
		"text": text, "api_app_id": AppID, "is_enterprise_install": "false",
		"response_url": s.newResponseURL(channel, user, ""), "trigger_id": s.newTrigger(user, channel),
	}
	s.mu.Unlock()
	socket := s.SocketConnected()
	var (
		resp *Response
		err  error
	)
	if socket {
		b, _ := json.Marshal(fields)
		resp, err = s.socketSend("slash_commands", b, true, 0)
	} else {
		form := url.Values{}
		for k, v := range fields {
			form.Set(k, v)
		}
		resp, err = s.post("/slack/commands", "application/x-www-form-urlencoded", []byte(form.Encode()))
	}
	if errors.Is(err, ErrNotAcked) {
		s.timedOut(interactionTimeout(KindCommand, command, socket), err)
	}
	if err == nil {
		err = commandAnswerRefusal(resp)
	}
	return resp, err
}

// ErrInvalidBlocks is Command's error when the app answered a slash command with blocks Slack
// refuses: the person is shown no answer.
var ErrInvalidBlocks = errors.New("slackfake: Slack refuses the blocks of the app's answer to a slash command")

// commandAnswerRefusal judges the blocks of an app's answer to a slash command (a message, as
// for chat.postEphemeral) with the fake's own Block Kit checker; nil when it has none or Slack
// takes them.
func commandAnswerRefusal(resp *Response) error {
	if resp == nil || resp.Status != http.StatusOK {
		return nil
	}
	var answer struct {
		Blocks json.RawMessage `json:"blocks"`
	}
	if json.Unmarshal(resp.Body, &answer) != nil || len(answer.Blocks) == 0 || string(answer.Blocks) == "null" {
		return nil // a plain text answer, or an empty ack
	}
	msgs, ok := checkMessageBlocks(answer.Blocks)
	switch {
	case !ok:
		return fmt.Errorf("%w: invalid_blocks_format", ErrInvalidBlocks)
	case len(msgs) > 0:
		return fmt.Errorf("%w: invalid_blocks: %s", ErrInvalidBlocks, strings.Join(msgs, "; "))
	}
	return nil
}
