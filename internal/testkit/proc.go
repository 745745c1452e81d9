package testkit

// What the tests that run the real bot binary (cmd/bot, faulttest) and the benchmark share.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// buildBot builds the bot binary (cmd/bot, with the race detector when race) into a new temp
// dir, for the tests of a package to run; remove deletes the dir. The go command's output goes to
// stderr.
func buildBot(race bool) (bin string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "bot-test-")
	if err != nil {
		return "", nil, fmt.Errorf("make a temp dir: %w", err)
	}
	bin = filepath.Join(dir, "bot")
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "github.com/inquiry-bot/bot/cmd/bot")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("build the bot binary: %w", err)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// RunWithBot is the body of a TestMain whose tests run the real binary: it builds it (buildBot),
// sets *bin to its path, runs the tests (m is the *testing.M) and removes the binary. It returns
// the exit status for os.Exit.
func RunWithBot(m interface{ Run() int }, race bool, bin *string) int {
	built, remove, err := buildBot(race)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer remove()
	*bin = built
	return m.Run()
}

// SyncBuffer is a bytes.Buffer safe for a writer goroutine (a process's stdout or stderr, a
// logger) and readers.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Tail is the last n lines of s.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Startup reads what `bot serve` prints on stdout as it starts: on a first start the line
// "First start: created the admin token…" and the token on the line after it, then, on every
// start, "listening on URL". Feed it stdout's lines, in order, until Line reports the listening
// line.
type Startup struct {
	Admin string // the first-start admin token ("" while none was printed)
	URL   string // where it listens, such as http://127.0.0.1:43210 ("" until it said so)

	tokenNext bool
}

// Line takes the next line of stdout and reports whether it was the listening line.
func (s *Startup) Line(line string) (listening bool) {
	switch {
	case s.tokenNext:
		s.Admin, s.tokenNext = strings.TrimSpace(line), false
	case strings.HasPrefix(line, "First start: created the admin token"):
		s.tokenNext = true
	case strings.HasPrefix(line, "listening on "):
		s.URL = strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
		return true
	}
	return false
}

// errEnded is WaitListening's error when stdout ended (the process exited) before the listening
// line.
var errEnded = errors.New("bot serve ended before it listened")

// WaitListening reads stdout, the output of `bot serve`, line by line into out until the
// listening line, and returns what the process said as it started (Startup); the rest goes on
// into out in the background, so that the process never blocks on its stdout. It fails when
// within passes first, and when stdout ends first: then once exited (closed when the process has
// been waited for) is closed, so that the process's log is whole.
func WaitListening(stdout io.Reader, exited <-chan struct{}, out io.Writer, within time.Duration) (Startup, error) {
	lines := make(chan string)
	done := make(chan struct{}) // closed when nobody reads lines any more
	defer close(done)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			_, _ = out.Write([]byte(sc.Text() + "\n"))
			select {
			case lines <- sc.Text():
			case <-done:
			}
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdout) // past a line too long for the scanner
	}()
	timeout := time.After(within)
	var st Startup
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				<-exited
				return st, errEnded
			}
			if st.Line(line) {
				return st, nil
			}
		case <-timeout:
			return st, fmt.Errorf("bot serve did not say where it listens within %gs", within.Seconds())
		}
	}
}

// Terminate stops a process the way an operator does: SIGTERM (a graceful shutdown), and
// SIGKILL if exited (closed once the process was waited for) does not close within that long. It
// returns once the process has exited, and reports whether it stopped by itself.
func Terminate(p *os.Process, exited <-chan struct{}, within time.Duration) (stopped bool) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		return true
	case <-time.After(within):
		_ = p.Kill()
		<-exited
		return false
	}
}
