package slackfake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
)

// The answer to a slash command is a message, and Slack judges its blocks as it judges
// chat.postEphemeral's: blocks it refuses reach nobody, and Command says so
// (ErrInvalidBlocks). Before: the fake passed any answer back unjudged, so a command's blocks
// were checked by no test.
func TestCommandAnswerBlocksAreJudged(t *testing.T) {
	f := slackfaketest.New(t)
	var answer []byte
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	t.Cleanup(app.Close)
	f.SetAppURL(app.URL)
	answerWith := func(text string) {
		b, err := json.Marshal(map[string]any{"response_type": "ephemeral", "text": "fallback",
			"blocks": []slack.Block{slack.NewSectionBlock(slack.NewTextBlockObject(slack.PlainTextType, text, false, false), nil, nil)}})
		require.NoError(t, err)
		answer = b
	}

	answerWith("fine")
	r, err := f.Command("U1", slackfake.DefaultChannel, "/questions", "")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, r.Status)

	answerWith(strings.Repeat("x", 3001))
	r, err = f.Command("U1", slackfake.DefaultChannel, "/questions", "")
	require.ErrorIs(t, err, slackfake.ErrInvalidBlocks)
	require.Contains(t, err.Error(), "must be less than 3001 characters")
	require.NotNil(t, r, "the app's answer is still there to read")

	answer = []byte(`{"response_type":"ephemeral","blocks":{"type":"section"}}`)
	_, err = f.Command("U1", slackfake.DefaultChannel, "/questions", "")
	require.ErrorIs(t, err, slackfake.ErrInvalidBlocks, "blocks that are no list")

	answer = []byte(`{"response_type":"ephemeral","text":"no blocks"}`)
	_, err = f.Command("U1", slackfake.DefaultChannel, "/questions", "")
	require.NoError(t, err)
}
