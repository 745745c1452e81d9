package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mod = "example.com/m"

// stream builds a go test -json stream: each step is "action pkg [test]".
func stream(t *testing.T, steps ...string) string {
	t.Helper()
	var b strings.Builder
	for _, s := range steps {
		f := strings.SplitN(s, " ", 3)
		e := map[string]any{"Action": f[0], "Package": mod + "/" + f[1]}
		if len(f) == 3 {
			e["Test"] = f[2]
		}
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// inModule runs the report in a module of its own, with a fuzz corpus file a/testdata/fuzz/FuzzA/c0ffee.
func inModule(t *testing.T, in string, args ...string) (int, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+mod+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(dir, "a", "testdata", "fuzz", "FuzzA")
	if err := os.MkdirAll(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(corpus, "c0ffee"), []byte("go test fuzz v1\nstring(\"x\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out bytes.Buffer
	code := run(args, strings.NewReader(in), &out)
	return code, out.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// whole is a run that passes: a test and its sqlite/postgres subtests, package a.
var whole = []string{
	"start a", "run a TestX", "run a TestX/sqlite", "run a TestX/postgres",
	"pass a TestX/sqlite", "pass a TestX/postgres", "pass a TestX",
}

func TestWholeRunPasses(t *testing.T) {
	code, out := inModule(t, stream(t, append(whole, "pass a")...), "-postgres", "a")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if got := lastLine(out); got != "3 passed, 0 failed, 0 skipped" {
		t.Errorf("closing line %q", got)
	}
	if !strings.Contains(out, "Skipped tests, other than fuzz seed inputs: 0") || !strings.Contains(out, "  a                          1\n") {
		t.Errorf("no skip count or PostgreSQL count:\n%s", out)
	}
}

func TestASkipFails(t *testing.T) {
	code, out := inModule(t, stream(t, append(whole, "run a TestY", "skip a TestY", "pass a")...), "-postgres", "a")
	if code != 1 || !strings.Contains(out, "--- SKIP a TestY") || lastLine(out) != "3 passed, 0 failed, 1 skipped" {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestFuzzSeedSkips(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"FuzzA/seed#3", true},           // an f.Add seed
		{"FuzzA/c0ffee", true},           // a corpus file
		{"FuzzA/deadbeef", false},        // no such corpus file
		{"FuzzA", false},                 // the fuzz target itself
		{"FuzzA/seed#3/inner", false},    // a subtest of a seed
		{"TestFuzzA/seed#3", false},      // not a fuzz target
		{"TestA/FuzzA/seed#3", false},    // not top level
		{"FuzzA/seed#x", false},          // not a seed's name
		{"FuzzB/c0ffee", false},          // the file is another target's
		{"FuzzA/..", false},              // not a file
		{"FuzzA/../FuzzA/c0ffee", false}, // not a direct subtest
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := inModule(t, stream(t, append(whole, "run a "+tc.name, "skip a "+tc.name, "pass a")...), "-postgres", "a")
			if (code == 0) != tc.ok {
				t.Fatalf("exit %d, want ok=%v:\n%s", code, tc.ok, out)
			}
		})
	}
}

func TestPostgresMissing(t *testing.T) {
	code, out := inModule(t, stream(t, "start a", "run a TestX", "run a TestX/sqlite", "pass a TestX/sqlite", "pass a TestX", "pass a"), "-postgres", "a,b")
	if code != 1 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{"a ran no PostgreSQL subtest", "b ran no PostgreSQL subtest", "a TestX/sqlite"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

func TestSkippedPostgresDoesNotCount(t *testing.T) {
	code, out := inModule(t, stream(t, "start a", "run a TestX", "run a TestX/postgres", "skip a TestX/postgres", "pass a TestX", "pass a"), "-postgres", "a")
	if code != 1 || !strings.Contains(out, "a ran no PostgreSQL subtest") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestFailures(t *testing.T) {
	for name, steps := range map[string][]string{
		"a test failed":          append(whole, "run a TestY", "fail a TestY", "fail a"),
		"a test never finished":  append(whole, "run a TestY", "fail a"),
		"the stream was cut":     whole,
		"no test ran":            {"start a", "pass a"},
		"the package alone died": append(whole, "fail a"),
	} {
		t.Run(name, func(t *testing.T) {
			code, out := inModule(t, stream(t, steps...))
			if code != 1 {
				t.Fatalf("exit %d:\n%s", code, out)
			}
		})
	}
}

func TestBuildFailed(t *testing.T) {
	in := `{"ImportPath":"example.com/m/b [example.com/m/b.test]","Action":"build-output","Output":"b/b.go:3:1: syntax error\n"}
{"ImportPath":"example.com/m/b [example.com/m/b.test]","Action":"build-fail"}
` + stream(t, append(whole, "pass a")...)
	code, out := inModule(t, in)
	if code != 1 || !strings.Contains(out, "b/b.go:3:1: syntax error") || !strings.Contains(out, "build failed: example.com/m/b") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestBench(t *testing.T) {
	ok := []string{"start a", "run a BenchmarkX", "run a BenchmarkX/sub", "pass a"}
	if code, out := inModule(t, stream(t, ok...), "-bench"); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for name, steps := range map[string][]string{
		"skipped":    {"start a", "run a BenchmarkX", "run a BenchmarkX/sub", "skip a BenchmarkX/sub", "pass a"},
		"failed":     {"start a", "run a BenchmarkX", "fail a BenchmarkX", "fail a"},
		"none ran":   {"start a", "pass a"},
		"fuzz seed?": {"start a", "run a BenchmarkX", "run a FuzzA/seed#1", "skip a FuzzA/seed#1", "pass a"},
	} {
		t.Run(name, func(t *testing.T) {
			if code, out := inModule(t, stream(t, steps...), "-bench"); code != 1 {
				t.Fatalf("exit %d:\n%s", code, out)
			}
		})
	}
}
