package main

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ds := []time.Duration{}
	for i := 100; i >= 1; i-- { // 100..1 ms, unsorted
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {0.1, time.Millisecond}} {
		if got := percentile(ds, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if ds[0] != 100*time.Millisecond {
		t.Error("percentile sorted its argument in place")
	}
	if got := percentile(nil, 99); got != 0 {
		t.Errorf("p99 of nothing = %v", got)
	}
	if got := median([]time.Duration{3, 1, 2}); got != 2 {
		t.Errorf("median = %v", got)
	}
}

func TestParseGoBench(t *testing.T) {
	out := `goos: linux
pkg: github.com/inquiry-bot/bot/slackapp
BenchmarkVerify/select-14k-2        	   22048	     10847 ns/op	1857.64 MB/s	     592 B/op	       9 allocs/op
BenchmarkVerify/select-14k-floor-2  	   22669	     11154 ns/op	1806.45 MB/s	     544 B/op	       7 allocs/op
PASS
pkg: github.com/inquiry-bot/bot/inquiry
BenchmarkCapAnswer/ascii-2000-2         	 5394428	        43.09 ns/op	       0 B/op	       0 allocs/op
`
	got := parseGoBench(out)
	b, ok := got["slackapp BenchmarkVerify/select-14k"]
	if !ok || b.nsPerOp != 10847 || b.bytesPerOp != 592 || b.allocsPerOp != 9 {
		t.Fatalf("select-14k: %+v (all: %v)", b, got)
	}
	if c := got["inquiry BenchmarkCapAnswer/ascii-2000"]; c.nsPerOp != 43.09 {
		t.Fatalf("ascii-2000: %+v", c)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1000000: "1,000,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
