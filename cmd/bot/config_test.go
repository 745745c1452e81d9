package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
	} {
		_, err := LoadConfig(envOf(tc.env...))
		require.Error(t, err, "%v", tc.env)
		require.Contains(t, err.Error(), tc.want, "the sentence names the variable")
		require.NotContains(t, err.Error(), "\n")
	}
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
