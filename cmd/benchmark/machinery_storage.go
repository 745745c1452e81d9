package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
)

// Row m: the store's hand-made machinery on and off in one run. A piece stays only if it buys at
// least keepRatio on a figure users feel: creates a second or answers a second with clients
// asking and answering at once through the service (the path of every surface, without HTTP, so
// that the store's share is not drowned in the transport's). Every switch gets fresh databases,
// and the rounds take the switches in turn, each round starting with the next one, so that a
// change in the machine's state falls on all of them alike. What is left to switch is group
// commit, which only the SQLite store does (docs/ARCHITECTURE.md, "Machinery that pays its way",
// has the figures of the pieces that went).

// keepRatio is the gain a piece of machinery must buy to stay.
const keepRatio = 1.5

// storageSwitch is one way to open the store.
type storageSwitch struct {
	name string
	opts []storage.Option
}

// storageSwitches are the store as shipped and each piece of its machinery off.
var storageSwitches = []storageSwitch{
	{"as shipped", nil},
	{"group commit off", []storage.Option{storage.WithoutGroupCommit()}},
}

// machLoad is what one kind of call did under load: how many succeeded, in how long, and each
// one's latency.
type machLoad struct {
	ok      int
	elapsed time.Duration
	lat     []time.Duration
}

func (l *machLoad) add(o machLoad) {
	l.ok += o.ok
	l.elapsed += o.elapsed
	l.lat = append(l.lat, o.lat...)
}

func (l machLoad) rate() float64 {
	if l.elapsed <= 0 {
		return 0
	}
	return float64(l.ok) / l.elapsed.Seconds()
}

func (l machLoad) String() string {
	return fmt.Sprintf("%s/s, p50 %s, p99 %s", thousands(int(l.rate()+0.5)), ms(median(l.lat)), ms(percentile(l.lat, 99)))
}

// machineryStorage is row m.
func (b *bench) machineryStorage() {
	rounds, d := 4, 3*time.Second
	if b.quick {
		rounds, d = 2, 2*time.Second
	}
	for _, dialect := range []string{storage.DialectSQLite} {
		switches := storageSwitches
		creates := make([]machLoad, len(switches))
		answers := make([]machLoad, len(switches))
		for r := range rounds {
			for j := range switches {
				i := (r + j) % len(switches)
				sw := switches[i]
				c, a, err := b.storageLoad(dialect, sw, d, fmt.Sprintf("m%d%d", r, i))
				if err != nil {
					// Once more: the database server is shared, and another's burst may take its
					// last connection for a moment.
					progress("  %s, %s, round %d: %v; once more", dialect, sw.name, r+1, err)
					c, a, err = b.storageLoad(dialect, sw, d, fmt.Sprintf("m%d%dr", r, i))
				}
				if err != nil {
					b.fail("m", dialect+" "+sw.name, err)
					return
				}
				progress("  %s, %s, round %d: creates %v; answers %v", dialect, sw.name, r+1, c, a)
				creates[i].add(c)
				answers[i].add(a)
			}
		}
		for i, sw := range switches[1:] {
			// Group commit batches creates only: the answers are a figure that must not fall.
			for _, f := range []struct {
				what  string
				load  []machLoad
				judge bool
			}{{"creates", creates, true}, {"answers", answers, false}} {
				on, off := f.load[0], f.load[i+1]
				r := row{n: "m", what: fmt.Sprintf("%s, %d clients, %s: with it / %s", dialect, b.p.clients, f.what, sw.name),
					figure: on.String(), bound: off.String(), ratio: ratio(on.rate(), off.rate()),
					target: "— (figure only: not batched)", met: "—"}
				if f.judge {
					r.target, r.met = fmt.Sprintf("≥ %.1f to keep", keepRatio), yes(on.rate() >= keepRatio*off.rate())
				}
				b.add(r)
			}
		}
	}
}

// storageLoad opens a fresh database with sw's options and puts b.p.clients clients to work
// through the service for d creating, then for d answering what they created.
func (b *bench) storageLoad(dialect string, sw storageSwitch, d time.Duration, purpose string) (creates, answers machLoad, err error) {
	dbURL := "sqlite:" + filepath.Join(b.work, purpose+".db")
	if dialect == storage.DialectPostgres {
		if dbURL, err = b.pg.newDatabase(b.ctx, purpose); err != nil {
			return creates, answers, err
		}
	}
	st, err := storage.Open(b.ctx, dbURL, sw.opts...)
	if err != nil {
		return creates, answers, err
	}
	defer st.Close()
	svc := inquiry.NewService(st, inquiry.NewRegistry())
	svc.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	svc.DefaultPolicy = inquiry.PolicyAsk // pending until answered, in the inbox
	_, asker := inquiry.NewToken("agent", "bench", []inquiry.Scope{inquiry.ScopeAsk}, svc.Clock())
	_, person := inquiry.NewToken("person", "bench", []inquiry.Scope{inquiry.ScopeAnswer}, svc.Clock())
	ctx := inquiry.WithCaller(b.ctx, asker)

	var mu sync.Mutex
	var keys []string
	var n atomic.Int64
	creates, err = closedLoopCalls(ctx, b.p.clients, d, func() (bool, error) {
		i := n.Add(1)
		rec, _, err := svc.Ask(ctx, inquiry.AskRequest{Inquiry: inquiry.Inquiry{
			ID: fmt.Sprintf("q%d", i), Kind: inquiry.KindChoice, Question: "Ship the release?",
			Options: []inquiry.Option{{Value: "yes", Label: "Yes"}, {Value: "no", Label: "No"}},
		}})
		if err == nil {
			mu.Lock()
			keys = append(keys, rec.Key)
			mu.Unlock()
		}
		return true, err
	})
	if err != nil {
		return creates, answers, fmt.Errorf("create: %w", err)
	}
	who, actx := inquiry.TokenHolder(person), inquiry.WithCaller(b.ctx, person)
	var next atomic.Int64
	answers, err = closedLoopCalls(actx, b.p.clients, d, func() (bool, error) {
		i := next.Add(1) - 1
		if i >= int64(len(keys)) {
			return false, nil // every inquiry created is answered
		}
		_, err := svc.Answer(actx, keys[i], inquiry.Reply{Value: inquiry.One("yes")}, who)
		return true, err
	})
	if err != nil {
		return creates, answers, fmt.Errorf("answer: %w", err)
	}
	return creates, answers, nil
}

// closedLoopCalls runs clients goroutines calling call, each right after its last returned, for
// d or until call says there is no more work, and times each call. The first error stops it.
func closedLoopCalls(ctx context.Context, clients int, d time.Duration, call func() (bool, error)) (machLoad, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var mu sync.Mutex
	var res machLoad
	var firstErr error
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			var lat []time.Duration
			defer func() {
				mu.Lock()
				res.lat = append(res.lat, lat...)
				mu.Unlock()
			}()
			for ctx.Err() == nil {
				t := time.Now()
				more, err := call()
				if !more {
					return
				}
				if err != nil {
					if ctx.Err() != nil {
						return // cut by the end of the run, not a failure
					}
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
				lat = append(lat, time.Since(t))
			}
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.ok = len(res.lat)
	return res, firstErr
}
