package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// @here reminders are the operator's to allow: off unless BOT_ALLOW_BROADCAST=true, and a value
// that is neither true nor false stops start-up with a sentence naming the variable.
func TestConfigAllowBroadcast(t *testing.T) {
	c, err := LoadConfig(envOf())
	require.NoError(t, err)
	require.False(t, c.AllowBroadcast, "off by default")

	c, err = LoadConfig(envOf("BOT_ALLOW_BROADCAST", "true"))
	require.NoError(t, err)
	require.True(t, c.AllowBroadcast)

	c, err = LoadConfig(envOf("BOT_ALLOW_BROADCAST", "false"))
	require.NoError(t, err)
	require.False(t, c.AllowBroadcast)

	_, err = LoadConfig(envOf("BOT_ALLOW_BROADCAST", "yes please"))
	require.EqualError(t, err, `BOT_ALLOW_BROADCAST "yes please" is not true or false: set true to let reminders mention @here (remind_here), or leave it unset`)
}
