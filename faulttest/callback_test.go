package faulttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// callbackSecret signs the callbacks in these tests (BOT_CALLBACK_SECRET).
const callbackSecret = "fault-test-callback-secret-0123456789"

// hook is one request a callback receiver got.
type hook struct {
	path   string
	header http.Header
	body   []byte
	at     time.Time
}

// receiver records the callbacks it gets and answers 200.
type receiver struct {
	mu  sync.Mutex
	got []hook
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.got = append(rc.got, hook{path: r.URL.Path, header: r.Header.Clone(), body: body, at: time.Now()})
	rc.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (rc *receiver) hooks() []hook {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hook(nil), rc.got...)
}

// TestCallbackReceiverDownThenUp: the asker's callback receiver refuses connections when the
// inquiry is answered, and comes up once an attempt has failed. The callback arrives, once, signed with
// BOT_CALLBACK_SECRET, with the answer.
func TestCallbackReceiverDownThenUp(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		rc := &receiver{}
		srv := newSwitchable(t, rc, false) // down
		b := startBot(t, databaseURL, "BOT_CALLBACK_HOSTS=127.0.0.1", "BOT_CALLBACK_SECRET="+callbackSecret)

		body := choice("callback-down", inbox)
		body["callback_url"] = srv.URL() + "/hooks/inquiry"
		rec := b.mustCall(http.MethodPost, "/v1/inquiries", body, http.StatusCreated)
		answered := time.Now()
		b.mustCall(http.MethodPost, "/v1/inquiries/"+rec.Key+"/answer", map[string]any{"value": "No"}, http.StatusOK)

		// Down until the first attempt fails (else the fault was not injected).
		testkit.Eventually(t, 30*time.Second, "a callback attempt failing while the receiver is down", func() bool {
			return retries(b.logs(), "callback") > 0
		})
		failed := retries(b.logs(), "callback")
		if n := len(rc.hooks()); n != 0 {
			t.Fatalf("%d callbacks arrived while the receiver was down", n)
		}
		srv.Up()
		up := time.Now()
		outage := up.Sub(answered).Round(10 * time.Millisecond)
		testkit.Eventually(t, 30*time.Second, "the callback", func() bool { return len(rc.hooks()) > 0 })
		arrived := rc.hooks()[0].at
		b.settled(30 * time.Second)
		hooks := rc.hooks()
		if len(hooks) != 1 {
			t.Fatalf("%d callbacks arrived, want exactly 1", len(hooks))
		}
		h := hooks[0]
		if h.path != "/hooks/inquiry" {
			t.Errorf("callback to %s, want /hooks/inquiry", h.path)
		}
		err := client.Verify([]byte(callbackSecret), h.header.Get(client.HeaderSignature), h.header.Get(client.HeaderTimestamp),
			h.body, time.Now(), client.DefaultSignatureWindow)
		if err != nil {
			t.Errorf("the callback's signature does not verify with BOT_CALLBACK_SECRET: %v", err)
		}
		if err := client.Verify([]byte("another secret"), h.header.Get(client.HeaderSignature), h.header.Get(client.HeaderTimestamp),
			h.body, time.Now(), client.DefaultSignatureWindow); err == nil {
			t.Errorf("the callback's signature verifies with another secret")
		}
		var got record
		if err := json.Unmarshal(h.body, &got); err != nil {
			t.Fatalf("callback body: %v: %s", err, h.body)
		}
		if got.Key != rec.Key || got.Status != "answered" || got.value() != "No" {
			t.Errorf("callback carries %s %s %q, want %s answered No", got.Key, got.Status, got.value(), rec.Key)
		}
		if h.header.Get(client.HeaderDelivery) == "" || h.header.Get(client.HeaderEvent) != "callback" {
			t.Errorf("callback headers: delivery %q, event %q", h.header.Get(client.HeaderDelivery), h.header.Get(client.HeaderEvent))
		}
		t.Logf("figures: receiver refusing connections for %s; %d attempts failed; the callback arrived %s after the receiver "+
			"came back (%s after the answer), once, signed (lost 0, duplicated 0)",
			outage, failed, arrived.Sub(up).Round(100*time.Millisecond), arrived.Sub(answered).Round(100*time.Millisecond))
	})
}

// hangingReceiver is a callback receiver that accepts connections and never answers: it reads
// what it is sent and holds each connection until the bot gives up on it and closes it.
type hangingReceiver struct {
	ln net.Listener
	wg sync.WaitGroup

	mu    sync.Mutex
	conns []*hungConn
}

// hungConn is one connection the receiver holds: when it was accepted, and when the bot closed it
// (zero while it hangs).
type hungConn struct {
	conn             net.Conn
	accepted, closed time.Time
}

func newHangingReceiver(t *testing.T) *hangingReceiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &hangingReceiver{ln: ln}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c := &hungConn{conn: conn, accepted: time.Now()}
			h.mu.Lock()
			h.conns = append(h.conns, c)
			h.mu.Unlock()
			h.wg.Add(1)
			go func() {
				defer h.wg.Done()
				_, _ = io.Copy(io.Discard, conn) // until the bot closes it
				h.mu.Lock()
				c.closed = time.Now()
				h.mu.Unlock()
				conn.Close()
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		h.mu.Lock()
		for _, c := range h.conns {
			c.conn.Close()
		}
		h.mu.Unlock()
		h.wg.Wait()
	})
	return h
}

// URL is the receiver's base URL.
func (h *hangingReceiver) URL() string { return "http://" + h.ln.Addr().String() }

// first is the first connection's accept and close times (ok false before one was accepted).
func (h *hangingReceiver) first() (accepted, closed time.Time, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.conns) == 0 {
		return time.Time{}, time.Time{}, false
	}
	return h.conns[0].accepted, h.conns[0].closed, true
}

// postedAt is when the app's message carrying key was posted in channel.
func postedAt(fake *slackfake.Server, channel, key string) (time.Time, bool) {
	for _, m := range fake.BotMessages(channel) {
		if carries(m, key) {
			return m.PostedAt, true
		}
	}
	return time.Time{}, false
}

// TestSlowCallbackReceiver (issue 14 item 2; the README's Limits: a slow receiver holds only its
// own deliveries): an asker's callback receiver accepts the connection and never answers, so each
// attempt hangs until the bot's 10 s callback timeout. While the first attempt hangs, questions are
// asked in four Slack channels and another asker's inquiry, with a receiver that answers, is
// answered: every question is posted, and the other callback delivered, while the hung attempt is
// still open. Before, the dispatcher waited for the slowest delivery of a batch, so each post
// waited for the hung callback to time out.
//
// The sweeper runs at its default pace (every 15 s), as in production: a second claimer every
// second would only hide the wait.
func TestSlowCallbackReceiver(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		fake := slackfaketest.New(t)
		proxy := newSlackProxy(t, fake)
		hung := newHangingReceiver(t)
		healthy := &receiver{}
		ok := newSwitchable(t, healthy, true)
		b := startSlackBot(t, databaseURL, fake, proxy, "BOT_CALLBACK_HOSTS=127.0.0.1",
			"BOT_CALLBACK_SECRET="+callbackSecret, "BOT_SWEEP_SCHEDULE=@every 15s")

		body := choice("hung-callback", inbox)
		body["callback_url"] = hung.URL() + "/hooks/inquiry"
		rec := b.mustCall(http.MethodPost, "/v1/inquiries", body, http.StatusCreated)
		b.mustCall(http.MethodPost, "/v1/inquiries/"+rec.Key+"/answer", map[string]any{"value": "No"}, http.StatusOK)
		testkit.Eventually(t, 20*time.Second, "the hung receiver's connection accepted", func() bool {
			_, _, ok := hung.first()
			return ok
		})
		hangs, _, _ := hung.first()

		// Questions for four channels, and another asker's callback, while the attempt hangs.
		channels := []string{slackfake.DefaultChannel, "C0FAKEHUNG1", "C0FAKEHUNG2", "C0FAKEHUNG3"}
		type asked struct {
			key, channel string
			at           time.Time
		}
		var questions []asked
		for i, ch := range channels {
			fake.AddChannel(ch, strings.ToLower(ch))
			body := choice(fmt.Sprintf("beside-hung-%d", i), viaSlack)
			body["slack"] = map[string]any{"channel": ch}
			rec := b.mustCall(http.MethodPost, "/v1/inquiries", body, http.StatusCreated)
			questions = append(questions, asked{rec.Key, ch, time.Now()})
		}
		body = choice("healthy-callback", inbox)
		body["callback_url"] = ok.URL() + "/hooks/inquiry"
		other := b.mustCall(http.MethodPost, "/v1/inquiries", body, http.StatusCreated)
		b.mustCall(http.MethodPost, "/v1/inquiries/"+other.Key+"/answer", map[string]any{"value": "Yes"}, http.StatusOK)
		answered := time.Now()

		var delays []time.Duration
		var slowest time.Duration
		testkit.Eventually(t, 30*time.Second, "every question posted and the other callback delivered", func() bool {
			delays, slowest = delays[:0], 0
			for _, q := range questions {
				at, posted := postedAt(fake, q.channel, q.key)
				if !posted {
					return false
				}
				delays = append(delays, at.Sub(q.at))
				slowest = max(slowest, at.Sub(q.at))
			}
			return len(healthy.hooks()) > 0
		})
		done := time.Now()
		_, closed, _ := hung.first()
		callbackDelay := healthy.hooks()[0].at.Sub(answered)
		t.Logf("figures: callback receiver accepting and never answering; %d questions in %d channels posted %s after "+
			"their creates (slowest %s), another receiver's callback delivered %s after its answer; all seen %s after the "+
			"hung attempt was accepted", len(questions), len(channels), roundAll(delays), slowest.Round(time.Millisecond),
			callbackDelay.Round(time.Millisecond), done.Sub(hangs).Round(10*time.Millisecond))
		if !closed.IsZero() && closed.Before(done) {
			t.Fatalf("the posts and the other callback waited for the hung callback: its attempt was closed after %s, "+
				"before they were all made (slowest post %s)", closed.Sub(hangs).Round(10*time.Millisecond), slowest.Round(time.Millisecond))
		}

		// The hung callback keeps to itself: its attempt times out and it is retried, while every
		// other delivery is long done.
		testkit.Eventually(t, 30*time.Second, "the hung attempt timed out and the callback retried", func() bool {
			_, closed, _ = hung.first()
			return !closed.IsZero() && retries(b.logs(), "callback") > 0
		})
		t.Logf("figures: the hung attempt was closed by the bot after %s (its callback timeout) and retried; "+
			"%d posts, each once", closed.Sub(hangs).Round(100*time.Millisecond), len(fake.Calls("chat.postMessage")))
		for _, q := range questions {
			if n := postsOf(fake, q.channel, q.key); n != 1 {
				t.Errorf("inquiry %s: %d messages in %s, want exactly 1", q.key, n, q.channel)
			}
		}
	})
}

// roundAll formats durations to the millisecond.
func roundAll(ds []time.Duration) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.Round(time.Millisecond).String()
	}
	return strings.Join(s, ", ")
}
