package ratelimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Sweeps: every SweepEvery to give memory back, and at most once a FullSweepEvery while the
// table is full.
const (
	SweepEvery     = time.Minute
	FullSweepEvery = time.Second
)

// Table is a bounded table of token buckets and long-poll counts by key (see the package doc).
type Table struct {
	limit    rate.Limit
	burst    int
	max      int
	mu       sync.Mutex
	m        map[string]*entry
	overflow *entry
	swept    time.Time
}

type entry struct {
	lim     *rate.Limiter // nil with no limit
	waiters int
}

// New is a table whose buckets allow limit a second in bursts of burst, keeping at most max keys
// apart.
func New(limit rate.Limit, burst, max int) *Table {
	t := &Table{limit: limit, burst: burst, max: max, m: map[string]*entry{}}
	t.overflow = t.newEntry()
	return t
}

func (t *Table) newEntry() *entry {
	if t.limit == rate.Inf {
		return &entry{}
	}
	return &entry{lim: rate.NewLimiter(t.limit, t.burst)}
}

// get returns key's entry, making it; t.mu is held.
func (t *Table) get(key string, now time.Time) *entry {
	if e, ok := t.m[key]; ok {
		return e
	}
	if since := now.Sub(t.swept); since >= SweepEvery || len(t.m) >= t.max && since >= FullSweepEvery {
		t.sweep(now)
	}
	if len(t.m) >= t.max {
		return t.overflow
	}
	e := t.newEntry()
	t.m[key] = e
	return e
}

func (t *Table) sweep(now time.Time) {
	t.swept = now
	for k, e := range t.m {
		if e.waiters == 0 && (e.lim == nil || e.lim.TokensAt(now) >= float64(t.burst)) {
			delete(t.m, k)
		}
	}
}

// Take spends one of key's tokens at now; when there is none it spends nothing and says how long
// until there is.
func (t *Table) Take(key string, now time.Time) (time.Duration, bool) {
	if t.limit == rate.Inf {
		return 0, true // no entry: nothing to remember
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.get(key, now).lim.ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		return wait, false
	}
	return 0, true
}

// Hold counts one more long-poll of key, unless it holds max already (a negative max is no cap);
// the func it returns ends the hold, and may be called more than once.
func (t *Table) Hold(key string, max int, now time.Time) (func(), bool) {
	if max < 0 {
		return func() {}, true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.get(key, now)
	if e.waiters >= max {
		return nil, false
	}
	e.waiters++
	return sync.OnceFunc(func() {
		t.mu.Lock()
		e.waiters--
		t.mu.Unlock()
	}), true
}

// Len is how many keys have an entry of their own.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// Has reports whether key has an entry of its own.
func (t *Table) Has(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.m[key]
	return ok
}
