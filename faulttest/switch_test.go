package faulttest

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// switchable serves a handler on one fixed loopback address that can go down — new connections
// refused, open ones cut — and come back up on the same address, as a crashed and restarted
// service does.
type switchable struct {
	t    testing.TB
	addr string
	h    http.Handler

	mu  sync.Mutex
	srv *http.Server
}

// newSwitchable reserves a loopback address for h; it starts down or up as told, and is shut
// when the test ends.
func newSwitchable(t testing.TB, h http.Handler, up bool) *switchable {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &switchable{t: t, addr: ln.Addr().String(), h: h}
	if up {
		s.serve(ln)
	} else {
		ln.Close()
	}
	t.Cleanup(s.Down)
	return s
}

// URL is the base URL, http://127.0.0.1:port.
func (s *switchable) URL() string { return "http://" + s.addr }

func (s *switchable) serve(ln net.Listener) {
	srv := &http.Server{Handler: s.h, ReadHeaderTimeout: 10 * time.Second}
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// Up listens again on the same address.
func (s *switchable) Up() {
	s.t.Helper()
	s.mu.Lock()
	up := s.srv != nil
	s.mu.Unlock()
	if up {
		return
	}
	var ln net.Listener
	var err error
	// The address was ours a moment ago: the kernel may hold it a moment longer.
	testkit.Eventually(s.t, 5*time.Second, "the address "+s.addr+" free again", func() bool {
		ln, err = net.Listen("tcp", s.addr)
		return err == nil || !errors.Is(err, syscall.EADDRINUSE)
	})
	if err != nil {
		s.t.Fatalf("listen again on %s: %v", s.addr, err)
	}
	s.serve(ln)
}

// Down closes the listener and every open connection: connections are refused until Up.
func (s *switchable) Down() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// slackProxy stands between the bot and the fake Slack's Web API: it can refuse connections
// (Down), counts the calls that reached it, and can hold Slack's answers to chat.postMessage —
// the message is posted in Slack, but the bot does not hear so until Release.
type slackProxy struct {
	*switchable

	mu      sync.Mutex
	begun   map[string]int // calls that reached the proxy, by method
	holding chan struct{}  // non-nil: postMessage answers wait until it is closed
}

func newSlackProxy(t testing.TB, fake *slackfake.Server) *slackProxy {
	t.Helper()
	target, err := url.Parse(strings.TrimSuffix(fake.URL(), "/api/"))
	if err != nil {
		t.Fatal(err)
	}
	p := &slackProxy{begun: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = log.New(io.Discard, "", 0) // a cut connection is the point
	rp.ModifyResponse = func(resp *http.Response) error {
		if strings.TrimPrefix(resp.Request.URL.Path, "/api/") != "chat.postMessage" {
			return nil
		}
		p.mu.Lock()
		hold := p.holding
		p.mu.Unlock()
		if hold == nil {
			return nil
		}
		select {
		case <-hold:
			return nil
		case <-resp.Request.Context().Done():
			return resp.Request.Context().Err()
		}
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method := strings.TrimPrefix(r.URL.Path, "/api/")
		p.mu.Lock()
		p.begun[method]++
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	})
	p.switchable = newSwitchable(t, h, true)
	return p
}

// APIURL is SLACK_API_URL for the bot.
func (p *slackProxy) APIURL() string { return p.URL() + "/api/" }

// Begun is how many calls of method reached the proxy (answered or not).
func (p *slackProxy) Begun(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.begun[method]
}

// Hold makes Slack's answers to chat.postMessage wait (the message is posted all the same).
func (p *slackProxy) Hold() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holding == nil {
		p.holding = make(chan struct{})
	}
}

// Release lets held answers through, and later ones at once.
func (p *slackProxy) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holding != nil {
		close(p.holding)
		p.holding = nil
	}
}

// startSlackBot runs the bot with the fake Slack behind the proxy, over HTTP (signed requests),
// and tells the fake where the bot listens after every start.
func startSlackBot(t *testing.T, databaseURL string, fake *slackfake.Server, p *slackProxy, extra ...string) *bot {
	t.Helper()
	b := startBot(t, databaseURL, append([]string{
		"SLACK_BOT_TOKEN=" + slackfake.BotToken,
		"SLACK_SIGNING_SECRET=" + slackfake.SigningSecret,
		"SLACK_API_URL=" + p.APIURL(),
		"SLACK_DEFAULT_CHANNEL=" + slackfake.DefaultChannel,
	}, extra...)...)
	b.afterStart(func() { fake.SetAppURL(b.url) })
	return b
}

// eachSlackBot runs test on every test database (storagetest.Each) with a fake Slack, the proxy
// in front of it, and the bot started on them by startSlackBot with extra.
func eachSlackBot(t *testing.T, extra []string, test func(t *testing.T, fake *slackfake.Server, proxy *slackProxy, b *bot)) {
	t.Helper()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		fake := slackfaketest.New(t)
		proxy := newSlackProxy(t, fake)
		test(t, fake, proxy, startSlackBot(t, databaseURL, fake, proxy, extra...))
	})
}

// postsOf counts the app's top-level messages in channel that carry key.
func postsOf(fake *slackfake.Server, channel, key string) int {
	n := 0
	for _, m := range fake.BotMessages(channel) {
		if carries(m, key) {
			n++
		}
	}
	return n
}

// carries reports whether m is the message of the inquiry key: key is in its metadata, or
// anywhere in the message when the fake keeps no metadata.
func carries(m slackfake.Message, key string) bool {
	return strings.Contains(string(m.Metadata), key) || strings.Contains(m.AllText(), key) ||
		strings.Contains(strings.Join(m.BlockIDs(), " "), key)
}

// waitPosted waits until the inquiry shows the ts of its Slack message.
func (b *bot) waitPosted(key string, within time.Duration) *record {
	b.t.Helper()
	var rec *record
	testkit.Eventually(b.t, within, "inquiry "+key+" posted to Slack", func() bool {
		r := b.call(context.Background(), http.MethodGet, "/v1/inquiries/"+key, nil)
		if r.err != nil || r.status != http.StatusOK {
			return false
		}
		rec = decode(b.t, r)
		return rec.Slack.TS != ""
	})
	return rec
}
