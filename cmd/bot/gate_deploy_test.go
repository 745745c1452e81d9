package main

// The merge gate's files (deploy/github-action/action.yml and deploy/gitlab/merge-gate.yml) are
// checked here, since no workflow engine runs in CI: action.yml is decoded strictly as action
// metadata (an unknown key is an error), has the inputs gateInputs fixes, runs gate.py as a
// composite step with every input handed to it, and points PYTHONPATH at the client; the GitLab
// template runs the same script with the same variables. The script itself is tested against the
// real bot by clients/python/tests/test_gate.py.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"gopkg.in/yaml.v3"
)

// actionMeta is the part of GitHub's action metadata syntax a composite action uses.
type actionMeta struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description string  `yaml:"description"`
		Required    bool    `yaml:"required"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID    string            `yaml:"id"`
			Name  string            `yaml:"name"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			Run   string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// gateInputs are the inputs the merge gate promises: workflows in use name them, so none may go.
var gateInputs = []string{"url", "token", "question", "approvals", "requested-by", "timeout"}

// inputRef is an expression that reads an input.
var inputRef = regexp.MustCompile(`\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}`)

func TestDeployGitHubAction(t *testing.T) {
	t.Parallel()
	docs := decodeDocs[actionMeta](t, deployPath("github-action", "action.yml"), true)
	if len(docs) != 1 {
		t.Fatalf("action.yml holds %d documents, want 1", len(docs))
	}
	a := docs[0]
	if a.Name == "" || a.Description == "" {
		t.Errorf("action.yml needs a name and a description (GitHub refuses an action without them)")
	}
	for _, in := range gateInputs {
		spec, ok := a.Inputs[in]
		switch {
		case !ok:
			t.Errorf("action.yml has no input %q (the merge gate's inputs: gateInputs)", in)
		case spec.Description == "":
			t.Errorf("action.yml input %q has no description", in)
		case (in == "url" || in == "token") != spec.Required:
			t.Errorf("action.yml input %q: required is %v, want %v", in, spec.Required, in == "url" || in == "token")
		}
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs using %q, want composite", a.Runs.Using)
	}
	gate, err := os.ReadFile(deployPath("github-action", "gate.py"))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	gateStep := -1
	for i, s := range a.Runs.Steps {
		if s.Run != "" && s.Shell == "" {
			t.Errorf("action.yml step %d runs a command without shell (a composite action's run step requires it)", i)
		}
		if s.ID != "" {
			ids[s.ID] = true
		}
		if strings.Contains(s.Run, "gate.py") {
			gateStep = i
		}
	}
	if gateStep < 0 {
		t.Fatalf("no step of action.yml runs gate.py")
	}
	step := a.Runs.Steps[gateStep]
	if !strings.Contains(step.Run, "$GITHUB_ACTION_PATH/gate.py") {
		t.Errorf("action.yml runs %q: the script is found through $GITHUB_ACTION_PATH, not the caller's checkout", step.Run)
	}
	// Every input reaches the script, by an environment variable the script reads; inputs are
	// never pasted into the command line, where a question's quotes would become shell.
	handed := map[string]bool{}
	for name, v := range step.Env {
		for _, m := range inputRef.FindAllStringSubmatch(v, -1) {
			handed[m[1]] = true
			if _, ok := a.Inputs[m[1]]; !ok {
				t.Errorf("action.yml env %s reads inputs.%s, which is not declared", name, m[1])
			}
			if !strings.Contains(string(gate), `"`+name+`"`) {
				t.Errorf("action.yml hands inputs.%s over as %s, which gate.py does not read", m[1], name)
			}
		}
	}
	for in := range a.Inputs {
		if !handed[in] {
			t.Errorf("action.yml input %q is declared but never handed to gate.py", in)
		}
	}
	if m := inputRef.FindString(step.Run); m != "" {
		t.Errorf("action.yml puts %s into the shell command: hand it over through env instead", m)
	}
	pp := step.Env["PYTHONPATH"]
	const prefix = "${{ github.action_path }}/"
	if !strings.HasPrefix(pp, prefix) {
		t.Fatalf("action.yml PYTHONPATH is %q, want it relative to ${{ github.action_path }}", pp)
	}
	client := filepath.Join(deployDir, "github-action", strings.TrimPrefix(pp, prefix), "inquiry_bot", "__init__.py")
	if _, err := os.Stat(client); err != nil {
		t.Errorf("action.yml PYTHONPATH %q does not lead to the Python client: %v", pp, err)
	}
	// Outputs come from the gate step, by names gate.py writes.
	ref := regexp.MustCompile(`^\$\{\{\s*steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)\s*\}\}$`)
	for name, o := range a.Outputs {
		m := ref.FindStringSubmatch(o.Value)
		switch {
		case m == nil:
			t.Errorf("action.yml output %q is %q, not a step's output", name, o.Value)
		case !ids[m[1]] || m[1] != step.ID:
			t.Errorf("action.yml output %q reads step %q, not the gate's step %q", name, m[1], step.ID)
		case !strings.Contains(string(gate), `"`+m[2]+`"`):
			t.Errorf("action.yml output %q reads %q, which gate.py never writes", name, m[2])
		}
	}
}

// gitlabJob is the part of a GitLab CI job the template uses.
type gitlabJob struct {
	Stage     string            `yaml:"stage"`
	Image     string            `yaml:"image"`
	Rules     []map[string]any  `yaml:"rules"`
	Variables map[string]string `yaml:"variables"`
	Script    []string          `yaml:"script"`
}

func TestDeployGitLabMergeGate(t *testing.T) {
	t.Parallel()
	docs := decodeDocs[map[string]gitlabJob](t, deployPath("gitlab", "merge-gate.yml"), true)
	if len(docs) != 1 {
		t.Fatalf("merge-gate.yml holds %d documents, want 1", len(docs))
	}
	job, ok := docs[0][".inquiry_merge_gate"]
	if !ok {
		t.Fatalf("merge-gate.yml has no hidden job .inquiry_merge_gate to extend")
	}
	if job.Image == "" || len(job.Script) == 0 {
		t.Fatalf("merge-gate.yml's template needs an image with python3 and a script")
	}
	script := strings.Join(job.Script, "\n")
	for _, want := range []string{"deploy/github-action/gate.py", "PYTHONPATH=", "clients/python"} {
		if !strings.Contains(script, want) {
			t.Errorf("merge-gate.yml's script does not mention %s: it must run the action's own script with the client", want)
		}
	}
	// The same settings as the action's inputs, by the same variables; the token is never a
	// variable of the template (it comes from a masked CI/CD variable).
	actions := decodeDocs[actionMeta](t, deployPath("github-action", "action.yml"), true)
	for name, v := range actions[0].Runs.Steps[0].Env {
		if !strings.HasPrefix(name, "INQUIRY_") || !inputRef.MatchString(v) {
			continue
		}
		_, set := job.Variables[name]
		if name == "INQUIRY_TOKEN" {
			if set {
				t.Errorf("merge-gate.yml sets INQUIRY_TOKEN: it must come from a masked CI/CD variable")
			}
			continue
		}
		if !set {
			t.Errorf("merge-gate.yml does not set %s, which the action hands to the script", name)
		}
	}
}

// pinnedRef is a ref that cannot move without force: a full commit id, or a version tag.
var pinnedRef = regexp.MustCompile(`^(?:[0-9a-f]{40}|v\d+(?:\.\d+)*)$`)

// TestReadmeMergeGateWorkflow checks the README's example workflow (section "Merge gate") against
// action.yml: it uses this action, and gives it only inputs it declares, the required ones among
// them.
func TestReadmeMergeGateWorkflow(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := bytes.Cut(readme, []byte("\n### Merge gate\n"))
	if !ok {
		t.Fatal("README.md has no \"### Merge gate\" section")
	}
	_, block, ok := bytes.Cut(section, []byte("```yaml\n"))
	block, _, ok2 := bytes.Cut(block, []byte("```"))
	if !ok || !ok2 {
		t.Fatal("the README's Merge gate section has no yaml block")
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(block, &wf); err != nil {
		t.Fatalf("the README's workflow does not parse: %v", err)
	}
	action := decodeDocs[actionMeta](t, deployPath("github-action", "action.yml"), true)[0]
	used := 0
	for _, job := range wf.Jobs {
		for _, st := range job.Steps {
			if !strings.Contains(st.Uses, "/deploy/github-action@") {
				continue
			}
			used++
			// The gate holds a token and decides the merge: a branch would run whatever was
			// pushed to it last.
			if _, ref, _ := strings.Cut(st.Uses, "@"); !pinnedRef.MatchString(ref) {
				t.Errorf("the README's workflow uses the action at %q: name a commit (40 hex digits) or a release tag, never a branch", ref)
			}
			for k := range st.With {
				if _, ok := action.Inputs[k]; !ok {
					t.Errorf("the README's workflow gives the action input %q, which action.yml does not declare", k)
				}
			}
			for name, in := range action.Inputs {
				if _, given := st.With[name]; in.Required && !given {
					t.Errorf("the README's workflow does not give the required input %q", name)
				}
			}
		}
	}
	if used == 0 {
		t.Error("the README's workflow does not use deploy/github-action")
	}
}

// python3 finds the interpreter the runners have. It fails the test when there is none: a gate
// test that silently skips proves nothing.
func python3(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("no python3 to run deploy/github-action/gate.py: install it (every GitHub and GitLab runner has one)")
	}
	return p
}

// gateRun is one run of gate.py as the GitHub runner starts it for a pull_request event, against
// the real bot; it returns the job summary it wrote.
type gateRun struct {
	url, token, title, author, sha string
	number                         int
	reason                         string   // INQUIRY_REASON
	base                           string   // the pull request's base commit, when it has one
	dir                            string   // where gate.py runs (the checkout); the test's own when empty
	env                            []string // more of the runner's environment, such as PATH
	python                         string   // the interpreter; python3 on PATH when empty
}

func (g gateRun) summary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	pr := map[string]any{
		"number":   g.number,
		"title":    g.title,
		"html_url": fmt.Sprintf("https://github.example/acme/shop/pull/%d", g.number),
		"user":     map[string]any{"login": g.author},
		"head":     map[string]any{"sha": g.sha},
	}
	if g.base != "" {
		pr["base"] = map[string]any{"sha": g.base}
	}
	event, err := json.Marshal(map[string]any{"number": g.number, "pull_request": pr})
	if err != nil {
		t.Fatal(err)
	}
	eventPath := filepath.Join(dir, "event.json")
	if err := os.WriteFile(eventPath, event, 0o600); err != nil {
		t.Fatal(err)
	}
	client, err := filepath.Abs("../../clients/python")
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(deployPath("github-action", "gate.py"))
	if err != nil {
		t.Fatal(err)
	}
	py := g.python
	if py == "" {
		py = python3(t)
	}
	cmd := exec.Command(py, script)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"PYTHONPATH=" + client,
		"GITHUB_ACTIONS=true",
		"GITHUB_REPOSITORY=acme/shop",
		"GITHUB_EVENT_NAME=pull_request",
		"GITHUB_EVENT_PATH=" + eventPath,
		"GITHUB_STEP_SUMMARY=" + filepath.Join(dir, "summary.md"),
		"GITHUB_OUTPUT=" + filepath.Join(dir, "output"),
		"INQUIRY_URL=" + g.url,
		"INQUIRY_TOKEN=" + g.token,
		// Ask without waiting: the summary of a question still pending shows all the text the
		// pull request brought.
		"INQUIRY_TIMEOUT=0",
		"INQUIRY_REASON=" + g.reason,
	}
	cmd.Env = append(cmd.Env, g.env...)
	cmd.Dir = g.dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("gate.py did not run: %v", err)
	}
	if strings.Contains(string(out), "Traceback") || strings.Contains(string(out), g.token) {
		t.Fatalf("gate.py failed or printed its token:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatalf("gate.py wrote no job summary (%v); its output:\n%s", err, out)
	}
	return string(b)
}

// shownText reads s as CommonMark reads a line built of plain characters, backslash escapes,
// the entities &amp; &lt; &gt; and code spans, and returns the text a reader sees. bare is the
// first ASCII punctuation character that is none of those: the only characters from which
// Markdown builds a link, an image, an autolink, HTML, emphasis or a table cell (CommonMark §2.4:
// an escaped character is literal; GitHub's extended autolinks need "://", "www." or an "@" in
// plain text).
func shownText(s string) (text string, bare string) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			b.WriteByte(s[i+1])
			i++
		case c == '&':
			entity := ""
			for _, e := range []string{"&amp;", "&lt;", "&gt;"} {
				if strings.HasPrefix(s[i:], e) {
					entity = e
				}
			}
			if entity == "" {
				return b.String(), s[i:]
			}
			b.WriteString(html.UnescapeString(entity))
			i += len(entity) - 1
		case c == '`':
			n := len(s[i:]) - len(strings.TrimLeft(s[i:], "`"))
			fence := s[i : i+n]
			rest := s[i+n:]
			end := -1
			for j := 0; j+n <= len(rest); j++ {
				if strings.HasPrefix(rest[j:], fence) && (j+n == len(rest) || rest[j+n] != '`') && (j == 0 || rest[j-1] != '`') {
					end = j
					break
				}
			}
			if end < 0 {
				return b.String(), s[i:]
			}
			code := rest[:end]
			if len(code) > 1 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
				code = code[1 : len(code)-1]
			}
			b.WriteString(code)
			i += n + end + n - 1
		case isASCIIPunct(c):
			return b.String(), s[i:]
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

func isASCIIPunct(c byte) bool {
	return c < 0x80 && unicode.IsPunct(rune(c)) || c < 0x80 && unicode.IsSymbol(rune(c))
}

// summaryCell is the value of the summary table's row named label, as written.
func summaryCell(t *testing.T, summary, label string) string {
	t.Helper()
	for _, line := range strings.Split(summary, "\n") {
		if v, ok := strings.CutPrefix(line, "| "+label+" | "); ok {
			return strings.TrimSuffix(v, " |")
		}
	}
	t.Fatalf("the job summary has no %q row:\n%s", label, summary)
	return ""
}

// TestGateSummaryShowsPullRequestTextAsText runs gate.py against the real bot with pull
// request titles written to disguise the job summary, and reads the summary as Markdown: what
// came from the pull request shows as the characters it is, with no link, image, HTML or
// emphasis of its own (before, only HTML was escaped: "[approved by security](https://evil)"
// rendered as a link and "![x](…)" as an image).
func TestGateSummaryShowsPullRequestTextAsText(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	r := runIn(t, t.TempDir(), []string{"BOT_URL=" + s.url, "BOT_TOKEN=" + s.admin}, "token", "create", "--name", "ci", "--scope", "ask")
	if r.code != 0 {
		t.Fatalf("bot token create:\n%s", r)
	}
	ci := lastLine(r.stdout)
	titles := []string{
		"[approved by security](https://evil)",
		"![x](https://evil/x.png)",
		"<img src=x>",
		"**bold** and _this_ ~~too~~",
		"see https://evil.example/approve or www.evil.example",
		"write to security@evil.example or @acme/security",
		"<https://evil.example> `code` | a cell | &lt; &amp; \\[x]",
		"[ref]: https://evil.example \"t\"",
	}
	for i, title := range titles {
		g := gateRun{url: s.url, token: ci, title: title, author: "octo", number: 100 + i, sha: fmt.Sprintf("%040x", i+1)}
		summary := g.summary(t)
		if !strings.HasPrefix(summary, "### Merge gate failed\n") {
			t.Fatalf("title %q: the summary does not start with the verdict:\n%s", title, summary)
		}
		lines := strings.Split(summary, "\n")
		written := map[string]string{
			"the verdict line":         lines[2],
			"the question cell":        summaryCell(t, summary, "question"),
			"the change cell":          summaryCell(t, summary, "change"),
			"the may-not-approve cell": summaryCell(t, summary, "may not approve"),
		}
		for where, md := range written {
			if _, bare := shownText(md); bare != "" {
				t.Errorf("title %q: %s leaves %q unescaped, which Markdown may read as syntax: %s", title, where, bare, md)
			}
		}
		shown, _ := shownText(written["the change cell"])
		if want := fmt.Sprintf("Pull request #%d \"%s\" in acme/shop by octo", 100+i, title); shown != want {
			t.Errorf("title %q: the change cell shows %q, want %q", title, shown, want)
		}
	}
}

// TestGateSummaryPrintsWhatWouldRewriteIt answers the gate's question with a reason written to
// disguise the summary — a link, and a zero-width space that shows as nothing — and reads the
// summary of the re-run that picks the answer up: the reason is text, and the invisible character
// shows as its code ⟨U+200B⟩. A title with a right-to-left override (which would show the words
// after it reversed) is refused by the bot, and the summary that says so shows it as ⟨U+202E⟩.
func TestGateSummaryPrintsWhatWouldRewriteIt(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	token := func(name, scope string) string {
		r := runIn(t, t.TempDir(), []string{"BOT_URL=" + s.url, "BOT_TOKEN=" + s.admin}, "token", "create", "--name", name, "--scope", scope)
		if r.code != 0 {
			t.Fatalf("bot token create %s:\n%s", name, r)
		}
		return lastLine(r.stdout)
	}
	ci := token("ci", "ask")
	g := gateRun{url: s.url, token: ci, title: "Fix the cache", author: "octo", number: 7, sha: strings.Repeat("ab", 20), reason: "on_no"}
	first := g.summary(t)
	key := regexp.MustCompile(`inq_[a-z0-9]+`).FindString(first)
	if key == "" {
		t.Fatalf("the first run's summary names no inquiry:\n%s", first)
	}
	body, err := json.Marshal(map[string]any{"value": "no", "text": "[approved by security](https://evil)\u200b"})
	if err != nil {
		t.Fatal(err)
	}
	if code, resp := call(t, "POST", s.url+"/v1/inquiries/"+key+"/answer", token("ana", "answer"), string(body)); code != 200 {
		t.Fatalf("answering %s: %d %s", key, code, resp)
	}
	summary := g.summary(t)
	verdict := strings.Split(summary, "\n")[2]
	shown, bare := shownText(verdict)
	if bare != "" {
		t.Errorf("the verdict line leaves %q unescaped, which Markdown may read as syntax: %s", bare, verdict)
	}
	if want := "rejected by ana ([approved by security](https://evil)⟨U+200B⟩) (" + key + ")"; shown != want {
		t.Errorf("the verdict line shows %q, want %q", shown, want)
	}

	refused := gateRun{url: s.url, token: ci, title: "Fix \u202edesrever", author: "octo", number: 8, sha: strings.Repeat("cd", 20)}
	summary = refused.summary(t)
	if !strings.HasPrefix(summary, "### Merge gate could not ask\n") {
		t.Fatalf("a title with U+202E was not refused:\n%s", summary)
	}
	if strings.ContainsRune(summary, '\u202e') {
		t.Errorf("the summary carries the override U+202E itself, which reverses what follows it:\n%s", summary)
	}
	if shown, _ := shownText(summaryCell(t, summary, "change")); shown != `Pull request #8 "Fix ⟨U+202E⟩desrever" in acme/shop by octo` {
		t.Errorf("the change cell shows %q, want the override as its code", shown)
	}
}

// TestDeployGitLabMergeGateFetchesAPinnedScript runs the template's fetch step in sh against a
// repository of its own whose main branch moved past the release: a commit and a tag fetch the
// release's script, a branch name and an empty INQUIRY_BOT_REF fetch nothing and fail the job
// (before, the template cloned the branch main: whatever was pushed to it last ran, with the
// gate's token, and a commit could not be named at all).
func TestDeployGitLabMergeGateFetchesAPinnedScript(t *testing.T) {
	t.Parallel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("no git to run the GitLab template's fetch step with: install it (the template's python image has it)")
	}
	home := t.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	}
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gitBin, append([]string{"-C", repo}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	script := filepath.Join(repo, "deploy", "github-action", "gate.py")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	commit := func(content string) string {
		t.Helper()
		if err := os.WriteFile(script, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", ".")
		git("commit", "--quiet", "-m", content)
		return git("rev-parse", "HEAD")
	}
	git("init", "--quiet", "--initial-branch=main")
	release := commit("# the release\n")
	git("tag", "v1.0.0")
	commit("# pushed to main afterwards\n")

	job := decodeDocs[map[string]gitlabJob](t, deployPath("gitlab", "merge-gate.yml"), true)[0][".inquiry_merge_gate"]
	fetch := job.Script[0]
	if !strings.Contains(fetch, "INQUIRY_BOT_REF") {
		t.Fatalf("the template's first step does not fetch the script at INQUIRY_BOT_REF: %s", fetch)
	}
	for _, tc := range []struct {
		ref     string
		fetched bool
	}{
		{release, true},
		{"v1.0.0", true},
		{"main", false},
		{"", false},
	} {
		dir := filepath.Join(t.TempDir(), "inquiry-bot")
		cmd := exec.Command("sh", "-c", fetch)
		cmd.Env = append(slices.Clone(env), "INQUIRY_BOT_REPO=file://"+repo, "INQUIRY_BOT_REF="+tc.ref, "INQUIRY_BOT_DIR="+dir)
		out, err := cmd.CombinedOutput()
		got, _ := os.ReadFile(filepath.Join(dir, "deploy", "github-action", "gate.py"))
		switch {
		case tc.fetched && (err != nil || string(got) != "# the release\n"):
			t.Errorf("INQUIRY_BOT_REF=%q: fetched %q (%v), want the release's script\n%s", tc.ref, got, err, out)
		case !tc.fetched && (err == nil || got != nil):
			t.Errorf("INQUIRY_BOT_REF=%q: the step passed or fetched %q; a branch or nothing must fail the job\n%s", tc.ref, got, out)
		case tc.ref == "" && !strings.Contains(string(out), "set INQUIRY_BOT_REF"):
			t.Errorf("INQUIRY_BOT_REF empty: the job fails without saying what to set:\n%s", out)
		}
	}
}
