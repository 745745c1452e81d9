//go:build linux

package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/testkit"
)

// ---- bot questions -i: the real binary on a pseudo-terminal, against the real serve ----

// ptyBot is the binary running on a pseudo-terminal: what it drew so far, and its keyboard.
type ptyBot struct {
	tty    *os.File // the terminal's master side: the keyboard and the screen
	pts    *os.File // its slave side, the program's terminal, kept to read its modes
	cmd    *exec.Cmd
	screen *testkit.SyncBuffer
	mark   int // where the output waited for next starts
	// done is closed once the program has exited AND all it wrote is in screen: the terminal
	// keeps what a program wrote after it exits, and a test that judged the screen at the exit
	// alone missed its last writes (the picker's restored screen, on a busy machine).
	done     chan struct{}
	err      error
	ptsMu    sync.Mutex    // pts is read and closed under it
	ptsGone  bool          // pts was closed: its modes are exitMode
	exitMode *unix.Termios // the terminal's modes as the program left them
}

// startPTY runs bot args on a 100×30 pseudo-terminal with the token file (the admin's).
func (s *server) startPTY(t *testing.T, args ...string) *ptyBot {
	t.Helper()
	return s.startPTYEnv(t, nil, args...)
}

// startPTYEnv is startPTY with extra environment variables.
func (s *server) startPTYEnv(t *testing.T, extra []string, args ...string) *ptyBot {
	t.Helper()
	cmd := exec.Command(botBin, args...)
	cmd.Env = append(s.env("TERM=xterm"), extra...)
	tty, pts, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := pty.Setsize(tty, &pty.Winsize{Rows: 30, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true} // its controlling terminal
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &ptyBot{tty: tty, pts: pts, cmd: cmd, screen: &testkit.SyncBuffer{}, done: make(chan struct{})}
	copied := make(chan struct{})
	go func() {
		// It ends with EIO once no one holds the terminal's side any more, after what is left
		// to read was read.
		io.Copy(b.screen, tty)
		close(copied)
	}()
	go func() {
		b.err = cmd.Wait()
		b.ptsMu.Lock()
		b.exitMode, _ = unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
		pts.Close() // the last holder of the terminal's side: the read above drains and ends
		b.ptsGone = true
		b.ptsMu.Unlock()
		<-copied
		close(b.done)
	}()
	t.Cleanup(func() {
		select {
		case <-b.done:
		default:
			cmd.Process.Kill()
			<-b.done
		}
		tty.Close()
		pts.Close()
	})
	return b
}

// lineMode reports whether the terminal is in the mode a shell leaves it in: lines edited by the
// terminal (ICANON) and echoed (ECHO), which raw mode turns off.
func (b *ptyBot) lineMode(t *testing.T) bool {
	t.Helper()
	b.ptsMu.Lock()
	defer b.ptsMu.Unlock()
	tio, err := b.exitMode, error(nil)
	if !b.ptsGone {
		tio, err = unix.IoctlGetTermios(int(b.pts.Fd()), unix.TCGETS)
	}
	if err != nil || tio == nil {
		t.Fatalf("the terminal's modes: %v", err)
	}
	return tio.Lflag&unix.ICANON != 0 && tio.Lflag&unix.ECHO != 0
}

// waitFor waits until the output drawn since the last waitFor shows want, and moves past it.
func (b *ptyBot) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		out := b.screen.String()
		if i := strings.Index(out[b.mark:], want); i >= 0 {
			b.mark += i + len(want)
			return
		}
		select {
		case <-b.done:
			// Everything it wrote is in the screen now: one last look.
			out = b.screen.String()
			if i := strings.Index(out[b.mark:], want); i >= 0 {
				b.mark += i + len(want)
				return
			}
			t.Fatalf("bot ended before showing %q; it showed:\n%q", want, testkit.Tail(out[b.mark:], 20))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %q; the screen since the last step:\n%q", want, out[b.mark:])
		}
	}
}

// typeKeys writes keys as typed. The picker may read them in one read, as it reads a paste or a
// fast typist; an Esc must end them, since what follows an Esc in one read is read as the rest
// of a key's sequence (an arrow): to type after an Esc, wait for what the Esc drew first.
func (b *ptyBot) typeKeys(t *testing.T, keys ...string) {
	t.Helper()
	for i, k := range keys {
		if strings.HasSuffix(k, "\x1b") && i < len(keys)-1 {
			t.Fatalf("typeKeys: keys follow the Esc of %q; type them once the Esc has been drawn", k)
		}
		if _, err := b.tty.WriteString(k); err != nil {
			t.Fatal(err)
		}
	}
}

func TestQuestionsInteractiveOnATerminal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := client.New(b.url, b.admin)
	ctx := context.Background()

	picker := b.startPTY(t, "questions", "-i")
	b.mark(t, picker)
	if picker.lineMode(t) {
		t.Fatal("the picker runs with the terminal in line mode: keys would wait for Enter and echo")
	}

	// A question arriving while the picker is open shows up.
	merge := b.ask(t, "--question", "Merge the PR?", "--option", "merge=Merge", "--option", "hold=Hold")
	picker.waitFor(t, "1. │ Merge the PR?")
	picker.waitFor(t, "1 │ Merge")
	key := b.waitPending(t, 1, merge)[0].Key

	// A digit asks on the bottom line; n takes it back and nothing is sent.
	picker.typeKeys(t, "2")
	picker.waitFor(t, `Send "Hold" to question 1? y/n`)
	picker.typeKeys(t, "n")
	picker.waitFor(t, "Taken back: nothing was sent.")
	if rec, err := c.Get(ctx, key, 0); err != nil || rec.Status != inquiry.StatusPending {
		t.Fatalf("after n: %+v, %v", rec, err)
	}

	// A digit, then y, answers through the API as the token's person, via the CLI.
	picker.typeKeys(t, "1")
	picker.waitFor(t, `Send "Merge" to question 1? y/n`)
	picker.typeKeys(t, "y")
	picker.waitFor(t, "Recorded for "+key+": Merge by admin")
	if r := merge.wait(t); r.code != exitOK || strings.TrimSpace(r.stdout) != "merge" {
		t.Fatalf("bot ask after the picker's answer:\n%s", r)
	}
	rec, err := c.Get(ctx, key, 0)
	if err != nil || rec.Status != inquiry.StatusAnswered || rec.Answer.Value.String() != "merge" || rec.Answer.AnsweredBy != "admin" || rec.Answer.Source != inquiry.SourcePerson {
		t.Fatalf("after y: %+v (answer %+v), %v", rec, rec.Answer, err)
	}
	// r writes own words: Esc cancels, Enter then y sends them.
	notes := b.ask(t, "--text", "--question", "Release notes?")
	notesKey := b.waitPending(t, 1, notes)[0].Key
	picker.waitFor(t, "1. │ Release notes?")
	picker.typeKeys(t, "r", "dra", "\x1b")
	picker.waitFor(t, "Nothing was sent.")
	picker.typeKeys(t, "r", "fixes login", "\r")
	picker.waitFor(t, `Send "fixes login" to question 1? y/n`)
	picker.typeKeys(t, "y")
	picker.waitFor(t, "Recorded for "+notesKey+`: "fixes login"`)
	if r := notes.wait(t); r.code != exitOK || strings.TrimSpace(r.stdout) != "fixes login" {
		t.Fatalf("bot ask after own words:\n%s", r)
	}

	// The server's refusal is the bottom line: a no that must say why asks for the reason.
	deploy := b.ask(t, "--confirm", "--question", "Deploy on Friday?", "--reason", "on_no")
	deployKey := b.waitPending(t, 1, deploy)[0].Key
	picker.waitFor(t, "1. │ Deploy on Friday?")
	picker.typeKeys(t, "2", "y")
	picker.waitFor(t, "Reason (Enter; Esc cancels)")
	picker.typeKeys(t, "not on a Friday", "\r")
	picker.waitFor(t, "y/n")
	picker.typeKeys(t, "y")
	picker.waitFor(t, "Recorded for "+deployKey+": No")
	if r := deploy.wait(t); r.code != exitNo {
		t.Fatalf("bot ask after a no with a reason:\n%s", r)
	}

	// q quits, restores the terminal and says what was recorded.
	picker.typeKeys(t, "q")
	select {
	case <-picker.done:
	case <-time.After(20 * time.Second):
		t.Fatal("q did not end the picker")
	}
	var xe *exec.ExitError
	if picker.err != nil && !errors.As(picker.err, &xe) {
		t.Fatal(picker.err)
	}
	if picker.cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("the picker exited %d:\n%q", picker.cmd.ProcessState.ExitCode(), picker.screen.String())
	}
	picker.waitFor(t, "\x1b[?1049l") // the shell's screen back
	if !picker.lineMode(t) {
		t.Error("the picker left the terminal in raw mode")
	}
	picker.waitFor(t, "Recorded for "+key+": Merge by admin\r\n   │ Merge the PR?")
	if out := picker.screen.String(); strings.Contains(out, b.admin) {
		t.Error("the picker printed the token")
	}
}

// Ctrl-C ends the picker (raw mode turns it into a key, not a signal) and restores the terminal.
func TestQuestionsInteractiveCtrlC(t *testing.T) {
	t.Parallel()
	b := setup(t)
	picker := b.startPTY(t, "questions", "-i")
	b.mark(t, picker)
	picker.typeKeys(t, "r", "half an answ", "\x03")
	select {
	case <-picker.done:
	case <-time.After(20 * time.Second):
		t.Fatal("Ctrl-C did not end the picker")
	}
	if code := picker.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the picker exited %d after Ctrl-C", code)
	}
	picker.waitFor(t, "\x1b[?25h\x1b[?1049l")
	if !picker.lineMode(t) {
		t.Error("the picker left the terminal in raw mode")
	}
}

// mark waits for the picker's first screen: the list read, empty.
func (b *cliBundle) mark(t *testing.T, p *ptyBot) {
	t.Helper()
	p.waitFor(t, "No questions are waiting for an answer.")
}

func TestQuestionsInteractiveWithoutATerminalLists(t *testing.T) {
	t.Parallel()
	b := setup(t)
	merge := b.ask(t, "--question", "Merge the PR?", "--option", "merge=Merge", "--option", "hold=Hold")
	b.waitPending(t, 1, merge)
	piped := b.bot(t, "", "questions", "-i")
	if piped.code != 0 || !strings.HasPrefix(piped.stdout, "1. │ Merge the PR?\n") || !strings.Contains(piped.stdout, "\nAnswer with: bot answer <number>") || strings.Contains(piped.stdout, "\x1b") {
		t.Fatalf("bot questions -i on a pipe is not the plain list:\n%s", piped)
	}
	if r := b.bot(t, "", "questions", "-i", "--json"); r.code != exitUsage || !strings.Contains(r.stderr, "drop --all and --json") {
		t.Errorf("bot questions -i --json:\n%s", r)
	}
}

// In an agent harness's tool shell the picker does not start, even on a terminal (a harness may
// give its tools one): it refuses with one sentence, status 2, the terminal untouched.
func TestQuestionsInteractiveRefusedInAnAgentShell(t *testing.T) {
	t.Parallel()
	b := setup(t)
	picker := b.startPTYEnv(t, []string{"CLAUDECODE=1"}, "questions", "-i")
	select {
	case <-picker.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the picker started in an agent's shell:\n%q", picker.screen.String())
	}
	// It has ended, and all it wrote is on the screen (done waits for it).
	if out := picker.screen.String(); !strings.Contains(out, "CLAUDECODE is set") || !strings.Contains(out, "must come from the person") {
		t.Errorf("the refusal is not on the terminal:\n%q", out)
	}
	if code := picker.cmd.ProcessState.ExitCode(); code != exitUsage {
		t.Errorf("bot questions -i in an agent's shell exited %d, want %d", code, exitUsage)
	}
	if out := picker.screen.String(); strings.Contains(out, "\x1b[?1049h") {
		t.Errorf("the picker drew its screen in an agent's shell:\n%q", out)
	}
	if !picker.lineMode(t) {
		t.Error("the terminal was left in raw mode")
	}
}

// frame is the last screen the picker drew whole, as rows of text: the output after the last
// "cursor home", up to the end of its bottom row, without the styling.
func (b *ptyBot) frame() string {
	out := b.screen.String()
	out = out[strings.LastIndex(out, "\x1b[H")+len("\x1b[H"):]
	out = strings.NewReplacer("\x1b[K\r\n", "\n", "\x1b[7m", "", "\x1b[0m", "", "\x1b[K", "").Replace(out)
	return out
}

// On a terminal the picker shows the question whole, wrapped, behind the gutter; c shows the
// context as printed; the confirmation names the whole answer. Before, the question was cut at
// 100 characters (zero-width ones counted) and the confirmation at the window's width.
func TestPickerShowsTheWholeQuestionOnATerminal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	picker := b.startPTY(t, "questions", "-i")
	b.mark(t, picker)
	label := "Merge it now, skip the staging soak, and page the on-call only if it fails"
	merge := b.ask(t, "--question", longQuestion, "--option", "merge="+label, "--option", "hold=Hold",
		"--context", "CI summary", "--timeout", "0")
	key := b.waitPending(t, 1, nil)[0].Key
	merge.wait(t)
	b.rewriteStored(t, key, "context", "CI: 214 tests FAILED\r   CI: all 214 tests passed \u202eon\nApproved by: ana")
	picker.waitFor(t, "context: 2 lines, not shown (c shows it)")
	picker.waitFor(t, "1-9 picks")
	if got := flat(unquoted(picker.frame())); !strings.Contains(got, "and delete the production database backups?") {
		t.Errorf("the picker does not show the question whole:\n%s", picker.frame())
	}
	picker.typeKeys(t, "c")
	picker.waitFor(t, "1-9 picks")
	frame := picker.frame()
	if got := unquoted(frame); !strings.Contains(got, "CI: 214 tests FAILED⟨U+000D⟩   CI: all 214 tests passed ⟨U+202E⟩on Approved by: ana") {
		t.Errorf("c does not show the context as printed, behind the gutter:\n%s", frame)
	}
	if strings.ContainsAny(frame, "\r\u202e\u200b") {
		t.Errorf("the picker drew a carriage return, an override or a zero-width space raw:\n%q", frame)
	}
	picker.typeKeys(t, "1")
	picker.waitFor(t, "y/n")
	if got := flat(picker.frame()); !strings.Contains(got, `Send "`+label+`" to question 1? y/n`) {
		t.Errorf("the confirmation does not name the whole answer:\n%s", picker.frame())
	}
	picker.typeKeys(t, "n")
	picker.waitFor(t, "Taken back: nothing was sent.")
	picker.typeKeys(t, "q")
	<-picker.done
}
