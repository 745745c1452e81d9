package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestConfigDefaults(t *testing.T) {
	c, err := LoadConfig(envOf())
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:8080", c.Addr)
	require.Equal(t, "sqlite:inquiry-bot.db", c.DatabaseURL)
	require.Equal(t, inquiry.PolicyDefault, c.DefaultPolicy, "no configuration means default")
	require.Equal(t, inquiry.TransportInbox, c.DefaultTransport)
	require.Equal(t, "@every 15s", c.SweepSchedule)
	require.Equal(t, 10*time.Minute, c.StaleAfter)
	require.Equal(t, 90*24*time.Hour, c.Retention)
	require.False(t, c.SlackEnabled())
}

func TestConfigSlack(t *testing.T) {
	c, err := LoadConfig(envOf("SLACK_BOT_TOKEN", "xoxb-1", "SLACK_SIGNING_SECRET", "s"))
	require.NoError(t, err)
	require.Equal(t, inquiry.TransportSlack, c.DefaultTransport, "slack is the default transport when configured")
	require.Contains(t, c.Summary(), "slack=http")

	c, err = LoadConfig(envOf("SLACK_BOT_TOKEN", "xoxb-1", "SLACK_APP_TOKEN", "xapp-1"))
	require.NoError(t, err, "socket mode needs no signing secret")
	require.Contains(t, c.Summary(), "slack=socket")
}

func TestConfigEmail(t *testing.T) {
	c, err := LoadConfig(envOf("SMTP_URL", "smtps://bot:pw@mail.example.com", "EMAIL_FROM", "bot@example.com",
		"BOT_PUBLIC_URL", "https://bot.example.com", "BOT_DEFAULT_TRANSPORT", "email"))
	require.NoError(t, err)
	require.True(t, c.EmailEnabled())
	require.Equal(t, "mail.example.com:465", c.Email.Addr())
	require.Equal(t, "email", c.DefaultTransport)
	require.Contains(t, c.Summary(), `email="mail.example.com:465 (implicit TLS as bot) from <bot@example.com>"`)
	require.NotContains(t, c.Summary(), "pw", "the password is never said")

	c, err = LoadConfig(envOf())
	require.NoError(t, err)
	require.False(t, c.EmailEnabled(), "no SMTP_URL, no email transport")
}

func TestConfigRefusals(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"BOT_ADDR", "8080"}, "BOT_ADDR"},
		{[]string{"DATABASE_URL", "mysql://x"}, "DATABASE_URL"},
		{[]string{"DATABASE_URL", "sqlite:"}, "DATABASE_URL"},
		{[]string{"BOT_DEFAULT_POLICY", "maybe"}, "BOT_DEFAULT_POLICY"},
		{[]string{"BOT_DEFAULT_TRANSPORT", "email"}, "BOT_DEFAULT_TRANSPORT"},
		{[]string{"BOT_DEFAULT_TRANSPORT", "slack"}, "BOT_DEFAULT_TRANSPORT"},
		{[]string{"BOT_SWEEP_SCHEDULE", "often"}, "BOT_SWEEP_SCHEDULE"},
		{[]string{"BOT_STALE_AFTER", "-1m"}, "BOT_STALE_AFTER"},
		{[]string{"BOT_RETENTION", "forever"}, "BOT_RETENTION"},
		{[]string{"BOT_CALLBACK_HOSTS", "http://x/"}, "BOT_CALLBACK_HOSTS"},
		{[]string{"BOT_PUBLIC_URL", "bot.example.com"}, "BOT_PUBLIC_URL"},
		{[]string{"SLACK_API_URL", "http://127.0.0.1:9/api"}, "SLACK_API_URL"},
		{[]string{"SLACK_BOT_TOKEN", "xoxb-1"}, "SLACK_SIGNING_SECRET"},
		{[]string{"SLACK_BOT_TOKEN", "xoxb-1", "SLACK_APP_TOKEN", "xoxb-2"}, "SLACK_APP_TOKEN"},
		{[]string{"SLACK_APP_TOKEN", "xapp-1"}, "SLACK_BOT_TOKEN"},
		{[]string{"SMTP_URL", "mail.example.com:587", "EMAIL_FROM", "bot@example.com", "BOT_PUBLIC_URL", "https://bot.example.com"}, "SMTP_URL"},
		{[]string{"SMTP_URL", "smtp://mail.example.com", "BOT_PUBLIC_URL", "https://bot.example.com"}, "EMAIL_FROM"},
		{[]string{"EMAIL_FROM", "bot@example.com"}, "EMAIL_FROM"},
		{[]string{"SMTP_URL", "smtp://mail.example.com", "EMAIL_FROM", "bot@example.com"}, "BOT_PUBLIC_URL"},
	} {
		refusal(t, tc.want, tc.env...)
	}
}

// refusal is LoadConfig's refusal of env, checked to be one sentence that names the variable name.
func refusal(t *testing.T, name string, env ...string) string {
	t.Helper()
	_, err := LoadConfig(envOf(env...))
	require.Error(t, err, "%v", env)
	require.Contains(t, err.Error(), name, "the sentence names the variable")
	require.NotContains(t, err.Error(), "\n")
	return err.Error()
}

func TestSummaryRedactsSecrets(t *testing.T) {
	c, err := LoadConfig(envOf("DATABASE_URL", "postgres://bot:hunter2@db:5432/x", "SLACK_BOT_TOKEN", "xoxb-secret",
		"SLACK_SIGNING_SECRET", "sig-secret", "BOT_CALLBACK_SECRET", "cb-secret"))
	require.NoError(t, err)
	s := c.Summary()
	for _, secret := range []string{"hunter2", "xoxb-secret", "sig-secret", "cb-secret"} {
		require.NotContains(t, s, secret)
	}
	require.Contains(t, s, "callback_secret=set")
}

// TestConfigConnectionLimits: BOT_MAX_CONNS and BOT_BODY_TIMEOUT default to 4096 and 10 s (the
// README's Configuration table), take a value, and refuse a wrong one with a sentence naming the
// variable.
func TestConfigConnectionLimits(t *testing.T) {
	c, err := LoadConfig(envOf())
	require.NoError(t, err)
	require.Equal(t, gateway.DefaultMaxConns, c.MaxConns)
	require.Equal(t, 4096, c.MaxConns)
	require.Equal(t, 10*time.Second, c.BodyTimeout)

	c, err = LoadConfig(envOf("BOT_MAX_CONNS", "200", "BOT_BODY_TIMEOUT", "1500ms"))
	require.NoError(t, err)
	require.Equal(t, 200, c.MaxConns)
	require.Equal(t, 1500*time.Millisecond, c.BodyTimeout)

	for _, env := range [][]string{
		{"BOT_MAX_CONNS", "0"}, {"BOT_MAX_CONNS", "-3"}, {"BOT_MAX_CONNS", "many"},
		{"BOT_BODY_TIMEOUT", "0s"}, {"BOT_BODY_TIMEOUT", "10"},
	} {
		refusal(t, env[0], env...)
	}
}

// BOT_RATE_LIMIT, BOT_RATE_BURST and BOT_MAX_WAITERS (the README's Limits).
func TestConfigRateLimits(t *testing.T) {
	c, err := LoadConfig(envOf())
	require.NoError(t, err)
	require.Equal(t, gateway.RateLimits{Rate: 10, Burst: 100, MaxWaiters: 1000}, c.RateLimits, "the defaults")

	for _, tc := range []struct {
		env  []string
		want gateway.RateLimits
	}{
		{[]string{"BOT_RATE_LIMIT", "5/s"}, gateway.RateLimits{Rate: 5, Burst: 100, MaxWaiters: 1000}},
		{[]string{"BOT_RATE_LIMIT", " 600/m "}, gateway.RateLimits{Rate: 10, Burst: 100, MaxWaiters: 1000}},
		{[]string{"BOT_RATE_LIMIT", "30/m"}, gateway.RateLimits{Rate: 0.5, Burst: 100, MaxWaiters: 1000}},
		{[]string{"BOT_RATE_LIMIT", "off"}, gateway.RateLimits{Rate: rate.Inf, Burst: 100, MaxWaiters: 1000}},
		{[]string{"BOT_RATE_LIMIT", "OFF"}, gateway.RateLimits{Rate: rate.Inf, Burst: 100, MaxWaiters: 1000}},
		{[]string{"BOT_RATE_BURST", "7"}, gateway.RateLimits{Rate: 10, Burst: 7, MaxWaiters: 1000}},
		{[]string{"BOT_MAX_WAITERS", "3"}, gateway.RateLimits{Rate: 10, Burst: 100, MaxWaiters: 3}},
		{[]string{"BOT_MAX_WAITERS", "0"}, gateway.RateLimits{Rate: 10, Burst: 100, MaxWaiters: -1}}, // no cap
	} {
		c, err := LoadConfig(envOf(tc.env...))
		require.NoError(t, err, "%v", tc.env)
		require.Equal(t, tc.want, c.RateLimits, "%v", tc.env)
	}

	for _, tc := range []struct{ name, value, says string }{
		{"BOT_RATE_LIMIT", "10", "<n>/s or <n>/m"},
		{"BOT_RATE_LIMIT", "10/h", "<n>/s or <n>/m"},
		{"BOT_RATE_LIMIT", "0/s", "above 0"},
		{"BOT_RATE_LIMIT", "-1/s", "above 0"},
		{"BOT_RATE_LIMIT", "1.5/s", "whole"},
		{"BOT_RATE_LIMIT", "fast", "or off"},
		{"BOT_RATE_BURST", "0", "above 0"},
		{"BOT_RATE_BURST", "lots", "above 0"},
		{"BOT_MAX_WAITERS", "-1", "0 for no cap"},
		{"BOT_MAX_WAITERS", "many", "0 for no cap"},
	} {
		require.Contains(t, refusal(t, tc.name, tc.name, tc.value), tc.says)
	}
}
