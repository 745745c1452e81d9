package faulttest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/lib/pq" // the test's own connection, which terminates the bot's

	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// loadStats is what the clients saw during a load.
type loadStats struct {
	mu sync.Mutex
	// requests by outcome: "2xx", "503", and anything else (which fails the test).
	outcomes map[string]int
	// unexpected keeps a few examples of outcomes that are neither 2xx nor a proper 503.
	unexpected []string
	slowest    time.Duration
	// creates acknowledged: id -> key; answers acknowledged: key -> value.
	created  map[string]string
	answered map[string]string
	// acks lost: a 503 for a write that was committed after all (found by the retry).
	lostAckCreate, lostAckAnswer int
}

func (s *loadStats) saw(r reply, unexpected string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slowest = max(s.slowest, r.elapsed)
	switch {
	case unexpected != "":
		s.outcomes["unexpected"]++
		if len(s.unexpected) < 10 {
			s.unexpected = append(s.unexpected, unexpected)
		}
	case r.status >= 200 && r.status < 300:
		s.outcomes["2xx"]++
	case r.status == http.StatusServiceUnavailable:
		s.outcomes["503"]++
	default:
		s.outcomes[strconv.Itoa(r.status)]++
	}
}

func (s *loadStats) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, v := range s.outcomes {
		n += v
	}
	return n
}

// outage checks a request that failed during the fault: it must be a 503 storage_unavailable,
// not fatal, with a sentence and Retry-After — and it must have come back at all (no hang, no
// crash). It returns a description of what is wrong, or "".
func outage(r reply) string {
	if r.err != nil {
		return "no answer: " + r.err.Error() // a hang (client timeout) or the process gone
	}
	if r.status != http.StatusServiceUnavailable {
		return r.String()
	}
	e := r.apiError()
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	switch {
	case e.Error.Code != "storage_unavailable":
		return "503 with code " + e.Error.Code + ": " + r.String()
	case e.Error.Fatal:
		return "503 storage_unavailable marked fatal: " + r.String()
	case len(strings.Fields(e.Error.Message)) < 4:
		return "503 without a sentence: " + r.String()
	case err != nil || secs <= 0:
		return "503 without Retry-After seconds: " + r.String()
	}
	return ""
}

// loadClient creates inquiries and answers them until ctx ends, retrying a write that got a 503
// (a create with the same id and content finds the one already stored; an answer that was
// recorded despite the 503 is already_resolved with our answer).
func loadClient(ctx context.Context, b *bot, worker int, st *loadStats) {
	for i := 0; ctx.Err() == nil; i++ {
		id := fmt.Sprintf("load-%d-%d", worker, i)
		body := choice(id, inbox)
		var key string
		for attempt := 0; key == "" && ctx.Err() == nil; attempt++ {
			r := b.call(context.Background(), http.MethodPost, "/v1/inquiries", body)
			if r.err == nil && (r.status == http.StatusCreated || r.status == http.StatusOK) {
				rec := decodeQuiet(r)
				if rec == nil || rec.ID != id {
					st.saw(r, "create: not the inquiry asked: "+r.String())
					return
				}
				st.saw(r, "")
				st.mu.Lock()
				st.created[id], key = rec.Key, rec.Key
				if r.status == http.StatusOK {
					st.lostAckCreate++ // an earlier attempt was stored though it got a 503
				}
				st.mu.Unlock()
				break
			}
			st.saw(r, prefix("create", outage(r)))
			pause(ctx)
		}
		if key == "" {
			return
		}
		value := []string{"Yes", "No"}[rand.IntN(2)]
		for attempt := 0; ctx.Err() == nil; attempt++ {
			r := b.call(context.Background(), http.MethodPost, "/v1/inquiries/"+key+"/answer", map[string]any{"value": value})
			if r.err == nil && r.status == http.StatusOK {
				st.saw(r, "")
				st.mu.Lock()
				st.answered[key] = value
				st.mu.Unlock()
				break
			}
			if r.err == nil && r.status == http.StatusConflict && attempt > 0 && r.apiError().Error.Code == "already_resolved" {
				// An earlier attempt was recorded though it got a 503: it must be ours.
				st.saw(r, "")
				got := b.call(context.Background(), http.MethodGet, "/v1/inquiries/"+key, nil)
				if rec := decodeQuiet(got); rec == nil || rec.value() != value {
					st.saw(got, "answer: already_resolved but not with our answer "+value+": "+got.String())
					return
				}
				st.mu.Lock()
				st.answered[key] = value
				st.lostAckAnswer++
				st.mu.Unlock()
				break
			}
			st.saw(r, prefix("answer", outage(r)))
			pause(ctx)
		}
	}
}

func prefix(p, s string) string {
	if s == "" {
		return ""
	}
	return p + ": " + s
}

// pause is the client's wait after a 503. The bot asks for Retry-After seconds; the test's
// clients come back sooner, to keep the load on.
func pause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(50 * time.Millisecond):
	}
}

func decodeQuiet(r reply) *record {
	var rec record
	if r.err != nil || r.status >= 300 || json.Unmarshal(r.body, &rec) != nil || rec.Key == "" {
		return nil
	}
	return &rec
}

// TestPostgresConnectionsKilledUnderLoad: while 8 clients create and answer inquiries, every
// PostgreSQL connection of the bot is terminated every 200 ms (pg_terminate_backend, only the
// backends of the test's own database). Every acknowledged create and answer is there afterwards,
// requests during the fault get 503 storage_unavailable with a sentence and Retry-After (never a
// hang, a 500 or a crash), and the bot recovers by itself.
//
// FAULT_SOAK=1 loads for 60 s instead of 10. FAULT_PG_RESTART=<version>/<cluster> also restarts
// that cluster in the middle of the load (see the package doc: never beside other tests).
func TestPostgresConnectionsKilledUnderLoad(t *testing.T) {
	t.Parallel()
	databaseURL, killer := connectionKiller(t)

	// The load is one token's creates and answers as fast as they go: no rate limit here
	// (TestRateLimited holds the limit itself).
	b := startBot(t, databaseURL, "BOT_RATE_LIMIT=off")
	b.mustCall(http.MethodPost, "/v1/inquiries", choice("warm-up", inbox), http.StatusCreated)

	const clients = 8
	load := 10 * time.Second
	if soak() {
		load = 60 * time.Second
	}
	const every = 200 * time.Millisecond
	st := &loadStats{outcomes: map[string]int{}, created: map[string]string{}, answered: map[string]string{}}
	ctx, cancel := context.WithTimeout(context.Background(), load)
	defer cancel()

	// The fault: terminate every backend of the bot's database, every 200 ms.
	var rounds, terminated, restarts int
	var faultErrs []string
	faultDone := make(chan struct{})
	go func() {
		defer close(faultDone)
		tick := time.NewTicker(every)
		defer tick.Stop()
		restartAt := time.Now().Add(load / 3)
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if cluster := os.Getenv("FAULT_PG_RESTART"); cluster != "" && restarts == 0 && time.Now().After(restartAt) {
				restarts++
				if err := restartPostgres(cluster); err != nil {
					faultErrs = append(faultErrs, err.Error())
				}
				continue
			}
			n, err := killer.terminate()
			if err != nil {
				if len(faultErrs) < 5 {
					faultErrs = append(faultErrs, err.Error())
				}
				continue
			}
			rounds++
			terminated += n
		}
	}()

	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() { defer wg.Done(); loadClient(ctx, b, w, st) }()
	}
	wg.Wait()
	<-faultDone
	if len(faultErrs) > 0 {
		t.Logf("the fault's own connection failed %d times: %v", len(faultErrs), faultErrs)
	}
	if terminated == 0 {
		t.Fatal("no backend was terminated: the fault was not injected")
	}
	if !b.alive() {
		t.Fatal("the bot died under the fault")
	}

	// Recovery, without a restart: the next requests succeed.
	faultEnd := time.Now()
	testkit.Eventually(t, 30*time.Second, "a create after the fault", func() bool {
		r := b.call(context.Background(), http.MethodPost, "/v1/inquiries", choice("after-fault", inbox))
		return r.err == nil && (r.status == http.StatusCreated || r.status == http.StatusOK)
	})
	recovered := time.Since(faultEnd)
	for i := range 20 {
		b.mustCall(http.MethodPost, "/v1/inquiries", choice(fmt.Sprintf("recovered-%d", i), inbox), http.StatusCreated)
	}

	// Nothing acknowledged is lost.
	lost := 0
	ids := make([]string, 0, len(st.created))
	for id := range st.created {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		key := st.created[id]
		rec := b.get(key)
		want, answered := st.answered[key]
		switch {
		case rec.ID != id:
			lost++
			t.Errorf("inquiry %s: id %q, want %q", key, rec.ID, id)
		case answered && (rec.Status != "answered" || rec.value() != want || rec.Answer.Source != "person"):
			lost++
			t.Errorf("inquiry %s (%s): acknowledged answer %q, stored %s %q", key, id, want, rec.Status, rec.value())
		case !answered && rec.Status != "pending" && rec.Status != "answered":
			t.Errorf("inquiry %s (%s) never answered by an acknowledged request is %s", key, id, rec.Status)
		}
	}
	// Every 503 was a proper one, and nothing else went wrong.
	for _, u := range st.unexpected {
		t.Errorf("during the fault: %s", u)
	}
	if n := st.outcomes["503"]; n == 0 {
		t.Errorf("no request got a 503 while %d backends were terminated: the fault did not reach the requests", terminated)
	}
	if !b.alive() {
		t.Fatal("the bot died after the fault")
	}
	t.Logf("figures: %d clients for %s; %d requests (%d 2xx, %d 503 storage_unavailable with Retry-After, %d other); "+
		"slowest response %s, none hung; %d rounds of pg_terminate_backend every %s terminated %d backends%s; "+
		"%d creates and %d answers acknowledged, %d lost; %d creates and %d answers stored despite their 503 "+
		"(found by the client's retry); recovered %s after the fault, without a restart",
		clients, load, st.total(), st.outcomes["2xx"], st.outcomes["503"], st.total()-st.outcomes["2xx"]-st.outcomes["503"],
		st.slowest.Round(time.Millisecond), rounds, every, terminated, restartNote(restarts),
		len(st.created), len(st.answered), lost, st.lostAckCreate, st.lostAckAnswer, recovered.Round(time.Millisecond))
}

func restartNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", and %d restart of the cluster", n)
}

// restartPostgres restarts a PostgreSQL cluster given as <version>/<cluster>.
func restartPostgres(cluster string) error {
	version, name, ok := strings.Cut(cluster, "/")
	if !ok {
		return fmt.Errorf("FAULT_PG_RESTART=%q: want <version>/<cluster>, such as 15/main", cluster)
	}
	out, err := exec.Command("pg_ctlcluster", "--skip-systemctl-redirect", version, name, "restart").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctlcluster %s %s restart: %v: %s", version, name, err, out)
	}
	return nil
}

// pgKiller terminates every connection of one test database, as a failover or an operator would.
type pgKiller struct {
	db     *sql.DB // on the admin database, one connection
	dbName string
}

// connectionKiller makes a PostgreSQL database of the test's own and its killer. It skips the
// test when TEST_DATABASE_URL is unset (outside CI: killing connections needs PostgreSQL; CI
// sets it, and fails a skipped test).
func connectionKiller(t *testing.T) (databaseURL string, k *pgKiller) {
	t.Helper()
	admin := os.Getenv(storagetest.Env)
	if admin == "" {
		t.Skipf("%s is unset: killing PostgreSQL connections needs PostgreSQL (CI sets it)", storagetest.Env)
	}
	databaseURL = storagetest.PostgresURL(t)
	u, err := url.Parse(databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("postgres", admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	return databaseURL, &pgKiller{db: db, dbName: strings.TrimPrefix(u.Path, "/")}
}

// terminate ends every connection to the database but the killer's and says how many.
func (k *pgKiller) terminate() (int, error) {
	var n int
	err := k.db.QueryRow(`SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = $1 AND pid <> pg_backend_pid()) t`, k.dbName).Scan(&n)
	return n, err
}
