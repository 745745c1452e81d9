package main

// The merge gate sends the pull request's diff as the question's proposal: these tests run
// gate.py in a real git repository of two commits against the real bot and read the inquiry it
// asked.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// gitRepo makes a repository in a temp dir with a first commit and a second that writes files;
// it returns the directory and the two commits.
func gitRepo(t *testing.T, files map[string][]byte) (dir, base, head string) {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("no git to make the pull request's repository: install git (every runner has it)")
	}
	dir = t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=octo", "GIT_AUTHOR_EMAIL=octo@example.com",
			"GIT_COMMITTER_NAME=octo", "GIT_COMMITTER_EMAIL=octo@example.com", "PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("shop\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	git("add", "README")
	git("commit", "-q", "-m", "first")
	base = git("rev-parse", "HEAD")
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
		git("add", name)
	}
	git("commit", "-q", "-m", "second")
	return dir, base, git("rev-parse", "HEAD")
}

// askedProposal runs the gate and returns the proposal of the inquiry it asked (nil without one)
// and the job summary.
func askedProposal(t *testing.T, s *server, g gateRun) (map[string]any, string) {
	t.Helper()
	summary := g.summary(t)
	key := regexp.MustCompile(`inq_[a-z0-9]+`).FindString(summary)
	if key == "" {
		t.Fatalf("the gate's summary names no inquiry:\n%s", summary)
	}
	code, body := call(t, "GET", s.url+"/v1/inquiries/"+key, s.admin, "")
	if code != 200 {
		t.Fatalf("GET %s: %d %s", key, code, body)
	}
	var rec struct {
		ID       string         `json:"id"`
		Proposal map[string]any `json:"proposal"`
	}
	if err := json.Unmarshal(body, &rec); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("merge-gate:acme/shop#%d@%s", g.number, g.sha); rec.ID != want {
		t.Errorf("the inquiry's id is %q, want %q: the same commit must find the same question", rec.ID, want)
	}
	return rec.Proposal, summary
}

func askToken(t *testing.T, s *server) string {
	t.Helper()
	r := runIn(t, t.TempDir(), []string{"BOT_URL=" + s.url, "BOT_TOKEN=" + s.admin}, "token", "create", "--name", "ci", "--scope", "ask")
	if r.code != 0 {
		t.Fatalf("bot token create:\n%s", r)
	}
	return lastLine(r.stdout)
}

func TestGateProposalIsThePullRequestDiff(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ci := askToken(t, s)
	// Bytes that are not UTF-8 in a text file: the diff shows them as U+FFFD.
	dir, base, head := gitRepo(t, map[string][]byte{"cache.go": []byte("package cache\n\n// Size is \xff\xfe bytes.\nconst Size = 64\n")})
	g := gateRun{url: s.url, token: ci, title: "Fix the\ncache", author: "octo", number: 12, sha: head, base: base, dir: dir}
	p, summary := askedProposal(t, s, g)
	if p == nil {
		t.Fatalf("the gate asked without a proposal; its summary:\n%s", summary)
	}
	content, _ := p["content"].(string)
	if p["format"] != "diff" || p["title"] != "#12: Fix the cache" || p["editable"] == true {
		t.Errorf("proposal format %v, title %q, editable %v; want diff, \"#12: Fix the cache\", not editable", p["format"], p["title"], p["editable"])
	}
	for _, want := range []string{"diff --git a/cache.go b/cache.go\n", "+package cache\n", "+// Size is \ufffd\ufffd bytes.\n", "+const Size = 64\n"} {
		if !strings.Contains(content, want) {
			t.Errorf("the proposal lacks %q:\n%s", want, content)
		}
	}
	if strings.Contains(content, "README") {
		t.Errorf("the proposal holds the base commit's file, not only the change:\n%s", content)
	}
	// A re-run of the same commit finds the same question.
	again, _ := askedProposal(t, s, g)
	if again["content"] != content {
		t.Errorf("a re-run asked another proposal")
	}
	// proposal: false asks without it (another pull request: its own question).
	g.number, g.env = 13, []string{"INQUIRY_PROPOSAL=false"}
	if p, summary := askedProposal(t, s, g); p != nil {
		t.Errorf("with INQUIRY_PROPOSAL=false the gate sent a proposal; summary:\n%s", summary)
	}
}

func TestGateProposalPastTheLimitIsCutAndSaysSo(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ci := askToken(t, s)
	var big strings.Builder
	for i := 0; big.Len() < 300<<10; i++ {
		fmt.Fprintf(&big, "line %06d of a generated file, long enough to make the diff pass the limit ééé\n", i)
	}
	dir, base, head := gitRepo(t, map[string][]byte{"gen.txt": []byte(big.String())})
	g := gateRun{url: s.url, token: ci, title: "Generate", author: "octo", number: 21, sha: head, base: base, dir: dir}
	p, summary := askedProposal(t, s, g)
	if p == nil {
		t.Fatalf("the gate asked without a proposal; its summary:\n%s", summary)
	}
	content, _ := p["content"].(string)
	if n := len(content); n > 256<<10 || n < 255<<10 {
		t.Errorf("the cut proposal is %d bytes, want close to and at most %d", n, 256<<10)
	}
	if !utf8.ValidString(content) || !strings.HasSuffix(content, "\n") {
		t.Fatalf("the cut proposal is not whole lines of UTF-8")
	}
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	last := lines[len(lines)-1]
	want := regexp.MustCompile(`^… cut here: the diff is \d+ bytes, more than the 262144 \(256 KiB\) a proposal holds; the whole diff is at https://github\.example/acme/shop/pull/21/files$`)
	if !want.MatchString(last) {
		t.Errorf("the cut proposal's last line is %q, want it to say it was cut and where the whole is", last)
	}
	if prev := lines[len(lines)-2]; !regexp.MustCompile(`^\+line \d{6} of a generated file, long enough to make the diff pass the limit ééé$`).MatchString(prev) {
		t.Errorf("the line before the cut is not a whole line of the diff: %q", prev)
	}
}

func TestGateAsksWithoutProposalWhenNoGit(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ci := askToken(t, s)
	dir, base, head := gitRepo(t, map[string][]byte{"a.txt": []byte("a\n")})
	// A PATH that finds nothing: python3 is started by its interpreter's own path (not a shim
	// that needs PATH), git cannot be found.
	out, err := exec.Command(python3(t), "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatalf("python3 does not say where it is: %v", err)
	}
	g := gateRun{url: s.url, token: ci, title: "Add a", author: "octo", number: 31, sha: head, base: base, dir: dir,
		env: []string{"PATH=" + t.TempDir()}, python: strings.TrimSpace(string(out))}
	p, summary := askedProposal(t, s, g)
	if p != nil {
		t.Fatalf("without git the gate sent a proposal: %v", p)
	}
	if got, _ := shownText(summaryCell(t, summary, "proposal")); !strings.Contains(got, "there is no git") {
		t.Errorf("the summary's proposal cell is %q, want it to say there is no git", got)
	}
	// A base the checkout lacks (a shallow clone) asks without one too, and says how to fix it.
	g.number, g.env, g.python, g.base = 32, nil, "", strings.Repeat("0", 40)
	p, summary = askedProposal(t, s, g)
	if p != nil {
		t.Fatalf("with a missing base the gate sent a proposal: %v", p)
	}
	if got, _ := shownText(summaryCell(t, summary, "proposal")); !strings.Contains(got, "fetch-depth: 0") {
		t.Errorf("the summary's proposal cell is %q, want it to say to fetch the whole history", got)
	}
}
