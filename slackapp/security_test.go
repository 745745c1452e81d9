package slackapp

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// Slack's published signing example (docs.slack.dev, "Verifying requests from Slack").
func TestVerifySlackExample(t *testing.T) {
	const (
		secret = "8f742231b10e8888abcd99yyyzzz85a5"
		body   = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
		sig    = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"
	)
	sent := time.Unix(1531420618, 0)
	h := http.Header{}
	h.Set("X-Slack-Request-Timestamp", "1531420618")
	h.Set("X-Slack-Signature", sig)

	tests := []struct {
		name   string
		secret string
		header func() http.Header
		body   string
		now    time.Time
		want   error
	}{
		{"valid", secret, h.Clone, body, sent.Add(time.Minute), nil},
		{"valid 299 s later", secret, h.Clone, body, sent.Add(299 * time.Second), nil},
		{"six minutes later", secret, h.Clone, body, sent.Add(6 * time.Minute), ErrStaleTimestamp},
		{"six minutes early", secret, h.Clone, body, sent.Add(-6 * time.Minute), ErrStaleTimestamp},
		{"body changed", secret, h.Clone, body + "x", sent, ErrBadSignature},
		{"other secret", "another-secret", h.Clone, body, sent, ErrBadSignature},
		{"no secret", "", h.Clone, body, sent, ErrNoSecret},
		{"no signature", secret, func() http.Header { x := h.Clone(); x.Del("X-Slack-Signature"); return x }, body, sent, ErrMissingSignature},
		{"no v0", secret, func() http.Header { x := h.Clone(); x.Set("X-Slack-Signature", sig[3:]); return x }, body, sent, ErrBadSignature},
		{"short", secret, func() http.Header { x := h.Clone(); x.Set("X-Slack-Signature", sig[:40]); return x }, body, sent, ErrBadSignature},
		{"not a time", secret, func() http.Header { x := h.Clone(); x.Set("X-Slack-Request-Timestamp", "soon"); return x }, body, sent, ErrStaleTimestamp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.ErrorIs(t, Verify(tt.secret, tt.header(), []byte(tt.body), tt.now), tt.want)
		})
	}
	require.Equal(t, sig, slackfake.Sign(secret, sent, []byte(body)), "the fake signs as Slack does")
}

func TestBadlySignedRequestsRefused(t *testing.T) {
	b := setup(t)
	rec := b.ask(mergeQuestion("signed"), inquiry.SlackRef{})
	payload := b.clickPayload("U0ALICE01", rec, "Merge")
	form := []byte(url.Values{"payload": {string(payload)}}.Encode())
	calls := len(b.fake.Calls())

	for name, opt := range map[string]slackfake.SendOption{
		"wrong secret":        slackfake.WithSecret("not-the-signing-secret"),
		"six minutes old":     slackfake.WithTimestamp(time.Now().Add(-6 * time.Minute)),
		"six minutes ahead":   slackfake.WithTimestamp(time.Now().Add(6 * time.Minute)),
		"unsigned":            slackfake.Unsigned(),
		"signature tampered":  slackfake.WithHeader("X-Slack-Signature", "v0="+string(bytes.Repeat([]byte("ab"), 32))),
		"timestamp replaced ": slackfake.WithHeader("X-Slack-Request-Timestamp", strconv.FormatInt(time.Now().Unix()-1, 10)),
	} {
		b.refusedEverywhere(name, form, opt)
	}
	b.settle()
	b.noAnswer(rec.Key)
	require.Empty(t, b.fake.Ephemerals(""))
	require.Len(t, b.fake.Calls(), calls, "a refused request makes no Slack call")

	// The same payload, signed properly, answers.
	b.ok(b.fake.Send(PathInteractions, "application/x-www-form-urlencoded", form))
	require.Equal(t, "merge", b.resolved(rec.Key).Answer.Value.First())
}

func TestSignatureCheckedAgainstTheInjectedClock(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	b := setup(t, func(c *Config) { c.Now = clock.Now })
	b.fake.SetClock(clock.Now)
	rec := b.ask(mergeQuestion("clock"), inquiry.SlackRef{})
	b.click("U0ALICE01", rec, "Hold")
	require.Equal(t, "hold", b.resolved(rec.Key).Answer.Value.First())
}

func TestNoSigningSecretFailsClosed(t *testing.T) {
	_, err := New(Config{BotToken: slackfake.BotToken, Service: inquiry.NewService(nil, inquiry.NewRegistry())})
	require.ErrorContains(t, err, "SLACK_SIGNING_SECRET is required")

	// In Socket Mode the HTTP endpoints have no secret to check with: they refuse everything.
	app, err := New(Config{BotToken: slackfake.BotToken, AppToken: slackfake.AppToken, Logger: quiet,
		Service: inquiry.NewService(nil, inquiry.NewRegistry())})
	require.NoError(t, err)
	body := []byte(`{"type":"url_verification","challenge":"c"}`)
	req := httptest.NewRequest(http.MethodPost, PathEvents, bytes.NewReader(body))
	req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(time.Now().Unix(), 10))
	req.Header.Set("X-Slack-Signature", slackfake.Sign("", time.Now(), body))
	w := httptest.NewRecorder()
	app.Handler().ServeHTTP(w, req)
	require.Equal(t, http.StatusUnauthorized, w.Code)
}

func TestConfigChecks(t *testing.T) {
	svc := inquiry.NewService(nil, inquiry.NewRegistry())
	for name, tc := range map[string]struct {
		cfg  Config
		want string
	}{
		"no service":   {Config{BotToken: "x", SigningSecret: "s"}, "Config.Service is required"},
		"no token":     {Config{SigningSecret: "s", Service: svc}, "SLACK_BOT_TOKEN is required"},
		"bad app tok":  {Config{BotToken: "x", AppToken: "xoxb-nope", Service: svc}, "SLACK_APP_TOKEN must be an app-level token"},
		"bad api url":  {Config{BotToken: "x", SigningSecret: "s", APIURL: "slack.com/api", Service: svc}, "SLACK_API_URL must be"},
		"ftp api url":  {Config{BotToken: "x", SigningSecret: "s", APIURL: "ftp://slack.com/api/", Service: svc}, "SLACK_API_URL must be"},
		"no final /ok": {Config{BotToken: "x", SigningSecret: "s", APIURL: "http://127.0.0.1:1/api", Service: svc, Logger: quiet}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestURLVerification(t *testing.T) {
	b := setup(t)
	r := b.ok(b.fake.Send(PathEvents, "application/json",
		[]byte(`{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`)))
	require.JSONEq(t, `{"challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}`, string(r.Body))
}

func urlEncode(s string) string { return url.QueryEscape(s) }

func slogTo(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// TestMissingOrMalformedSlackHeaders: each header missing or malformed on its own, on each
// endpoint: 401, nothing parsed, nothing recorded, no Slack call.
func TestMissingOrMalformedSlackHeaders(t *testing.T) {
	b := setup(t)
	rec := b.ask(mergeQuestion("headers"), inquiry.SlackRef{})
	payload := b.clickPayload("U0ALICE01", rec, "Merge")
	form := []byte("payload=" + urlEncode(string(payload)))
	calls := len(b.fake.Calls())
	now := time.Now()
	for name, opt := range map[string]slackfake.SendOption{
		"no timestamp":              slackfake.WithHeader("X-Slack-Request-Timestamp", ""),
		"no signature":              slackfake.WithHeader("X-Slack-Signature", ""),
		"timestamp in ms":           slackfake.WithHeader("X-Slack-Request-Timestamp", strconv.FormatInt(now.UnixMilli(), 10)),
		"timestamp negative":        slackfake.WithHeader("X-Slack-Request-Timestamp", "-1"),
		"signature v1":              slackfake.WithHeader("X-Slack-Signature", "v1="+strings.Repeat("0", 64)),
		"signature not hex":         slackfake.WithHeader("X-Slack-Signature", "v0="+strings.Repeat("z", 64)),
		"signature upper-case v0":   slackfake.WithHeader("X-Slack-Signature", "V0="+strings.Repeat("0", 64)),
		"5 min 30 s old":            slackfake.WithTimestamp(now.Add(-5*time.Minute - 30*time.Second)),
		"5 min 30 s ahead":          slackfake.WithTimestamp(now.Add(5*time.Minute + 30*time.Second)),
		"signed with the bot token": slackfake.WithSecret(slackfake.BotToken),
		"signed with no secret":     slackfake.WithSecret(""),
	} {
		b.refusedEverywhere(name, form, opt)
	}
	b.settle()
	b.noAnswer(rec.Key)
	require.Len(t, b.fake.Calls(), calls, "a refused request makes no Slack call")
	// Four minutes either way is inside the window.
	for _, at := range []time.Time{now.Add(-4 * time.Minute), now.Add(4 * time.Minute)} {
		r, err := b.fake.Send(PathEvents, "application/json", []byte(`{"type":"url_verification","challenge":"c"}`), slackfake.WithTimestamp(at))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.Status)
	}
}

// TestNoSlackSecretInLogs captures every log line of the app through refused signatures, good
// clicks, a thread reply, a modal, a post Slack refuses and an event it retries: the signing
// secret and the bot token appear in none.
func TestNoSlackSecretInLogs(t *testing.T) {
	var logs testkit.SyncBuffer
	b := setup(t, func(c *Config) { c.Logger = slogTo(&logs) })
	rec := b.ask(mergeQuestion("logged"), inquiry.SlackRef{})
	payload := b.clickPayload("U0ALICE01", rec, "Merge")
	late := b.clickPayload("U0EVE0001", rec, "Hold")
	for _, opt := range []slackfake.SendOption{slackfake.WithSecret("wrong"), slackfake.Unsigned(), slackfake.WithTimestamp(time.Now().Add(-time.Hour))} {
		_, err := b.fake.SendInteraction(payload, opt)
		require.NoError(t, err)
	}
	b.ok(b.fake.SendInteraction(payload))
	b.resolved(rec.Key)
	b.ok(b.fake.SendInteraction(late)) // too late: an ephemeral

	text := b.ask(inquiry.Inquiry{ID: "why", Kind: inquiry.KindText, Question: "Why?"}, inquiry.SlackRef{})
	b.ok(b.fake.ReplyInThread("U0ALICE01", text.Slack.Channel, text.Slack.TS, "because"))
	b.resolved(text.Key)

	b.fake.FailNext("chat.postMessage", "invalid_auth")
	failed := b.askNoWait(mergeQuestion("refused"), inquiry.SlackRef{})
	require.Equal(t, inquiry.StatusFailed, b.resolved(failed.Key).Status)
	b.settle()

	out := logs.String()
	require.Contains(t, out, "slack request refused", "the log was captured")
	require.NotContains(t, out, slackfake.SigningSecret)
	require.NotContains(t, out, slackfake.BotToken)
	require.NotContains(t, out, strings.TrimPrefix(slackfake.BotToken, "xoxb-"))
}
