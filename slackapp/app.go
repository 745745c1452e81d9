package slackapp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/inquiry"
)

// Finder finds the pending inquiries posted in a Slack thread, so that a reply in the thread can
// answer one: the one posted as the thread's root message (ts = threadTS) and those posted into
// the thread (Slack.ThreadTS = threadTS), newest first by (created_at, key), at most limit. It is
// declared here, where it is used; the store implements it (storage.Store.PendingInThread).
type Finder interface {
	PendingInThread(ctx context.Context, channel, threadTS string, limit int) ([]*inquiry.Record, error)
}

// Config is what an App needs. BotToken and Service are required, and SigningSecret unless
// AppToken is set (Socket Mode).
type Config struct {
	BotToken string // SLACK_BOT_TOKEN (xoxb-…)
	// SigningSecret checks every HTTP request from Slack (SLACK_SIGNING_SECRET). Without it the
	// HTTP endpoints refuse everything.
	SigningSecret string
	// AppToken (xapp-…, SLACK_APP_TOKEN) turns on Socket Mode: see RunSocketMode.
	AppToken string
	// APIURL is the Web API base (SLACK_API_URL); "" means Slack's. A missing final "/" is added.
	APIURL string
	// DefaultChannel is where an inquiry that names no channel is posted (SLACK_DEFAULT_CHANNEL).
	DefaultChannel string
	Service        *inquiry.Service
	// Finder maps a thread reply to the inquiries it may answer; nil means Service.Store when it
	// implements Finder, else thread replies are ignored (with a warning at start).
	Finder Finder
	// Answers lists what a person answered lately, for the App Home; nil means Service.Store
	// when it implements Answers, else the Home tab lists only what waits.
	Answers Answers
	// Now is the clock (signature windows, rendering); nil means time.Now.
	Now        func() time.Time
	Logger     *slog.Logger
	HTTPClient *http.Client // nil means a client with a 15 s timeout on NewHTTPTransport

	// PostInterval and PostBurst pace the messages of one channel: Slack allows about one per
	// second with short bursts. Zero means one second and a burst of three.
	PostInterval time.Duration
	PostBurst    int
	// GroupTTL is how long a user group's members are trusted; zero means one minute.
	GroupTTL time.Duration
}

// App is the Slack transport and the Slack handlers. Create it with New.
type App struct {
	cfg     Config
	client  *slack.Client
	svc     *inquiry.Service
	finder  Finder
	answers Answers
	log     *slog.Logger
	now     func() time.Time

	pace   *pacer
	holds  *holds
	groups *groupCache
	seen   *eventLog
	homes  *homes // who opened the App Home lately (home.go)

	// bg tracks ephemerals sent after an ack; Close waits for them.
	bg sync.WaitGroup
}

var _ inquiry.Transport = (*App)(nil)

// New checks cfg and builds the App. It does not call Slack.
func New(cfg Config) (*App, error) {
	if cfg.Service == nil {
		return nil, errors.New("slackapp: Config.Service is required")
	}
	if strings.TrimSpace(cfg.BotToken) == "" {
		return nil, errors.New("SLACK_BOT_TOKEN is required for the Slack transport: set it to the app's bot token (xoxb-…)")
	}
	if cfg.AppToken == "" && cfg.SigningSecret == "" {
		return nil, errors.New("SLACK_SIGNING_SECRET is required when Slack reaches the bot over HTTP: set it to the app's signing secret, or set SLACK_APP_TOKEN to use Socket Mode")
	}
	if cfg.AppToken != "" && !strings.HasPrefix(cfg.AppToken, "xapp-") {
		return nil, errors.New("SLACK_APP_TOKEN must be an app-level token (xapp-…) with the connections:write scope")
	}
	opts := []slack.Option{}
	if cfg.APIURL != "" {
		u, err := url.Parse(cfg.APIURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("SLACK_API_URL must be an http(s) URL ending in /, like https://slack.com/api/, not %q", cfg.APIURL)
		}
		if !strings.HasSuffix(cfg.APIURL, "/") {
			cfg.APIURL += "/"
		}
		opts = append(opts, slack.OptionAPIURL(cfg.APIURL))
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 15 * time.Second, Transport: NewHTTPTransport()}
	}
	opts = append(opts, slack.OptionHTTPClient(cfg.HTTPClient))
	if cfg.AppToken != "" {
		opts = append(opts, slack.OptionAppLevelToken(cfg.AppToken))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.PostInterval <= 0 {
		cfg.PostInterval = time.Second
	}
	if cfg.PostBurst <= 0 {
		cfg.PostBurst = 3
	}
	if cfg.GroupTTL <= 0 {
		cfg.GroupTTL = time.Minute
	}
	a := &App{
		cfg:    cfg,
		client: slack.New(cfg.BotToken, opts...),
		svc:    cfg.Service,
		finder: cfg.Finder,
		log:    cfg.Logger.With("component", "slack"),
		now:    cfg.Now,
		pace:   &pacer{every: rate.Every(cfg.PostInterval), burst: cfg.PostBurst, lanes: map[string]*rate.Limiter{}},
		holds:  &holds{until: map[string]time.Time{}},
		seen:   newEventLog(10000),
		homes:  newHomes(),
	}
	a.groups = &groupCache{ttl: cfg.GroupTTL, now: cfg.Now, lookup: a.groupMembers, m: map[string]groupEntry{}}
	a.answers = cfg.Answers
	if a.answers == nil {
		if f, ok := cfg.Service.Store.(Answers); ok {
			a.answers = f
		}
	}
	if a.finder == nil {
		if f, ok := cfg.Service.Store.(Finder); ok {
			a.finder = f
		} else {
			a.log.Warn("replies in a question's thread will not answer it: the store cannot find the inquiries of a Slack thread (PendingInThread)")
		}
	}
	return a, nil
}

// Client is the Slack Web API client the App uses.
func (a *App) Client() *slack.Client { return a.client }

// SocketMode reports whether the App is configured for Socket Mode (an app-level token).
func (a *App) SocketMode() bool { return a.cfg.AppToken != "" }

// Close waits for the ephemerals and Home tabs still being sent (each is bounded by its own
// timeout).
func (a *App) Close() error {
	a.homes.close()
	a.bg.Wait()
	return nil
}

// pacer keeps one channel's messages to about one a second with short bursts.
type pacer struct {
	mu    sync.Mutex
	every rate.Limit
	burst int
	lanes map[string]*rate.Limiter
}

func (p *pacer) wait(ctx context.Context, channel string) error {
	p.mu.Lock()
	l, ok := p.lanes[channel]
	if !ok {
		l = rate.NewLimiter(p.every, p.burst)
		p.lanes[channel] = l
	}
	p.mu.Unlock()
	return l.Wait(ctx)
}

// slackIdlePerHost is how many connections to one Slack host are kept open between calls:
// about as many as are made at once (the dispatcher's lanes, the ephemerals after acks). At
// net/http's default of 2, calls beyond two at a time over HTTP/1.1 each dial (and shake
// hands over TLS) and close again: in a profile of 1,000 clicks a second, dialling was
// a sixteenth of the bot's CPU.
const slackIdlePerHost = 64

// NewHTTPTransport is the transport of the Slack Web API's calls: net/http's default one
// (proxy from the environment, HTTP/2, its timeouts) keeping slackIdlePerHost connections a host.
func NewHTTPTransport() *http.Transport {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok { // replaced by a program embedding the app: start from net/http's defaults
		t = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true, MaxIdleConns: 100,
			IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: 10 * time.Second, ExpectContinueTimeout: time.Second}
	}
	t = t.Clone()
	t.MaxIdleConnsPerHost = slackIdlePerHost
	t.MaxIdleConns = max(t.MaxIdleConns, 2*slackIdlePerHost)
	return t
}
