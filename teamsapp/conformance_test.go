package teamsapp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/channeltest"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/storage/storagetest"
	"github.com/inquiry-bot/bot/teamsapp/teamsfake"
)

// TestConformance runs the channels' conformance suite on Teams, on both databases.
func TestConformance(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setup(t, databaseURL)
		b.dispatch()
		h := &teamsHarness{b: b}
		// The bot reaches the fake's Connector through a proxy that notes each post's status and
		// the test clock's time: the fake records only the calls that went through.
		target, _ := url.Parse(strings.TrimSuffix(b.fake.ServiceURL(), "/teams/"))
		proxy := httputil.NewSingleHostReverseProxy(target)
		proxy.ModifyResponse = func(r *http.Response) error {
			if r.Request.Method == http.MethodPost && strings.HasSuffix(r.Request.URL.Path, "/activities") {
				h.mu.Lock()
				h.attempts = append(h.attempts, channeltest.Attempt{Status: r.StatusCode, OK: r.StatusCode < 300, At: b.clock.Now()})
				h.mu.Unlock()
			}
			return nil
		}
		srv := httptest.NewServer(proxy)
		t.Cleanup(srv.Close)
		h.serviceURL = srv.URL + "/teams/"
		channeltest.Run(t, h)
	})
}

var teamsPeople = map[string]teamsfake.Person{
	channeltest.Alice: alice, channeltest.Bob: bob,
	channeltest.Carol: {ID: "29:carol", Name: "Carol", AADObjectID: "5d1e4a2c-7b1f-4c0e-9a55-0c2f3e8b6a11"},
}

// teamsHarness is Teams, through the fake, for the suite. The cases run one after another on
// one bundle, so each method points the bundle at the case's t.
type teamsHarness struct {
	b          *bundle
	serviceURL string // the proxy in front of the fake's Connector
	asked      int    // each question goes to a conversation of its own

	mu       sync.Mutex
	attempts []channeltest.Attempt
}

func (h *teamsHarness) on(t *testing.T) *bundle { h.b.t = t; return h.b }

func (h *teamsHarness) Name() string              { return "teams" }
func (h *teamsHarness) Service() *inquiry.Service { return h.b.svc }
func (h *teamsHarness) Identity(p string) string  { return teamsPeople[p].AADObjectID }

// ShownAs is the name a card shows for p: the one their click's invoke carries (from.name).
func (h *teamsHarness) ShownAs(p string) string { return teamsPeople[p].Name }

// Settle moves the test clock the dispatcher runs on, so a retry it holds comes due.
func (h *teamsHarness) Settle(d time.Duration) { h.b.clock.Add(d) }

func (h *teamsHarness) Caps() channeltest.Caps {
	return channeltest.Caps{MaxButtons: adaptivecard.MaxButtons, API: true, Paced: true,
		NoThreads: "a Teams question is answered in its card (Action.Execute and the card's inputs); a message in the conversation is answered with where to ask"}
}

func (h *teamsHarness) target(answerers []string) *inquiry.TeamsTarget {
	h.asked++
	tt := &inquiry.TeamsTarget{Conversation: fmt.Sprintf("19:conformance%d@thread.tacv2", h.asked), ServiceURL: h.serviceURL}
	for _, p := range answerers {
		tt.Answerers = append(tt.Answerers, teamsPeople[p].AADObjectID)
	}
	return tt
}

func (h *teamsHarness) ask(t *testing.T, in inquiry.Inquiry, tt *inquiry.TeamsTarget) *inquiry.Record {
	b := h.on(t)
	rec, created, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: in, Config: &inquiry.Config{Policy: inquiry.PolicyAsk}, Teams: tt})
	if err != nil || !created {
		t.Fatalf("ask %s: created %v, %v", in.ID, created, err)
	}
	return rec
}

func (h *teamsHarness) Ask(t *testing.T, in inquiry.Inquiry, answerers ...string) *inquiry.Record {
	rec := h.ask(t, in, h.target(answerers))
	var got *inquiry.Record
	testkit.Eventually(t, channeltest.Within, "the question posted to Teams", func() bool {
		h.Settle(time.Second) // a retry the dispatcher holds comes due on the test clock
		got, _ = h.b.svc.Get(h.b.ctx, rec.Key)
		return got != nil && posted(got).ID != ""
	})
	return got
}

func (h *teamsHarness) Answer(t *testing.T, rec *inquiry.Record, person, value string) channeltest.Reply {
	b := h.on(t)
	r := b.click(teamsPeople[person], map[string]any{"inquiry": rec.Key, "value": value})
	return channeltest.Reply{Told: string(r.Value)}
}

func (h *teamsHarness) Forged(t *testing.T, rec *inquiry.Record) int {
	b := h.on(t)
	status, _, err := b.fake.Send(b.ctx, b.url, b.fake.Token(teamsfake.TokenOptions{Forged: true}), []byte("{not json"))
	if err != nil {
		t.Fatal(err)
	}
	return status
}

// Shown is the question's card as it stands: the last update of its activity, or as posted.
func (h *teamsHarness) Shown(t *testing.T, rec *inquiry.Record) []channeltest.Shown {
	b := h.on(t)
	cur, err := b.svc.Get(b.ctx, rec.Key)
	if err != nil {
		t.Fatal(err)
	}
	var card json.RawMessage
	for _, c := range b.fake.Calls() {
		switch {
		case c.Method == http.MethodPost && c.ActivityID == "" && c.Conversation == rec.Teams.Conversation,
			c.Method == http.MethodPut && c.ActivityID == posted(cur).ID:
			card = c.Card()
		}
	}
	if card == nil {
		return nil
	}
	var doc any
	if err := json.Unmarshal(card, &doc); err != nil {
		t.Fatalf("the card is not JSON: %v", err)
	}
	s := channeltest.Shown{Text: string(card)}
	walk(doc, func(m map[string]any) {
		switch typ, _ := m["type"].(string); {
		case typ == "Action.Execute":
			s.Buttons++
			s.Controls = true
		case typ == "Input.ChoiceSet":
			s.List = true
			s.Controls = true
		case strings.HasPrefix(typ, "Input."):
			s.Controls = true
		}
	})
	if s.List {
		s.Buttons-- // the choice set's own submit button is no answer
	}
	return []channeltest.Shown{s}
}

// walk calls f on every object within v.
func walk(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(v)
		for _, e := range v {
			walk(e, f)
		}
	case []any:
		for _, e := range v {
			walk(e, f)
		}
	}
}

func (h *teamsHarness) ReplyInThread(t *testing.T, rec *inquiry.Record, person, text string) {
	t.Fatal("teams: no thread replies answer (Caps.Threads is false)")
}

func (h *teamsHarness) FailPosts(t *testing.T, retryAfter time.Duration) {
	b := h.on(t)
	b.fake.FailNext(http.StatusBadGateway, "")
	b.fake.FailNext(http.StatusTooManyRequests, fmt.Sprint(int(retryAfter.Seconds())))
}

func (h *teamsHarness) Attempts(t *testing.T) []channeltest.Attempt {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]channeltest.Attempt(nil), h.attempts...)
}

func (h *teamsHarness) Unpostable(t *testing.T, in inquiry.Inquiry) (*inquiry.Record, string) {
	tt := h.target(nil)
	h.b.fake.Forbid(tt.Conversation)
	return h.ask(t, in, tt), "add the bot to that team or chat"
}
