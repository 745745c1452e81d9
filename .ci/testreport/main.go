// Command testreport reads the event stream of `go test -json` on its standard input, prints a
// readable log as the packages finish, and exits 1 unless the run was whole: CI's .ci/run pipes
// the test run and the benchmark run through it. It lives under .ci, outside ./..., so it is no
// part of the product or its tests; it uses the standard library only.
//
// A test run (the default) fails when
//   - a test failed, a package failed (a panic, a time-out, a build error) or a test began and
//     never finished;
//   - a test was skipped, unless it is a fuzz seed input: a direct subtest FuzzX/NAME of a fuzz
//     target (a top-level test whose name starts with "Fuzz" — a test function cannot, go vet
//     refuses a FuzzX that takes *testing.T) where NAME is "seed#N" (an f.Add seed) or the name of
//     a file of the package's testdata/fuzz/FuzzX (a corpus entry). Those skips are the fuzz
//     function's own t.Skip for an input it does not apply to, which go test reports as a skipped
//     subtest; a skip anywhere else — the fuzz target itself, a subtest of a seed, any other test —
//     fails the run;
//   - a package of -postgres ran no PostgreSQL subtest: a subtest with a name element below the
//     top level containing "postgres" (storagetest.Each and gateway's each name them "sqlite" and
//     "postgres"), counted when it passed or failed, never when it was skipped;
//   - a "sqlite" subtest ran without its "postgres" sibling (the PostgreSQL half of an Each was
//     dropped);
//   - no test ran at all.
//
// It ends with the plain closing line "N passed, N failed, N skipped" (every test and subtest).
//
// With -bench the stream is a benchmark run (-run '^$' -bench .): every benchmark must run to
// its end — a failed or skipped benchmark, or none at all, fails the run — and each one's result
// line is printed.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

type event struct {
	Time        time.Time
	Action      string
	Package     string
	ImportPath  string // build-output, build-fail
	Test        string
	Output      string
	Elapsed     float64
	FailedBuild string
}

type test struct {
	name   string
	out    []string
	result string // "", pass, fail, skip
}

type pkg struct {
	path     string
	out      []string // output not of a test: panics, time-outs, FAIL lines
	tests    map[string]*test
	order    []string
	result   string
	elapsed  float64
	passed   int
	failed   int
	skipped  int
	postgres int
	failedBy []string
}

type report struct {
	w        io.Writer
	module   string
	bench    bool
	pkgs     map[string]*pkg
	order    []string
	passed   int
	failed   int
	skipped  int
	seedSkip []string // allowed: fuzz seed inputs
	badSkip  []string // anything else skipped
	problems []string // failures of the whole run, said at the end
	stray    int      // lines that were not JSON
	began    time.Time
}

var seedName = regexp.MustCompile(`^seed#[0-9]+$`)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout)) }

// run is the command: 0 when the run was whole, 1 when not, 2 when it could not tell.
func run(args []string, in io.Reader, w io.Writer) int {
	fs := flag.NewFlagSet("testreport", flag.ContinueOnError)
	postgresFlag := fs.String("postgres", "", "comma-separated packages, relative to the module (storage,gateway,…), that must run PostgreSQL subtests")
	bench := fs.Bool("bench", false, "the stream is a benchmark run")
	jsonOut := fs.String("json", "", "also write the raw event stream to this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	module, err := modulePath("go.mod")
	if err != nil {
		fmt.Fprintln(w, "testreport:", err)
		return 2
	}
	r := &report{w: w, module: module, bench: *bench, pkgs: map[string]*pkg{}, began: time.Now()}

	var raw io.Writer = io.Discard
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err != nil {
			fmt.Fprintln(w, "testreport:", err)
			return 2
		}
		defer f.Close()
		raw = f
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		raw.Write(line)
		raw.Write([]byte{'\n'})
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			r.stray++
			fmt.Fprintf(r.w, "%s\n", line)
			continue
		}
		r.event(e)
	}
	if err := sc.Err(); err != nil {
		r.problems = append(r.problems, "reading the event stream: "+err.Error())
	}
	var postgres []string
	if *postgresFlag != "" {
		postgres = strings.Split(*postgresFlag, ",")
	}
	if !r.finish(postgres) {
		return 1
	}
	return 0
}

// modulePath reads the module line of go.mod.
func modulePath(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("run from the module's root: %w", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("%s has no module line", file)
}

func (r *report) short(path string) string {
	if path == r.module {
		return "."
	}
	return strings.TrimPrefix(path, r.module+"/")
}

func (r *report) pkg(path string) *pkg {
	p := r.pkgs[path]
	if p == nil {
		p = &pkg{path: path, tests: map[string]*test{}}
		r.pkgs[path] = p
		r.order = append(r.order, path)
	}
	return p
}

func (p *pkg) test(name string) *test {
	t := p.tests[name]
	if t == nil {
		t = &test{name: name}
		p.tests[name] = t
		p.order = append(p.order, name)
	}
	return t
}

func (r *report) event(e event) {
	switch e.Action {
	case "build-output":
		fmt.Fprint(r.w, e.Output)
		return
	case "build-fail":
		r.problems = append(r.problems, "build failed: "+e.ImportPath)
		return
	}
	if e.Package == "" {
		return
	}
	p := r.pkg(e.Package)
	if e.Test == "" {
		switch e.Action {
		case "output":
			p.out = append(p.out, e.Output)
		case "pass", "fail", "skip":
			p.result, p.elapsed = e.Action, e.Elapsed
			r.packageDone(p, e)
		}
		return
	}
	t := p.test(e.Test)
	switch e.Action {
	case "output":
		t.out = append(t.out, e.Output)
	case "pass", "fail", "skip":
		t.result = e.Action
		r.testDone(p, t)
	}
}

func (r *report) testDone(p *pkg, t *test) {
	switch t.result {
	case "pass":
		p.passed++
		r.passed++
	case "fail":
		p.failed++
		r.failed++
		p.failedBy = append(p.failedBy, t.name)
		fmt.Fprintf(r.w, "--- FAIL %s %s\n", r.short(p.path), t.name)
		r.printOutput(t.out)
	case "skip":
		p.skipped++
		r.skipped++
		reason := skipReason(t.out)
		if where, ok := r.fuzzSeed(p.path, t.name); ok && !r.bench {
			r.seedSkip = append(r.seedSkip, fmt.Sprintf("%s %s (%s): %s", r.short(p.path), t.name, where, reason))
		} else {
			r.badSkip = append(r.badSkip, fmt.Sprintf("%s %s: %s", r.short(p.path), t.name, reason))
			fmt.Fprintf(r.w, "--- SKIP %s %s (a skip fails this run)\n", r.short(p.path), t.name)
			r.printOutput(t.out)
		}
	}
	if t.result != "fail" && !r.bench {
		t.out = nil // nothing more to show of it
	}
	if !r.bench && t.result != "skip" && isPostgres(t.name) {
		p.postgres++
	}
}

// isPostgres tells a PostgreSQL subtest: a name element below the top level says postgres.
func isPostgres(name string) bool {
	parts := strings.Split(name, "/")
	for _, part := range parts[1:] {
		if strings.Contains(strings.ToLower(part), "postgres") {
			return true
		}
	}
	return false
}

// fuzzSeed tells whether name is a seed input of a fuzz target, and which.
func (r *report) fuzzSeed(pkgPath, name string) (string, bool) {
	parts := strings.Split(name, "/")
	if len(parts) != 2 || !strings.HasPrefix(parts[0], "Fuzz") {
		return "", false
	}
	if seedName.MatchString(parts[1]) {
		return "an f.Add seed", true
	}
	dir := "."
	if pkgPath != r.module {
		if !strings.HasPrefix(pkgPath, r.module+"/") {
			return "", false
		}
		dir = strings.TrimPrefix(pkgPath, r.module+"/")
	}
	file := filepath.Join(dir, "testdata", "fuzz", parts[0], parts[1])
	if fi, err := os.Stat(file); err == nil && fi.Mode().IsRegular() {
		return "corpus file " + file, true
	}
	return "", false
}

// skipReason is what the test said before its --- SKIP line.
func skipReason(out []string) string {
	var said []string
	for _, l := range out {
		s := strings.TrimSpace(l)
		if s == "" || strings.HasPrefix(s, "=== ") || strings.HasPrefix(s, "--- ") {
			continue
		}
		said = append(said, s)
	}
	if len(said) == 0 {
		return "(no reason given)"
	}
	return strings.Join(said, " / ")
}

func (r *report) printOutput(out []string) {
	for _, l := range strings.SplitAfter(strings.Join(out, ""), "\n") {
		if l == "" || strings.HasPrefix(l, "=== ") {
			continue
		}
		fmt.Fprintf(r.w, "    %s", l)
		if !strings.HasSuffix(l, "\n") {
			fmt.Fprintln(r.w)
		}
	}
}

func (r *report) packageDone(p *pkg, e event) {
	name := r.short(p.path)
	// A test that began and has no result: the package died under it (a panic, a time-out).
	var unfinished []string
	for _, n := range p.order {
		t := p.tests[n]
		if t.result != "" {
			continue
		}
		if r.bench && strings.HasPrefix(n, "Benchmark") && p.result == "pass" {
			t.result = "pass" // a benchmark that ends well has no pass event of its own
			if isLeaf(p, n) { // a benchmark with sub-benchmarks is counted by them
				p.passed++
				r.passed++
			}
			continue
		}
		unfinished = append(unfinished, n)
		p.failed++
		r.failed++
		fmt.Fprintf(r.w, "--- DID NOT FINISH %s %s\n", name, n)
		r.printOutput(t.out)
	}
	if len(unfinished) > 0 {
		r.problems = append(r.problems, fmt.Sprintf("%s: %d tests began and never finished", name, len(unfinished)))
	}
	switch {
	case p.result == "skip" && len(p.tests) == 0:
		fmt.Fprintf(r.w, "%-5s %-26s (no test files)\n", "-", name)
		return
	case p.result == "fail":
		if e.FailedBuild != "" {
			r.problems = append(r.problems, fmt.Sprintf("%s: build failed (%s)", name, e.FailedBuild))
		} else {
			r.problems = append(r.problems, name+": package failed")
		}
		// Its own output holds the panic or the time-out, and go test's FAIL line.
		r.printOutput(p.out)
	}
	if r.bench {
		fmt.Fprintf(r.w, "%-5s %-26s %6.1fs  %d benchmarks\n", p.result, name, p.elapsed, len(leaves(p)))
		for _, n := range leaves(p) {
			t := p.tests[n]
			if res := benchResult(t.out); res != "" {
				fmt.Fprintf(r.w, "        %s\n", res)
			} else if t.result == "pass" {
				fmt.Fprintf(r.w, "        %s: no result line\n", n)
			}
		}
		return
	}
	fmt.Fprintf(r.w, "%-5s %-26s %6.1fs  %d passed, %d failed, %d skipped; PostgreSQL subtests run: %d\n",
		p.result, name, p.elapsed, p.passed, p.failed, p.skipped, p.postgres)
}

// leaves are the benchmarks of p that have no sub-benchmarks: the ones that report a result.
func leaves(p *pkg) []string {
	var out []string
	for _, n := range p.order {
		if isLeaf(p, n) {
			out = append(out, n)
		}
	}
	return out
}

func isLeaf(p *pkg, name string) bool {
	for _, m := range p.order {
		if strings.HasPrefix(m, name+"/") {
			return false
		}
	}
	return true
}

// benchResult is a benchmark's result line ("BenchmarkX-2  1  81723 ns/op …"), which go test
// writes in pieces.
func benchResult(out []string) string {
	for _, l := range strings.Split(strings.Join(out, ""), "\n") {
		if strings.Contains(l, " ns/op") {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	return ""
}

// finish says what the run was and whether it passed.
func (r *report) finish(postgres []string) bool {
	for _, path := range r.order {
		if r.pkgs[path].result == "" {
			r.problems = append(r.problems, r.short(path)+": the stream ended before the package did")
		}
	}
	if r.stray > 0 {
		fmt.Fprintf(r.w, "(%d lines of the stream were not go test -json events; shown as they came)\n", r.stray)
	}
	fmt.Fprintf(r.w, "\ngo test ran for %.0f s\n", time.Since(r.began).Seconds())
	if r.bench {
		return r.finishBench()
	}

	// The PostgreSQL half.
	if len(postgres) > 0 {
		fmt.Fprintln(r.w, "PostgreSQL subtests run, per package:")
		for _, name := range postgres {
			path := r.module + "/" + strings.TrimPrefix(strings.TrimSpace(name), "./")
			n := 0
			if p := r.pkgs[path]; p != nil {
				n = p.postgres
			}
			fmt.Fprintf(r.w, "  %-26s %d\n", r.short(path), n)
			if n == 0 {
				r.problems = append(r.problems, fmt.Sprintf("%s ran no PostgreSQL subtest (is TEST_DATABASE_URL set?)", r.short(path)))
			}
		}
	}
	var lone []string
	for _, path := range r.order {
		p := r.pkgs[path]
		for _, n := range p.order {
			t := p.tests[n]
			if !strings.HasSuffix(n, "/sqlite") || (t.result != "pass" && t.result != "fail") {
				continue
			}
			pg := p.tests[strings.TrimSuffix(n, "sqlite")+"postgres"]
			if pg == nil || (pg.result != "pass" && pg.result != "fail") {
				lone = append(lone, r.short(path)+" "+n)
			}
		}
	}
	if len(lone) > 0 {
		fmt.Fprintln(r.w, "SQLite subtests whose PostgreSQL sibling did not run:")
		for _, l := range lone {
			fmt.Fprintln(r.w, "  "+l)
		}
		r.problems = append(r.problems, fmt.Sprintf("%d SQLite subtests ran without their PostgreSQL sibling", len(lone)))
	}

	// Skips.
	fmt.Fprintf(r.w, "Skipped tests, other than fuzz seed inputs: %d\n", len(r.badSkip))
	for _, s := range r.badSkip {
		fmt.Fprintln(r.w, "  "+s)
	}
	fmt.Fprintf(r.w, "Fuzz seed inputs skipped by their fuzz function (allowed): %d\n", len(r.seedSkip))
	for _, s := range r.seedSkip {
		fmt.Fprintln(r.w, "  "+s)
	}
	if len(r.badSkip) > 0 {
		r.problems = append(r.problems, fmt.Sprintf("%d tests were skipped: a skipped test is a test CI did not run", len(r.badSkip)))
	}
	if r.failed > 0 {
		r.problems = append(r.problems, fmt.Sprintf("%d tests failed", r.failed))
	}
	if r.passed+r.failed == 0 {
		r.problems = append(r.problems, "no test ran")
	}
	ok := r.sayProblems()
	fmt.Fprintf(r.w, "%d passed, %d failed, %d skipped\n", r.passed, r.failed, r.skipped)
	return ok
}

func (r *report) finishBench() bool {
	if len(r.badSkip) > 0 {
		fmt.Fprintln(r.w, "Skipped benchmarks:")
		for _, s := range r.badSkip {
			fmt.Fprintln(r.w, "  "+s)
		}
		r.problems = append(r.problems, fmt.Sprintf("%d benchmarks were skipped", len(r.badSkip)))
	}
	if r.failed > 0 {
		r.problems = append(r.problems, fmt.Sprintf("%d benchmarks failed", r.failed))
	}
	if r.passed == 0 {
		r.problems = append(r.problems, "no benchmark ran")
	}
	ok := r.sayProblems()
	fmt.Fprintf(r.w, "benchmarks run once each: %d ran to the end, %d failed, %d skipped (sub-benchmarks counted, not their parents)\n", r.passed, r.failed, r.skipped)
	return ok
}

func (r *report) sayProblems() bool {
	if len(r.problems) == 0 {
		return true
	}
	sort.Strings(r.problems)
	fmt.Fprintln(r.w, "FAILED:")
	for _, p := range r.problems {
		fmt.Fprintln(r.w, "  "+p)
	}
	return false
}
