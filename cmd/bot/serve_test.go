package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/internal/testkit"
)

// call makes one API request with a bearer token and returns the status and body.
func call(t *testing.T, method, url, token, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

func TestServeWithNoConfiguration(t *testing.T) {
	s := startServer(t)

	code, body := call(t, "GET", s.url+"/healthz", "", "")
	require.Equal(t, 200, code, string(body))
	code, body = call(t, "GET", s.url+"/readyz", "", "")
	require.Equal(t, 200, code, string(body))

	// The first-start admin token works, and it was written to the token file, 0600.
	code, body = call(t, "GET", s.url+"/v1/inquiries", s.admin, "")
	require.Equal(t, 200, code, string(body))
	path := filepath.Join(s.dir, "cfg", "inquiry-bot", "token")
	requireTokenFile(t, path, s.admin)

	code, _ = call(t, "GET", s.url+"/v1/inquiries", "bot_nope_nope", "")
	require.Equal(t, 401, code)
	require.FileExists(t, filepath.Join(s.dir, "bot.db"), "the embedded SQLite database")
}

func TestSecondStartPrintsNoToken(t *testing.T) {
	dir := t.TempDir()
	first := startServerIn(t, dir)
	require.True(t, strings.HasPrefix(first.admin, "bot_"))
	stopServer(t, first)

	second := startServerIn(t, dir)
	require.Empty(t, second.admin, "the admin token is shown once, on the first start only")
	require.NotContains(t, second.stdout.String(), first.admin)
	code, body := call(t, "GET", second.url+"/v1/inquiries", first.admin, "")
	require.Equal(t, 200, code, string(body))
}

// stopServer sends SIGTERM and returns the exit status and how long the stop took.
func stopServer(t *testing.T, s *server) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("bot serve did not stop within 30s of SIGTERM")
	}
	return s.cmd.ProcessState.ExitCode(), time.Since(start)
}

func TestMetricsAfterARoundTrip(t *testing.T) {
	s := startServer(t)
	code, body := call(t, "POST", s.url+"/v1/inquiries", s.admin,
		`{"id":"m1","kind":"choice","question":"Merge now?","options":["Merge","Hold"],"config":{"policy":"ask"}}`)
	require.Equal(t, 201, code, string(body))
	var rec struct{ Key string }
	require.NoError(t, json.Unmarshal(body, &rec))
	code, body = call(t, "POST", s.url+"/v1/inquiries/"+rec.Key+"/answer", s.admin, `{"value":"Merge"}`)
	require.Equal(t, 200, code, string(body))

	eventually(t, "the sweep to run once", func() bool {
		_, m := call(t, "GET", s.url+"/metrics", "", "")
		return bytes.Contains(m, []byte("inquiry_sweep_duration_seconds"))
	})
	code, m := call(t, "GET", s.url+"/metrics", "", "")
	require.Equal(t, 200, code)
	for _, family := range []string{
		`inquiry_created_total{kind="choice",policy="ask",transport="inbox"} 1`,
		`inquiry_resolved_total{source="person",status="answered"} 1`,
		`inquiry_answer_latency_seconds_count{source="person"} 1`,
		`inquiry_pending 0`,
		`inquiry_delivery_queue_depth`,
		`inquiry_deliveries_total`,
		`inquiry_long_poll_waiters`,
		`inquiry_sweep_duration_seconds_count{job="expire"}`,
		`inquiry_sweep_items_total{job="expire"}`,
		`inquiry_http_request_duration_seconds_count{method="POST",route="/v1/inquiries",status="201"} 1`,
		`inquiry_http_request_duration_seconds_count{method="POST",route="/v1/inquiries/:key/answer",status="200"} 1`,
	} {
		require.Contains(t, string(m), family)
	}
}

func TestSIGTERMReturnsTheLongPollAndExitsZero(t *testing.T) {
	s := startServer(t)
	code, body := call(t, "POST", s.url+"/v1/inquiries", s.admin,
		`{"id":"sig","kind":"confirm","question":"Deploy?","config":{"policy":"ask"}}`)
	require.Equal(t, 201, code, string(body))
	var rec struct{ Key string }
	require.NoError(t, json.Unmarshal(body, &rec))

	type polled struct {
		code int
		body []byte
	}
	done := make(chan polled, 1)
	go func() {
		c, b := call(t, "GET", s.url+"/v1/inquiries/"+rec.Key+"?wait=55", s.admin, "")
		done <- polled{c, b}
	}()
	eventually(t, "the poll to wait", func() bool {
		_, m := call(t, "GET", s.url+"/metrics", "", "")
		return bytes.Contains(m, []byte("\ninquiry_long_poll_waiters 1\n"))
	})

	exit, took := stopServer(t, s)
	require.Equal(t, 0, exit, "a graceful stop exits 0; log:\n%s", testkit.Tail(s.stderr.String(), 20))
	require.Less(t, took, shutdownGrace+5*time.Second, "the stop is bounded")
	select {
	case p := <-done:
		require.Equal(t, 200, p.code, string(p.body))
		require.Contains(t, string(p.body), `"status":"pending"`, "the poll returns the inquiry as it stands")
	case <-time.After(5 * time.Second):
		t.Fatal("the long-poll did not return on shutdown")
	}
	require.Contains(t, s.stderr.String(), "inquiry bot stopped")
}

func TestBadConfigurationStopsStartup(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"database url", []string{"DATABASE_URL=mysql://x"}, "DATABASE_URL"},
		{"policy", []string{"BOT_DEFAULT_POLICY=sometimes"}, "BOT_DEFAULT_POLICY"},
		{"slack without signing secret", []string{"SLACK_BOT_TOKEN=xoxb-1"}, "SLACK_SIGNING_SECRET"},
		{"stale after", []string{"BOT_STALE_AFTER=soon"}, "BOT_STALE_AFTER"},
		{"schedule", []string{"BOT_SWEEP_SCHEDULE=whenever"}, "BOT_SWEEP_SCHEDULE"},
		{"address", []string{"BOT_ADDR=8080"}, "BOT_ADDR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, args := range [][]string{{"serve"}, {"serve", "--check"}} {
				cmd := exec.Command(botBin, args...)
				cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + dir,
					"DATABASE_URL=sqlite:" + filepath.Join(dir, "bot.db"), "BOT_ADDR=127.0.0.1:0"}, tc.env...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				err := cmd.Run()
				require.Error(t, err, "bot %v must refuse %v", args, tc.env)
				require.Equal(t, exitUsage, cmd.ProcessState.ExitCode())
				msg := strings.TrimSpace(stderr.String())
				require.Contains(t, msg, tc.want)
				require.Equal(t, 1, strings.Count(msg, "\n")+1, "one sentence: %q", msg)
			}
		})
	}
}

func TestServeCheck(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(botBin, "serve", "--check")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "SLACK_BOT_TOKEN=xoxb-secret-token",
		"SLACK_SIGNING_SECRET=signing-secret-value", "BOT_CALLBACK_SECRET=callback-secret-value",
		"DATABASE_URL=postgres://bot:db-password@127.0.0.1:1/x"}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "configuration ok")
	for _, secret := range []string{"xoxb-secret-token", "signing-secret-value", "callback-secret-value", "db-password"} {
		require.NotContains(t, string(out), secret)
	}
	require.NoFileExists(t, filepath.Join(dir, "inquiry-bot.db"), "--check opens no database")
}

func TestLogsHoldNoSecret(t *testing.T) {
	dir := t.TempDir()
	secrets := map[string]string{
		"SLACK_BOT_TOKEN":      "xoxb-0000-never-log-this",
		"SLACK_SIGNING_SECRET": "signing-never-log-this",
		"BOT_CALLBACK_SECRET":  "callback-never-log-this",
		"SLACK_API_URL":        "http://127.0.0.1:1/api/",
	}
	var extra []string
	for k, v := range secrets {
		extra = append(extra, k+"="+v)
	}
	s := startServerIn(t, dir, append(extra, "BOT_DEFAULT_TRANSPORT=inbox")...)
	// Exercise every secret: a callback (signed), a bad Slack signature, a Slack post that fails.
	call(t, "POST", s.url+"/v1/inquiries", s.admin,
		`{"id":"l1","kind":"confirm","question":"Ship?","config":{"policy":"ask","transport":"slack"},"slack":{"channel":"C1"}}`)
	call(t, "POST", s.url+"/slack/interactions", "", "payload=%7B%7D")
	call(t, "POST", s.url+"/v1/inquiries", "garbage-token-never-log-this", `{}`)
	eventually(t, "a sweep and an attempt to post to Slack", func() bool {
		_, m := call(t, "GET", s.url+"/metrics", "", "")
		return bytes.Contains(m, []byte("inquiry_sweep_duration_seconds_count")) &&
			bytes.Contains(m, []byte(`inquiry_slack_api_calls_total{method="chat.postMessage"`))
	})
	stopServer(t, s)
	logs := s.stderr.String() + s.stdout.String()
	require.NotEmpty(t, logs)
	for name, v := range secrets {
		if name == "SLACK_API_URL" {
			continue
		}
		require.NotContains(t, logs, v, "%s leaked into the logs", name)
	}
	require.NotContains(t, logs, "garbage-token-never-log-this")
	require.NotContains(t, s.stderr.String(), s.admin, "the admin token is printed once on stdout, never logged")
	fmt.Fprint(io.Discard, logs)
}
