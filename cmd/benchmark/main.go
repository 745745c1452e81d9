// Command benchmark measures the inquiry bot against what bounds it, on one run of one machine,
// and prints one table (docs/BENCHMARKS.md explains every row):
//
//	go run ./cmd/benchmark            # the full run (about four minutes on 2 cores)
//	go run ./cmd/benchmark -quick     # a CI-size run (about a minute)
//
// It builds the bot and runs the real `bot serve` as separate processes on 127.0.0.1:0 (their
// resident memory is read from /proc), puts the tests' fake Slack (slackapp/slackfake) behind
// them, and creates — and drops on the way out — PostgreSQL databases of its own on the server
// named by -pg (default: TEST_DATABASE_URL, else the local cluster). Every load goes to
// 127.0.0.1 only, and every loop is bounded in count and in time.
//
// Flags:
//
//	-quick       shorter runs and smaller sizes (the documented figures come from the full run)
//	-pg URL      the PostgreSQL server (its database is only used to create and drop others)
//	-only LIST   run only these rows, e.g. -only 1,3,7
//	-keep        keep the work folder (bot logs, pgbench script) and print where it is
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/inquiry-bot/bot/storage"
)

const defaultPG = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// row is one line of the table.
type row struct {
	n, what, figure, bound, ratio, target, met string
}

// params sizes a run.
type params struct {
	createRounds          int
	createWarm, createDur time.Duration
	clients               int
	clicks                int
	clickRate             float64
	fastClickRate         float64       // row 3c
	fastClickDur          time.Duration // row 3c
	follow, followAnswers int           // row 8: questions followed, answers among them
	followRate            float64       // row 8: answers per second
	wakeN                 int
	waiters               int
	sweepSmall, sweepBig  int
	expireN, sweepReps    int
	benchtime             string
}

var full = params{
	createRounds: 2, createWarm: 2 * time.Second, createDur: 10 * time.Second, clients: 32,
	clicks: 3000, clickRate: 200,
	fastClickRate: 1000, fastClickDur: 10 * time.Second,
	follow: 100_000, followAnswers: 1000, followRate: 100,
	wakeN:      300,
	waiters:    10_000,
	sweepSmall: 10_000, sweepBig: 1_000_000, expireN: 10_000, sweepReps: 7,
	benchtime: "1s",
}

// quick is full with fewer rounds, less work and shorter runs: the rates, the clients, the
// waiters and the small sweeps stay as they are.
var quick = func() params {
	p := full
	p.createRounds, p.createWarm, p.createDur = 1, time.Second, 4*time.Second
	p.clicks, p.fastClickDur = 600, 3*time.Second
	p.follow, p.followAnswers = 10_000, 300
	p.wakeN, p.sweepBig, p.sweepReps = 60, 100_000, 5
	p.benchtime = "200ms"
	return p
}()

type bench struct {
	ctx    context.Context
	p      params
	quick  bool
	root   string
	work   string
	bin    string
	pg     *pg
	rows   []row
	notes  []string
	failed bool
	// busyBefore is the machine's CPU use in the second before the run, by others.
	busyBefore float64
}

func (b *bench) add(r row) { b.rows = append(b.rows, r) }

func (b *bench) note(format string, a ...any) {
	b.notes = append(b.notes, fmt.Sprintf(format, a...))
}

func (b *bench) fail(n, what string, err error) {
	b.failed = true
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	b.add(row{n: n, what: what, figure: "error: " + msg, bound: "—", ratio: "—", target: "—", met: "—"})
	fmt.Fprintf(os.Stderr, "benchmark: row %s: %v\n", n, err)
}

func progress(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s  "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
}

func main() {
	os.Exit(run())
}

func run() int {
	quickFlag := flag.Bool("quick", false, "a short, CI-size run (the documented figures come from the full run)")
	pgFlag := flag.String("pg", "", "PostgreSQL server URL (default: TEST_DATABASE_URL, else "+defaultPG+")")
	only := flag.String("only", "", "comma-separated rows to run (1, 2, 3, 3c, 4, 5, 6, 7, 8, 9, m); default all")
	keep := flag.Bool("keep", false, "keep the work folder (bot logs) and print its path")
	flag.Parse()

	pgURL := *pgFlag
	if pgURL == "" {
		pgURL = os.Getenv("TEST_DATABASE_URL")
	}
	if pgURL == "" {
		pgURL = defaultPG
	}
	want := map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		if s = strings.TrimSpace(s); s != "" {
			want[s] = true
		}
	}
	selected := func(n string) bool { return len(want) == 0 || want[n] }

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The whole run is bounded: a full run takes about four minutes.
	ctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()

	b := &bench{ctx: ctx, p: full, quick: *quickFlag}
	if b.quick {
		b.p = quick
	}
	began := time.Now()
	var err error
	if b.root, err = moduleRoot(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "benchmark:", err)
		return 2
	}
	if b.work, err = os.MkdirTemp("", "bot-benchmark-"); err != nil {
		fmt.Fprintln(os.Stderr, "benchmark:", err)
		return 2
	}
	defer func() {
		if *keep {
			fmt.Fprintln(os.Stderr, "benchmark: work folder kept:", b.work)
			return
		}
		os.RemoveAll(b.work)
	}()
	defer stopAllBots() // runs before the databases are dropped and the folder removed

	if err := raiseFileLimit(b.p.waiters); err != nil {
		fmt.Fprintln(os.Stderr, "benchmark:", err)
		return 2
	}
	if b.pg, err = openPG(ctx, pgURL); err != nil {
		fmt.Fprintln(os.Stderr, "benchmark:", err)
		return 2
	}
	defer b.pg.dropAll()

	b.busyBefore = busyFor(time.Second)
	if b.busyBefore > 0.2 {
		progress("warning: the machine was %.0f%% busy before the run: the figures will suffer", b.busyBefore*100)
	}

	progress("building the bot")
	if b.bin, err = buildBot(ctx, b.root, b.work); err != nil {
		fmt.Fprintln(os.Stderr, "benchmark:", err)
		return 2
	}

	steps := []struct {
		n string
		f func()
	}{
		{"1", b.createPostgres},
		{"2", b.createSQLite},
		{"3", b.slackAck},
		{"3c", b.slackAckFast},
		{"4", b.wake},
		{"5", b.memory},
		{"6", b.sweeps},
		{"7", b.goBench},
		{"8", b.follow},
		{"9", b.clickMachinery},
		{"m", b.machineryStorage},
	}
	for _, s := range steps {
		if ctx.Err() != nil {
			break
		}
		if selected(s.n) {
			b.settle(s.n)
			s.f()
		}
	}
	b.print(os.Stdout, pgURL, time.Since(began))
	if ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "benchmark: stopped:", ctx.Err())
		return 1
	}
	if b.failed {
		return 1
	}
	return 0
}

// raiseFileLimit raises this process's soft RLIMIT_NOFILE to the hard limit (Go has done so at
// start-up since Go 1.19; this makes it explicit and checks the hard limit leaves room for the
// waiters). The bot, a Go program too, raises its own soft limit the same way.
func raiseFileLimit(waiters int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return fmt.Errorf("raise RLIMIT_NOFILE: %w", err)
		}
	}
	need := uint64(waiters) + 2000
	if lim.Max < need {
		return fmt.Errorf("the open-file limit is %d; %d waiters need about %d in this process and in the bot: raise it (ulimit -Hn) and run again", lim.Max, waiters, need)
	}
	return nil
}

// print writes the table (Markdown, so that it pastes into docs/BENCHMARKS.md) and the notes.
func (b *bench) print(w io.Writer, pgURL string, took time.Duration) {
	mode := "full"
	if b.quick {
		mode = "quick"
	}
	fmt.Fprintf(w, "\n%s run, %s, %s, GOMAXPROCS %d, %d CPUs (%s), PostgreSQL %s; machine %.0f%% busy before the run; took %s\n\n",
		mode, time.Now().Format("2006-01-02"), runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), cpuModel(),
		storage.RedactURL(pgURL), b.busyBefore*100, took.Round(time.Second))
	fmt.Fprintf(w, "every bot ran with the README's limits off: %s\n\n", strings.Join(benchLimits, " "))
	fmt.Fprintln(w, "| # | what was measured | figure | bound compared in the same run | ratio | target | met? |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range b.rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", r.n, r.what, r.figure, r.bound, r.ratio, r.target, r.met)
	}
	if len(b.notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range b.notes {
			fmt.Fprintln(w, "- "+n)
		}
	}
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// busyFor is the share of the machine's CPU time that was busy during the next d.
func busyFor(d time.Duration) float64 {
	b0, a0 := machineCPU()
	time.Sleep(d)
	b1, a1 := machineCPU()
	if a1 <= a0 {
		return 0
	}
	return float64(b1-b0) / float64(a1-a0)
}

// settle waits, before row n, until the machine is quiet (under a tenth busy over a second),
// for at most settleFor: a row measures its own load, not what the row before left running
// (PostgreSQL vacuuming and checkpointing after row 1's floods, a bot still stopping). The wait
// is noted when it was needed.
func (b *bench) settle(n string) {
	const quiet, settleFor = 0.1, 60 * time.Second
	start := time.Now()
	busy := busyFor(time.Second)
	for busy >= quiet && time.Since(start) < settleFor {
		busy = busyFor(time.Second)
	}
	if waited := time.Since(start); waited > 1500*time.Millisecond {
		progress("  (row %s waited %s for the machine to settle: %.0f%% busy in the last second)", n, waited.Round(time.Second), busy*100)
		b.note("row %s started after %s waiting for the machine to settle (%.0f%% busy in the second before it)", n, waited.Round(time.Second), busy*100)
	}
}
