package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is USER_HZ, the unit of /proc's CPU times: 100 on every Linux the benchmark is
// meant for.
const clockTick = 10 * time.Millisecond

// cpuSnap is a snapshot of CPU time spent so far: by the bot, by this process (the load
// client), by every postgres process on this machine, and by the machine in all.
type cpuSnap struct {
	at                      time.Time
	bot, self, postgres     time.Duration
	machineBusy, machineAll time.Duration
}

// procCPU reads the CPU time of a process and of its ended children from /proc/PID/stat.
func procCPU(pid int) (time.Duration, string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", err
	}
	s := string(b)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return 0, "", fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	comm := s[open+1 : closing]
	f := strings.Fields(s[closing+1:])
	// After the command: state is field 3 of the man page; utime, stime, cutime and cstime are
	// 14 to 17. The children's times count: the postmaster's hold its ended backends'.
	if len(f) < 15 {
		return 0, comm, fmt.Errorf("short /proc/%d/stat", pid)
	}
	var sum int64
	for _, v := range f[11:15] {
		n, _ := strconv.ParseInt(v, 10, 64)
		sum += n
	}
	return time.Duration(sum) * clockTick, comm, nil
}

// postgresCPU sums the CPU time of every process named postgres: the server, its live
// backends, and (in the postmaster's children times) the ended ones. Those of other clients
// count too: noise on a shared machine.
func postgresCPU() time.Duration {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var sum time.Duration
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		t, comm, err := procCPU(pid)
		if err == nil && comm == "postgres" {
			sum += t
		}
	}
	return sum
}

// machineCPU reads the first line of /proc/stat: busy and total time of every CPU.
func machineCPU() (busy, all time.Duration) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0, 0
	}
	for i, v := range f[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		if i >= 8 { // guest times are already in user
			break
		}
		all += time.Duration(n) * clockTick
		if i != 3 && i != 4 { // idle, iowait
			busy += time.Duration(n) * clockTick
		}
	}
	return busy, all
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func snapCPU(botPID int) cpuSnap {
	s := cpuSnap{at: time.Now(), self: selfCPU(), postgres: postgresCPU()}
	if botPID > 0 {
		s.bot, _, _ = procCPU(botPID)
	}
	s.machineBusy, s.machineAll = machineCPU()
	return s
}

// cpuUse is the CPU spent between two snapshots.
type cpuUse struct {
	wall                        time.Duration
	bot, self, postgres, others time.Duration
	busy                        float64 // share of the machine's CPU time that was busy
}

func (a cpuSnap) until(b cpuSnap) cpuUse {
	u := cpuUse{wall: b.at.Sub(a.at), bot: b.bot - a.bot, self: b.self - a.self, postgres: b.postgres - a.postgres}
	busy, all := b.machineBusy-a.machineBusy, b.machineAll-a.machineAll
	if all > 0 {
		u.busy = float64(busy) / float64(all)
	}
	u.others = max(0, busy-u.bot-u.self-u.postgres)
	return u
}

// perOp spreads CPU times over n operations, in µs.
func (u cpuUse) perOp(n int64, what map[string]time.Duration) string {
	if n <= 0 {
		return ""
	}
	var parts []string
	for _, k := range []string{"bot", "postgres", "client", "pgbench", "others"} {
		if d, ok := what[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %.0f µs", k, float64(d)/float64(n)/1e3))
		}
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" (machine %.0f%% busy)", u.busy*100)
}

// fsyncRate is how many 4 kB append-and-fdatasync rounds a single writer completes per second
// on the file system of dir, over d: the ceiling of one writer committing durably, one commit
// at a time (SQLite's WAL with synchronous=FULL syncs once per commit).
func fsyncRate(dir string, d time.Duration) (float64, error) {
	f, err := os.CreateTemp(dir, "fsync-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 4096)
	n := 0
	start := time.Now()
	for time.Since(start) < d && n < 1_000_000 {
		if _, err := f.Write(buf); err != nil {
			return 0, err
		}
		if err := syscall.Fdatasync(int(f.Fd())); err != nil {
			return 0, err
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
}
