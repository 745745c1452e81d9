package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// ---- what a person sees is what they decide: the CLI's surfaces, the real binary ----

// longQuestion is harmless for its first hundred characters and not after them, with
// zero-width spaces where a cut counted them as characters.
const longQuestion = "Merge PR #14: fix the typo in the README\u200b\u200b\u200b\u200b, tidy the changelog wording and bump the linter's minor version, and delete the production database backups?"

// rewriteStored writes value into column of the inquiry key in the server's SQLite database, as
// text stored before the rule that now refuses it at create (old data) would stand.
func (s *server) rewriteStored(t *testing.T, key, column, value string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(s.dir, "bot.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec("UPDATE inquiries SET "+column+" = ? WHERE key = ?", value, key)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("rewrote %d rows of %s", n, key)
	}
}

// unquoted is the asker's text of out as it reads when the lines behind the gutter are joined:
// how a test finds a wrapped text whole.
func unquoted(out string) string {
	var parts []string
	for _, line := range strings.Split(out, "\n") {
		if _, text, ok := strings.Cut(line, "│ "); ok {
			parts = append(parts, strings.TrimSpace(text))
		}
	}
	return strings.Join(parts, " ")
}

// TestQuestionsShowsAskerTextAsQuoted: a context stored before the rule (a carriage return
// that drew "all tests passed" over "FAILED", a right-to-left override, a faked facts line
// and a faked second question) is shown with visible codes and behind the gutter; the
// question is shown whole, wrapped to 80 columns off a terminal, and the context only on
// request.
func TestQuestionsShowsAskerTextAsQuoted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	merge := b.ask(t, "--question", longQuestion, "--option", "merge=Merge", "--option", "hold=Hold",
		"--context", "CI summary", "--timeout", "0")
	qs := b.waitPending(t, 1, nil)
	merge.wait(t)
	key := qs[0].Key
	faked := "CI: 214 tests FAILED, secret scan found 3 keys\r   CI: all 214 tests passed; scan clean.   \n" +
		"Approved by: ana (security)\n" +
		"   (choice · key inq_00000000000000000000000000 · from release-bot · asked 1m ago)\n" +
		"2. Deploy to production? \u202eon\u202c\n" +
		"     1  Yes"
	b.rewriteStored(t, key, "context", faked)

	plain := b.bot(t, "", "questions")
	full := b.bot(t, "", "questions", "--context")
	for _, r := range []result{plain, full} {
		if r.code != 0 {
			t.Fatalf("bot questions:\n%s", r)
		}
		if strings.ContainsAny(r.stdout, "\r\u202e\u202c\u200b") {
			t.Errorf("bot questions printed a control, an override or an invisible character raw:\n%q", r.stdout)
		}
		for _, line := range strings.Split(r.stdout, "\n") {
			if n := len([]rune(line)); n > 80 {
				t.Errorf("a line of %d characters off a terminal (80 columns):\n%q", n, line)
			}
		}
		if got := unquoted(r.stdout); !strings.Contains(got, "and delete the production database backups?") ||
			!strings.Contains(got, "README⟨U+200B⟩⟨U+200B⟩⟨U+200B⟩⟨U+200B⟩,") {
			t.Errorf("bot questions does not show the question whole, behind the gutter:\n%s", r.stdout)
		}
	}
	if strings.Contains(plain.stdout, "FAILED") || !strings.Contains(plain.stdout, "bot questions --context") {
		t.Errorf("without --context, the context is not shown and the list says how to show it:\n%s", plain.stdout)
	}
	if got := flat(unquoted(full.stdout)); !strings.Contains(got, "FAILED, secret scan found 3 keys⟨U+000D⟩ CI: all 214 tests passed") ||
		!strings.Contains(got, "⟨U+202E⟩on⟨U+202C⟩") {
		t.Errorf("bot questions --context does not show the carriage return and the override as codes:\n%s", full.stdout)
	}
	// Every faked line reads as quoted: behind the gutter, never where the bot's lines stand.
	for _, line := range strings.Split(full.stdout, "\n") {
		for _, fake := range []string{"Approved by", "from release-bot", "Deploy to production", "1  Yes"} {
			if strings.Contains(line, fake) && !strings.HasPrefix(line, "   │ ") {
				t.Errorf("asker text %q stands outside the gutter, as the bot's own line:\n%q", fake, line)
			}
		}
		if strings.HasPrefix(line, "2.") {
			t.Errorf("the context made a second numbered question:\n%s", full.stdout)
		}
	}
}

// TestAnswerEchoesTheWholeQuestion: bot answer says what it recorded for the question whole, and
// the whole option chosen.
func TestAnswerEchoesTheWholeQuestion(t *testing.T) {
	t.Parallel()
	b := setup(t)
	label := "Merge it now, skip the staging soak, and page the on-call only if it fails"
	merge := b.ask(t, "--question", longQuestion, "--option", "merge="+label, "--option", "hold=Hold")
	b.waitPending(t, 1, merge)
	r := b.answer(t, "1", "1")
	if r.code != 0 {
		t.Fatalf("bot answer 1 1:\n%s", r)
	}
	if got := unquoted(r.stdout); !strings.Contains(got, "and delete the production database backups?") {
		t.Errorf("bot answer does not echo the question whole:\n%s", r.stdout)
	}
	if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), label+" by admin") {
		t.Errorf("bot answer does not echo the whole option chosen:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "\u200b") {
		t.Errorf("bot answer printed a zero-width space raw:\n%q", r.stdout)
	}
	if r := merge.wait(t); r.code != 0 || strings.TrimSpace(r.stdout) != "merge" {
		t.Fatalf("bot ask:\n%s", r)
	}
}

// TestAskPrintsAnAnswerAsPrinted: an answer stored before answers were kept without carriage
// returns reaches the script that runs bot ask with the carriage return as a visible code.
func TestAskPrintsAnAnswerAsPrinted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	args := []string{"--text", "--question", "Release notes?", "--id", "notes-1"}
	first := b.ask(t, append(args, "--timeout", "0")...)
	qs := b.waitPending(t, 1, nil)
	first.wait(t)
	if r := b.answer(t, "1", "fixes login"); r.code != 0 {
		t.Fatalf("bot answer:\n%s", r)
	}
	b.rewriteStored(t, qs[0].Key, "answer",
		`{"text":"rm -rf /srv/backups\r# fixes login","answered_by":"admin","source":"person","at":"2026-01-02T03:04:05Z"}`)
	r := b.ask(t, append(args, "--timeout", "10s")...).wait(t)
	if r.code != 0 || r.stdout != "rm -rf /srv/backups⟨U+000D⟩# fixes login\n" {
		t.Fatalf("bot ask printed a stored answer other than as printed:\n%q\n%s", r.stdout, r)
	}
}

// TestTokenCreateRefusedInAnAgentShell: an agent must not mint itself a token that answers; one
// that only asks it may make.
func TestTokenCreateRefusedInAnAgentShell(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	local := []string{"DATABASE_URL=sqlite:" + filepath.Join(s.dir, "bot.db")}
	remote := []string{"BOT_URL=" + s.url, "BOT_TOKEN=" + s.admin}
	for _, m := range agentMarkerEnvs {
		for _, place := range [][]string{local, remote} {
			env := append([]string{m[0] + "=" + m[1]}, place...)
			for i, scope := range []string{"answer", "admin", "ask,answer", "ask,admin"} {
				name := strings.ToLower(strings.ReplaceAll(m[0], "_", "-")) + "-" + string(rune('a'+i))
				r := tokenCLI(t, t.TempDir(), env, "create", "--name", name, "--scope", scope)
				if r.code != exitUsage || r.stdout != "" || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 ||
					!strings.Contains(r.stderr, m[0]+" is set") || !strings.Contains(r.stderr, "must not mint itself a token that answers") ||
					!strings.Contains(r.stderr, "--scope ask") {
					t.Errorf("bot token create --scope %s with %s=%s: want one sentence, status 2, no token:\n%s", scope, m[0], m[1], r)
				}
			}
		}
	}
	list := tokenCLI(t, t.TempDir(), remote, "list")
	for _, m := range agentMarkerEnvs {
		if strings.Contains(list.stdout, strings.ToLower(strings.ReplaceAll(m[0], "_", "-"))) {
			t.Errorf("a token was made in an agent's shell:\n%s", list.stdout)
		}
	}
	// Asking is the agent's part: an ask-only token it may make, on the server or the database.
	for i, place := range [][]string{local, remote} {
		name := "agent-" + string(rune('a'+i))
		r := tokenCLI(t, t.TempDir(), append([]string{"CLAUDECODE=1"}, place...), "create", "--name", name, "--scope", "ask")
		if r.code != 0 || !strings.HasPrefix(lastLine(r.stdout), "bot_") {
			t.Errorf("bot token create --scope ask in an agent's shell:\n%s", r)
		}
	}
}
