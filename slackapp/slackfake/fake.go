// Package slackfake is a fake Slack: a stateful Web API on an httptest server that speaks the
// wire format slack-go uses, and a person who clicks, selects, submits modals and replies in
// threads by sending the app signed payloads built from what the app actually posted. It is a
// server, not a test helper (it imports no testing): New(Options) starts it and Close stops it,
// so a load tool can run it as well as a test; slackfaketest.New(t) is the one-line form for
// tests.
//
// The Web API side (aim a client at it with slack.OptionAPIURL(fake.URL())):
//
//   - form posts with the token in the "token" field (chat.postMessage, chat.update,
//     chat.postEphemeral, usergroups.users.list, auth.test, conversations.info,
//     conversations.history, conversations.replies; see history.go), JSON posts with
//     "Authorization: Bearer" (views.open, views.update, views.push, apps.connections.open), and
//     GETs with a bearer token (chat.getPermalink);
//   - it checks the token (not_authed, invalid_auth, token_revoked), keeps channels and their
//     messages (ts assigned increasing; thread_ts kept when it names a message of the channel,
//     else the message goes to the top of the channel, as in Slack; a text over 40,000
//     characters truncated with the warning message_truncated, not refused; see post.go),
//     modals and their trigger_ids (single use, three seconds), user groups, and ephemerals;
//   - it checks Block Kit as Slack would, with its own checker written from Slack's
//     documentation, not from our renderer (blockcheck.go: invalid_blocks, invalid_arguments,
//     view_too_large with response_metadata.messages);
//   - it records every call (Calls) and fails on demand: FailNext (a Slack error code),
//     FailNextStatus (an HTTP status), RateLimitEvery (429 with Retry-After), SetLatency, Down;
//     DropNextResponse and DropNextResponseStatus carry a call out and lose its answer (the
//     connection cut, or a 5xx in its place), as when Slack posted a message whose answer never
//     reached the app.
//
// The person side (Click, Select, CheckAndSubmit, SubmitView, ReplyInThread, Command, Send)
// builds payloads shaped like slackapp/testdata/payloads — block_actions with container, message,
// state.values, trigger_id and response_url; view_submission with private_metadata and
// state.values; event_callback with a unique event_id — signs them with the signing secret
// (X-Slack-Signature v0=HMAC-SHA256 of "v0:{ts}:{body}", X-Slack-Request-Timestamp) and POSTs
// them to the app, returning the app's response and how long it took. When the app is connected
// over Socket Mode (see socket.go) they travel as envelopes over the WebSocket instead, and the
// response is the app's ack.
//
// Slack's clock (see clock.go): what the person sends must be acked within Options.AckTimeout
// (three seconds, Slack's limit). An interaction or a slash command acked later failed as it
// fails in Slack, with an error shown to the person (FailedInteractions); an event acked later
// is delivered again with X-Slack-Retry-Num, up to three retries. Every late ack is kept
// (Timeouts), and slackfaketest fails the test on any the test did not take (TakeTimeouts).
package slackfake

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// The fake workspace: its tokens, its signing secret and its ids.
const (
	BotToken      = "xoxb-0000000001-0000000002-fakebottoken"
	AppToken      = "xapp-1-A0FAKE0001-0000000003-fakeapptoken"
	SigningSecret = "8f742231b10e8888abcd99fakefake00"

	TeamID         = "T0FAKE0001"
	TeamDomain     = "fake"
	AppID          = "A0FAKE0001"
	BotUserID      = "U0FAKEBOT1"
	BotID          = "B0FAKEBOT1"
	DefaultChannel = "C0FAKE0001"

	// VerificationToken is the deprecated token Slack still puts in payloads; apps that verify
	// signatures ignore it.
	VerificationToken = "fakeverificationtoken0001"
)

// Options configure a fake Slack. The zero value is Slack as it is.
type Options struct {
	// AckTimeout is how long Slack waits for the app to ack what it delivers — an interaction, a
	// slash command or an event: the HTTP answer, or the ack of a Socket Mode envelope. Zero
	// means DefaultAckTimeout, Slack's three seconds; a test may shorten it to see what happens
	// to a slow app without waiting for it (SetAckTimeout changes it later).
	AckTimeout time.Duration
	// Now is the clock that stamps signatures and message timestamps; nil means time.Now
	// (SetClock changes it later).
	Now func() time.Time
	// Logger hears what the fake did that a reader of the log wants to know: at Warn a delivery
	// the app did not ack in time and what Slack did about it, at Error what went wrong where no
	// call could return it (the app sent a Socket Mode frame that is not JSON, or acked an
	// envelope never sent). Nil discards it.
	Logger *slog.Logger
}

// DefaultAckTimeout is Slack's limit on an ack: "your app has to respond to the request within 3
// seconds" (Slack's interactivity and Events API documentation).
const DefaultAckTimeout = 3 * time.Second

// Server is a fake Slack. Start it with New and stop it with Close.
type Server struct {
	srv *httptest.Server
	// client posts the person's payloads to the app.
	client    *http.Client
	log       *slog.Logger
	closeOnce sync.Once

	mu sync.Mutex
	// Slack's clock (clock.go).
	ackTimeout time.Duration
	timeouts   []Timeout
	envelopes  map[string]envelopeState // every envelope sent over Socket Mode, by envelope_id

	now      func() time.Time
	appURL   string
	lastTS   int64 // microseconds of the last ts handed out
	seq      int
	calls    []Call
	channels map[string]*channel
	ephem    []Ephemeral
	views    map[string]*View
	viewSeq  []string        // view ids in opening order
	homes    map[string]Home // the Home tab of each person (views.publish)
	homeLog  []Home          // every Home tab published, oldest first
	triggers map[string]*trigger
	groups   map[string][]string
	picks    map[string]map[string]map[string]any // user|channel|ts -> block_id -> action_id -> state
	failNext map[string][]failure
	drops    map[string][]int // method -> statuses to answer after doing the call (0: cut)
	rate     rateLimit
	latency  time.Duration
	down     bool
	revoked  bool
	lastEvt  []byte
	socket   *socketState
	sockets  chan struct{} // closed when socket changes (socket.go)
	respURLs map[string]*responseURL
}

type channel struct {
	id       string
	name     string
	archived bool
	member   bool
	msgs     []*Message
}

type trigger struct {
	user    string
	channel string
	issued  time.Time
	used    bool
}

type failure struct {
	code   string
	status int
}

type rateLimit struct {
	every   int
	after   time.Duration
	methods map[string]bool
	count   int
}

type responseURL struct {
	channel, user, threadTS string
	uses                    int
	issued                  time.Time
}

// New starts a fake Slack, with DefaultChannel in it and the bot a member. Close stops it.
func New(o Options) *Server {
	if o.AckTimeout <= 0 {
		o.AckTimeout = DefaultAckTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		client:     &http.Client{Timeout: 30 * time.Second},
		log:        o.Logger,
		ackTimeout: o.AckTimeout,
		envelopes:  map[string]envelopeState{},

		now:      o.Now,
		channels: map[string]*channel{},
		views:    map[string]*View{},
		homes:    map[string]Home{},
		triggers: map[string]*trigger{},
		groups:   map[string][]string{},
		picks:    map[string]map[string]map[string]any{},
		failNext: map[string][]failure{},
		drops:    map[string][]int{},
		respURLs: map[string]*responseURL{},
	}
	s.channels[DefaultChannel] = &channel{id: DefaultChannel, name: "general", member: true}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.serveAPI)
	mux.HandleFunc("/response/", s.serveResponseURL)
	mux.HandleFunc("/socket", s.serveSocket)
	s.srv = httptest.NewServer(mux)
	return s
}

// Close stops the fake: it hangs up on a Socket Mode app and closes the Web API. Calling it again
// does nothing.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.closeSocket()
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// URL is the Web API base for slack.OptionAPIURL and SLACK_API_URL: it ends in "/api/".
func (s *Server) URL() string { return s.srv.URL + "/api/" }

// locked runs f with s.mu held: the setters below are each one such step.
func (s *Server) locked(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// SetAppURL tells the person where the app listens: payloads go to URL + "/slack/interactions",
// "/slack/events" and "/slack/commands".
func (s *Server) SetAppURL(u string) {
	s.locked(func() { s.appURL = strings.TrimSuffix(u, "/") })
}

// SetClock sets the clock that stamps signatures and message timestamps (the app under test
// checks signatures against its own clock). Trigger ids expire by the wall clock regardless.
func (s *Server) SetClock(now func() time.Time) {
	s.locked(func() { s.now = now })
}

// AddChannel creates a channel with the bot as a member.
func (s *Server) AddChannel(id, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch, ok := s.channels[id]; ok {
		ch.name, ch.member, ch.archived = name, true, false
		return
	}
	s.channels[id] = &channel{id: id, name: name, member: true}
}

// DeleteChannel removes a channel: posting to it is channel_not_found.
func (s *Server) DeleteChannel(id string) {
	s.locked(func() { delete(s.channels, id) })
}

// ArchiveChannel archives a channel: posting to it is is_archived.
func (s *Server) ArchiveChannel(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch, ok := s.channels[id]; ok {
		ch.archived = true
	}
}

// RemoveBot takes the bot out of a channel: posting to it is not_in_channel.
func (s *Server) RemoveBot(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch, ok := s.channels[id]; ok {
		ch.member = false
	}
}

// AddUserGroup creates (or replaces) a user group with its members.
func (s *Server) AddUserGroup(id string, members ...string) {
	s.locked(func() { s.groups[id] = append([]string(nil), members...) })
}

// RevokeToken revokes the bot token: every later call is token_revoked.
func (s *Server) RevokeToken() {
	s.locked(func() { s.revoked = true })
}

// FailNext makes the next call of method answer {"ok":false,"error":code}. Calls queue up.
func (s *Server) FailNext(method, code string) {
	s.locked(func() { s.failNext[method] = append(s.failNext[method], failure{code: code}) })
}

// FailNextStatus makes the next call of method answer with an HTTP status (500, 502, 503…)
// and an HTML body, as Slack's edge does.
func (s *Server) FailNextStatus(method string, status int) {
	s.locked(func() { s.failNext[method] = append(s.failNext[method], failure{status: status}) })
}

// DropNextResponse makes the next call of method that reaches Slack's work (past Down, the rate
// limit, FailNext and the token check) be carried out — a chat.postMessage posts its message —
// and then cuts the connection without an answer: the client sees EOF, as when the network or a
// proxy broke after Slack took the call. Drops queue up, with DropNextResponseStatus's.
func (s *Server) DropNextResponse(method string) {
	s.DropNextResponseStatus(method, 0)
}

// DropNextResponseStatus is DropNextResponse answering an HTTP status (500, 502, 503…) with an
// HTML body instead of the call's answer, as Slack's edge does when it times out on a call that
// went through all the same. A status of 0 cuts the connection.
func (s *Server) DropNextResponseStatus(method string, status int) {
	s.locked(func() { s.drops[method] = append(s.drops[method], status) })
}

// RateLimitEvery makes every n-th call of the given methods (of every method when none is
// named) answer 429 with Retry-After (whole seconds, rounded up). n <= 0 turns it off.
func (s *Server) RateLimitEvery(n int, retryAfter time.Duration, methods ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rate = rateLimit{every: n, after: retryAfter}
	if len(methods) > 0 {
		s.rate.methods = map[string]bool{}
		for _, m := range methods {
			s.rate.methods[m] = true
		}
	}
}

// SetLatency delays every Web API answer by d.
func (s *Server) SetLatency(d time.Duration) {
	s.locked(func() { s.latency = d })
}

// Down makes every Web API call answer 503 until Up.
func (s *Server) Down() {
	s.locked(func() { s.down = true })
}

// Up undoes Down.
func (s *Server) Up() {
	s.locked(func() { s.down = false })
}

// Call is one recorded Web API call.
type Call struct {
	Method string
	// Params are the form fields and query parameters, without the token.
	Params url.Values
	// JSON is the body of a JSON call (views.open and the like).
	JSON json.RawMessage
	// Blocks is the blocks form field, or the view of a views call.
	Blocks json.RawMessage
	At     time.Time
	// Status is the HTTP status answered (0 when the connection was cut); Error the Slack error
	// code ("" when ok).
	Status int
	Error  string
	// Dropped reports that the call was carried out but its answer lost (DropNextResponse):
	// Error is then what Slack would have answered, and Status what the client got.
	Dropped bool
}

// Calls returns the recorded calls, of the given methods only when some are named.
func (s *Server) Calls(methods ...string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if len(methods) == 0 || contains(methods, c.Method) {
			out = append(out, c)
		}
	}
	return out
}

// Message is a message in a channel, as Slack keeps it.
type Message struct {
	Channel  string
	TS       string
	ThreadTS string
	User     string // the bot's user id for the app's messages, the person's for replies
	BotID    string
	Text     string
	Blocks   json.RawMessage
	Metadata json.RawMessage
	// Edits counts chat.update calls on it.
	Edits    int
	PostedAt time.Time
}

// ActionIDs lists the action_ids of every element in the message's blocks.
func (m Message) ActionIDs() []string { return actionIDs(m.Blocks) }

// BlockIDs lists the block_ids of the message's blocks.
func (m Message) BlockIDs() []string { return blockIDs(m.Blocks) }

// HasControls reports whether the message has anything to click or fill in.
func (m Message) HasControls() bool { return len(m.ActionIDs()) > 0 }

// AllText is every text of the message, blocks included, joined by newlines: for assertions.
func (m Message) AllText() string { return m.Text + "\n" + allText(m.Blocks) }

// Messages returns the channel's messages (replies included), oldest first.
func (s *Server) Messages(channelID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.channels[channelID]
	if ch == nil {
		return nil
	}
	out := make([]Message, len(ch.msgs))
	for i, m := range ch.msgs {
		out[i] = *m
	}
	return out
}

// BotMessages returns the app's top-level messages in the channel (no thread replies), oldest
// first.
func (s *Server) BotMessages(channelID string) []Message {
	var out []Message
	for _, m := range s.Messages(channelID) {
		if m.BotID != "" && (m.ThreadTS == "" || m.ThreadTS == m.TS) {
			out = append(out, m)
		}
	}
	return out
}

// Message returns one message.
func (s *Server) Message(channelID, ts string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.message(channelID, ts); m != nil {
		return *m, true
	}
	return Message{}, false
}

func (s *Server) message(channelID, ts string) *Message {
	ch := s.channels[channelID]
	if ch == nil {
		return nil
	}
	for _, m := range ch.msgs {
		if m.TS == ts {
			return m
		}
	}
	return nil
}

// Ephemeral is a message only one person sees.
type Ephemeral struct {
	Channel  string
	User     string
	ThreadTS string
	Text     string
	Blocks   json.RawMessage
	// Via is "chat.postEphemeral" or "response_url".
	Via string
	At  time.Time
}

// Ephemerals returns the ephemerals sent to user (to anybody when user is "").
func (s *Server) Ephemerals(user string) []Ephemeral {
	return sentTo(s, &s.ephem, user, func(e Ephemeral) string { return e.User })
}

// sentTo copies, under the lock, the entries of a log that went to user (every entry when user
// is ""), oldest first; to says whom an entry went to.
func sentTo[T any](s *Server, log *[]T, user string, to func(T) string) []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []T
	for _, x := range *log {
		if user == "" || to(x) == user {
			out = append(out, x)
		}
	}
	return out
}

// View is a modal the app opened.
type View struct {
	ID              string
	Hash            string
	User            string // who it was opened for
	Channel         string // where the click that opened it was
	CallbackID      string
	PrivateMetadata string
	// JSON is the view as the app sent it (its type, title, blocks…).
	JSON   json.RawMessage
	Open   bool
	Opened time.Time
}

// Views returns the modals opened so far, oldest first.
func (s *Server) Views() []View {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]View, 0, len(s.viewSeq))
	for _, id := range s.viewSeq {
		out = append(out, *s.views[id])
	}
	return out
}

// OpenView returns the modal most recently opened for user that is still open.
func (s *Server) OpenView(user string) (View, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.viewSeq) - 1; i >= 0; i-- {
		v := s.views[s.viewSeq[i]]
		if v.Open && v.User == user {
			return *v, true
		}
	}
	return View{}, false
}

// nextTS hands out a message timestamp, strictly increasing.
func (s *Server) nextTS() string {
	us := s.now().UnixMicro()
	if us <= s.lastTS {
		us = s.lastTS + 1
	}
	s.lastTS = us
	return fmt.Sprintf("%d.%06d", us/1e6, us%1e6)
}

// id hands out an id with a prefix, unique in this fake.
func (s *Server) id(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s0FAKE%05d", prefix, s.seq)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
