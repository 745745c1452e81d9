package teamsapp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/storage"
	"github.com/inquiry-bot/bot/storage/storagetest"
	"github.com/inquiry-bot/bot/teamsapp"
	"github.com/inquiry-bot/bot/teamsapp/teamsfake"
)

const appID = "0b6fe6d1-fece-44f7-9a48-56465e2d5ab8"

var (
	quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
	alice = teamsfake.Person{ID: "29:alice", Name: "Alice", AADObjectID: "b15a9416-0ad3-4172-9210-7beb711d3f70"}
	bob   = teamsfake.Person{ID: "29:bob", Name: "Bob", AADObjectID: "c5e99701-2a32-49c1-a660-4629ceeb8c61"}
)

type bundle struct {
	t     *testing.T
	ctx   context.Context
	svc   *inquiry.Service
	app   *teamsapp.App
	fake  *teamsfake.Fake
	url   string // the messaging endpoint
	clock *testkit.Clock
	store *storage.Store
}

func setup(t *testing.T, databaseURL string, tweak ...func(*teamsapp.Config)) *bundle {
	t.Helper()
	ctx := t.Context()
	st, err := storage.Open(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clock := testkit.NewClock(time.Now().UTC().Truncate(time.Second))
	reg := inquiry.NewRegistry()
	svc := inquiry.NewService(st, reg)
	svc.Now, svc.Log = clock.Now, quiet
	fake := teamsfake.New(appID, "s3cret")
	fake.SetClock(clock.Now)
	t.Cleanup(fake.Close)
	cfg := teamsapp.Config{AppID: appID, Password: "s3cret", OpenIDURL: fake.OpenIDURL(), TokenURL: fake.TokenURL(), Service: svc, Log: quiet}
	for _, f := range tweak {
		f(&cfg)
	}
	app, err := teamsapp.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reg.Register(inquiry.TransportTeams, app)
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)
	return &bundle{t: t, ctx: ctx, svc: svc, app: app, fake: fake, url: srv.URL, clock: clock, store: st}
}

// ask stores a pending inquiry asked in Teams (its post is left undelivered: the invoke needs
// only the store, and a question never asked in Teams is not answered there).
func (b *bundle) ask(in inquiry.Inquiry) *inquiry.Record {
	b.t.Helper()
	rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: in,
		Teams:  &inquiry.TeamsTarget{Conversation: "19:chan@thread.tacv2", ServiceURL: b.fake.ServiceURL()},
		Config: &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportTeams}})
	if err != nil {
		b.t.Fatal(err)
	}
	return rec
}

func mergeQuestion(id string) inquiry.Inquiry {
	return inquiry.Inquiry{ID: id, Kind: inquiry.KindChoice, Question: "Merge now?",
		Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}}}
}

type response struct {
	StatusCode int             `json:"statusCode"`
	Type       string          `json:"type"`
	Value      json.RawMessage `json:"value"`
}

// click sends a signed invoke and returns the invoke response.
func (b *bundle) click(who teamsfake.Person, data map[string]any) response {
	b.t.Helper()
	return b.send(b.fake.Action("19:chan@thread.tacv2", "1759881511856", who, "Merge", data))
}

// send posts a signed invoke and returns the invoke response.
func (b *bundle) send(act []byte) response {
	b.t.Helper()
	status, body, err := b.fake.Send(b.ctx, b.url, b.fake.Token(teamsfake.TokenOptions{}), act)
	if err != nil || status != http.StatusOK {
		b.t.Fatalf("invoke: %d %s %v", status, body, err)
	}
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		b.t.Fatalf("invoke response %s: %v", body, err)
	}
	return r
}

func TestInvokeAnswersAndReturnsTheCard(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setup(t, databaseURL)
		rec := b.ask(mergeQuestion("q1"))
		r := b.click(alice, map[string]any{"inquiry": rec.Key, "value": "merge"})
		if r.Type != adaptivecard.ContentType || !strings.Contains(string(r.Value), "Merge") || strings.Contains(string(r.Value), "Action.Execute") {
			t.Fatalf("want the resolved card without buttons, got %s %s", r.Type, r.Value)
		}
		got, err := b.svc.Get(b.ctx, rec.Key)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != inquiry.StatusAnswered || got.Answer.Value.First() != "merge" || got.Answer.AnsweredBy != alice.AADObjectID {
			t.Fatalf("want answered merge by %s, got %s %+v", alice.AADObjectID, got.Status, got.Answer)
		}
	})
}

func TestInvokeUnknownInquiryCardSaysSo(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	r := b.click(alice, map[string]any{"inquiry": "inq_nosuch", "value": "merge"})
	if r.Type != adaptivecard.ContentType || !strings.Contains(string(r.Value), "not known to the bot") {
		t.Fatalf("want a card saying the question is unknown, got %s %s", r.Type, r.Value)
	}
}

func TestInvokeChoiceSetAndText(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	in := mergeQuestion("multi")
	in.Multiple = true
	rec := b.ask(in)
	b.click(alice, map[string]any{"inquiry": rec.Key, "choice": "0,1"})
	got, _ := b.svc.Get(b.ctx, rec.Key)
	if got.Status != inquiry.StatusAnswered || !got.Answer.Value.Equal(inquiry.Many("merge", "hold")) {
		t.Fatalf("want merge and hold, got %s %+v", got.Status, got.Answer)
	}
	text := b.ask(inquiry.Inquiry{ID: "t", Kind: inquiry.KindText, Question: "Release note?"})
	r := b.click(alice, map[string]any{"inquiry": text.Key})
	if r.Type != "application/vnd.microsoft.activity.message" || !strings.Contains(string(r.Value), "needs an answer in words") {
		t.Fatalf("an empty text: want the refusal in words, got %s %s", r.Type, r.Value)
	}
	b.click(alice, map[string]any{"inquiry": text.Key, "text": "Migrations run online."})
	if got, _ := b.svc.Get(b.ctx, text.Key); got.Answer == nil || got.Answer.Text != "Migrations run online." {
		t.Fatalf("want the words recorded, got %+v", got.Answer)
	}
}

func TestInvokeRefusesWhoIsNotNamed(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	in := mergeQuestion("approval")
	in.RequestedBy = []string{bob.AADObjectID}
	rec := b.ask(in)
	r := b.click(bob, map[string]any{"inquiry": rec.Key, "value": "merge"})
	if r.Type != "application/vnd.microsoft.activity.message" || !strings.Contains(string(r.Value), "someone else must give it") {
		t.Fatalf("want the refusal in words, got %s %s", r.Type, r.Value)
	}
	if got, _ := b.svc.Get(b.ctx, rec.Key); got.Status != inquiry.StatusPending {
		t.Fatalf("a refused click resolved it: %s", got.Status)
	}
}

// TestBadTokensAre401AndNothingRead: every bad token is refused before the body is read, and
// an activity whose serviceUrl is not the token's is refused too.
func TestBadTokensAre401AndNothingRead(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	rec := b.ask(mergeQuestion("bad"))
	act := b.fake.Action("19:chan@thread.tacv2", "1", alice, "Merge", map[string]any{"inquiry": rec.Key, "value": "merge"})
	for name, tok := range map[string]string{
		"missing":        "",
		"garbage":        "not-a-jwt",
		"expired":        b.fake.Token(teamsfake.TokenOptions{Expired: true}),
		"forged":         b.fake.Token(teamsfake.TokenOptions{Forged: true}),
		"wrong audience": b.fake.Token(teamsfake.TokenOptions{Audience: "another-app"}),
		"wrong issuer":   b.fake.Token(teamsfake.TokenOptions{Issuer: "https://evil.example"}),
		"other service":  b.fake.Token(teamsfake.TokenOptions{ServiceURL: "https://evil.example/teams/"}),
	} {
		t.Run(name, func(t *testing.T) {
			// A body that is no JSON at all: refused with 401, so it was never parsed.
			body := act
			if name != "other service" {
				body = []byte("{not json")
			}
			status, _, err := b.fake.Send(b.ctx, b.url, tok, body)
			if err != nil || status != http.StatusUnauthorized {
				t.Fatalf("want 401, got %d %v", status, err)
			}
		})
	}
	if got, _ := b.svc.Get(b.ctx, rec.Key); got.Status != inquiry.StatusPending {
		t.Fatalf("a refused request answered it: %s", got.Status)
	}
}

// TestMessageSaysWhereToAsk: a message to the bot in a channel is answered, in its thread, with
// the teams object that asks in that channel.
func TestMessageSaysWhereToAsk(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	channel := "19:6848757105754c8981c67612732d9aa7@thread.tacv2"
	status, _, err := b.fake.Send(b.ctx, b.url, b.fake.Token(teamsfake.TokenOptions{}), b.fake.Message(channel, alice, "where"))
	if err != nil || status != http.StatusOK {
		t.Fatalf("a message: got %d %v", status, err)
	}
	calls := b.fake.Calls()
	if len(calls) != 1 || calls[0].Conversation != channel+";messageid=1759881511856" {
		t.Fatalf("want one reply in the message's thread, got %+v", calls)
	}
	want, _ := json.Marshal(map[string]any{"teams": map[string]any{"conversation": channel, "service_url": b.fake.ServiceURL()}})
	var reply struct{ Text string }
	if err := json.Unmarshal(calls[0].Body, &reply); err != nil || !strings.Contains(reply.Text, string(want)) {
		t.Fatalf("the reply should name the channel's teams object %s: %s", want, calls[0].Body)
	}
}

// TestInvokeOnAnExpiredQuestion: a click after the deadline (swept or not) is told the question
// expired, and answers nothing.
func TestInvokeOnAnExpiredQuestion(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	in := mergeQuestion("late")
	in.Default = inquiry.One("hold")
	rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: in, ExpiresIn: "1h", Config: &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportInbox}})
	if err != nil {
		t.Fatal(err)
	}
	b.clock.Add(2 * time.Hour)
	r := b.click(alice, map[string]any{"inquiry": rec.Key, "value": "merge"})
	if !strings.Contains(string(r.Value), "expired before anybody answered") {
		t.Fatalf("want the card to say the question expired, got %s", r.Value)
	}
	if got, _ := b.svc.Get(b.ctx, rec.Key); got.Answer != nil && got.Answer.Source == inquiry.SourcePerson {
		t.Fatalf("a late click answered it: %+v", got.Answer)
	}
}

// TestKeyRotation: a token signed by a key the bot has not read yet makes it read the key set
// again, at most every five minutes, so that a flood of unknown key ids cannot make it fetch
// the set on every request.
func TestKeyRotation(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	rec := b.ask(mergeQuestion("rotate"))
	send := func() int {
		act := b.fake.Action("19:chan@thread.tacv2", "1", alice, "Hold", map[string]any{"inquiry": rec.Key, "value": "nonsense"})
		status, _, err := b.fake.Send(b.ctx, b.url, b.fake.Token(teamsfake.TokenOptions{}), act)
		if err != nil {
			t.Fatal(err)
		}
		return status
	}
	if s := send(); s != http.StatusOK {
		t.Fatalf("before the rotation: %d", s)
	}
	b.fake.Rotate()
	if s := send(); s != http.StatusUnauthorized {
		t.Fatalf("a new key id within five minutes of the last read: want 401, got %d", s)
	}
	b.clock.Add(5 * time.Minute)
	if s := send(); s != http.StatusOK {
		t.Fatalf("five minutes on, the key set is read again: want 200, got %d", s)
	}
}

// TestEndorsementAndTenant: a key endorsed for other channels than the activity's, or an
// activity of another tenant than TEAMS_TENANT_ID, is refused and answers nothing.
func TestEndorsementAndTenant(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t), func(c *teamsapp.Config) { c.TenantID = "another-tenant" })
	rec := b.ask(mergeQuestion("tenant"))
	act := b.fake.Action("19:chan@thread.tacv2", "1", alice, "Merge", map[string]any{"inquiry": rec.Key, "value": "merge"})
	status, body, err := b.fake.Send(b.ctx, b.url, b.fake.Token(teamsfake.TokenOptions{}), act)
	if err != nil || status != http.StatusForbidden || !strings.Contains(string(body), "TEAMS_TENANT_ID") {
		t.Fatalf("another tenant: want 403 naming TEAMS_TENANT_ID, got %d %s %v", status, body, err)
	}
	var m map[string]any
	if err := json.Unmarshal(act, &m); err != nil {
		t.Fatal(err)
	}
	m["channelId"] = "skype"
	act, _ = json.Marshal(m)
	status, body, err = b.fake.Send(b.ctx, b.url, b.fake.Token(teamsfake.TokenOptions{}), act)
	if err != nil || status != http.StatusForbidden || !strings.Contains(string(body), "not endorsed") {
		t.Fatalf("a channel the key is not endorsed for: want 403 saying so, got %d %s %v", status, body, err)
	}
	if got, _ := b.svc.Get(b.ctx, rec.Key); got.Status != inquiry.StatusPending {
		t.Fatalf("a refused activity answered it: %s", got.Status)
	}
}
