package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/inquiry-bot/bot/internal/testkit"
)

// buildBot builds the bot binary from the module at root into dir.
func buildBot(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "bot")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/bot")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/bot: %w", err)
	}
	return bin, nil
}

// moduleRoot is the folder of the go.mod the benchmark runs in.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run the benchmark inside the bot's module (go run ./cmd/benchmark from the repository root)")
	}
	return filepath.Dir(mod), nil
}

// botProc is one running `bot serve`, a separate process so that its resident memory is its
// own.
type botProc struct {
	name    string
	cmd     *exec.Cmd
	addr    string // 127.0.0.1:port
	token   string // the first-start admin token ("" when the database had one)
	logPath string
	exited  chan struct{}
}

// procs are the bots started and not yet stopped: stopped on the way out, whatever happens.
var (
	procsMu sync.Mutex
	procs   = map[*botProc]bool{}
)

// benchLimits turns the bot's limits (the README's Limits) off for every bot the benchmark starts;
// the header of the output says so.
var benchLimits = []string{"BOT_RATE_LIMIT=off", "BOT_MAX_WAITERS=0", "BOT_MAX_CONNS=1000000"}

// startBot runs bin serve on 127.0.0.1:0 with the given environment on top of a clean one
// (nothing of the caller's BOT_*, SLACK_* or DATABASE_URL leaks in), and waits for the
// listening line; a first start's admin token is read from the line after the announcement.
func startBot(ctx context.Context, bin, work, name string, env ...string) (*botProc, error) {
	cfgHome := filepath.Join(work, "config-"+name)
	if err := os.MkdirAll(cfgHome, 0o700); err != nil {
		return nil, err
	}
	p := &botProc{name: name, logPath: filepath.Join(work, name+".log"), exited: make(chan struct{})}
	logf, err := os.Create(p.logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve")
	base := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "BOT_") || strings.HasPrefix(k, "SLACK_") || k == "DATABASE_URL" || k == "XDG_CONFIG_HOME" {
			continue
		}
		base = append(base, kv)
	}
	cmd.Env = append(base, "BOT_ADDR=127.0.0.1:0", "BOT_LOG_FORMAT=json", "XDG_CONFIG_HOME="+cfgHome)
	// The bot's limits are off: the benchmark measures what the bot can do, not its caps
	// (a token's rate, its long-polls, the connections served at once).
	cmd.Env = append(cmd.Env, benchLimits...)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p.cmd = cmd
	procsMu.Lock()
	procs[p] = true
	procsMu.Unlock()

	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		var st testkit.Startup
		for sc.Scan() {
			if !st.Line(sc.Text()) || p.addr != "" {
				continue
			}
			if addr, ok := strings.CutPrefix(st.URL, "http://"); ok {
				p.token, p.addr = st.Admin, addr
				close(ready)
			}
		}
	}()
	go func() { _ = cmd.Wait(); logf.Close(); close(p.exited) }()

	select {
	case <-ready:
	case <-p.exited:
		return nil, fmt.Errorf("bot %s exited before listening; its log: %s\n%s", name, p.logPath, tail(p.logPath, 20))
	case <-time.After(60 * time.Second):
		p.stop()
		return nil, fmt.Errorf("bot %s did not listen within 60s; its log: %s", name, p.logPath)
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
	host, _, err := net.SplitHostPort(p.addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		p.stop()
		return nil, fmt.Errorf("bot %s listens on %q, not on the loopback: refusing to load it", name, p.addr)
	}
	return p, nil
}

// URL is the bot's base URL.
func (p *botProc) URL() string { return "http://" + p.addr }

// stop sends SIGTERM, waits for the graceful shutdown (bounded), then kills.
func (p *botProc) stop() {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return
	}
	procsMu.Lock()
	delete(procs, p)
	procsMu.Unlock()
	testkit.Terminate(p.cmd.Process, p.exited, 20*time.Second)
}

// stopAllBots stops every bot still running (on the way out).
func stopAllBots() {
	procsMu.Lock()
	list := make([]*botProc, 0, len(procs))
	for p := range procs {
		list = append(list, p)
	}
	procsMu.Unlock()
	for _, p := range list {
		p.stop()
	}
}

// memory reads the process's resident set (VmRSS) and its peak (VmHWM), in bytes.
func (p *botProc) memory() (rss, hwm int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		f := strings.Fields(v) // "123456 kB"
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("unexpected %s line %q", k, line)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, err
		}
		if k == "VmRSS" {
			rss = n * 1024
		} else {
			hwm = n * 1024
		}
	}
	if rss == 0 {
		return 0, 0, errors.New("no VmRSS in /proc/PID/status")
	}
	return rss, hwm, nil
}

// metric reads one unlabelled sample from the bot's /metrics.
func (p *botProc) metric(ctx context.Context, c *http.Client, name string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL()+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("no %s on /metrics", name)
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return testkit.Tail(string(b), n)
}
