package slackfake

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// apiError is a Slack error answer: HTTP 200 with {"ok":false,"error":code}.
type apiError struct {
	code     string
	messages []string // response_metadata.messages
	needed   string   // missing_scope
	provided string
}

func (e *apiError) Error() string { return e.code }

func fail(code string, messages ...string) *apiError {
	return &apiError{code: code, messages: messages}
}

// request is one Web API call as the fake reads it.
type request struct {
	method string
	token  string
	params url.Values
	json   map[string]json.RawMessage
	raw    []byte
}

// scopes the fake's bot has; missing_scope names the one a method needs.
var neededScope = map[string]string{
	"chat.postMessage":      "chat:write",
	"chat.update":           "chat:write",
	"chat.postEphemeral":    "chat:write",
	"usergroups.users.list": "usergroups:read",
	"conversations.info":    "channels:read",
	"conversations.history": "channels:history",
	"conversations.replies": "channels:history",
}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	body, err := io.ReadAll(io.LimitReader(r.Body, 10<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	req := &request{method: method, params: r.URL.Query(), raw: body}
	if auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		req.token = auth
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/x-www-form-urlencoded":
		form, err := url.ParseQuery(string(body))
		if err != nil {
			s.answer(w, req, http.StatusOK, nil, fail("invalid_form_data"))
			return
		}
		for k, vs := range form {
			req.params[k] = append(req.params[k], vs...)
		}
	case "application/json":
		if len(body) > 0 {
			if err := json.Unmarshal(body, &req.json); err != nil {
				s.answer(w, req, http.StatusOK, nil, fail("invalid_json"))
				return
			}
		}
	}
	if t := req.params.Get("token"); t != "" {
		req.token = t
	}

	s.mu.Lock()
	latency := s.latency
	s.mu.Unlock()
	if latency > 0 {
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		s.answerStatus(w, req, http.StatusServiceUnavailable, "")
		return
	}
	if s.rate.every > 0 && (s.rate.methods == nil || s.rate.methods[method]) {
		s.rate.count++
		if s.rate.count%s.rate.every == 0 {
			secs := int(math.Ceil(s.rate.after.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			s.answer(w, req, http.StatusTooManyRequests, nil, fail("ratelimited"))
			return
		}
	}
	if q := s.failNext[method]; len(q) > 0 {
		f := q[0]
		s.failNext[method] = q[1:]
		if f.status != 0 {
			s.answerStatus(w, req, f.status, "")
			return
		}
		e := fail(f.code)
		if f.code == "missing_scope" {
			e.needed, e.provided = neededScope[method], "chat:write,commands"
		}
		s.answer(w, req, http.StatusOK, nil, e)
		return
	}
	if e := s.checkToken(req); e != nil {
		s.answer(w, req, http.StatusOK, nil, e)
		return
	}
	out, e := map[string]any(nil), fail("unknown_method")
	if do, ok := methods[method]; ok {
		out, e = do(s, req)
	}
	if q := s.drops[method]; len(q) > 0 {
		s.drops[method] = q[1:]
		s.drop(w, req, q[0], e)
		return
	}
	s.answer(w, req, http.StatusOK, out, e)
}

// methods are the Web API methods the fake carries out, by family, each called with s.mu held.
var methods = map[string]func(*Server, *request) (map[string]any, *apiError){
	"auth.test": (*Server).authTest, "apps.connections.open": (*Server).connectionsOpen,
	"chat.postMessage": (*Server).postMessage, "chat.update": (*Server).update,
	"chat.postEphemeral": (*Server).postEphemeral, "chat.getPermalink": (*Server).permalink,
	"conversations.info": (*Server).conversationInfo, "conversations.history": (*Server).history,
	"conversations.replies": (*Server).replies, "usergroups.users.list": (*Server).userGroupUsers,
	"views.open": (*Server).openView, "views.push": (*Server).openView, "views.update": (*Server).updateView,
	"views.publish": (*Server).publishView,
}

func (s *Server) authTest(*request) (map[string]any, *apiError) {
	return map[string]any{"url": "https://" + TeamDomain + ".slack.com/", "team": "Fake", "user": "bot",
		"team_id": TeamID, "user_id": BotUserID, "bot_id": BotID}, nil
}

// drop loses the answer of a call that was carried out: it cuts the connection (status 0) or
// answers status with an HTML body. Called with s.mu held.
func (s *Server) drop(w http.ResponseWriter, req *request, status int, e *apiError) {
	code := ""
	if e != nil {
		code = e.code
	}
	s.record(req, status, code)
	s.calls[len(s.calls)-1].Dropped = true
	if status != 0 {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>", status, http.StatusText(status))
		return
	}
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler) // no hijacking (HTTP/2): the server resets the stream
}

// checkToken checks the token a call carries, the way Slack does.
func (s *Server) checkToken(req *request) *apiError {
	want := BotToken
	if req.method == "apps.connections.open" {
		want = AppToken
	}
	switch {
	case req.token == "":
		return fail("not_authed")
	case s.revoked && req.token == BotToken:
		return fail("token_revoked")
	case req.token != want:
		if req.method == "apps.connections.open" && req.token == BotToken {
			return fail("not_allowed_token_type")
		}
		return fail("invalid_auth")
	}
	return nil
}

// answer writes a JSON answer and records the call. Called with s.mu held.
func (s *Server) answer(w http.ResponseWriter, req *request, status int, out map[string]any, e *apiError) {
	if out == nil {
		out = map[string]any{}
	}
	code := ""
	if e != nil {
		code = e.code
		out = map[string]any{"ok": false, "error": e.code}
		if len(e.messages) > 0 {
			out["response_metadata"] = map[string]any{"messages": e.messages}
		}
		if e.needed != "" {
			out["needed"], out["provided"] = e.needed, e.provided
		}
	} else {
		out["ok"] = true
	}
	s.record(req, status, code)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(out)
}

// answerStatus writes a bare HTTP error with an HTML body, as Slack's edge does.
func (s *Server) answerStatus(w http.ResponseWriter, req *request, status int, _ string) {
	s.record(req, status, "")
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>", status, http.StatusText(status))
}

func (s *Server) record(req *request, status int, code string) {
	params := url.Values{}
	for k, vs := range req.params {
		if k != "token" {
			params[k] = vs
		}
	}
	c := Call{Method: req.method, Params: params, At: time.Now(), Status: status, Error: code}
	if req.json != nil {
		c.JSON = json.RawMessage(req.raw)
		c.Blocks = req.json["view"]
	} else if b := params.Get("blocks"); b != "" {
		c.Blocks = json.RawMessage(b)
	}
	s.calls = append(s.calls, c)
}

// str reads a parameter of a form call or a string field of a JSON call.
func (req *request) str(name string) string {
	if v := req.params.Get(name); v != "" {
		return v
	}
	if raw, ok := req.json[name]; ok {
		var v string
		if json.Unmarshal(raw, &v) == nil {
			return v
		}
	}
	return ""
}

// view reads the view argument that views.open and views.publish require and judges it with
// check: Slack refuses a missing view before it looks at one.
func (req *request) view(check func(json.RawMessage) *apiError) (json.RawMessage, *apiError) {
	raw, ok := req.json["view"]
	if !ok {
		return nil, fail("invalid_arguments", "missing required field: view")
	}
	if e := check(raw); e != nil {
		return nil, e
	}
	return raw, nil
}

// postable finds a channel the bot may post in. A user id (U…, W…) is the bot's direct message
// with that user, as chat.postMessage takes it: Slack opens the conversation (D…) on the first
// message and answers with its id.
func (s *Server) postable(id string) (*channel, *apiError) {
	if len(id) > 1 && (id[0] == 'U' || id[0] == 'W') {
		dm := "D" + id[1:]
		if s.channels[dm] == nil {
			s.channels[dm] = &channel{id: dm, name: id, member: true}
		}
		id = dm
	}
	ch := s.channels[id]
	switch {
	case id == "":
		return nil, fail("channel_not_found")
	case ch == nil:
		return nil, fail("channel_not_found")
	case ch.archived:
		return nil, fail("is_archived")
	case !ch.member:
		return nil, fail("not_in_channel")
	}
	return ch, nil
}

// checkBlocks validates the text and blocks of a message as Slack does.
func checkMessage(req *request) *apiError {
	text, blocks, attachments := req.params.Get("text"), req.params.Get("blocks"), req.params.Get("attachments")
	if strings.TrimSpace(text) == "" && (blocks == "" || blocks == "[]") && attachments == "" {
		return fail("no_text")
	}
	if blocks != "" {
		// Judged by the fake's own Block Kit checker (blockcheck.go), not by package blockkit.
		if e := blocksRefusal(blocks); e != nil {
			return e
		}
	}
	if md := req.params.Get("metadata"); md != "" {
		var m struct {
			EventType    string         `json:"event_type"`
			EventPayload map[string]any `json:"event_payload"`
		}
		if json.Unmarshal([]byte(md), &m) != nil || !eventTypeRe.MatchString(m.EventType) {
			return fail("invalid_metadata_format")
		}
	}
	return nil
}

var eventTypeRe = regexp.MustCompile(`^[a-z0-9_]{1,255}$`)

func (s *Server) postMessage(req *request) (map[string]any, *apiError) {
	ch, e := s.postable(req.params.Get("channel"))
	if e != nil {
		return nil, e
	}
	if e := checkMessage(req); e != nil {
		return nil, e
	}
	text, truncated := truncateText(req.params.Get("text"))
	m := &Message{
		Channel: ch.id, TS: s.nextTS(), ThreadTS: s.threadOf(ch, req.params.Get("thread_ts")), User: BotUserID, BotID: BotID,
		Text: text, PostedAt: time.Now(),
	}
	if b := req.params.Get("blocks"); b != "" {
		m.Blocks = json.RawMessage(b)
	}
	if md := req.params.Get("metadata"); md != "" {
		m.Metadata = json.RawMessage(md)
	}
	ch.msgs = append(ch.msgs, m)
	return warnIf(truncated, map[string]any{"channel": ch.id, "ts": m.TS, "message": wireMessage(m)}), nil
}

func (s *Server) update(req *request) (map[string]any, *apiError) {
	ch, e := s.postable(req.params.Get("channel"))
	if e != nil {
		return nil, e
	}
	m := s.message(ch.id, req.params.Get("ts"))
	switch {
	case m == nil:
		return nil, fail("message_not_found")
	case m.BotID != BotID:
		return nil, fail("cant_update_message")
	}
	if e := checkMessage(req); e != nil {
		return nil, e
	}
	text, truncated := truncateText(req.params.Get("text"))
	m.Text = text
	if b := req.params.Get("blocks"); b != "" {
		m.Blocks = json.RawMessage(b)
	}
	m.Edits++
	return warnIf(truncated, map[string]any{"channel": ch.id, "ts": m.TS, "text": m.Text, "message": wireMessage(m)}), nil
}

func (s *Server) postEphemeral(req *request) (map[string]any, *apiError) {
	ch, e := s.postable(req.params.Get("channel"))
	if e != nil {
		return nil, e
	}
	user := req.params.Get("user")
	if user == "" {
		return nil, fail("user_not_found")
	}
	if e := checkMessage(req); e != nil {
		return nil, e
	}
	text, truncated := truncateText(req.params.Get("text"))
	s.ephem = append(s.ephem, Ephemeral{
		Channel: ch.id, User: user, ThreadTS: req.params.Get("thread_ts"), Text: text,
		Blocks: json.RawMessage(req.params.Get("blocks")), Via: "chat.postEphemeral", At: time.Now(),
	})
	return warnIf(truncated, map[string]any{"message_ts": s.nextTS()}), nil
}

func (s *Server) permalink(req *request) (map[string]any, *apiError) {
	chID, ts := req.params.Get("channel"), req.params.Get("message_ts")
	if s.channels[chID] == nil {
		return nil, fail("channel_not_found")
	}
	m := s.message(chID, ts)
	if m == nil {
		return nil, fail("message_not_found")
	}
	link := fmt.Sprintf("https://%s.slack.com/archives/%s/p%s", TeamDomain, chID, strings.ReplaceAll(ts, ".", ""))
	if m.ThreadTS != "" && m.ThreadTS != m.TS {
		link += "?thread_ts=" + m.ThreadTS + "&cid=" + chID
	}
	return map[string]any{"channel": chID, "permalink": link}, nil
}

func (s *Server) conversationInfo(req *request) (map[string]any, *apiError) {
	ch := s.channels[req.params.Get("channel")]
	if ch == nil {
		return nil, fail("channel_not_found")
	}
	return map[string]any{"channel": map[string]any{
		"id": ch.id, "name": ch.name, "is_channel": true, "is_archived": ch.archived, "is_member": ch.member,
	}}, nil
}

func (s *Server) userGroupUsers(req *request) (map[string]any, *apiError) {
	members, ok := s.groups[req.params.Get("usergroup")]
	if !ok {
		return nil, fail("no_such_subteam")
	}
	return map[string]any{"users": append([]string{}, members...)}, nil
}

// openView opens a modal for the person whose click issued the trigger_id: single use, and only
// within three seconds of the click.
func (s *Server) openView(req *request) (map[string]any, *apiError) {
	tid := req.str("trigger_id")
	tr := s.triggers[tid]
	switch {
	case tid == "" || tr == nil:
		return nil, fail("invalid_arguments", "invalid `trigger_id`")
	case tr.used:
		return nil, fail("trigger_exchanged")
	case time.Since(tr.issued) > 3*time.Second:
		return nil, fail("expired_trigger_id")
	}
	raw, e := req.view(checkView)
	if e != nil {
		return nil, e
	}
	tr.used = true
	v := &View{ID: s.id("V"), User: tr.user, Channel: tr.channel, JSON: raw, Open: true, Opened: time.Now()}
	s.fillView(v, raw)
	s.views[v.ID] = v
	s.viewSeq = append(s.viewSeq, v.ID)
	return map[string]any{"view": wireView(v, nil)}, nil
}

func (s *Server) updateView(req *request) (map[string]any, *apiError) {
	v := s.views[req.str("view_id")]
	if v == nil {
		if ext := req.str("external_id"); ext != "" {
			for _, x := range s.views {
				var probe struct {
					ExternalID string `json:"external_id"`
				}
				if json.Unmarshal(x.JSON, &probe) == nil && probe.ExternalID == ext {
					v = x
				}
			}
		}
	}
	if v == nil || !v.Open {
		return nil, fail("not_found")
	}
	if h := req.str("hash"); h != "" && h != v.Hash {
		return nil, fail("hash_conflict")
	}
	raw := req.json["view"]
	if e := checkView(raw); e != nil {
		return nil, e
	}
	v.JSON = raw
	s.fillView(v, raw)
	return map[string]any{"view": wireView(v, nil)}, nil
}

// checkView judges a view with the fake's own Block Kit checker (blockcheck.go).
func checkView(raw json.RawMessage) *apiError { return viewRefusal(raw) }

// fillView reads the routing fields of a view and gives it a new hash.
func (s *Server) fillView(v *View, raw json.RawMessage) {
	var probe struct {
		CallbackID      string `json:"callback_id"`
		PrivateMetadata string `json:"private_metadata"`
	}
	_ = json.Unmarshal(raw, &probe)
	v.CallbackID, v.PrivateMetadata = probe.CallbackID, probe.PrivateMetadata
	v.Hash = fmt.Sprintf("%d.%s", time.Now().Unix(), s.id("h"))
}

// serveResponseURL takes a message sent to an interaction's response_url: usable five times
// within thirty minutes, as Slack's are.
func (s *Server) serveResponseURL(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/response/")
	var msg struct {
		Text            string          `json:"text"`
		Blocks          json.RawMessage `json:"blocks"`
		ResponseType    string          `json:"response_type"`
		ReplaceOriginal bool            `json:"replace_original"`
		DeleteOriginal  bool            `json:"delete_original"`
	}
	if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
		http.Error(w, "invalid_payload", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ru := s.respURLs[id]
	if ru == nil || ru.uses >= 5 || time.Since(ru.issued) > 30*time.Minute {
		http.Error(w, "expired_url", http.StatusNotFound)
		return
	}
	ru.uses++
	if msg.ResponseType == "ephemeral" || (!msg.ReplaceOriginal && !msg.DeleteOriginal && msg.ResponseType != "in_channel") {
		text, _ := truncateText(msg.Text)
		s.ephem = append(s.ephem, Ephemeral{Channel: ru.channel, User: ru.user, ThreadTS: ru.threadTS,
			Text: text, Blocks: msg.Blocks, Via: "response_url", At: time.Now()})
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"ok":true}`)
}

// wireMessage is a message as Slack shows it in API answers and payloads.
func wireMessage(m *Message) map[string]any {
	out := map[string]any{"type": "message", "text": m.Text, "user": m.User, "ts": m.TS, "team": TeamID}
	if m.BotID != "" {
		out["bot_id"], out["app_id"] = m.BotID, AppID
	}
	if m.ThreadTS != "" {
		out["thread_ts"] = m.ThreadTS
	}
	if len(m.Blocks) > 0 {
		out["blocks"] = m.Blocks
	}
	if len(m.Metadata) > 0 {
		out["metadata"] = m.Metadata
	}
	return out
}

// wireView is a view as Slack shows it: what the app sent plus Slack's fields, and the state.
func wireView(v *View, values map[string]any) map[string]any {
	out := map[string]any{}
	var sent map[string]json.RawMessage
	_ = json.Unmarshal(v.JSON, &sent)
	for k, raw := range sent {
		out[k] = raw
	}
	if values == nil {
		values = map[string]any{}
	}
	out["id"], out["team_id"], out["hash"] = v.ID, TeamID, v.Hash
	out["state"] = map[string]any{"values": values}
	out["previous_view_id"], out["root_view_id"] = nil, v.ID
	out["app_id"], out["app_installed_team_id"], out["bot_id"] = AppID, TeamID, BotID
	if _, ok := out["private_metadata"]; !ok {
		out["private_metadata"] = ""
	}
	if _, ok := out["callback_id"]; !ok {
		out["callback_id"] = ""
	}
	if _, ok := out["external_id"]; !ok {
		out["external_id"] = ""
	}
	return out
}
