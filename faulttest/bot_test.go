package faulttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/internal/testkit"
)

// botBin is the bot binary built once for every test of the package.
var botBin string

// raceEnabled is set by race_test.go when the tests run with -race: the bot is then built with
// the race detector too, and a race it reports fails the test that ran it.
var raceEnabled bool

func TestMain(m *testing.M) {
	os.Exit(testkit.RunWithBot(m, raceEnabled, &botBin))
}

// soak reports whether the long variants run (FAULT_SOAK=1).
func soak() bool { return os.Getenv("FAULT_SOAK") != "" && os.Getenv("FAULT_SOAK") != "0" }

// bot is the real `bot serve` as a subprocess: started, stopped, SIGKILLed and started again on
// the same database and configuration.
type bot struct {
	t     *testing.T
	dir   string   // HOME and XDG_CONFIG_HOME live here
	env   []string // the environment of every start
	url   string   // of the running process
	admin string   // the first-start admin token

	mu          sync.Mutex
	runs        []*botRun // every process started, the running one last
	afterStarts []func()
}

// botRun is one process of the bot.
type botRun struct {
	cmd    *exec.Cmd
	stdout *testkit.SyncBuffer
	stderr *testkit.SyncBuffer
	exited chan struct{}
}

// startBot runs `bot serve` on databaseURL with the defaults the tests want (policy ask, the
// sweeper every second, JSON logs on 127.0.0.1:0) and extra variables after them, so they win.
// It waits for the listening line and keeps the first-start admin token. Every process it starts
// is stopped when the test ends, and its log checked for data races and panics.
func startBot(t *testing.T, databaseURL string, extra ...string) *bot {
	t.Helper()
	b := &bot{t: t, dir: t.TempDir()}
	b.env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + b.dir,
		"XDG_CONFIG_HOME=" + filepath.Join(b.dir, "cfg"),
		"DATABASE_URL=" + databaseURL,
		"BOT_ADDR=127.0.0.1:0",
		"BOT_DEFAULT_POLICY=ask",
		"BOT_LOG_FORMAT=json",
		"BOT_SWEEP_SCHEDULE=@every 1s",
		"GORACE=halt_on_error=0 exitcode=66",
	}, extra...)
	t.Cleanup(b.cleanup)
	b.start()
	if !strings.HasPrefix(b.admin, "bot_") {
		t.Fatalf("no admin token on the first start's stdout:\n%s", b.run().stdout)
	}
	return b
}

// run is the process started last.
func (b *bot) run() *botRun {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.runs[len(b.runs)-1]
}

// start starts a process and waits until it listens.
func (b *bot) start() {
	t := b.t
	t.Helper()
	r := &botRun{stdout: &testkit.SyncBuffer{}, stderr: &testkit.SyncBuffer{}, exited: make(chan struct{})}
	r.cmd = exec.Command(botBin, "serve")
	r.cmd.Env = b.env
	r.cmd.Stderr = r.stderr
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.runs = append(b.runs, r)
	b.mu.Unlock()
	go func() { _ = r.cmd.Wait(); close(r.exited) }()

	st, err := testkit.WaitListening(out, r.exited, r.stdout, 60*time.Second)
	if err != nil {
		t.Fatalf("%v; its log:\n%s", err, testkit.Tail(r.stderr.String(), 40))
	}
	b.url = st.URL
	if st.Admin != "" { // a restart on the same database prints none: the first one's stays
		b.admin = st.Admin
	}
}

// alive reports whether the running process is still up.
func (b *bot) alive() bool {
	select {
	case <-b.run().exited:
		return false
	default:
		return true
	}
}

// kill SIGKILLs the running process: nothing of it runs after this returns.
func (b *bot) kill() {
	r := b.run()
	_ = r.cmd.Process.Kill()
	<-r.exited
}

// stop ends the running process with SIGTERM (a graceful shutdown) and checks it exits 0.
func (b *bot) stop() {
	b.t.Helper()
	r := b.run()
	if !testkit.Terminate(r.cmd.Process, r.exited, 30*time.Second) {
		b.t.Errorf("bot serve did not stop within 30s of SIGTERM")
	}
	if code := r.cmd.ProcessState.ExitCode(); code != 0 {
		b.t.Errorf("bot serve exited %d after SIGTERM; its log:\n%s", code, testkit.Tail(r.stderr.String(), 30))
	}
}

// restart starts a new process on the same database and configuration (after a kill or a stop).
func (b *bot) restart() {
	b.t.Helper()
	if b.alive() {
		b.t.Fatal("restart: the bot is still running")
	}
	b.start()
	b.mu.Lock()
	fs := append([]func(){}, b.afterStarts...)
	b.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// afterStart runs f now and after every restart (to tell the fake Slack the new address).
func (b *bot) afterStart(f func()) {
	b.mu.Lock()
	b.afterStarts = append(b.afterStarts, f)
	b.mu.Unlock()
	f()
}

// cleanup stops the running process and checks every process's log for races and panics.
func (b *bot) cleanup() {
	t := b.t
	if len(b.runs) > 0 && b.alive() {
		r := b.run()
		testkit.Terminate(r.cmd.Process, r.exited, 15*time.Second)
	}
	for i, r := range b.runs {
		log := r.stderr.String()
		if strings.Contains(log, "WARNING: DATA RACE") {
			t.Errorf("bot serve (process %d) reported a data race:\n%s", i+1, excerpt(log, "WARNING: DATA RACE", 60))
		}
		if strings.Contains(log, "panic:") || strings.Contains(log, "fatal error:") {
			t.Errorf("bot serve (process %d) panicked:\n%s", i+1, excerpt(log, "panic:", 40))
		}
		if t.Failed() {
			t.Logf("bot serve (process %d) log, tail:\n%s", i+1, testkit.Tail(log, 25))
		}
		if dir := os.Getenv("FAULT_LOG_DIR"); dir != "" {
			name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
			_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s.%d.log", name, i+1)), []byte(log), 0o644)
		}
	}
}

// logs is every process's log, joined.
func (b *bot) logs() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var s strings.Builder
	for _, r := range b.runs {
		s.WriteString(r.stderr.String())
	}
	return s.String()
}

// apiClient bounds every request: a request that outlives it is a hang, which the tests report.
var apiClient = &http.Client{Timeout: 20 * time.Second}

// reply is an answer of the bot's HTTP API.
type reply struct {
	status  int
	header  http.Header
	body    []byte
	err     error // a transport error: refused, reset, timed out
	elapsed time.Duration
}

func (r reply) String() string {
	if r.err != nil {
		return fmt.Sprintf("error after %s: %v", r.elapsed.Round(time.Millisecond), r.err)
	}
	return fmt.Sprintf("%d after %s: %s", r.status, r.elapsed.Round(time.Millisecond), strings.TrimSpace(string(r.body)))
}

// errorBody is the error shape of every API error.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Fatal   bool   `json:"fatal"`
	} `json:"error"`
}

func (r reply) apiError() errorBody {
	var e errorBody
	_ = json.Unmarshal(r.body, &e)
	return e
}

// call sends one request to the running bot with the admin token.
func (b *bot) call(ctx context.Context, method, path string, body any) reply {
	return call(ctx, b.url, b.admin, method, path, body)
}

func call(ctx context.Context, base, token, method, path string, body any) reply {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return reply{err: err}
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return reply{err: err}
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := apiClient.Do(req)
	if err != nil {
		return reply{err: err, elapsed: time.Since(start)}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: raw, err: err, elapsed: time.Since(start)}
}

// record is the part of an inquiry the tests read.
type record struct {
	Key    string `json:"key"`
	ID     string `json:"id"`
	Status string `json:"status"`
	Answer *struct {
		Value      json.RawMessage `json:"value"`
		Text       string          `json:"text"`
		AnsweredBy string          `json:"answered_by"`
		Source     string          `json:"source"`
		AnsweredAt time.Time       `json:"answered_at"`
	} `json:"answer"`
	Slack struct {
		Channel string `json:"channel"`
		TS      string `json:"ts"`
	} `json:"slack"`
	Failure *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"failure"`
}

// value is the answer's value as a string ("" when there is none).
func (r *record) value() string {
	if r.Answer == nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(r.Answer.Value, &s)
	return s
}

func decode(t testing.TB, r reply) *record {
	t.Helper()
	var rec record
	if err := json.Unmarshal(r.body, &rec); err != nil || rec.Key == "" {
		t.Fatalf("not an inquiry: %s", r)
	}
	return &rec
}

// mustCall sends a request that must answer want.
func (b *bot) mustCall(method, path string, body any, want int) *record {
	b.t.Helper()
	r := b.call(context.Background(), method, path, body)
	if r.err != nil || r.status != want {
		b.t.Fatalf("%s %s: want %d, got %s", method, path, want, r)
	}
	return decode(b.t, r)
}

// get reads an inquiry by key.
func (b *bot) get(key string) *record {
	b.t.Helper()
	return b.mustCall(http.MethodGet, "/v1/inquiries/"+key, nil, http.StatusOK)
}

// choice is a Choice inquiry between Yes and No with the given config.
func choice(id string, config map[string]any) map[string]any {
	return map[string]any{
		"id": id, "kind": "choice", "question": "Proceed with " + id + "?",
		"options": []string{"Yes", "No"}, "config": config,
	}
}

// inbox is the config of an inquiry answered through the API.
var inbox = map[string]any{"policy": "ask", "transport": "inbox"}

// viaSlack is the config of an inquiry asked in Slack.
var viaSlack = map[string]any{"policy": "ask", "transport": "slack"}

// settled waits until the bot has no delivery left to carry out, by the queue depth on its
// /metrics: a second post or update of the same thing would be a delivery still queued, or one
// carried out already, so what the fake holds then is what it will hold.
func (b *bot) settled(within time.Duration) {
	b.t.Helper()
	testkit.Eventually(b.t, within, "the bot's deliveries carried out", func() bool {
		r := b.call(context.Background(), http.MethodGet, "/metrics", nil)
		return r.err == nil && r.status == http.StatusOK && bytes.Contains(r.body, []byte("\ninquiry_delivery_queue_depth 0\n"))
	})
}

// excerpt is n lines of s from the first line that contains marker.
func excerpt(s, marker string, n int) string {
	i := strings.Index(s, marker)
	if i < 0 {
		return testkit.Tail(s, n)
	}
	lines := strings.Split(s[i:], "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
