package faulttest

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/client"
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
// inquiry is answered, and comes up 3 s later. The callback arrives, once, signed with
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

		outage := 3 * time.Second
		time.Sleep(outage)
		failed := retries(b.logs(), "callback")
		if failed == 0 {
			t.Fatalf("no callback attempt failed while the receiver was down: the fault was not injected")
		}
		if n := len(rc.hooks()); n != 0 {
			t.Fatalf("%d callbacks arrived while the receiver was down", n)
		}
		srv.Up()
		up := time.Now()
		eventually(t, 30*time.Second, "the callback", func() bool { return len(rc.hooks()) > 0 })
		arrived := rc.hooks()[0].at
		time.Sleep(3 * time.Second) // a second delivery would show by now (the sweeper runs every second)
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
