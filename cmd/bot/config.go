package main

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
)

// Config is the service's configuration, read from the environment (DESIGN §7).
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
}

// SlackEnabled reports whether a Slack transport is configured.
func (c Config) SlackEnabled() bool { return c.SlackBotToken != "" }

// configVars lists every variable the bot reads, for the deploy-manifest test and --help.
var configVars = []string{
	"BOT_ADDR", "DATABASE_URL", "BOT_DEFAULT_POLICY", "BOT_DEFAULT_TRANSPORT", "BOT_SWEEP_SCHEDULE",
	"BOT_STALE_AFTER", "BOT_RETENTION", "BOT_CALLBACK_HOSTS", "BOT_CALLBACK_SECRET", "BOT_PUBLIC_URL",
	"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_API_URL", "SLACK_DEFAULT_CHANNEL",
	"BOT_URL", "BOT_TOKEN", "XDG_CONFIG_HOME", "BOT_LOG_FORMAT", "BOT_DELIVERY_LEASE", "BOT_MCP_POLICY",
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
	default:
		return c, fmt.Errorf("BOT_DEFAULT_TRANSPORT %q is not one of slack or inbox: set one of them", c.DefaultTransport)
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
	if c.SlackEnabled() && c.SlackAppToken == "" && c.SlackSigningSecret == "" {
		// Fail closed: without the secret no request from Slack could be verified.
		return c, fmt.Errorf("SLACK_SIGNING_SECRET is unset while Slack runs over HTTP: set it from the app's Basic Information page, or set SLACK_APP_TOKEN for Socket Mode")
	}
	return c, nil
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
	return fmt.Sprintf("addr=%s database=%s policy=%s transport=%s sweep=%q stale_after=%s retention=%s callback_hosts=%v callback_secret=%s public_url=%s slack=%s slack_default_channel=%s",
		c.Addr, storage.RedactURL(c.DatabaseURL), c.DefaultPolicy, c.DefaultTransport, c.SweepSchedule, c.StaleAfter, c.Retention,
		c.CallbackHosts, set(c.CallbackSecret), c.PublicURL, mode, c.SlackDefaultChannel)
}
