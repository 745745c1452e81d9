package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpOfEveryCommand runs the real binary with -h and --help after every command and every
// token subcommand (and alone): each prints its usage once, to stdout, and exits 0. Nothing else
// happens: no server is reached and no database is opened.
func TestHelpOfEveryCommand(t *testing.T) {
	t.Parallel()
	lines := [][]string{{}} // bot -h, bot --help
	for _, c := range commands() {
		lines = append(lines, []string{c.name})
	}
	for _, sub := range []string{"create", "list", "revoke"} {
		lines = append(lines, []string{"token", sub})
	}
	for _, words := range lines {
		for _, flag := range []string{"-h", "--help"} {
			args := append(append([]string{}, words...), flag)
			name := strings.Join(args, " ")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				cmd := exec.Command(botBin, args...)
				cmd.Env = []string{
					"PATH=/usr/bin:/bin",
					"HOME=" + dir,
					"XDG_CONFIG_HOME=" + filepath.Join(dir, "cfg"),
					"DATABASE_URL=sqlite:" + filepath.Join(dir, "bot.db"),
					"BOT_URL=http://127.0.0.1:1", // nothing listens: a command that ran instead would fail
					"BOT_TOKEN=bot_none_none",
				}
				var stdout, stderr strings.Builder
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := 0
				if xe, ok := err.(*exec.ExitError); ok {
					code = xe.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				want := strings.TrimSpace("usage: bot " + strings.Join(words, " "))
				got := stdout.String()
				if code != 0 || stderr.Len() != 0 || strings.Count(strings.ToLower(got), "usage:") != 1 || !strings.HasPrefix(got, want) {
					t.Errorf("bot %s: exit %d, want 0 with one usage starting %q on stdout and nothing on stderr\nstdout:\n%s\nstderr:\n%s", name, code, want, got, stderr.String())
				}
				if _, err := os.Stat(filepath.Join(dir, "bot.db")); err == nil {
					t.Errorf("bot %s opened the database", name)
				}
			})
		}
	}
}
