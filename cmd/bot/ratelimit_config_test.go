package main

import (
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/gateway"
)

// BOT_RATE_LIMIT, BOT_RATE_BURST and BOT_MAX_WAITERS (DESIGN §17).
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
		_, err := LoadConfig(envOf(tc.name, tc.value))
		require.Error(t, err, "%s=%s", tc.name, tc.value)
		require.Contains(t, err.Error(), tc.name, "the sentence names the variable")
		require.Contains(t, err.Error(), tc.says)
		require.NotContains(t, err.Error(), "\n")
	}
}
