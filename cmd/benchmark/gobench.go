package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// goBench is one line of go test -bench output.
type goBench struct {
	pkg, name     string // name without the -GOMAXPROCS suffix
	nsPerOp       float64
	bytesPerOp    int64
	allocsPerOp   int64
	iterations    int64
	hasMem, hasNs bool
}

// benchPackages and benchPattern select the benchmarks of the hot pure paths.
var (
	benchPackages = []string{"./blockkit", "./inquiry", "./slackapp", "./client"}
	benchPattern  = "^(BenchmarkMessage12Options|BenchmarkCapAnswer|BenchmarkVerify)$"
)

// runGoBench runs go test -bench for the pure paths and returns the results by "pkg name".
func runGoBench(ctx context.Context, root, benchtime string) (map[string]goBench, string, error) {
	args := append([]string{"test", "-run", "^$", "-bench", benchPattern, "-benchmem", "-count", "1", "-benchtime", benchtime}, benchPackages...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	line := "go " + strings.Join(args, " ")
	if err := cmd.Run(); err != nil {
		return nil, line, fmt.Errorf("%s: %w\n%s", line, err, out.String())
	}
	return parseGoBench(out.String()), line, nil
}

// parseGoBench reads go test -bench output: "pkg:" lines and benchmark lines.
func parseGoBench(out string) map[string]goBench {
	res := map[string]goBench{}
	pkg := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimSpace(p)
			if i := strings.LastIndex(pkg, "/"); i >= 0 {
				pkg = pkg[i+1:]
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		b := goBench{pkg: pkg, name: f[0]}
		if i := strings.LastIndex(b.name, "-"); i > 0 {
			if _, err := strconv.Atoi(b.name[i+1:]); err == nil {
				b.name = b.name[:i]
			}
		}
		b.iterations, _ = strconv.ParseInt(f[1], 10, 64)
		for i := 2; i+1 < len(f); i += 2 {
			v, unit := f[i], f[i+1]
			switch unit {
			case "ns/op":
				b.nsPerOp, _ = strconv.ParseFloat(v, 64)
				b.hasNs = true
			case "B/op":
				b.bytesPerOp, _ = strconv.ParseInt(v, 10, 64)
				b.hasMem = true
			case "allocs/op":
				b.allocsPerOp, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		if b.hasNs {
			res[pkg+" "+b.name] = b
		}
	}
	return res
}
