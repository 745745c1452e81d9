package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/gateway"
)

// TestConfigConnectionLimits: BOT_MAX_CONNS and BOT_BODY_TIMEOUT default to DESIGN §17's 4096
// and 10 s, take a value, and refuse a wrong one with a sentence naming the variable.
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
		_, err := LoadConfig(envOf(env...))
		require.Error(t, err, "%v", env)
		require.Contains(t, err.Error(), env[0], "the sentence names the variable")
		require.NotContains(t, err.Error(), "\n")
	}
}
