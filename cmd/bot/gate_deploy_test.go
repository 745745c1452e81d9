package main

// The merge gate's files (deploy/github-action/action.yml and deploy/gitlab/merge-gate.yml) are
// checked here, since no workflow engine runs in CI: action.yml is decoded strictly as action
// metadata (an unknown key is an error), has the inputs of DESIGN §18, runs gate.py as a composite
// step with every input handed to it, and points PYTHONPATH at the client; the GitLab template
// runs the same script with the same variables. The script itself is tested against the real bot
// by clients/python/tests/test_gate.py.

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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

// gateInputs are the inputs DESIGN §18 fixes.
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
			t.Errorf("action.yml has no input %q (DESIGN §18)", in)
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
	client := filepath.Join(deployDir, "github-action", strings.TrimPrefix(pp, prefix), "inquiry_bot.py")
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
