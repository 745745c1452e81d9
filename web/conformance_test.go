package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/channeltest"
)

// TestConformance runs the channels' conformance suite on the plain answer link: a link minted
// for one person, opened and answered on the page, with no e-mail (the email package runs it on
// the mailed links), on both databases.
func TestConformance(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		channeltest.Run(t, &linkHarness{b: setup(t, dbURL), links: map[string]map[string]string{}})
	})
}

// linkPeople are the suite's people as the recipients of their links.
var linkPeople = map[string]string{channeltest.Alice: "alice@example.com", channeltest.Bob: "bob@example.com", channeltest.Carol: "carol@example.com"}

// slackIDs name the people on a question that names who may answer it (slack.answerers): the
// one way a question asked for links alone names them.
var slackIDs = map[string]string{channeltest.Alice: "U_ALICE", channeltest.Bob: "U_BOB", channeltest.Carol: "U_CAROL"}

// linkHarness is the real gateway serving the page, with inquiries asked into the inbox and each
// person's link minted the way an asker hands links out. It uses the bundle's service, address
// and tokens only: its requests fail the subtest that makes them.
type linkHarness struct {
	b *bundle

	mu    sync.Mutex
	links map[string]map[string]string // key → person → link
}

func (h *linkHarness) Name() string              { return "link" }
func (h *linkHarness) Service() *inquiry.Service { return h.b.svc }
func (h *linkHarness) Identity(p string) string  { return "link:" + linkPeople[p] }
func (h *linkHarness) Settle(d time.Duration)    { h.b.clock.Add(d) }

func (h *linkHarness) Caps() channeltest.Caps {
	return channeltest.Caps{
		NoButtonLimit: "the page shows every option of a single Choice as a button of its own",
		ForgedStatus:  http.StatusNotFound,
		NoThreads:     "a page has no thread: the answer is given on the page, not in reply to a message",
		NoAPI:         "the page is served, never posted: no API call that could fail or be paced stands between the question and the person",
	}
}

// call sends a JSON request with token to the gateway and decodes the reply into out.
func (h *linkHarness) call(t *testing.T, method, path, token string, body, out any) int {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, h.b.url+path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, out); err != nil {
		t.Fatalf("%s %s: %v: %s", method, path, err, got)
	}
	return resp.StatusCode
}

// Ask asks in through the API into the inbox and mints each person's link. With answerers, the
// question names them (slack.answerers); their links are minted by a person's answer token,
// which vouches for them, and everybody else's is one the server signed for them unvouched (a
// link of somebody the question does not name), which the page must refuse.
func (h *linkHarness) Ask(t *testing.T, in inquiry.Inquiry, answerers ...string) *inquiry.Record {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	body["config"] = map[string]string{"policy": "ask", "transport": "inbox"}
	var ids []string
	for _, p := range answerers {
		ids = append(ids, slackIDs[p])
	}
	if len(ids) > 0 {
		body["slack"] = map[string]any{"answerers": ids}
	}
	var q inquiryView
	if status := h.call(t, "POST", "/v1/inquiries", h.b.ask, body, &q); status != http.StatusCreated {
		t.Fatalf("ask %s: %d", in.ID, status)
	}
	rec, err := h.b.svc.Get(t.Context(), q.Key)
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{}
	for _, p := range slices.Sorted(maps.Keys(linkPeople)) {
		var m inquiry.MintedLink
		switch {
		case len(answerers) == 0:
			if status := h.call(t, "POST", "/v1/inquiries/"+q.Key+"/links", h.b.ask, map[string]string{"recipient": linkPeople[p]}, &m); status != http.StatusCreated {
				t.Fatalf("the asker mints %s's link of %s: %d", p, q.Key, status)
			}
		case slices.Contains(answerers, p):
			if status := h.call(t, "POST", "/v1/inquiries/"+q.Key+"/links", h.b.answerer, map[string]string{"recipient": linkPeople[p]}, &m); status != http.StatusCreated {
				t.Fatalf("an answer token mints %s's link of %s: %d", p, q.Key, status)
			}
		default:
			l, err := h.b.svc.LinkFor(rec, linkPeople[p])
			if err != nil {
				t.Fatal(err)
			}
			m = *l
		}
		links[p] = h.b.abs(m.URL)
	}
	h.mu.Lock()
	h.links[q.Key] = links
	h.mu.Unlock()
	return rec
}

// link is person's link of rec.
func (h *linkHarness) link(t *testing.T, rec *inquiry.Record, person string) string {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.links[rec.Key][person]
	if l == "" {
		t.Fatalf("no link of %s was minted for %s", person, rec.Key)
	}
	return l
}

// open GETs link and returns its status and body.
func (h *linkHarness) open(t *testing.T, link string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, link, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h.do(t, req)
}

// post sends body to link as the page's own form does.
func (h *linkHarness) post(t *testing.T, link, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, link, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", h.b.url)
	return h.do(t, req)
}

func (h *linkHarness) do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(raw)
}

// hidden is the page's form fields, none when the page has no form.
func hidden(body string) url.Values {
	v := url.Values{}
	for _, m := range hiddenRe.FindAllStringSubmatch(body, -1) {
		v.Set(m[1], m[2])
	}
	return v
}

// Answer is person opening their link, choosing value, and pressing Send on the confirmation, as
// on the page; what the last page said is the reply. A page without a form (a decided question,
// a refused link) is itself the reply.
func (h *linkHarness) Answer(t *testing.T, rec *inquiry.Record, person, value string) channeltest.Reply {
	t.Helper()
	link := h.link(t, rec, person)
	_, body := h.open(t, link)
	form := hidden(body)
	if form.Get("csrf") == "" {
		return channeltest.Reply{Told: body}
	}
	form.Set("value", value)
	form.Set("step", "confirm")
	status, confirm := h.post(t, link, form.Encode())
	if status != http.StatusOK || !strings.Contains(confirm, `id="send"`) {
		return channeltest.Reply{Told: confirm}
	}
	form = hidden(confirm)
	form.Set("value", value)
	form.Set("step", "send")
	_, told := h.post(t, link, form.Encode())
	return channeltest.Reply{Told: told}
}

// Forged posts a body that is no form to Alice's link with its signature changed.
func (h *linkHarness) Forged(t *testing.T, rec *inquiry.Record) int {
	t.Helper()
	link := h.link(t, rec, channeltest.Alice)
	forged := link[:len(link)-2] + "AA"
	if forged == link {
		forged = link[:len(link)-2] + "BB"
	}
	status, _ := h.post(t, forged, "%%%not a form")
	return status
}

// Shown is the page behind each person's link of rec, as it stands now.
func (h *linkHarness) Shown(t *testing.T, rec *inquiry.Record) []channeltest.Shown {
	t.Helper()
	h.mu.Lock()
	links := slices.Collect(maps.Values(h.links[rec.Key]))
	h.mu.Unlock()
	var out []channeltest.Shown
	for _, link := range links {
		_, body := h.open(t, link)
		out = append(out, channeltest.Shown{Text: body,
			Buttons:  strings.Count(body, `<button type="submit" name="value"`),
			List:     strings.Contains(body, `type="checkbox" name="value"`),
			Controls: strings.Contains(body, "<form")})
	}
	return out
}

func (h *linkHarness) ReplyInThread(t *testing.T, _ *inquiry.Record, _, _ string) {
	t.Fatal("link: a page has no thread (Caps.Threads is false)")
}

func (h *linkHarness) FailPosts(t *testing.T, _ time.Duration) {
	t.Fatal("link: nothing is posted (Caps.API is false)")
}

func (h *linkHarness) Attempts(t *testing.T) []channeltest.Attempt {
	t.Fatal("link: nothing is posted (Caps.API is false)")
	return nil
}

func (h *linkHarness) Unpostable(t *testing.T, _ inquiry.Inquiry) (*inquiry.Record, string) {
	t.Fatal("link: nothing is posted (Caps.API is false)")
	return nil, ""
}
