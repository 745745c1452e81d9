package slackfake

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
)

// conversations.history and conversations.replies, as Slack answers them (form posts, the token
// in the "token" field or a bearer header):
//
//   - channel (channel_not_found when unknown or missing, not_in_channel when the bot is not a
//     member; an archived channel still shows its history), limit (history: 100 by default,
//     replies: 1000; at most 999 either way), oldest and latest (a Slack ts, exclusive unless
//     inclusive is 1 or true; invalid_ts_oldest, invalid_ts_latest), cursor (a next_cursor of an
//     earlier page; invalid_cursor), include_all_metadata (1 or true: each message's metadata,
//     {event_type, event_payload}; without it no metadata);
//   - conversations.history shows the channel's top-level messages, newest first, a thread's
//     parent with thread_ts, reply_count, reply_users and latest_reply (its replies are left out);
//   - conversations.replies takes ts, a thread's parent or any message of the thread (a message
//     with no replies is a thread of one; thread_not_found otherwise; invalid_arguments without
//     ts), and shows the thread's messages in the time range oldest first (the parent, when in
//     range, first of all);
//   - the answer is {"ok":true,"messages":[…],"has_more":…,"response_metadata":{"next_cursor":…}},
//     next_cursor "" on the last page; the cursor is base64 of "next_ts:" and the first ts of the
//     next page, as Slack's are.
//
// Both obey the failure knobs (Down, RateLimitEvery, FailNext, FailNextStatus, SetLatency,
// DropNextResponse) and the token check like every method; FailNext(method, "missing_scope")
// names channels:history as the scope needed.

const (
	historyLimit = 100
	repliesLimit = 1000
	maxLimit     = 999
)

// timeline is the part of a conversation a history call asks for: ts in microseconds.
type timeline struct {
	oldest, latest int64 // latest < 0: no upper bound ("now")
	inclusive      bool
	limit          int
	cursor         int64 // -1: the first page
	metadata       bool
}

func (tl timeline) has(us int64) bool {
	if us < tl.oldest || (us == tl.oldest && !tl.inclusive) {
		return false
	}
	if tl.latest >= 0 && (us > tl.latest || (us == tl.latest && !tl.inclusive)) {
		return false
	}
	return true
}

func readTimeline(req *request, defaultLimit int) (timeline, *apiError) {
	tl := timeline{latest: -1, cursor: -1, limit: defaultLimit}
	var ok bool
	if v := req.params.Get("oldest"); v != "" {
		if tl.oldest, ok = parseTS(v); !ok {
			return tl, fail("invalid_ts_oldest")
		}
	}
	if v := req.params.Get("latest"); v != "" {
		if tl.latest, ok = parseTS(v); !ok {
			return tl, fail("invalid_ts_latest")
		}
	}
	tl.inclusive = truthy(req.params.Get("inclusive"))
	tl.metadata = truthy(req.params.Get("include_all_metadata"))
	if n, err := strconv.Atoi(req.params.Get("limit")); err == nil && n > 0 {
		tl.limit = min(n, maxLimit)
	}
	if c := req.params.Get("cursor"); c != "" {
		if tl.cursor, ok = parseCursor(c); !ok {
			return tl, fail("invalid_cursor")
		}
	}
	return tl, nil
}

func truthy(v string) bool { return v == "1" || strings.EqualFold(v, "true") }

// parseTS reads a Slack ts ("1712345678.000100", or whole seconds) into microseconds.
func parseTS(v string) (int64, bool) {
	secs, frac, _ := strings.Cut(v, ".")
	s, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || s < 0 || s > 1<<40 {
		return 0, false
	}
	var us int64
	if frac != "" {
		if len(frac) > 6 {
			frac = frac[:6]
		}
		f, err := strconv.ParseUint(frac, 10, 32)
		if err != nil {
			return 0, false
		}
		us = int64(f)
		for range 6 - len(frac) {
			us *= 10
		}
	}
	return s*1_000_000 + us, true
}

// tsMicros is parseTS for the fake's own timestamps, which are always well formed.
func tsMicros(ts string) int64 {
	us, _ := parseTS(ts)
	return us
}

func makeCursor(ts string) string {
	return base64.StdEncoding.EncodeToString([]byte("next_ts:" + strings.ReplaceAll(ts, ".", "")))
}

func parseCursor(c string) (int64, bool) {
	raw, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	digits, ok := strings.CutPrefix(string(raw), "next_ts:")
	if !ok || len(digits) < 7 {
		return 0, false
	}
	return parseTS(digits[:len(digits)-6] + "." + digits[len(digits)-6:])
}

// readable finds a channel whose history the bot may read.
func (s *Server) readable(id string) (*channel, *apiError) {
	ch := s.channels[id]
	switch {
	case id == "" || ch == nil:
		return nil, fail("channel_not_found")
	case !ch.member:
		return nil, fail("not_in_channel")
	}
	return ch, nil
}

// isReply reports whether m is a reply in a thread (not the thread's parent).
func isReply(m *Message) bool { return m.ThreadTS != "" && m.ThreadTS != m.TS }

// threadInfo is what Slack adds to a thread's parent.
type threadInfo struct {
	count  int
	users  []string
	latest string
}

// threads gathers the replies of every thread in the channel, by the parent's ts.
func threads(ch *channel) map[string]*threadInfo {
	out := map[string]*threadInfo{}
	for _, m := range ch.msgs {
		if !isReply(m) {
			continue
		}
		ti := out[m.ThreadTS]
		if ti == nil {
			ti = &threadInfo{}
			out[m.ThreadTS] = ti
		}
		ti.count++
		ti.latest = m.TS
		if !contains(ti.users, m.User) {
			ti.users = append(ti.users, m.User)
		}
	}
	return out
}

// historyMessage is a message as conversations.history and conversations.replies show it.
func (s *Server) historyMessage(ch *channel, m *Message, th map[string]*threadInfo, metadata bool) map[string]any {
	out := map[string]any{"type": "message", "user": m.User, "text": m.Text, "ts": m.TS, "team": TeamID}
	if m.BotID != "" {
		out["bot_id"], out["app_id"] = m.BotID, AppID
		out["bot_profile"] = map[string]any{"id": m.BotID, "app_id": AppID, "name": "bot", "team_id": TeamID, "deleted": false}
	}
	if len(m.Blocks) > 0 {
		out["blocks"] = m.Blocks
	}
	if isReply(m) {
		out["thread_ts"] = m.ThreadTS
		if p := s.message(ch.id, m.ThreadTS); p != nil {
			out["parent_user_id"] = p.User
		}
	} else if ti := th[m.TS]; ti != nil {
		out["thread_ts"] = m.TS
		out["reply_count"], out["reply_users_count"] = ti.count, len(ti.users)
		out["reply_users"], out["latest_reply"] = ti.users, ti.latest
		out["is_locked"], out["subscribed"] = false, false
	}
	if metadata && len(m.Metadata) > 0 {
		var md struct {
			EventType    string         `json:"event_type"`
			EventPayload map[string]any `json:"event_payload"`
		}
		if json.Unmarshal(m.Metadata, &md) == nil {
			if md.EventPayload == nil {
				md.EventPayload = map[string]any{}
			}
			out["metadata"] = map[string]any{"event_type": md.EventType, "event_payload": md.EventPayload}
		}
	}
	return out
}

// page answers one page of sel (in the order shown) from the cursor on.
func (s *Server) page(ch *channel, sel []*Message, tl timeline, newestFirst bool) map[string]any {
	start := 0
	if tl.cursor >= 0 {
		start = len(sel)
		for i, m := range sel {
			if us := tsMicros(m.TS); (newestFirst && us <= tl.cursor) || (!newestFirst && us >= tl.cursor) {
				start = i
				break
			}
		}
	}
	sel = sel[start:]
	next := ""
	if len(sel) > tl.limit {
		next = makeCursor(sel[tl.limit].TS)
		sel = sel[:tl.limit]
	}
	th := threads(ch)
	msgs := make([]map[string]any, len(sel))
	for i, m := range sel {
		msgs[i] = s.historyMessage(ch, m, th, tl.metadata)
	}
	return map[string]any{"messages": msgs, "has_more": next != "",
		"response_metadata": map[string]any{"next_cursor": next}}
}

func (s *Server) history(req *request) (map[string]any, *apiError) {
	ch, e := s.readable(req.params.Get("channel"))
	if e != nil {
		return nil, e
	}
	tl, e := readTimeline(req, historyLimit)
	if e != nil {
		return nil, e
	}
	var sel []*Message
	for i := len(ch.msgs) - 1; i >= 0; i-- {
		if m := ch.msgs[i]; !isReply(m) && tl.has(tsMicros(m.TS)) {
			sel = append(sel, m)
		}
	}
	out := s.page(ch, sel, tl, true)
	out["pin_count"], out["channel_actions_ts"], out["channel_actions_count"] = 0, nil, 0
	if v := req.params.Get("latest"); v != "" {
		out["latest"] = v
	}
	return out, nil
}

func (s *Server) replies(req *request) (map[string]any, *apiError) {
	ch, e := s.readable(req.params.Get("channel"))
	if e != nil {
		return nil, e
	}
	ts := req.params.Get("ts")
	if ts == "" {
		return nil, fail("invalid_arguments", "[ERROR] missing required field: ts")
	}
	m := s.message(ch.id, ts)
	if m == nil {
		return nil, fail("thread_not_found")
	}
	parent := m
	if isReply(m) {
		if parent = s.message(ch.id, m.ThreadTS); parent == nil {
			return nil, fail("thread_not_found")
		}
	}
	tl, e := readTimeline(req, repliesLimit)
	if e != nil {
		return nil, e
	}
	var sel []*Message
	for _, m := range ch.msgs {
		if (m == parent || (isReply(m) && m.ThreadTS == parent.TS)) && tl.has(tsMicros(m.TS)) {
			sel = append(sel, m)
		}
	}
	return s.page(ch, sel, tl, false), nil
}
