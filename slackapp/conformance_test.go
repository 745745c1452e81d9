package slackapp

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/channeltest"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// TestConformance runs the channels' conformance suite on Slack, on both databases.
func TestConformance(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		channeltest.Run(t, &slackHarness{b: setupOn(t, databaseURL), clicks: map[string][]byte{}})
	})
}

// slackHarness is Slack, through the fake, for the suite. The cases run one after another on
// one bundle, so each method points the bundle at the case's t.
type slackHarness struct {
	b       *bundle
	clicks  map[string][]byte // click payloads built when the question was posted: key, person, value
	limited bool              // FailPosts turned the rate limit on; the next Ask turns it off
}

var slackPeople = map[string]string{channeltest.Alice: "U0ALICE01", channeltest.Bob: "U0BOB0001", channeltest.Carol: "U0CAROL01"}

func (h *slackHarness) on(t *testing.T) *bundle { h.b.t = t; return h.b }

func (h *slackHarness) Name() string              { return "slack" }
func (h *slackHarness) Service() *inquiry.Service { return h.b.svc }
func (h *slackHarness) Identity(p string) string  { return slackPeople[p] }
func (h *slackHarness) Settle(time.Duration)      {}

func (h *slackHarness) Caps() channeltest.Caps {
	return channeltest.Caps{MaxButtons: 5, Threads: true, API: true, Paced: true}
}

func (h *slackHarness) Ask(t *testing.T, in inquiry.Inquiry, answerers ...string) *inquiry.Record {
	b := h.on(t)
	var ids []string
	for _, p := range answerers {
		ids = append(ids, slackPeople[p])
	}
	rec := b.ask(in, inquiry.SlackRef{Answerers: ids})
	if h.limited {
		b.fake.RateLimitEvery(0, 0)
		h.limited = false
	}
	// A click on the message as posted, kept for a click that comes after an update removed
	// the buttons (Slack's client may not have the update yet).
	if m, _ := b.fake.Message(rec.Slack.Channel, rec.Slack.TS); len(in.Options) <= 5 && m.HasControls() {
		for _, user := range slackPeople {
			for _, o := range in.Options {
				h.clicks[rec.Key+"/"+user+"/"+o.Value] = b.clickPayload(user, rec, o.Label)
			}
		}
	}
	return rec
}

func (h *slackHarness) Answer(t *testing.T, rec *inquiry.Record, person, value string) channeltest.Reply {
	b := h.on(t)
	user := slackPeople[person]
	before := len(b.fake.Ephemerals(user))
	payload, ok := h.clicks[rec.Key+"/"+user+"/"+value]
	require.True(t, ok, "no click kept for %s on %s", value, rec.Key)
	b.ok(b.fake.SendInteraction(payload))
	b.settle()
	var told []string
	for _, e := range b.fake.Ephemerals(user)[before:] {
		told = append(told, e.Text)
	}
	return channeltest.Reply{Told: strings.Join(told, "\n")}
}

func (h *slackHarness) Forged(t *testing.T, rec *inquiry.Record) int {
	b := h.on(t)
	r, err := b.fake.Send(PathInteractions, "application/x-www-form-urlencoded", []byte("payload={not json"), slackfake.WithSecret("not-the-signing-secret"))
	require.NoError(t, err)
	return r.Status
}

func (h *slackHarness) Shown(t *testing.T, rec *inquiry.Record) []channeltest.Shown {
	b := h.on(t)
	var out []channeltest.Shown
	for _, m := range b.fake.BotMessages(rec.Slack.Channel) {
		var md struct {
			EventPayload struct{ Key string } `json:"event_payload"`
		}
		if json.Unmarshal(m.Metadata, &md) != nil || md.EventPayload.Key != rec.Key {
			continue
		}
		s := channeltest.Shown{Text: m.AllText(), Controls: m.HasControls()}
		for _, a := range m.ActionIDs() {
			switch {
			case strings.HasPrefix(a, "inq:choose:"):
				s.Buttons++
			case a == "inq:select" || a == "inq:pick":
				s.List = true
			}
		}
		out = append(out, s)
	}
	return out
}

func (h *slackHarness) ReplyInThread(t *testing.T, rec *inquiry.Record, person, text string) {
	b := h.on(t)
	b.ok(b.fake.ReplyInThread(slackPeople[person], rec.Slack.Channel, rec.Slack.TS, text))
}

// FailPosts: a 503 at once, then the rate limit answers every second call 429, which makes the
// second call the 429; the next Ask turns it off once its question is posted.
func (h *slackHarness) FailPosts(t *testing.T, retryAfter time.Duration) {
	b := h.on(t)
	b.fake.FailNextStatus("chat.postMessage", http.StatusServiceUnavailable)
	b.fake.RateLimitEvery(2, retryAfter, "chat.postMessage")
	h.limited = true
}

func (h *slackHarness) Attempts(t *testing.T) []channeltest.Attempt {
	b := h.on(t)
	var out []channeltest.Attempt
	for _, c := range b.fake.Calls("chat.postMessage") {
		out = append(out, channeltest.Attempt{Status: c.Status, OK: c.Status == http.StatusOK && c.Error == "", At: c.At})
	}
	return out
}

func (h *slackHarness) Unpostable(t *testing.T, in inquiry.Inquiry) (*inquiry.Record, string) {
	b := h.on(t)
	return b.askNoWait(in, inquiry.SlackRef{Channel: "C0GONE0001"}), "/invite @bot"
}
