package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tokenCLI runs `bot token ...` with exactly env (and PATH and HOME), in dir as the current
// directory, the way an operator on another machine runs it.
func tokenCLI(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(botBin, append([]string{"token"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "cfg")}, env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var xe *exec.ExitError
	switch {
	case errors.As(err, &xe):
		r.code = xe.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return r
}

// lastLine is the last line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// TestTokenThroughTheAPI manages tokens with only BOT_URL and BOT_TOKEN set, from a directory
// that holds no database: the tokens are made, listed and revoked on the server the operator
// names (before, they went to a new ./inquiry-bot.db, a created token got 401 and a live token
// could not be revoked). A token without the admin scope is refused, and nothing is ever opened
// in the current directory.
func TestTokenThroughTheAPI(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	elsewhere := t.TempDir()
	remote := []string{"BOT_URL=" + s.url, "BOT_TOKEN=" + s.admin}

	r := tokenCLI(t, elsewhere, remote, "create", "--name", "ci-agent", "--scope", "ask")
	if r.code != 0 || !strings.Contains(r.stderr, `created token "ci-agent"`) {
		t.Fatalf("bot token create through the API:\n%s", r)
	}
	agent := lastLine(r.stdout)
	if code, body := call(t, "GET", s.url+"/v1/inquiries", agent, ""); code != 200 {
		t.Fatalf("the token made through the API gets %d: %s", code, body)
	}

	// An admin token made remotely is an admin of the same server.
	r = tokenCLI(t, elsewhere, remote, "create", "--name", "ops", "--scope", "admin")
	if r.code != 0 {
		t.Fatalf("bot token create --scope admin:\n%s", r)
	}
	ops := lastLine(r.stdout)
	if code, body := call(t, "GET", s.url+"/v1/runs", ops, ""); code != 200 {
		t.Fatalf("the admin token made through the API gets %d: %s", code, body)
	}

	// The list is the server's: both names, no token, and the server's callback secret (the
	// same one the database holds).
	list := tokenCLI(t, elsewhere, remote, "list")
	local := tokenCLI(t, elsewhere, []string{"DATABASE_URL=sqlite:" + filepath.Join(s.dir, "bot.db")}, "list")
	if list.code != 0 || local.code != 0 {
		t.Fatalf("bot token list:\n%s\nlocal:\n%s", list, local)
	}
	for _, name := range []string{"admin", "ci-agent", "ops"} {
		if !strings.Contains(list.stdout, name) {
			t.Errorf("bot token list through the API does not list %s:\n%s", name, list)
		}
	}
	for _, secret := range []string{s.admin, agent, ops} {
		_, sec, _ := strings.Cut(strings.TrimPrefix(secret, "bot_"), "_")
		if strings.Contains(list.stdout+list.stderr, sec) {
			t.Errorf("bot token list printed a token's secret:\n%s", list)
		}
	}
	if got, want := lastLine(list.stdout), lastLine(local.stdout); got != want || !strings.HasPrefix(got, "callback secret") || strings.Contains(got, "not generated") {
		t.Errorf("callback secret line through the API %q, in the database %q", got, want)
	}

	// Revoking through the API revokes on the server: the token is refused at once.
	r = tokenCLI(t, elsewhere, remote, "revoke", "ci-agent")
	if r.code != 0 || !strings.Contains(r.stdout, "revoked ci-agent") {
		t.Fatalf("bot token revoke through the API:\n%s", r)
	}
	if code, body := call(t, "GET", s.url+"/v1/inquiries", agent, ""); code != 401 {
		t.Fatalf("a revoked token gets %d: %s", code, body)
	}
	r = tokenCLI(t, elsewhere, remote, "revoke", "no-such-token")
	if r.code != exitUsage || !strings.Contains(r.stderr, `no token named "no-such-token"`) {
		t.Errorf("bot token revoke of an unknown name:\n%s", r)
	}
	r = tokenCLI(t, elsewhere, remote, "create", "--name", "ops", "--scope", "ask")
	if r.code != exitUsage || !strings.Contains(r.stderr, `"ops" exists already`) {
		t.Errorf("bot token create of a name in use:\n%s", r)
	}

	// Only an admin token manages tokens.
	asker := []string{"BOT_URL=" + s.url, "BOT_TOKEN=" + s.createToken(t, "asker", "ask")}
	for _, args := range [][]string{{"create", "--name", "sneaky", "--scope", "admin"}, {"list"}, {"revoke", "ops"}} {
		r := tokenCLI(t, elsewhere, asker, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "admin scope") || strings.Contains(r.stdout, "callback secret") {
			t.Errorf("bot token %s with an ask token:\n%s", strings.Join(args, " "), r)
		}
	}
	if code, _ := call(t, "GET", s.url+"/v1/runs", ops, ""); code != 200 {
		t.Errorf("an ask token revoked the admin token ops")
	}

	entries, err := os.ReadDir(elsewhere)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "inquiry-bot.db") {
			t.Errorf("bot token opened %s in the current directory", e.Name())
		}
	}
}

// TestTokenLocalWithoutBotURL keeps the database path: with DATABASE_URL (and no BOT_URL) the
// token is written to that database, and the server it belongs to accepts it.
func TestTokenLocalWithoutBotURL(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	db := []string{"DATABASE_URL=sqlite:" + filepath.Join(s.dir, "bot.db")}
	r := tokenCLI(t, t.TempDir(), db, "create", "--name", "local", "--scope", "answer")
	if r.code != 0 {
		t.Fatalf("bot token create on the database:\n%s", r)
	}
	tok := lastLine(r.stdout)
	if code, body := call(t, "GET", s.url+"/v1/inquiries", tok, ""); code != 200 {
		t.Fatalf("the token made on the database gets %d: %s", code, body)
	}
	if r := tokenCLI(t, t.TempDir(), db, "revoke", "local"); r.code != 0 {
		t.Fatalf("bot token revoke on the database:\n%s", r)
	}
	if code, _ := call(t, "GET", s.url+"/v1/inquiries", tok, ""); code != 401 {
		t.Fatalf("a token revoked on the database still works")
	}

	// With neither BOT_URL nor DATABASE_URL it is the default file here, as before, but it says so.
	here := t.TempDir()
	r = tokenCLI(t, here, nil, "create", "--name", "local", "--scope", "ask")
	if r.code != 0 || !strings.Contains(r.stderr, "neither BOT_URL nor DATABASE_URL is set: using the database sqlite:inquiry-bot.db in the current directory") {
		t.Errorf("bot token create with neither variable:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(here, "inquiry-bot.db")); err != nil {
		t.Errorf("the default database: %v", err)
	}
}
