package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/mattn/go-isatty"

	"github.com/inquiry-bot/bot/email"
	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/dispatch"
	"github.com/inquiry-bot/bot/internal/inflight"
	"github.com/inquiry-bot/bot/internal/wake"
	"github.com/inquiry-bot/bot/mcptools"
	"github.com/inquiry-bot/bot/metrics"
	"github.com/inquiry-bot/bot/scheduler"
	"github.com/inquiry-bot/bot/slackapp"
	"github.com/inquiry-bot/bot/storage"
	"github.com/inquiry-bot/bot/teamsapp"
	"github.com/inquiry-bot/bot/web"
)

// shutdownGrace bounds a graceful shutdown: in-flight requests and long-polls return, the running
// sweep finishes, deliveries are recorded, the database is closed.
const shutdownGrace = 10 * time.Second

// Main is the running service, wired by hand: the store, the transport registry, the ask
// service, the dispatcher, the scheduler and the gateway.
type Main struct {
	Config Config
	Log    *slog.Logger
	// Out receives the first-start admin token and the listening line.
	Out *os.File
	// DeliveryLease is how long a claimed delivery is held before another dispatcher may take it
	// again (BOT_DELIVERY_LEASE); zero means the dispatcher's default, one minute.
	DeliveryLease time.Duration

	Store      *storage.Store
	Service    *inquiry.Service
	Hub        *wake.Hub // wakes the service's waits; closed on shutdown
	Dispatcher *dispatch.Dispatcher
	Scheduler  *scheduler.Scheduler
	Gateway    *gateway.Server
	Metrics    *metrics.Metrics
	Slack      *slackapp.App // nil when Slack is not configured

	listener net.Listener
	server   *http.Server
	cancel   context.CancelFunc
	done     chan struct{}
}

// Addr is the address the service listens on (useful with BOT_ADDR=127.0.0.1:0).
func (m *Main) Addr() string { return m.listener.Addr().String() }

// newLogger logs JSON unless stderr is a terminal (or BOT_LOG_FORMAT says otherwise).
func newLogger(getenv func(string) string, w *os.File) *slog.Logger {
	format := getenv("BOT_LOG_FORMAT")
	if format == "" {
		format = "json"
		if isatty.IsTerminal(w.Fd()) {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, nil))
	}
	return slog.New(slog.NewJSONHandler(w, nil))
}

// Open wires everything and starts listening; Run serves until ctx ends.
func (m *Main) Open(ctx context.Context, getenv func(string) string) error {
	cfg := m.Config
	st, err := storage.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("open DATABASE_URL %s: %w", storage.RedactURL(cfg.DatabaseURL), err)
	}
	m.Store = st

	secret := cfg.CallbackSecret
	if secret == "" {
		// Generated on first start and kept, so callbacks stay verifiable across restarts.
		if secret, err = st.InitSetting(ctx, callbackSecretSetting, inquiry.NewSecret()); err != nil {
			return fmt.Errorf("store the callback secret: %w", err)
		}
	}

	// Answer links are signed with a secret of their own, generated once and kept in the
	// database, so every replica signs and checks alike and a restart keeps links working.
	linkSecret, err := st.InitSetting(ctx, linkSecretSetting, inquiry.NewSecret())
	if err != nil {
		return fmt.Errorf("store the link secret: %w", err)
	}

	registry := inquiry.NewRegistry()
	svc := inquiry.NewService(st, registry)
	m.Hub = wake.NewHub()
	svc.Hub = m.Hub
	svc.DefaultPolicy = cfg.DefaultPolicy
	svc.DefaultTransport = cfg.DefaultTransport
	svc.DefaultChannel = cfg.SlackDefaultChannel
	svc.Log = m.Log
	svc.LinkSecret = []byte(linkSecret)
	svc.PublicURL = cfg.PublicURL
	svc.AllowBroadcast = cfg.AllowBroadcast
	svc.Answering = inflight.New[*inquiry.Record]() // simultaneous clicks on one message: one reaches the database
	m.Service = svc

	m.Metrics = metrics.New(metrics.Gauges{
		Pending:    st.CountPending,
		QueueDepth: func(ctx context.Context) (int, error) { return st.CountDeliveries(ctx, inquiry.DeliveryPending) },
		Waiters:    m.Hub.Waiters,
	})
	svc.Observe = func(event string, rec *inquiry.Record) {
		switch event {
		case "created":
			m.Metrics.Created(rec)
		case "resolved":
			m.Metrics.Resolved(rec)
		}
	}

	if cfg.SlackEnabled() {
		app, err := slackapp.New(slackapp.Config{
			BotToken: cfg.SlackBotToken, SigningSecret: cfg.SlackSigningSecret, AppToken: cfg.SlackAppToken,
			APIURL: cfg.SlackAPIURL, DefaultChannel: cfg.SlackDefaultChannel, Service: svc, Logger: m.Log,
			HTTPClient: &http.Client{Timeout: 15 * time.Second, Transport: m.Metrics.SlackTransport(slackapp.NewHTTPTransport())},
		})
		if err != nil {
			return err // the sentence names the variable to fix
		}
		registry.Register(inquiry.TransportSlack, app)
		m.Slack = app
	}
	if cfg.Email != nil {
		// Each recipient's link is minted by the service, which signs every answer link.
		registry.Register(inquiry.TransportEmail, email.New(*cfg.Email, svc, m.Log, svc.Clock))
		m.Log.Info("email transport on", "smtp", cfg.Email.String())
	}
	var teams *teamsapp.App
	if cfg.TeamsEnabled() {
		teams, err = teamsapp.New(teamsapp.Config{AppID: cfg.TeamsAppID, Password: cfg.TeamsAppPassword, TenantID: cfg.TeamsTenantID,
			OpenIDURL: cfg.TeamsOpenIDURL, TokenURL: cfg.TeamsTokenURL, Service: svc, Log: m.Log})
		if err != nil {
			return err // the sentence names the variable to fix
		}
		registry.Register(inquiry.TransportTeams, teams)
	}
	mount := func(r gin.IRoutes) {
		if m.Slack != nil {
			m.Slack.Mount(r)
		}
		if teams != nil {
			teams.Mount(r)
		}
	}

	gw := gateway.New(gateway.Config{
		Service:        svc,
		Store:          st,
		Ready:          st.Ping,
		CallbackSecret: func() []byte { return []byte(secret) },
		CallbackHosts:  cfg.CallbackHosts,
		PublicURL:      cfg.PublicURL,
		Logger:         m.Log,
		Metrics:        m.Metrics.Handler(),
		Mount:          mount,
		// The MCP tools over streamable HTTP, stateless so any replica serves any call, behind
		// the API's bearer tokens.
		MCP:            mcptools.HTTPHandler(svc, mcptools.Options{Version: version, Logger: m.Log}),
		ObserveRequest: m.Metrics.Request,
		RateLimits:     cfg.RateLimits,
		Pages:          web.New(web.Config{Service: svc, Logger: m.Log}),
	})
	m.Gateway = gw

	handlers := svc.TransportHandlers()
	maps.Copy(handlers, gw.DeliveryHandlers())
	m.Dispatcher = &dispatch.Dispatcher{Store: st, Handlers: handlers, Log: m.Log, Observe: m.Metrics.Delivery,
		Lease: m.DeliveryLease}
	svc.Kick = m.Dispatcher.Kick

	m.Scheduler = &scheduler.Scheduler{
		Service: svc, Dispatcher: m.Dispatcher, Schedule: cfg.SweepSchedule,
		StaleAfter: cfg.StaleAfter, Retention: cfg.Retention, Log: m.Log, Observe: m.Metrics.Sweep,
	}

	if err := m.firstStart(ctx, getenv); err != nil {
		return err
	}

	// The limits under abuse that sit below every route: connections, heads, bodies, framing.
	limits := gateway.Limits{MaxConns: cfg.MaxConns, BodyTimeout: cfg.BodyTimeout, Logger: m.Log}
	m.listener, err = gateway.Listen(cfg.Addr, limits)
	if err != nil {
		return fmt.Errorf("listen on BOT_ADDR %s: %w", cfg.Addr, err)
	}
	m.server = gateway.NewHTTPServer(gw.Handler(), limits)
	return nil
}

// firstStart creates the admin token on an empty database, prints it once, and writes it to the
// token file for the CLI on this machine.
func (m *Main) firstStart(ctx context.Context, getenv func(string) string) error {
	n, err := m.Store.CountTokens(ctx)
	if err != nil || n > 0 {
		return err
	}
	plain, t := inquiry.NewToken("admin", "admin", []inquiry.Scope{inquiry.ScopeAdmin}, m.Service.Clock())
	if err := m.Store.CreateToken(ctx, t); err != nil {
		if inquiry.ErrorCode(err) == inquiry.CodeIDConflict {
			return nil // another replica was first
		}
		return fmt.Errorf("create the admin token: %w", err)
	}
	path, werr := m.keepTokenFile(ctx, getenv, plain)
	fmt.Fprintln(m.Out, "First start: created the admin token. It is shown once:")
	fmt.Fprintln(m.Out, "  "+plain)
	if werr != nil {
		fmt.Fprintf(m.Out, "Could not write the token file (%v); keep the token above.\n", werr)
	} else if cli, _ := tokenFile(getenv); path != cli {
		fmt.Fprintf(m.Out, "Written to %s; the bot CLI reads it with BOT_TOKEN=\"$(cat %s)\".\n", path, path)
	} else {
		fmt.Fprintf(m.Out, "Written to %s for the bot CLI on this machine.\n", path)
	}
	return nil
}

// Run serves until ctx ends, then shuts down gracefully within shutdownGrace.
func (m *Main) Run(ctx context.Context) error {
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.cancel = cancel
	m.done = make(chan struct{})
	go func() {
		if err := m.Store.Listen(bg, m.Hub.Wake); err != nil && bg.Err() == nil {
			m.Log.Warn("listen for resolutions from other replicas", "err", err)
		}
	}()
	dispatched := make(chan struct{})
	go func() { m.Dispatcher.Run(bg); close(dispatched) }()
	if err := m.Scheduler.Start(bg); err != nil {
		return fmt.Errorf("BOT_SWEEP_SCHEDULE: %w", err)
	}

	if m.Slack != nil && m.Slack.SocketMode() {
		go func() {
			if err := m.Slack.RunSocketMode(bg); err != nil && bg.Err() == nil {
				m.Log.Error("slack socket mode stopped", "err", err)
			}
		}()
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- m.server.Serve(m.listener) }()
	m.Log.Info("inquiry bot serving", "addr", m.Addr(), "config", m.Config.Summary(), "version", version)
	fmt.Fprintf(m.Out, "listening on http://%s\n", m.Addr())

	var err error
	select {
	case <-ctx.Done():
	case err = <-serveErr:
	}

	// Graceful shutdown: stop accepting; long-polls see the hub close and return the inquiry as
	// it stands, and Shutdown waits for their answers before the database closes; then stop the
	// sweeper and the dispatcher, and close the database.
	sctx, scancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer scancel()
	m.Hub.Close()
	if serr := m.server.Shutdown(sctx); serr != nil {
		m.Log.Warn("shutdown http", "err", serr)
	}
	if m.Slack != nil {
		m.Slack.Close() // ephemerals already promised after an ack
	}
	m.Scheduler.Stop(sctx)
	cancel()
	select {
	case <-dispatched:
	case <-sctx.Done():
	}
	if cerr := m.Store.Close(); cerr != nil {
		m.Log.Warn("close database", "err", cerr)
	}
	m.Log.Info("inquiry bot stopped")
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func runServe(ctx context.Context, e *env) error {
	fs := commandFlags(e, "serve", "usage: bot serve [--check]\n\nRuns the service, configured by the environment (README).\n\nFlags:\n")
	check := fs.Bool("check", false, "validate the configuration and exit")
	if done, err := parseCommand(fs, e.args, e.stdout); done {
		return err
	}
	cfg, err := LoadConfig(e.getenv)
	if err != nil {
		return exitf(exitUsage, "%s", err.Error())
	}
	lease, err := deliveryLease(e.getenv)
	if err != nil {
		return exitf(exitUsage, "%s", err.Error())
	}
	if *check {
		fmt.Fprintln(e.stdout, "configuration ok: "+cfg.Summary())
		return nil
	}
	out, _ := e.stdout.(*os.File)
	if out == nil {
		out = os.Stdout
	}
	errOut, _ := e.stderr.(*os.File)
	if errOut == nil {
		errOut = os.Stderr
	}
	m := &Main{Config: cfg, Log: newLogger(e.getenv, errOut), Out: out, DeliveryLease: lease}
	if err := m.Open(ctx, e.getenv); err != nil {
		if m.Store != nil {
			m.Store.Close()
		}
		return err
	}
	return m.Run(ctx)
}

// deliveryLease reads BOT_DELIVERY_LEASE, how long a delivery a dispatcher claimed (a Slack post,
// a callback) is held before another may take it: after a crash (SIGKILL, OOM, a lost node) the
// work the dead process had claimed waits that long before this process, restarted, or another
// replica carries it out. Unset means the dispatcher's default, one minute. It should be at
// least twice the slowest attempt (a Slack post is bounded by about 20 s, a callback by 10 s; see
// dispatch.Dispatcher), or a slow attempt may be made twice; the fault tests shorten it so that a
// restart after SIGKILL is seen in seconds.
func deliveryLease(getenv func(string) string) (time.Duration, error) {
	v := strings.TrimSpace(getenv("BOT_DELIVERY_LEASE"))
	if v == "" {
		return 0, nil
	}
	return positiveDuration("BOT_DELIVERY_LEASE", v)
}
