package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/internal/testkit"
)

// botBin is the bot binary built once for the end-to-end tests.
var botBin string

func TestMain(m *testing.M) {
	os.Exit(testkit.RunWithBot(m, false, &botBin))
}

// server is a running `bot serve` on its own temp database.
type server struct {
	dir    string // temp dir: the database, the config home (token file)
	url    string
	admin  string // the first-start admin token
	stdout *testkit.SyncBuffer
	stderr *testkit.SyncBuffer
	cmd    *exec.Cmd
	exited chan struct{}
}

// startServer runs the real binary's serve on 127.0.0.1:0 and reads the first-start token and
// the listening line from its stdout. It is stopped (SIGTERM, then kill) in t.Cleanup.
func startServer(t *testing.T) *server {
	t.Helper()
	s := startServerIn(t, t.TempDir())
	if !strings.HasPrefix(s.admin, "bot_") {
		t.Fatalf("no admin token on stdout (got %q)", s.admin)
	}
	return s
}

// startServerIn starts the server on the database and config home in dir, with extra
// environment variables after the defaults (so they win).
func startServerIn(t *testing.T, dir string, extra ...string) *server {
	t.Helper()
	s := &server{dir: dir, stdout: &testkit.SyncBuffer{}, stderr: &testkit.SyncBuffer{}, exited: make(chan struct{})}
	cmd := exec.Command(botBin, "serve")
	cmd.Env = s.env(append([]string{
		"BOT_ADDR=127.0.0.1:0",
		"BOT_DEFAULT_POLICY=ask",
		"BOT_LOG_FORMAT=json",
		"BOT_SWEEP_SCHEDULE=@every 1s",
	}, extra...)...)
	s.cmd = cmd
	cmd.Stderr = s.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := s.exited
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		testkit.Terminate(cmd.Process, exited, 15*time.Second)
		if t.Failed() {
			t.Logf("bot serve log (tail):\n%s", testkit.Tail(s.stderr.String(), 30))
		}
	})

	st, err := testkit.WaitListening(out, s.exited, s.stdout, 30*time.Second)
	if err != nil {
		t.Fatalf("%v; its log:\n%s", err, s.stderr.String())
	}
	s.url, s.admin = st.URL, st.Admin
	return s
}

// env is a minimal environment for the binary: nothing of the test runner's (no Slack
// variables, no BOT_TOKEN) leaks in.
func (s *server) env(extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.dir,
		"XDG_CONFIG_HOME=" + filepath.Join(s.dir, "cfg"),
		"DATABASE_URL=sqlite:" + filepath.Join(s.dir, "bot.db"),
	}
	if s.url != "" {
		env = append(env, "BOT_URL="+s.url)
	}
	return append(env, extra...)
}

// result is what a finished command left.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// runIn runs the binary to its end with exactly env (and PATH, and HOME and the config home in
// dir), in dir as the current directory: no server of the test's is involved.
func runIn(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(botBin, args...)
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

// proc is a command running in the background.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr *testkit.SyncBuffer
	done           chan struct{}
	res            result
	secrets        []string // tokens its output must not show
}

// start runs the binary in the background with the given token ("" for the token file).
func (s *server) start(t *testing.T, token string, args ...string) *proc {
	t.Helper()
	p := &proc{stdout: &testkit.SyncBuffer{}, stderr: &testkit.SyncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(botBin, args...)
	if token != "" {
		p.cmd.Env = s.env("BOT_TOKEN=" + token)
	} else {
		p.cmd.Env = s.env()
	}
	// No client command ever prints a token; only token create shows the one it makes.
	if len(args) == 0 || args[0] != "token" {
		p.secrets = []string{s.admin, token}
	}
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		p.res = result{stdout: p.stdout.String(), stderr: p.stderr.String()}
		var xe *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &xe):
			p.res.code = xe.ExitCode()
		default:
			p.res.code = -1
			p.res.stderr += "\n(wait: " + err.Error() + ")"
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits for the background command to end.
func (p *proc) wait(t *testing.T) result {
	t.Helper()
	select {
	case <-p.done:
		for _, secret := range p.secrets {
			if secret != "" && strings.Contains(p.res.stdout+p.res.stderr, secret) {
				t.Errorf("bot %s printed a token:\n%s", strings.Join(p.cmd.Args[1:], " "), p.res)
			}
		}
		return p.res
	case <-time.After(60 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("bot %s did not end within 60s:\n%s", strings.Join(p.cmd.Args[1:], " "), p.res)
		return result{}
	}
}

// exited reports whether the background command has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// bot runs the binary to the end with the given token ("" for the token file).
func (s *server) bot(t *testing.T, token string, args ...string) result {
	t.Helper()
	return s.start(t, token, args...).wait(t)
}

// createToken makes a token with `bot token create`; the token is stdout's last line.
func (s *server) createToken(t *testing.T, name, scope string) string {
	t.Helper()
	r := s.bot(t, "", "token", "create", "--name", name, "--scope", scope)
	if r.code != 0 {
		t.Fatalf("bot token create:\n%s", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	tok := strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(tok, "bot_") {
		t.Fatalf("bot token create printed no token:\n%s", r)
	}
	return tok
}

// eventually polls cond every 100 ms for up to 20 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
