package email_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/email"
	"github.com/inquiry-bot/bot/email/emailtest"
	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/channeltest"
	"github.com/inquiry-bot/bot/internal/dispatch"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/storage"
	"github.com/inquiry-bot/bot/storage/storagetest"
	"github.com/inquiry-bot/bot/web"
)

// TestConformance runs the channels' conformance suite on email and the answer page behind its
// links (a person answers a mailed question on the page), on both databases.
func TestConformance(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		channeltest.Run(t, newMailHarness(t, databaseURL))
	})
}

var mailPeople = map[string]string{channeltest.Alice: "alice@example.com", channeltest.Bob: "bob@example.com", channeltest.Carol: "carol@example.com"}

// nobody is an address the mail server refuses for good.
const nobody = "nobody@example.com"

// mailHarness is the real service with the email transport mailing a real SMTP server
// (emailtest), and the gateway serving the answer page the mails link to.
type mailHarness struct {
	svc   *inquiry.Service
	ms    *emailtest.Server
	url   string // the gateway's
	clock *testkit.Clock

	mu       sync.Mutex
	failures int // RCPT TOs of Alice still to refuse with a 451
	attempts []channeltest.Attempt
}

func newMailHarness(t *testing.T, databaseURL string) *mailHarness {
	ctx, cancel := context.WithCancel(context.Background())
	st, err := storage.Open(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	h := &mailHarness{clock: testkit.NewClock(time.Now().UTC().Truncate(time.Second))}
	reg := inquiry.NewRegistry()
	svc := inquiry.NewService(st, reg)
	svc.Now, svc.Log, svc.DefaultPolicy = h.clock.Now, quiet, inquiry.PolicyAsk
	svc.LinkSecret = []byte("conformance-link-secret")
	h.svc = svc

	pages := web.New(web.Config{Service: svc, Logger: quiet, Rate: rate.Limit(100), Burst: 1000})
	gw := gateway.New(gateway.Config{Service: svc, Logger: quiet, Pages: pages,
		RateLimits: gateway.RateLimits{Rate: rate.Inf, MaxWaiters: -1, AddressRate: rate.Inf}})
	srv := httptest.NewServer(gw.Handler())
	h.url, svc.PublicURL = srv.URL, srv.URL

	if h.ms, err = emailtest.Start(false); err != nil {
		t.Fatal(err)
	}
	h.ms.Refuse(h.rcpt)
	cfg, err := email.ParseConfig(h.ms.URL(emailtest.User, emailtest.Password), "Inquiry bot <bot@example.com>")
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLS = h.ms.ClientTLS()
	reg.Register(inquiry.TransportEmail, email.New(cfg, svc, quiet, h.clock.Now))

	d := &dispatch.Dispatcher{Store: st, Handlers: svc.TransportHandlers(), Now: h.clock.Now, Poll: 20 * time.Millisecond, Log: quiet}
	svc.Kick = d.Kick
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
		_ = h.ms.Close()
		_ = st.Close()
	})
	return h
}

// rcpt answers the server's RCPT TO: Alice's, which every mail of a question she is asked
// begins with, is noted as an attempt and refused while failures last; nobody is refused for good.
func (h *mailHarness) rcpt(to string) error {
	if to == nobody {
		return emailtest.Reply(550, "no such user")
	}
	if to != mailPeople[channeltest.Alice] {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failures > 0 {
		h.failures--
		h.attempts = append(h.attempts, channeltest.Attempt{Status: 451, At: h.clock.Now()})
		return emailtest.Reply(451, "greylisted, try again later")
	}
	h.attempts = append(h.attempts, channeltest.Attempt{Status: 250, OK: true, At: h.clock.Now()})
	return nil
}

func (h *mailHarness) Name() string              { return "email" }
func (h *mailHarness) Service() *inquiry.Service { return h.svc }
func (h *mailHarness) Identity(p string) string  { return "link:" + mailPeople[p] }
func (h *mailHarness) Settle(d time.Duration)    { h.clock.Add(d) }

func (h *mailHarness) Caps() channeltest.Caps {
	return channeltest.Caps{
		NoButtonLimit: "the answer page shows every option of a single Choice as a button of its own",
		ForgedStatus:  http.StatusNotFound,
		NoGate:        "a question that names its answerers mails only them, and their links are the only ones minted: nobody else holds a link to answer with",
		NoThreads:     "a reply to the mail answers nothing: the answer is given on the page behind the mail's link",
		API:           true,
		NoPacing:      "SMTP has no Retry-After: a 4xx reply is retried with the dispatcher's backoff",
	}
}

func (h *mailHarness) ask(t *testing.T, in inquiry.Inquiry, to []string) *inquiry.Record {
	rec, created, err := h.svc.Ask(t.Context(), inquiry.AskRequest{Namespace: "ns", Inquiry: in,
		Config: &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportEmail}, Email: &inquiry.EmailTarget{To: to}})
	if err != nil || !created {
		t.Fatalf("ask %s: created %v, %v", in.ID, created, err)
	}
	return rec
}

func (h *mailHarness) Ask(t *testing.T, in inquiry.Inquiry, answerers ...string) *inquiry.Record {
	if len(answerers) == 0 {
		answerers = []string{channeltest.Alice, channeltest.Bob}
	}
	var to []string
	for _, p := range answerers {
		to = append(to, mailPeople[p])
	}
	rec := h.ask(t, in, to)
	testkit.Eventually(t, channeltest.Within, "the question mailed to "+strings.Join(to, ", "), func() bool {
		h.Settle(time.Second) // a retry the dispatcher holds comes due on the test clock
		for _, addr := range to {
			if h.link(rec.Key, addr) == "" {
				return false
			}
		}
		return true
	})
	got, err := h.svc.Get(t.Context(), rec.Key)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// mails are the messages of inquiry key of a kind ("question", "outcome"), oldest first.
func (h *mailHarness) mails(key, kind string) []emailtest.Message {
	var out []emailtest.Message
	for _, m := range h.ms.Messages() {
		if strings.Contains(m.Header.Get("Message-Id"), "<"+key+"."+kind+".") {
			out = append(out, m)
		}
	}
	return out
}

var linkRe = regexp.MustCompile(`http://127\.0\.0\.1:\d+/a/[A-Za-z0-9._~-]+`)

// link is the answer link the question's mail gave addr ("" when none was mailed to addr).
func (h *mailHarness) link(key, addr string) string {
	for _, m := range h.mails(key, "question") {
		if len(m.To) == 1 && m.To[0] == addr {
			return linkRe.FindString(m.Text)
		}
	}
	return ""
}

var hiddenRe = regexp.MustCompile(`<input type="hidden" name="(csrf|inquiry)" value="([^"]*)">`)

// page GETs link and returns its status and body.
func page(t *testing.T, link string) (int, string) {
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// send posts form to link as the page's own form does.
func (h *mailHarness) send(t *testing.T, link, body string) (int, string) {
	req, err := http.NewRequest(http.MethodPost, link, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", h.url)
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

// Answer is person opening the link of their mail and sending value from the page.
func (h *mailHarness) Answer(t *testing.T, rec *inquiry.Record, person, value string) channeltest.Reply {
	link := h.link(rec.Key, mailPeople[person])
	if link == "" {
		t.Fatalf("no link was mailed to %s for %s", person, rec.Key)
	}
	_, body := page(t, link)
	form := url.Values{"step": {"send"}, "value": {value}}
	for _, m := range hiddenRe.FindAllStringSubmatch(body, -1) {
		form.Set(m[1], m[2])
	}
	if form.Get("csrf") == "" { // a closed question's page has no form: what it says is the reply
		return channeltest.Reply{Told: body}
	}
	_, told := h.send(t, link, form.Encode())
	return channeltest.Reply{Told: told}
}

// Forged posts a body that is no form to a link whose signature was changed.
func (h *mailHarness) Forged(t *testing.T, rec *inquiry.Record) int {
	link := h.link(rec.Key, mailPeople[channeltest.Alice])
	status, _ := h.send(t, link[:len(link)-2]+"AA", "%%%not a form")
	return status
}

// Shown is, for each question mail delivered (twice to one recipient is two), the recipient's
// last mail of the question (the question, then its outcome in reply), and for each recipient
// the page behind their link.
func (h *mailHarness) Shown(t *testing.T, rec *inquiry.Record) []channeltest.Shown {
	var out []channeltest.Shown
	outcomes := h.mails(rec.Key, "outcome")
	for _, m := range h.mails(rec.Key, "question") {
		for _, o := range outcomes {
			if len(o.To) == 1 && len(m.To) == 1 && o.To[0] == m.To[0] {
				m = o
			}
		}
		out = append(out, channeltest.Shown{Text: m.Text, Controls: linkRe.MatchString(m.Text)})
	}
	for _, addr := range rec.Email.Recipients() {
		if link := h.link(rec.Key, addr); link != "" {
			_, body := page(t, link)
			out = append(out, channeltest.Shown{Text: body,
				Buttons:  strings.Count(body, `<button type="submit" name="value"`),
				List:     strings.Contains(body, `type="checkbox" name="value"`),
				Controls: strings.Contains(body, "<form")})
		}
	}
	return out
}

func (h *mailHarness) ReplyInThread(t *testing.T, rec *inquiry.Record, person, text string) {
	t.Fatal("email: a reply to the mail answers nothing (Caps.Threads is false)")
}

func (h *mailHarness) FailPosts(t *testing.T, retryAfter time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failures = 2
}

func (h *mailHarness) Attempts(t *testing.T) []channeltest.Attempt {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]channeltest.Attempt(nil), h.attempts...)
}

func (h *mailHarness) Unpostable(t *testing.T, in inquiry.Inquiry) (*inquiry.Record, string) {
	return h.ask(t, in, []string{nobody}), "check the addresses in email.to"
}
