package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/storage"
)

// botOnNewDatabase starts the bot name on a new PostgreSQL database made for purpose and returns
// it with the database's URL; when either fails, the failure is row n's figure and ok is false.
func (b *bench) botOnNewDatabase(n, what, purpose, name string) (bot *botProc, db string, ok bool) {
	db, err := b.pg.newDatabase(b.ctx, purpose)
	if err != nil {
		b.fail(n, what, err)
		return nil, "", false
	}
	bot, err = startBot(b.ctx, b.bin, b.work, name, "DATABASE_URL="+db)
	if err != nil {
		b.fail(n, what, err)
		return nil, "", false
	}
	return bot, db, true
}

// idleBot is botOnNewDatabase for a memory row: the bot, settled a second, and its resident
// memory before any load; when anything fails, the failure is row n's figure and ok is false.
func (b *bench) idleBot(n, what, name string) (bot *botProc, idle int64, ok bool) {
	bot, _, ok = b.botOnNewDatabase(n, what, name, name)
	if !ok {
		return nil, 0, false
	}
	time.Sleep(time.Second)
	idle, _, err := bot.memory()
	if err != nil {
		bot.stop()
		b.fail(n, what, err)
		return nil, 0, false
	}
	return bot, idle, true
}

// 1. Create throughput through the gateway on PostgreSQL, against pgbench inserting the same row
// into the same table from as many clients. Each side runs createRounds times, alternating, each
// on a fresh database; the better run of each side is compared.
func (b *bench) createPostgres() {
	const n = "1"
	what := fmt.Sprintf("create throughput through the gateway: %d clients, closed loop, policy ask, inbox transport, PostgreSQL", b.p.clients)
	progress("1. %s", what)
	var best loadResult
	var bestPgb pgbenchResult
	for r := range b.p.createRounds {
		bot, _, ok := b.botOnNewDatabase(n, what, "create", fmt.Sprintf("create-pg-%d", r))
		if !ok {
			return
		}
		res := createLoad(b.ctx, bot, bot.token, b.p.clients, b.p.createWarm, b.p.createDur, fmt.Sprintf("c%d", r))
		bot.stop()
		if res.failed > 0 {
			b.note("row 1, round %d: %d creates failed (first: %s)", r+1, res.failed, res.firstErr)
		}
		progress("  round %d: the bot %.0f creates/s (%d in %s, %d failed)", r+1, res.rate(), res.ok, res.elapsed.Round(time.Millisecond), res.failed)
		if res.rate() > best.rate() || best.elapsed == 0 {
			best = res
		}

		pdb, err := b.pg.newDatabase(b.ctx, "pgbench")
		if err != nil {
			b.fail(n, what, err)
			return
		}
		// The bot's own schema, made by the bot's own migrations.
		st, err := storage.Open(b.ctx, pdb)
		if err != nil {
			b.fail(n, what, err)
			return
		}
		st.Close()
		pgb, err := runPgbench(b.ctx, b.work, pdb, b.p.clients, 2, b.p.createDur)
		if err != nil {
			b.fail(n, what, err)
			return
		}
		progress("  round %d: pgbench %.0f inserts/s", r+1, pgb.tps)
		if pgb.tps > bestPgb.tps {
			bestPgb = pgb
		}
	}
	floor, ok := b.healthzFloor(n, what)
	if !ok {
		return
	}
	bestTPS := bestPgb.tps
	r := best.rate() / bestTPS
	b.add(row{n: n, what: what,
		figure: fmt.Sprintf("%s creates/s (p50 %s, p99 %s)", thousands(int(best.rate())), ms(percentile(best.latencies, 50)), ms(percentile(best.latencies, 99))),
		bound:  fmt.Sprintf("pgbench: %s inserts/s of the same row into the bot's inquiries table, one per transaction, -c %d -j 2 -M prepared", thousands(int(bestTPS)), b.p.clients),
		ratio:  ratio(best.rate(), bestTPS), target: "≥ 1.0, p99 ≤ 25 ms",
		met: yes(r >= 1.0 && percentile(best.latencies, 99) <= 25*time.Millisecond)})
	b.note("row 1 bound: `%s` (best of %d, alternating with the bot, each on a fresh database migrated by the bot)", bestPgb.line, b.p.createRounds)
	b.note("row 1 CPU per create through the gateway: %s", best.cpu.perOp(best.ok, map[string]time.Duration{
		"bot": best.cpu.bot, "postgres": best.cpu.postgres, "client": best.cpu.self, "others": best.cpu.others}))
	b.note("row 1 CPU per insert by pgbench: %s", bestPgb.cpu.perOp(int64(bestPgb.txns), map[string]time.Duration{
		"postgres": bestPgb.cpu.postgres, "pgbench": bestPgb.pgbench, "others": bestPgb.cpu.others}))
	b.note("row 1 floor of any request through the gateway: GET /healthz (no database, no token), the same %d clients closed loop on the same bot: %s requests/s (p50 %s, p99 %s); CPU per request: %s",
		b.p.clients, thousands(int(floor.rate())), ms(percentile(floor.latencies, 50)), ms(percentile(floor.latencies, 99)),
		floor.cpu.perOp(floor.ok, map[string]time.Duration{"bot": floor.cpu.bot, "postgres": floor.cpu.postgres, "client": floor.cpu.self, "others": floor.cpu.others}))
}

// healthzFloor is row 1's floor: the bot's cost of an HTTP request that does nothing, GET
// /healthz from the same closed loop, on a bot as row 1 runs it.
func (b *bench) healthzFloor(n, what string) (loadResult, bool) {
	bot, _, ok := b.botOnNewDatabase(n, what, "create", "create-pg-floor")
	if !ok {
		return loadResult{}, false
	}
	defer bot.stop()
	head := "GET /healthz HTTP/1.1\r\nHost: " + bot.addr + "\r\nContent-Length: "
	res := closedLoop(b.ctx, bot, b.p.clients, b.p.createWarm, b.p.createDur, head, func(int64) []byte { return nil }, http.StatusOK)
	if res.failed > 0 {
		b.note("row 1 floor: %d requests failed (first: %s)", res.failed, res.firstErr)
	}
	progress("  floor: GET /healthz %.0f requests/s", res.rate())
	return res, true
}

// 2. The same create load on the embedded SQLite default.
func (b *bench) createSQLite() {
	const n = "2"
	what := fmt.Sprintf("create throughput through the gateway: %d clients, same load, embedded SQLite (the default)", b.p.clients)
	progress("2. %s", what)
	bot, err := startBot(b.ctx, b.bin, b.work, "create-sqlite", "DATABASE_URL=sqlite:"+filepath.Join(b.work, "create.db"))
	if err != nil {
		b.fail(n, what, err)
		return
	}
	res := createLoad(b.ctx, bot, bot.token, b.p.clients, b.p.createWarm, b.p.createDur, "s")
	bot.stop()
	if res.failed > 0 {
		b.note("row 2: %d creates failed (first: %s)", res.failed, res.firstErr)
	}
	progress("  the bot %.0f creates/s", res.rate())
	fsyncs, err := fsyncRate(b.work, 3*time.Second)
	if err != nil {
		b.fail(n, what, err)
		return
	}
	progress("  one writer's 4 kB write + fdatasync: %.0f/s", fsyncs)
	b.note("row 2 CPU per create: %s", res.cpu.perOp(res.ok, map[string]time.Duration{
		"bot": res.cpu.bot, "client": res.cpu.self, "others": res.cpu.others + res.cpu.postgres}))
	b.add(row{n: n, what: what,
		figure: fmt.Sprintf("%s creates/s (p50 %s, p99 %s)", thousands(int(res.rate())), ms(percentile(res.latencies, 50)), ms(percentile(res.latencies, 99))),
		bound:  fmt.Sprintf("one writer's 4 kB write + fdatasync on the same file system: %s/s (SQLite commits one writer at a time, syncing its WAL at each commit)", thousands(int(fsyncs))),
		ratio:  ratio(res.rate(), fsyncs), target: "≥ 1.0", met: yes(res.rate() >= fsyncs)})
}

// 3. Slack interaction acks at a steady rate through the real handler, fake Slack behind.
func (b *bench) slackAck() {
	const n = "3"
	what := fmt.Sprintf("Slack interaction ack: signed button clicks at %.0f/s open-loop into the real /slack/interactions (%s clicks, each answering its own posted inquiry; PostgreSQL; fake Slack behind)",
		b.p.clickRate, thousands(b.p.clicks))
	progress("3. %s", what)
	db, err := b.pg.newDatabase(b.ctx, "slack")
	if err != nil {
		b.fail(n, what, err)
		return
	}
	res, err := slackClicks(b.ctx, b.bin, b.work, db, b.p.clicks, b.p.clicks, b.p.clickRate, "")
	if err != nil {
		b.fail(n, what, err)
		return
	}
	if res.firstErr != "" {
		b.note("row 3: %d of %d clicks not acked (first: %s)", res.sent-res.acked, res.sent, res.firstErr)
	}
	p50, p99 := percentile(res.latencies, 50), percentile(res.latencies, 99)
	slack := 3000 * time.Millisecond
	progress("  acked %d/%d, p50 %s, p99 %s, max %s; answered %d, messages updated %d", res.acked, res.sent, ms(p50), ms(p99), ms(percentile(res.latencies, 100)), res.answered, res.updates)
	b.add(row{n: n + "a", what: what + ": p50", figure: ms(p50), bound: "Slack's 3,000 ms ack deadline",
		ratio: ratio(float64(p50), float64(slack)), target: "—", met: "—"})
	b.add(row{n: n + "b", what: fmt.Sprintf("the same: p99 (max %s; %d/%d acked 200; %d answered, %d messages updated by chat.update)",
		ms(percentile(res.latencies, 100)), res.acked, res.sent, res.answered, res.updates),
		figure: ms(p99), bound: "Slack's 3,000 ms ack deadline",
		ratio: ratio(float64(p99), float64(slack)), target: "p99 ≤ 50 ms", met: yes(p99 <= 50*time.Millisecond && res.acked == res.sent)})
	b.note("row 3: latency runs from each click's scheduled send time (open loop: a slow ack never delays the next click) to its ack; the worst send lag behind schedule was %s", ms(res.lateStart))
}

// 3c. Slack acks at fastClickRate clicks/s, open loop, for fastClickDur: a mix of first clicks
// and duplicates (clickTarget), against the bot's own /healthz at the same rate on the same
// process (the floor) and Slack's 3 s deadline.
func (b *bench) slackAckFast() {
	const n = "3c"
	clicks := int(b.p.fastClickRate * b.p.fastClickDur.Seconds())
	msgs := max(1, clicks/fastClickGroup)
	what := fmt.Sprintf("Slack interaction ack at %s clicks/s open-loop for %s: %s signed button clicks on %s posted messages, each message's first click followed by %d duplicates a few ms later (PostgreSQL; fake Slack behind)",
		thousands(int(b.p.fastClickRate)), b.p.fastClickDur, thousands(clicks), thousands(msgs), fastClickGroup-1)
	progress("3c. %s", what)
	db, err := b.pg.newDatabase(b.ctx, "slackfast")
	if err != nil {
		b.fail(n, what, err)
		return
	}
	res, err := slackClicks(b.ctx, b.bin, b.work, db, msgs, clicks, b.p.fastClickRate, "/healthz")
	if err != nil {
		b.fail(n, what, err)
		return
	}
	if res.firstErr != "" {
		b.note("row 3c: %d of %d clicks not acked (first error: %s)", res.sent-res.acked, res.sent, res.firstErr)
	}
	p50, p99, mx := percentile(res.latencies, 50), percentile(res.latencies, 99), percentile(res.latencies, 100)
	f50, f99, fmx := percentile(res.floor, 50), percentile(res.floor, 99), percentile(res.floor, 100)
	progress("  acked %d/%d: p50 %s, p99 %s, max %s (firsts p99 %s, duplicates p99 %s); /healthz p50 %s p99 %s max %s; answered %d, updated %d",
		res.acked, res.sent, ms(p50), ms(p99), ms(mx), ms(percentile(res.firstLat, 99)), ms(percentile(res.dupLat, 99)), ms(f50), ms(f99), ms(fmx), res.answered, res.updates)
	b.add(row{n: n, what: what,
		figure: fmt.Sprintf("p50 %s, p99 %s, max %s (%s/%s acked 200; %s of %s messages answered, %s updated by chat.update)",
			ms(p50), ms(p99), ms(mx), thousands(res.acked), thousands(res.sent), thousands(res.answered), thousands(msgs), thousands(res.updates)),
		bound: fmt.Sprintf("Slack's 3,000 ms ack deadline; floor: GET /healthz of the same bot at the same rate, open-loop: p50 %s, p99 %s, max %s; the machine was %.0f%% busy during the clicks, %.0f%% during the floor",
			ms(f50), ms(f99), ms(fmx), res.clickCPU.busy*100, res.floorCPU.busy*100),
		ratio: ratio(float64(p99), float64(f99)) + " × the floor's p99", target: "p99 ≤ 10 ms",
		met: yes(p99 <= 10*time.Millisecond && res.acked == res.sent)})
	b.note("row 3c: first clicks p50 %s, p99 %s, max %s; duplicates p50 %s, p99 %s, max %s; latency runs from each request's scheduled time to its response; worst send lag behind schedule: clicks %s, /healthz %s",
		ms(percentile(res.firstLat, 50)), ms(percentile(res.firstLat, 99)), ms(percentile(res.firstLat, 100)),
		ms(percentile(res.dupLat, 50)), ms(percentile(res.dupLat, 99)), ms(percentile(res.dupLat, 100)), ms(res.lateStart), ms(res.floorLate))
	cpu := func(u cpuUse, n int) string {
		return u.perOp(int64(n), map[string]time.Duration{"bot": u.bot, "postgres": u.postgres, "client": u.self, "others": u.others})
	}
	b.note("row 3c: CPU per click: %s; per GET /healthz of the floor: %s (the client includes the fake Slack, in the benchmark's process)",
		cpu(res.clickCPU, res.sent), cpu(res.floorCPU, len(res.floor)))
}

// fastClickGroup is row 3c's clicks per message: one first click and its duplicates.
const fastClickGroup = 5

// 4. Answer-to-waiter wake latency on one replica and across two.
func (b *bench) wake() {
	const n = "4"
	what := "answer-to-waiter wake: a long-poll on replica A, the answer POSTed to"
	progress("4. wake latency, %d samples each", b.p.wakeN)
	a, db, ok := b.botOnNewDatabase(n, what, "wake", "replica-a")
	if !ok {
		return
	}
	defer a.stop()
	bb, err := startBot(b.ctx, b.bin, b.work, "replica-b", "DATABASE_URL="+db)
	if err != nil {
		b.fail(n, what, err)
		return
	}
	defer bb.stop()
	tok := a.token
	// Warm both paths (connections, prepared statements, the listeners).
	for _, to := range []*botProc{a, bb} {
		if _, err := wakeSamples(b.ctx, a, to, tok, 5, "warm-"+to.name); err != nil {
			b.fail(n, what, err)
			return
		}
	}
	same, err := wakeSamples(b.ctx, a, a, tok, b.p.wakeN, "same")
	if err != nil {
		b.fail(n, what, err)
		return
	}
	cross, err := wakeSamples(b.ctx, a, bb, tok, b.p.wakeN, "cross")
	if err != nil {
		b.fail(n, what, err)
		return
	}
	floor, err := getLatency(b.ctx, a, tok, b.p.wakeN)
	if err != nil {
		b.fail(n, what, err)
		return
	}
	sp50, sp99 := percentile(same, 50), percentile(same, 99)
	cp50, cp99 := percentile(cross, 50), percentile(cross, 99)
	fp99 := percentile(floor, 99)
	progress("  same replica p50 %s p99 %s; across replicas p50 %s p99 %s; plain GET p99 %s", ms(sp50), ms(sp99), ms(cp50), ms(cp99), ms(fp99))
	b.add(row{n: n + "a", what: what + " replica A too (same replica; PostgreSQL; waiter's response time minus the answer's)",
		figure: fmt.Sprintf("p99 %s (p50 %s)", ms(sp99), ms(sp50)),
		bound:  fmt.Sprintf("a plain GET of an answered inquiry on A: p99 %s", ms(fp99)),
		ratio:  ratio(float64(sp99), float64(fp99)), target: "p99 ≤ 50 ms", met: yes(sp99 <= 50*time.Millisecond)})
	b.add(row{n: n + "b", what: what + " replica B (two `bot serve` on one PostgreSQL database: LISTEN/NOTIFY)",
		figure: fmt.Sprintf("p99 %s (p50 %s)", ms(cp99), ms(cp50)),
		bound:  fmt.Sprintf("the same replica (row 4a): p99 %s", ms(sp99)),
		ratio:  ratio(float64(cp99), float64(sp99)), target: "p99 ≤ 250 ms", met: yes(cp99 <= 250*time.Millisecond)})
	b.note("row 4: %d samples each, one at a time; a sample is the time from the answer's response to the waiter's response, both read by the benchmark, so it is negative when the waiter hears first (4a p1 %s)",
		b.p.wakeN, ms(percentile(same, 1)))
}

// getLatency times n plain GETs of one answered inquiry: the floor of any long-poll response.
func getLatency(ctx context.Context, bot *botProc, token string, n int) ([]time.Duration, error) {
	c := newClient(2)
	defer c.CloseIdleConnections()
	key, err := create(ctx, c, bot, token, createBody("floor", "inbox", ""))
	if err != nil {
		return nil, err
	}
	if st, body, err := api(ctx, c, http.MethodPost, bot.URL()+"/v1/inquiries/"+key+"/answer", token, []byte(`{"value":"merge"}`)); err != nil || st != http.StatusOK {
		return nil, fmt.Errorf("answer: %d %s %v", st, body, err)
	}
	var out []time.Duration
	for range n + 5 {
		t := time.Now()
		st, body, err := api(ctx, c, http.MethodGet, bot.URL()+"/v1/inquiries/"+key, token, nil)
		if err != nil || st != http.StatusOK {
			return nil, fmt.Errorf("get: %d %s %v", st, body, err)
		}
		out = append(out, time.Since(t))
	}
	return out[5:], nil
}

// 5. Resident memory of the bot holding many long-poll waiters: 5 with the run's count
// (10,000) dialled as fast as the benchmark can, 5b with 50,000 when the open-file limit allows
// it (it says what stops it otherwise), 5c the same 10,000 arriving at waiterRate a second — what
// holding them costs once the burst of their arrival is not also measured.
func (b *bench) memory() {
	b.memoryOf("5", b.p.waiters, 0, "≤ 128 MB", 128<<20)
	if b.ctx.Err() == nil {
		b.memoryOf("5b", bigWaiters, 0, "— (figure only)", 0)
	}
	if b.ctx.Err() == nil {
		b.memoryOf("5c", b.p.waiters, waiterRate, "— (figure only)", 0)
	}
}

// waiterRate is row 5c's arrival rate of waiters, a second: 5.5 times the steady rate of 10,000
// clients that each long-poll for 55 s and poll again (182 a second).
const waiterRate = 1000

// bigWaiters is row 5b's count of waiters.
const bigWaiters = 50_000

func (b *bench) memoryOf(n string, waiters, rate int, targetText string, target int64) {
	arrival := "dialled as fast as the benchmark can"
	if rate > 0 {
		arrival = fmt.Sprintf("arriving at %s a second", thousands(rate))
	}
	what := fmt.Sprintf("resident memory (VmRSS) of the bot process with %s concurrent long-poll waiters (each GET /v1/inquiries/{key}?wait=55 on its own connection and pending inquiry, %s; PostgreSQL)", thousands(waiters), arrival)
	progress("%s. memory of %d waiters", n, waiters)
	if err := raiseFileLimit(waiters); err != nil {
		// What stops the row is the machine's limit, not the bot: said in the row, not a failure.
		progress("  not run: %v", err)
		b.add(row{n: n, what: what, figure: "not run: " + err.Error(), bound: "—", ratio: "—", target: targetText, met: "—"})
		return
	}
	bot, idle, ok := b.idleBot(n, what, "waiters")
	if !ok {
		return
	}
	defer bot.stop()
	keys, err := createMany(b.ctx, bot, bot.token, waiters, 32, "wait", "inbox", nil)
	if err != nil {
		b.fail(n, what, err)
		return
	}
	before, _, _ := bot.memory()
	progress("  %d inquiries created; RSS idle %s, after the creates %s; opening the waiters", len(keys), mb(idle), mb(before))
	c := newClient(2)
	defer c.CloseIdleConnections()
	budget := 40 * time.Second * time.Duration(max(1, waiters/10_000))
	if rate > 0 {
		budget += time.Duration(waiters/rate) * time.Second
	}
	wctx, cancel := context.WithTimeout(b.ctx, budget)
	defer cancel()
	start := time.Now()
	w := openWaiters(wctx, bot, bot.token, keys, 16, rate)
	defer w.close()
	var waiting float64
	for wctx.Err() == nil {
		waiting, err = bot.metric(wctx, c, "inquiry_long_poll_waiters")
		if err == nil && int(waiting) >= len(keys) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if int(waiting) < len(keys) {
		b.fail(n, what, fmt.Errorf("only %.0f of %d waiters were waiting after %s (dial errors %d, first: %v; answered early %d)",
			waiting, len(keys), time.Since(start).Round(time.Millisecond), w.errs.Load(), w.firstErr.Load(), w.answered.Load()))
		return
	}
	opened := time.Since(start)
	time.Sleep(500 * time.Millisecond)
	rss, hwm, err := bot.memory()
	if err != nil {
		b.fail(n, what, err)
		return
	}
	var breakdown []string
	for _, m := range []string{"go_goroutines", "go_memstats_stack_inuse_bytes", "go_memstats_heap_inuse_bytes", "go_memstats_sys_bytes"} {
		v, err := bot.metric(b.ctx, c, m)
		if err != nil {
			continue
		}
		if strings.HasSuffix(m, "_bytes") {
			breakdown = append(breakdown, fmt.Sprintf("%s %s", strings.TrimPrefix(m, "go_memstats_"), mb(int64(v))))
		} else {
			breakdown = append(breakdown, fmt.Sprintf("%s %.0f", m, v))
		}
	}
	if w.answered.Load() > 0 {
		b.note("row %s: %d waiters were answered before the measurement (they should all still wait)", n, w.answered.Load())
	}
	perWaiter := float64(rss-before) / float64(len(keys)) / 1024
	progress("  %d waiting after %s: RSS %s (peak %s), %.1f kB per waiter; %s", len(keys), opened.Round(time.Millisecond), mb(rss), mb(hwm), perWaiter, strings.Join(breakdown, ", "))
	met := "—"
	if target > 0 {
		met = yes(rss <= target)
	}
	b.add(row{n: n, what: what,
		figure: fmt.Sprintf("%s (VmHWM %s; %.1f kB per waiter)", mb(rss), mb(hwm), perWaiter),
		bound:  fmt.Sprintf("the same process before the waiters (after creating their %s inquiries): %s; idle at start: %s", thousands(len(keys)), mb(before), mb(idle)),
		ratio:  ratio(float64(rss), float64(before)), target: targetText, met: met})
	b.note("row %s: the bot's Go runtime with the waiters: %s (from its /metrics); all %s were waiting %s after the first dial",
		n, strings.Join(breakdown, ", "), thousands(len(keys)), opened.Round(time.Millisecond))
	b.memoryAfterGC(n, bot, c, len(keys))
}

// memoryAfterGC samples row 5's bot again once two garbage collections have run while the
// waiters wait: the runtime shrinks a parked goroutine's stack only at a collection, and a bot
// that holds waiters and does nothing else may run none for minutes. The collections come from
// other traffic, GETs of /metrics, as a bot serving its scrapes and its other clients would see.
func (b *bench) memoryAfterGC(n string, bot *botProc, c *http.Client, waiters int) {
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	gcs := func() float64 { v, _ := bot.metric(ctx, c, "go_gc_duration_seconds_count"); return v }
	first, scrapes := gcs(), 0
	for ctx.Err() == nil && gcs() < first+2 {
		scrapes++
	}
	if ctx.Err() != nil {
		b.note("row %s: fewer than two garbage collections in %d scrapes of /metrics: no sample after a collection", n, scrapes)
		return
	}
	rss, _, err := bot.memory()
	if err != nil {
		return
	}
	var breakdown []string
	for _, m := range []string{"go_memstats_stack_inuse_bytes", "go_memstats_heap_inuse_bytes", "go_memstats_sys_bytes"} {
		if v, err := bot.metric(ctx, c, m); err == nil {
			breakdown = append(breakdown, fmt.Sprintf("%s %s", strings.TrimPrefix(m, "go_memstats_"), mb(int64(v))))
		}
	}
	progress("  after two collections (%d scrapes of /metrics): RSS %s; %s", scrapes, mb(rss), strings.Join(breakdown, ", "))
	b.note("row %s: the same %s waiters after two garbage collections driven by %d GETs of /metrics: VmRSS %s; %s",
		n, thousands(waiters), scrapes, mb(rss), strings.Join(breakdown, ", "))
}

// 6. The sweeper, idle over few and many pending inquiries, and expiring due ones.
func (b *bench) sweeps() {
	const n = "6"
	progress("6. sweeper over %d and %d pending inquiries, expiring %d", b.p.sweepSmall, b.p.sweepBig, b.p.expireN)
	what := "sweeper"
	db, err := b.pg.newDatabase(b.ctx, "sweep")
	if err != nil {
		b.fail(n, what, err)
		return
	}
	res, err := measureSweeps(b.ctx, db, b.p.sweepSmall, b.p.sweepBig, b.p.expireN, b.p.sweepReps)
	if err != nil {
		b.fail(n, what, err)
		return
	}
	progress("  idle sweep %s over %d (due query %s), %s over %d (due query %s); expired %d in %s (commit floor %s)",
		ms(res.idleSmall), res.small, ms(res.dueSmall), ms(res.idleBig), res.big, ms(res.dueBig), res.expired, res.expire.Round(time.Millisecond), res.commitFloor.Round(time.Millisecond))
	limit := 20 * time.Millisecond
	b.add(row{n: n + "a", what: fmt.Sprintf("idle sweep (scheduler.Sweep: expiry, stale runs, deliveries, retention) over %s pending inquiries, none due; median of %d; PostgreSQL", thousands(res.small), b.p.sweepReps),
		figure: fmt.Sprintf("%s (due query alone %s)", ms(res.idleSmall), ms(res.dueSmall)),
		bound:  "—", ratio: "—", target: "≤ 20 ms", met: yes(res.idleSmall <= limit)})
	b.add(row{n: n + "b", what: fmt.Sprintf("the same over %s pending inquiries", thousands(res.big)),
		figure: fmt.Sprintf("%s (due query alone %s)", ms(res.idleBig), ms(res.dueBig)),
		bound:  fmt.Sprintf("row 6a, over %s: %s", thousands(res.small), ms(res.idleSmall)),
		ratio:  ratio(float64(res.idleBig), float64(res.idleSmall)), target: "≤ 2× row 6a, ≤ 20 ms",
		met: yes(res.idleBig <= limit && res.idleBig <= 2*res.idleSmall)})
	b.add(row{n: n + "c", what: fmt.Sprintf("one sweep expiring %s due inquiries (default applied, labelled expired) among %s pending", thousands(res.expireN), thousands(res.big)),
		figure: fmt.Sprintf("%s (%s expired)", ms(res.expire), thousands(res.expired)),
		bound:  fmt.Sprintf("one-row UPDATE transactions one after another on one connection (the commit floor of one transaction per expiry): %s for %s, scaled from %s", ms(res.commitFloor), thousands(res.expireN), thousands(res.floorN)),
		ratio:  ratio(float64(res.expire), float64(res.commitFloor)), target: "≤ 1 s",
		met: yes(res.expire <= time.Second && res.expired == res.expireN)})
	b.add(row{n: n + "d", what: fmt.Sprintf("experiment, not the product: %s more due inquiries expired by Service.Expire, %d at a time (what a worker pool in scheduler.expire would do)", thousands(res.expireN), expireWorkers),
		figure: fmt.Sprintf("%s (%s expired)", ms(res.concurrent), thousands(res.concurrentN)),
		bound:  fmt.Sprintf("row 6c: %s", ms(res.expire)),
		ratio:  ratio(float64(res.concurrent), float64(res.expire)), target: "(≤ 1 s)", met: "—"})
	b.add(row{n: n + "e", what: fmt.Sprintf("idle sweep over the %s pending inquiries and %s finished deliveries (the posts that showed them, done a day ago, kept until retention)", thousands(res.big), thousands(res.big)),
		figure: ms(res.idleDeliveries),
		bound:  fmt.Sprintf("the same without the index deliveries_finished (as before migration 00004): %s", ms(res.idleDeliveriesNoIndex)),
		ratio:  ratio(float64(res.idleDeliveries), float64(res.idleDeliveriesNoIndex)), target: "≤ 20 ms (as 6b)",
		met: yes(res.idleDeliveries <= limit)})
	b.note("row 6e: retention's DELETE FROM deliveries WHERE status <> 'pending' AND updated_at < … plans as: %s; without the index: %s", res.retentionPlan, res.retentionPlanNoIndex)
	b.note("row 6c: the same %s rows resolved by UPDATE … WHERE key = ANY(500 keys) RETURNING …, one transaction per 500 (the floor of a batched resolution): %s",
		thousands(res.expireN), ms(res.batched))
	if b.quick {
		b.note("row 6: -quick sweeps %s pending inquiries instead of 1,000,000", thousands(res.big))
	}
}

// 7. go test -bench figures of the hot pure paths.
func (b *bench) goBench() {
	const n = "7"
	progress("7. go test -bench of the pure paths (-benchtime %s)", b.p.benchtime)
	res, line, err := runGoBench(b.ctx, b.root, b.p.benchtime)
	if err != nil {
		b.fail(n, "go test -bench", err)
		return
	}
	get := func(pkg, prefix string) (goBench, bool) {
		var keys []string
		for k := range res {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if strings.HasPrefix(k, pkg+" "+prefix) {
				return res[k], true
			}
		}
		return goBench{}, false
	}
	type item struct {
		n, what, pkg, name, floor, floorWhat string
	}
	items := []item{
		{"7a", "blockkit.Message: render a 12-option Choice (static select with confirmation) to blocks", "blockkit", "BenchmarkMessage12Options/blocks", "", ""},
		{"7b", "the same, and the blocks' JSON as posted to chat.postMessage", "blockkit", "BenchmarkMessage12Options/blocks+json", "", ""},
		{"7c", "inquiry.CapAnswer on a 2,000-character ASCII answer (the ceiling)", "inquiry", "BenchmarkCapAnswer/ascii-2000", "", ""},
		{"7d", "inquiry.CapAnswer on a 2,000-character answer of 2-byte characters", "inquiry", "BenchmarkCapAnswer/2byte-2000", "BenchmarkCapAnswer/floor-runecount-2byte-2000", "one utf8.RuneCountInString over it"},
		{"7e", "slackapp.Verify: the signature of a 14 kB interaction body (a select in a message)", "slackapp", "BenchmarkVerify/select-14k", "BenchmarkVerify/select-14k-floor", "the bare HMAC-SHA256 of it"},
		{"7f", "slackapp.Verify: the signature of a 1.4 kB button click", "slackapp", "BenchmarkVerify/button-1k", "BenchmarkVerify/button-1k-floor", "the bare HMAC-SHA256 of it"},
		{"7g", "client.Verify: the signature of a callback (a resolved inquiry, ~0.9 kB)", "client", "BenchmarkVerify/callback-", "", "the bare HMAC-SHA256 of it"},
	}
	for _, it := range items {
		r, ok := get(it.pkg, it.name)
		if !ok {
			b.fail(it.n, it.what, fmt.Errorf("no %s %s in the go test output", it.pkg, it.name))
			continue
		}
		fig := fmt.Sprintf("%s, %d B/op, %d allocs/op", ns(r.nsPerOp), r.bytesPerOp, r.allocsPerOp)
		rw := row{n: it.n, what: it.what, figure: fig, bound: "—", ratio: "—", target: "— (figure only)", met: "—"}
		floorName := it.floor
		if floorName == "" && it.floorWhat != "" {
			floorName = r.name + "-floor"
		}
		if floorName != "" && it.floorWhat != "" {
			if f, ok := res[it.pkg+" "+floorName]; ok {
				rw.bound = fmt.Sprintf("%s: %s", it.floorWhat, ns(f.nsPerOp))
				rw.ratio = ratio(r.nsPerOp, f.nsPerOp)
			}
		}
		b.add(rw)
	}
	b.note("row 7: `%s`", line)
}
