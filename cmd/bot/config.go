package main

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/email"
	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
)

// Config is the service's configuration, read from the environment (the README's Configuration
// table).
type Config struct {
	Addr             string
	DatabaseURL      string
	DefaultPolicy    inquiry.Policy
	DefaultTransport string
	SweepSchedule    string
	StaleAfter       time.Duration
	Retention        time.Duration
	CallbackHosts    []string
	CallbackSecret   string
	PublicURL        string

	SlackBotToken       string
	SlackSigningSecret  string
	SlackAppToken       string
	SlackAPIURL         string
	SlackDefaultChannel string

	// Teams is the Microsoft Teams app (TEAMS_APP_ID, TEAMS_APP_PASSWORD, TEAMS_TENANT_ID,
	// TEAMS_OPENID_URL, TEAMS_TOKEN_URL); off while TEAMS_APP_ID is unset.
	TeamsAppID, TeamsAppPassword, TeamsTenantID, TeamsOpenIDURL, TeamsTokenURL string
	// AllowBroadcast (BOT_ALLOW_BROADCAST) lets an inquiry's reminders mention @here
	// (remind_here): waking a whole channel is the operator's choice, off by default.
	AllowBroadcast bool

	// Email is the email transport's mail server and sender (SMTP_URL, EMAIL_FROM); nil when
	// SMTP_URL is unset.
	Email *email.Config

	// MaxConns (BOT_MAX_CONNS) caps the connections open at once, and BodyTimeout
	// (BOT_BODY_TIMEOUT) is how long a request body may take after its headers (the README's Limits).
	MaxConns    int
	BodyTimeout time.Duration

	// RateLimits are BOT_RATE_LIMIT, BOT_RATE_BURST and BOT_MAX_WAITERS (the README's Limits).
	RateLimits gateway.RateLimits
}

// EmailEnabled reports whether the email transport is configured.
func (c Config) EmailEnabled() bool { return c.Email != nil }

// TeamsEnabled reports whether the Microsoft Teams transport is configured.
func (c Config) TeamsEnabled() bool { return c.TeamsAppID != "" }

// SlackEnabled reports whether a Slack transport is configured.
func (c Config) SlackEnabled() bool { return c.SlackBotToken != "" }

// configVars lists every variable the bot reads, for the deploy-manifest test and --help.
var configVars = []string{
	"BOT_ADDR", "DATABASE_URL", "BOT_DEFAULT_POLICY", "BOT_DEFAULT_TRANSPORT", "BOT_SWEEP_SCHEDULE",
	"BOT_STALE_AFTER", "BOT_RETENTION", "BOT_CALLBACK_HOSTS", "BOT_CALLBACK_SECRET", "BOT_PUBLIC_URL",
	"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_API_URL", "SLACK_DEFAULT_CHANNEL",
	"BOT_URL", "BOT_TOKEN", "XDG_CONFIG_HOME", "BOT_LOG_FORMAT", "BOT_DELIVERY_LEASE", "BOT_MCP_POLICY",
	"BOT_RATE_LIMIT", "BOT_RATE_BURST", "BOT_MAX_WAITERS",
	"BOT_MAX_CONNS", "BOT_BODY_TIMEOUT", "SMTP_URL", "EMAIL_FROM", "BOT_ALLOW_BROADCAST",
	"TEAMS_APP_ID", "TEAMS_APP_PASSWORD", "TEAMS_TENANT_ID", "TEAMS_OPENID_URL", "TEAMS_TOKEN_URL",
}

// cronParser accepts five fields, an optional leading seconds field, and descriptors like
// "@every 2s".
var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// LoadConfig reads and checks the configuration. A wrong value is refused with one sentence that
// names the variable and what it expects.
func LoadConfig(getenv func(string) string) (Config, error) {
	get := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	c := Config{
		Addr:                get("BOT_ADDR", "127.0.0.1:8080"),
		DatabaseURL:         get("DATABASE_URL", "sqlite:inquiry-bot.db"),
		SweepSchedule:       get("BOT_SWEEP_SCHEDULE", "@every 15s"),
		CallbackSecret:      getenv("BOT_CALLBACK_SECRET"),
		PublicURL:           get("BOT_PUBLIC_URL", ""),
		SlackBotToken:       get("SLACK_BOT_TOKEN", ""),
		SlackSigningSecret:  getenv("SLACK_SIGNING_SECRET"),
		SlackAppToken:       get("SLACK_APP_TOKEN", ""),
		SlackAPIURL:         get("SLACK_API_URL", ""),
		SlackDefaultChannel: get("SLACK_DEFAULT_CHANNEL", ""),
		TeamsAppID:          get("TEAMS_APP_ID", ""),
		TeamsAppPassword:    getenv("TEAMS_APP_PASSWORD"),
		TeamsTenantID:       get("TEAMS_TENANT_ID", ""),
		TeamsOpenIDURL:      get("TEAMS_OPENID_URL", ""),
		TeamsTokenURL:       get("TEAMS_TOKEN_URL", ""),
	}
	if c.TeamsAppID == "" && c.TeamsAppPassword != "" {
		return c, fmt.Errorf("TEAMS_APP_PASSWORD is set but TEAMS_APP_ID is not: set TEAMS_APP_ID to the bot's Microsoft App ID, or unset TEAMS_APP_PASSWORD")
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return c, fmt.Errorf("BOT_ADDR %q is not a listen address: use host:port such as 127.0.0.1:8080 or :8080", c.Addr)
	}
	if !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") &&
		!strings.HasPrefix(c.DatabaseURL, "sqlite:") {
		return c, fmt.Errorf("DATABASE_URL %q is neither postgres://… nor sqlite:PATH: use postgres://user@host:5432/db or sqlite:inquiry-bot.db", storage.RedactURL(c.DatabaseURL))
	}
	if c.DatabaseURL == "sqlite:" {
		return c, fmt.Errorf("DATABASE_URL \"sqlite:\" names no file: use sqlite:PATH such as sqlite:inquiry-bot.db")
	}
	policy, err := inquiry.ParsePolicy(get("BOT_DEFAULT_POLICY", string(inquiry.PolicyDefault)))
	if err != nil {
		return c, fmt.Errorf("BOT_DEFAULT_POLICY %q is not one of ask, default or refuse: set one of them, or leave it unset for default", getenv("BOT_DEFAULT_POLICY"))
	}
	c.DefaultPolicy = policy
	if v := get("SMTP_URL", ""); v != "" {
		ec, err := email.ParseConfig(v, getenv("EMAIL_FROM"))
		if err != nil {
			return c, err
		}
		c.Email = &ec
	} else if get("EMAIL_FROM", "") != "" {
		return c, fmt.Errorf("EMAIL_FROM is set but SMTP_URL is not: set SMTP_URL to the mail server (smtp://user:password@host:587), or unset EMAIL_FROM")
	}
	defTransport := inquiry.TransportInbox
	if c.SlackEnabled() {
		defTransport = inquiry.TransportSlack
	}
	c.DefaultTransport = get("BOT_DEFAULT_TRANSPORT", defTransport)
	switch c.DefaultTransport {
	case inquiry.TransportInbox:
	case inquiry.TransportSlack:
		if !c.SlackEnabled() {
			return c, fmt.Errorf("BOT_DEFAULT_TRANSPORT is slack but SLACK_BOT_TOKEN is unset: set SLACK_BOT_TOKEN, or use inbox")
		}
	case inquiry.TransportEmail:
		if !c.EmailEnabled() {
			return c, fmt.Errorf("BOT_DEFAULT_TRANSPORT is email but SMTP_URL is unset: set SMTP_URL and EMAIL_FROM, or use inbox")
		}
	case inquiry.TransportTeams:
		if !c.TeamsEnabled() {
			return c, fmt.Errorf("BOT_DEFAULT_TRANSPORT is teams but TEAMS_APP_ID is unset: set TEAMS_APP_ID and TEAMS_APP_PASSWORD, or use inbox")
		}
	default:
		return c, fmt.Errorf("BOT_DEFAULT_TRANSPORT %q is not one of slack, teams, email or inbox: set one of them", c.DefaultTransport)
	}
	if _, err := cronParser.Parse(c.SweepSchedule); err != nil {
		return c, fmt.Errorf("BOT_SWEEP_SCHEDULE %q is not a cron spec: use five fields (six with seconds) or a descriptor such as \"@every 15s\"", c.SweepSchedule)
	}
	if c.StaleAfter, err = positiveDuration("BOT_STALE_AFTER", get("BOT_STALE_AFTER", "10m")); err != nil {
		return c, err
	}
	if c.Retention, err = positiveDuration("BOT_RETENTION", get("BOT_RETENTION", "2160h")); err != nil {
		return c, err
	}
	for _, h := range strings.Split(get("BOT_CALLBACK_HOSTS", ""), ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if strings.Contains(h, "/") {
			return c, fmt.Errorf("BOT_CALLBACK_HOSTS entry %q is not a host[:port]: list hosts like hooks.internal:8443, separated by commas", h)
		}
		c.CallbackHosts = append(c.CallbackHosts, strings.ToLower(h))
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("BOT_PUBLIC_URL %q is not an http(s) URL: use the base URL people reach the bot at, such as https://bot.example.com", c.PublicURL)
		}
		c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	}
	if c.EmailEnabled() && c.PublicURL == "" {
		return c, fmt.Errorf("SMTP_URL is set but BOT_PUBLIC_URL is not: a mailed answer link needs the base URL people reach the bot at, such as https://bot.example.com")
	}
	if c.RateLimits, err = rateLimits(get); err != nil {
		return c, err
	}
	if c.MaxConns, err = strconv.Atoi(get("BOT_MAX_CONNS", strconv.Itoa(gateway.DefaultMaxConns))); err != nil || c.MaxConns <= 0 {
		return c, fmt.Errorf("BOT_MAX_CONNS %q is not a whole number above 0: use one such as 4096, well under the open-file limit (ulimit -n)", getenv("BOT_MAX_CONNS"))
	}
	if c.BodyTimeout, err = positiveDuration("BOT_BODY_TIMEOUT", get("BOT_BODY_TIMEOUT", gateway.DefaultBodyTimeout.String())); err != nil {
		return c, err
	}
	if c.SlackAPIURL != "" {
		u, err := url.Parse(c.SlackAPIURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.HasSuffix(c.SlackAPIURL, "/") {
			return c, fmt.Errorf("SLACK_API_URL %q is not an http(s) URL ending in /: use Slack's https://slack.com/api/ or a test server's URL with a trailing slash", c.SlackAPIURL)
		}
	}
	if c.SlackAppToken != "" && !strings.HasPrefix(c.SlackAppToken, "xapp-") {
		return c, fmt.Errorf("SLACK_APP_TOKEN does not start with xapp-: use the app-level token from the app's Basic Information page (with connections:write)")
	}
	if c.SlackAppToken != "" && !c.SlackEnabled() {
		return c, fmt.Errorf("SLACK_APP_TOKEN is set but SLACK_BOT_TOKEN is not: Socket Mode also needs the bot token (xoxb-…)")
	}
	if c.AllowBroadcast, err = strconv.ParseBool(get("BOT_ALLOW_BROADCAST", "false")); err != nil {
		return c, fmt.Errorf("BOT_ALLOW_BROADCAST %q is not true or false: set true to let reminders mention @here (remind_here), or leave it unset", getenv("BOT_ALLOW_BROADCAST"))
	}
	if c.SlackEnabled() && c.SlackAppToken == "" && c.SlackSigningSecret == "" {
		// Fail closed: without the secret no request from Slack could be verified.
		return c, fmt.Errorf("SLACK_SIGNING_SECRET is unset while Slack runs over HTTP: set it from the app's Basic Information page, or set SLACK_APP_TOKEN for Socket Mode")
	}
	return c, nil
}

// rateLimits reads BOT_RATE_LIMIT (<n>/s, <n>/m or off), BOT_RATE_BURST and BOT_MAX_WAITERS
// (0: no cap).
func rateLimits(get func(name, def string) string) (gateway.RateLimits, error) {
	l := gateway.RateLimits{Rate: gateway.DefaultRate, Burst: gateway.DefaultBurst, MaxWaiters: gateway.DefaultMaxWaiters}
	if v := get("BOT_RATE_LIMIT", ""); strings.EqualFold(v, "off") {
		l.Rate = rate.Inf
	} else if v != "" {
		n, unit, ok := strings.Cut(v, "/")
		per := map[string]float64{"s": 1, "m": 60}[unit]
		count, err := strconv.Atoi(n)
		switch {
		case !ok || per == 0:
			return l, fmt.Errorf("BOT_RATE_LIMIT %q is not <n>/s or <n>/m: use a rate such as 10/s or 600/m, or off for no limit", v)
		case err != nil || count <= 0:
			return l, fmt.Errorf("BOT_RATE_LIMIT %q does not count a whole number above 0: use a rate such as 10/s or 600/m, or off for no limit", v)
		}
		l.Rate = rate.Limit(float64(count) / per)
	}
	if v := get("BOT_RATE_BURST", ""); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return l, fmt.Errorf("BOT_RATE_BURST %q is not a whole number above 0: use one such as 100", v)
		}
		l.Burst = n
	}
	if v := get("BOT_MAX_WAITERS", ""); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return l, fmt.Errorf("BOT_MAX_WAITERS %q is not a whole number: use one such as 1000, or 0 for no cap", v)
		}
		l.MaxWaiters = n
		if n == 0 {
			l.MaxWaiters = -1 // the gateway's no cap
		}
	}
	return l, nil
}

func positiveDuration(name, v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s %q is not a positive Go duration: use a value such as 10m or 72h", name, v)
	}
	return d, nil
}

// Summary is the one-line effective configuration for the start-up log, secrets redacted.
func (c Config) Summary() string {
	set := func(s string) string {
		if s == "" {
			return "unset"
		}
		return "set"
	}
	mode := "off"
	switch {
	case c.SlackAppToken != "":
		mode = "socket"
	case c.SlackEnabled():
		mode = "http"
	}
	mail := "off"
	if c.Email != nil {
		mail = c.Email.String() // without the password
	}
	return fmt.Sprintf("addr=%s database=%s policy=%s transport=%s sweep=%q stale_after=%s retention=%s callback_hosts=%v callback_secret=%s public_url=%s slack=%s slack_default_channel=%s email=%q",
		c.Addr, storage.RedactURL(c.DatabaseURL), c.DefaultPolicy, c.DefaultTransport, c.SweepSchedule, c.StaleAfter, c.Retention,
		c.CallbackHosts, set(c.CallbackSecret), c.PublicURL, mode, c.SlackDefaultChannel, mail)
}
