package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/wake"
	"github.com/inquiry-bot/bot/storage"
)

// shown is a transport that shows every question in one place.
type shown struct{ place string }

func (s shown) Post(_ context.Context, rec *inquiry.Record) (inquiry.Posted, error) {
	return inquiry.Posted{Place: s.place, ID: "ts-" + rec.Key, Link: "https://chat.example/" + rec.Key}, nil
}
func (shown) Update(context.Context, *inquiry.Record) error { return nil }
func (shown) Notice(context.Context, *inquiry.Record) error { return nil }

// event is an event as the API shows it.
type event struct {
	ID         string         `json:"id"`
	InquiryKey string         `json:"inquiry_key"`
	Type       string         `json:"type"`
	At         time.Time      `json:"at"`
	By         string         `json:"by"`
	Data       map[string]any `json:"data"`
}

// eventsOf reads an inquiry's record with token.
func (b *bundle) eventsOf(key, token string) []event {
	b.t.Helper()
	r := b.do("GET", "/v1/inquiries/"+key+"/events", token, nil)
	require.Equal(b.t, http.StatusOK, r.status, "body: %s", r.body)
	var out struct {
		Events []event `json:"events"`
	}
	require.NoError(b.t, json.Unmarshal(r.body, &out))
	require.NotNil(b.t, out.Events, "a list, never null")
	return out.Events
}

func typesOf(evs []event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// TestEventsOfAWholeLife: an approval of two, shown by a transport, voted on by two people and
// answered, with a callback: its record holds each step once, in order, with who and where.
func TestEventsOfAWholeLife(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		rcv := newReceiver(t)
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withCallbackHosts(rcv.host()), withTransport("chat", shown{place: "C9"}))
		bob := b.token("bob", "", inquiry.ScopeAnswer)
		key := str(b.ask(b.askA, confirm("deploy", "approvals", 2, "callback_url", rcv.URL+"/cb",
			"config", map[string]any{"policy": "ask", "transport": "chat"}), http.StatusCreated)["key"])
		require.Eventually(t, func() bool { return len(b.eventsOf(key, b.askA)) == 2 }, 20*time.Second, 20*time.Millisecond, "posted")

		r := b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "yes"})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Equal(t, "pending", r.json(t)["status"])
		r = b.do("POST", "/v1/inquiries/"+key+"/answer", bob, map[string]any{"value": "yes"})
		require.Equal(t, "answered", r.json(t)["status"], "body: %s", r.body)
		rcv.next(t)

		var evs []event
		require.Eventually(t, func() bool { evs = b.eventsOf(key, b.askA); return len(evs) == 6 }, 20*time.Second, 20*time.Millisecond)
		require.Equal(t, []string{"created", "posted", "voted", "voted", "answered", "callback_delivered"}, typesOf(evs))
		for i, e := range evs {
			require.Equal(t, key, e.InquiryKey)
			id, err := strconv.ParseInt(e.ID, 10, 64)
			require.NoError(t, err, "an id is a string of digits")
			if i > 0 {
				prev, _ := strconv.ParseInt(evs[i-1].ID, 10, 64)
				require.Greater(t, id, prev)
				require.False(t, e.At.Before(evs[i-1].At), "times in order")
			}
		}
		require.Equal(t, "agent-a", evs[0].By)
		require.Equal(t, "Deploy now?", evs[0].Data["question"])
		require.Equal(t, "chat", evs[1].By)
		require.Equal(t, "C9", evs[1].Data["channel"])
		require.Equal(t, "ts-"+key, evs[1].Data["ts"])
		require.Equal(t, []string{"alice", "bob"}, []string{evs[2].By, evs[3].By})
		require.Equal(t, "api", evs[2].Data["via"])
		require.Equal(t, "1 of 2 approvals: alice", evs[2].Data["tally"])
		require.Equal(t, "yes", evs[4].Data["value"])
		require.Equal(t, "bob", evs[4].By)
		require.Len(t, evs[4].Data["votes"], 2)
		require.Equal(t, "callback", evs[5].Data["kind"])
		require.EqualValues(t, 1, evs[5].Data["attempts"])
	})
}

// TestEventsNamespaceRules: an inquiry's record is read as the inquiry is — its namespace, or a
// token that reads every namespace — and a stream follows exactly those events.
func TestEventsNamespaceRules(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withoutDispatcher())
		key := str(b.ask(b.askA, confirm("deploy"), http.StatusCreated)["key"])

		require.Len(t, b.eventsOf(key, b.askA), 1)
		require.Len(t, b.eventsOf(key, b.answerer), 1, "an answer token reads every namespace")
		require.Len(t, b.eventsOf(key, b.admin), 1)
		b.do("GET", "/v1/inquiries/"+key+"/events", b.askB, nil).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)
		b.do("GET", "/v1/inquiries/inq_nothere/events", b.askA, nil).errorOf(t, http.StatusNotFound, inquiry.CodeNotFound)
		b.do("GET", "/v1/inquiries/"+key+"/events", "", nil).errorOf(t, http.StatusUnauthorized, inquiry.CodeUnauthenticated)
		bound := b.bound("dave", "team-b")
		b.do("GET", "/v1/inquiries/"+key+"/events", bound, nil).errorOf(t, http.StatusForbidden, inquiry.CodeForbidden)

		// The streams: team-b's sees none of team-a's events; admin's sees both.
		b.ask(b.askB, confirm("other"), http.StatusCreated)
		teamB := b.follow(t, b.askB, "?after=0", "")
		adminAll := b.follow(t, b.admin, "?after=0", "")
		require.Equal(t, "team-b", teamB.next(t).namespaceOf(t, b))
		seen := map[string]bool{}
		for range 2 {
			seen[adminAll.next(t).InquiryKey] = true
		}
		require.Len(t, seen, 2)
		b.ask(b.askA, confirm("more"), http.StatusCreated)
		b.ask(b.askB, confirm("more"), http.StatusCreated)
		require.Equal(t, "team-b", teamB.next(t).namespaceOf(t, b), "team-a's new event is not team-b's")
	})
}

// bound makes an answer token bound to namespace (bot token create --namespace).
func (b *bundle) bound(name, namespace string) string {
	b.t.Helper()
	plain, tok := inquiry.NewToken(name, namespace, []inquiry.Scope{inquiry.ScopeAnswer}, time.Now())
	tok.NamespaceBound = true
	require.NoError(b.t, b.store.CreateToken(context.Background(), tok))
	return plain
}

// TestEventStreamResumes: a follower that drops mid-stream and comes back with Last-Event-ID
// gets every event of its namespace once, in order, whatever happened while it was away; one
// that gives no position starts with what happens from then on.
func TestEventStreamResumes(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withoutDispatcher())
		var keys []string
		for _, id := range []string{"one", "two", "three"} {
			keys = append(keys, str(b.ask(b.askA, confirm(id), http.StatusCreated)["key"]))
		}
		b.ask(b.askB, confirm("elsewhere"), http.StatusCreated)

		first := b.follow(t, b.askA, "?after=0", "")
		got := []sse{first.next(t), first.next(t)}
		first.close()

		// While it is away: more happens.
		keys = append(keys, str(b.ask(b.askA, confirm("four"), http.StatusCreated)["key"]))
		require.Equal(t, http.StatusOK, b.do("POST", "/v1/inquiries/"+keys[0]+"/cancel", b.askA, nil).status)
		require.Equal(t, http.StatusOK, b.do("POST", "/v1/inquiries/"+keys[1]+"/answer", b.answerer, map[string]any{"value": "no"}).status)

		want, err := b.store.EventsAfter(context.Background(), 0, "team-a", 100)
		require.NoError(t, err)
		require.Len(t, want, 6)

		// The header wins over ?after (an EventSource keeps its URL and sends the header).
		second := b.follow(t, b.askA, "?after=0", got[1].ID)
		for len(got) < len(want) {
			got = append(got, second.next(t))
		}
		for i, e := range got {
			require.Equal(t, strconv.FormatInt(want[i].ID, 10), e.ID, "event %d", i)
			require.Equal(t, string(want[i].Type), e.Event)
			require.Equal(t, e.ID, e.event.ID, "the data is the event")
			require.Equal(t, e.Event, e.event.Type)
		}
		require.Equal(t, "cancelled", got[4].Event)
		require.Equal(t, "agent-a", got[4].event.By)

		// Nothing twice: the next event is the next one recorded.
		fromNow := b.follow(t, b.askA, "", "")
		five := str(b.ask(b.askA, confirm("five"), http.StatusCreated)["key"])
		next := second.next(t)
		require.Equal(t, five, next.InquiryKey)
		require.Equal(t, "created", next.Event)
		require.Equal(t, next.ID, fromNow.next(t).ID, "without a position: from now on")
	})
}

// TestEventStreamAcrossReplicas: on PostgreSQL, a follower on one replica sees what another
// replica recorded, woken through LISTEN/NOTIFY.
func TestEventStreamAcrossReplicas(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		a := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withoutDispatcher())
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		go a.store.Listen(ctx, a.svc.Hub.Wake) //nolint:errcheck // ends with ctx
		other := replica(t, a)

		follower := a.follow(t, a.askA, "", "")
		r := other.do("POST", "/v1/inquiries", a.askA, confirm("deploy"))
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
		key := str(r.json(t)["key"])
		e := follower.next(t)
		require.Equal(t, key, e.InquiryKey)
		require.Equal(t, "created", e.Event)
		r = other.do("POST", "/v1/inquiries/"+key+"/answer", a.answerer, map[string]any{"value": "yes"})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Equal(t, "answered", follower.next(t).Event)
	})
}

// replica is a second gateway on b's database (SQLite's file too), with its own store, service
// and hub, as another process would have: the tokens are the database's.
func replica(t *testing.T, b *bundle) *bundle {
	t.Helper()
	st, err := storage.Open(context.Background(), b.dbURL)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	svc := inquiry.NewService(st, inquiry.NewRegistry())
	svc.Log, svc.DefaultPolicy = slog.New(slog.DiscardHandler), inquiry.PolicyAsk
	hub := wake.NewHub()
	svc.Hub = hub
	srv := gateway.New(gateway.Config{Service: svc, Logger: svc.Log, RateLimits: gateway.RateLimits{Rate: rate.Inf, MaxWaiters: -1, AddressRate: rate.Inf}})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return &bundle{t: t, url: ts.URL, dbURL: b.dbURL, store: st, svc: svc, hub: hub, srv: srv, http: b.http}
}

// TestEventStreamRefusals: a position that is no event id, a token over its long-polls, no token.
func TestEventStreamRefusals(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withoutDispatcher(), withLimits(gateway.RateLimits{Rate: rate.Inf, MaxWaiters: 1, AddressRate: rate.Inf}))
		e := b.do("GET", "/v1/events?after=soon", b.askA, nil).errorOf(t, http.StatusBadRequest, inquiry.CodeBadRequest)
		require.Equal(t, "after", e["field"])
		req, err := http.NewRequest("GET", b.url+"/v1/events", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+b.askA)
		req.Header.Set("Last-Event-ID", "-3")
		res, err := b.http.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusBadRequest, res.StatusCode)
		b.do("GET", "/v1/events", "", nil).errorOf(t, http.StatusUnauthorized, inquiry.CodeUnauthenticated)

		held := b.follow(t, b.askA, "", "")
		r := b.do("GET", "/v1/events", b.askA, nil)
		r.errorOf(t, http.StatusTooManyRequests, inquiry.CodeRateLimited)
		require.NotEmpty(t, r.header.Get("Retry-After"))
		held.close()
		require.Eventually(t, func() bool {
			f, ok := b.tryFollow(b.askA)
			if ok {
				f.close()
			}
			return ok
		}, 20*time.Second, 20*time.Millisecond, "the place is given back when the follower goes")
	})
}

// TestEventStreamOutlivesWriteTimeout: the real server's WriteTimeout (70 s; here 300 ms) does
// not cut a stream: every write moves the deadline on.
func TestEventStreamOutlivesWriteTimeout(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withoutDispatcher())
		ln, err := gateway.Listen("127.0.0.1:0", gateway.Limits{})
		require.NoError(t, err)
		srv := gateway.NewHTTPServer(b.srv.Handler(), gateway.Limits{Logger: slog.New(slog.DiscardHandler)})
		srv.WriteTimeout = 300 * time.Millisecond
		go srv.Serve(ln) //nolint:errcheck // ends with Close
		t.Cleanup(func() { srv.Close() })
		real := &bundle{t: t, url: "http://" + ln.Addr().String()}

		follower := real.follow(t, b.askA, "", "")
		for _, id := range []string{"one", "two", "three"} {
			// Kept: the scenario is time passing between writes, past the WriteTimeout by the
			// second; a slower machine only lets more pass.
			time.Sleep(200 * time.Millisecond)
			key := str(b.ask(b.askA, confirm(id), http.StatusCreated)["key"])
			require.Equal(t, key, follower.next(t).InquiryKey)
		}
	})
}

// ---- a Server-Sent Events client ----

// sse is one event of a stream.
type sse struct {
	ID, Event  string
	InquiryKey string
	event      event
}

func (e sse) namespaceOf(t *testing.T, b *bundle) string {
	t.Helper()
	r := b.do("GET", "/v1/inquiries/"+e.InquiryKey, b.admin, nil)
	require.Equal(t, http.StatusOK, r.status)
	return str(r.json(t)["namespace"])
}

// follower reads a stream in the background.
type follower struct {
	events chan sse
	cancel context.CancelFunc
	done   chan struct{}
}

// follow opens GET /v1/events+query with token (and the Last-Event-ID header unless ""); it
// returns once the server answered 200 with the stream's headers.
func (b *bundle) follow(t *testing.T, token, query, lastID string) *follower {
	t.Helper()
	f, status, err := b.open(token, query, lastID)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	t.Cleanup(f.close)
	return f
}

func (b *bundle) tryFollow(token string) (*follower, bool) {
	f, status, err := b.open(token, "", "")
	return f, err == nil && status == http.StatusOK
}

func (b *bundle) open(token, query, lastID string) (*follower, int, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", b.url+"/v1/events"+query, nil)
	if err != nil {
		cancel()
		return nil, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(req) // not the conformance client: it would read to the end
	if err != nil {
		cancel()
		return nil, 0, err
	}
	if res.StatusCode != http.StatusOK {
		io.Copy(io.Discard, res.Body) //nolint:errcheck // an error answer, checked elsewhere
		res.Body.Close()
		cancel()
		return nil, res.StatusCode, nil
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		cancel()
		return nil, 0, &unexpected{ct}
	}
	f := &follower{events: make(chan sse, 1000), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var cur sse
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if cur.ID != "" {
					f.events <- cur
				}
				cur = sse{}
			case strings.HasPrefix(line, ":"): // a comment
			case strings.HasPrefix(line, "id: "):
				cur.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				cur.Event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.event); err != nil {
					cur.Event = "unreadable data: " + line
				}
				cur.InquiryKey = cur.event.InquiryKey
			}
		}
	}()
	return f, http.StatusOK, nil
}

type unexpected struct{ ct string }

func (u *unexpected) Error() string { return "the stream's Content-Type is " + u.ct }

// next is the next event of the stream.
func (f *follower) next(t *testing.T) sse {
	t.Helper()
	select {
	case e := <-f.events:
		return e
	case <-f.done:
		select {
		case e := <-f.events:
			return e
		default:
		}
		t.Fatal("the stream ended")
	case <-time.After(20 * time.Second):
		t.Fatal("no event in time")
	}
	return sse{}
}

// close drops the connection, as a client that goes away.
func (f *follower) close() {
	f.cancel()
	<-f.done
}
