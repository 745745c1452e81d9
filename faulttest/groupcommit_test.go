package faulttest

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// floodStats is what the clients of a create flood saw.
type floodStats struct {
	mu         sync.Mutex
	created    map[string]string // acknowledged: id -> key
	acks       int               // 201s and 200s
	unavailble int               // proper 503s
	noAnswer   int               // requests that got no HTTP answer (the bot killed under them)
	lostAck    int               // a 200 for a retried id: an earlier attempt was stored after all
	unexpected []string
}

func (s *floodStats) bad(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.unexpected) < 10 {
		s.unexpected = append(s.unexpected, what)
	}
}

// floodClient creates inquiries one after another as fast as they go, each id until it is
// acknowledged: a 503 or no answer at all (the bot killed) is retried with the same id and
// content, which finds the one stored if it was.
func floodClient(ctx context.Context, base *atomic.Pointer[string], token string, worker int, st *floodStats) {
	for i := 0; ctx.Err() == nil; i++ {
		id := fmt.Sprintf("flood-%d-%d", worker, i)
		body := choice(id, inbox)
		for attempt := 0; ctx.Err() == nil; attempt++ {
			r := call(context.Background(), *base.Load(), token, http.MethodPost, "/v1/inquiries", body)
			switch {
			case r.err != nil:
				st.mu.Lock()
				st.noAnswer++
				st.mu.Unlock()
			case r.status == http.StatusCreated || r.status == http.StatusOK:
				rec := decodeQuiet(r)
				if rec == nil || rec.ID != id {
					st.bad("create: not the inquiry asked: " + r.String())
					return
				}
				st.mu.Lock()
				st.created[id] = rec.Key
				st.acks++
				if r.status == http.StatusOK {
					st.lostAck++
				}
				st.mu.Unlock()
			case r.status == http.StatusServiceUnavailable:
				if what := outage(r); what != "" {
					st.bad("create: " + what)
					return
				}
				st.mu.Lock()
				st.unavailble++
				st.mu.Unlock()
			default:
				st.bad("create: " + r.String()) // a 500, or any other refusal of a valid create
				return
			}
			if r.err == nil && (r.status == http.StatusCreated || r.status == http.StatusOK) {
				break
			}
			pause(ctx)
		}
	}
}

// TestCreateFloodKilledTwice: 32 clients create inquiries as fast as the bot takes them (so the
// store commits them in batches, storage/groupcommit.go) while every PostgreSQL connection of
// the bot is terminated every 200 ms and the bot is SIGKILLed twice and restarted. Every
// acknowledged create is stored, once, with exactly one created event; no request gets a 500 or
// an improper 503.
func TestCreateFloodKilledTwice(t *testing.T) {
	t.Parallel()
	databaseURL, killer := connectionKiller(t)

	b := startBot(t, databaseURL, "BOT_RATE_LIMIT=off")
	b.mustCall(http.MethodPost, "/v1/inquiries", choice("warm-up", inbox), http.StatusCreated)
	var base atomic.Pointer[string]
	first := b.url
	base.Store(&first)

	const clients = 32
	load := 12 * time.Second
	if soak() {
		load = 60 * time.Second
	}
	const every = 200 * time.Millisecond
	st := &floodStats{created: map[string]string{}}
	ctx, cancel := context.WithTimeout(context.Background(), load)
	defer cancel()

	var rounds, terminated, kills int
	faultDone := make(chan struct{})
	go func() {
		defer close(faultDone)
		tick := time.NewTicker(every)
		defer tick.Stop()
		start := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			// SIGKILL at a third and at two thirds of the load, mid-flood, and start again.
			if kills < 2 && time.Since(start) > time.Duration(kills+1)*load/3 {
				kills++
				b.kill()
				b.restart()
				next := b.url
				base.Store(&next)
				continue
			}
			if n, err := killer.terminate(); err == nil {
				rounds++
				terminated += n
			}
		}
	}()
	var wg sync.WaitGroup
	for w := range clients {
		wg.Go(func() { floodClient(ctx, &base, b.admin, w, st) })
	}
	wg.Wait()
	<-faultDone
	if kills != 2 || terminated == 0 {
		t.Fatalf("the faults were not injected: %d kills, %d backends terminated", kills, terminated)
	}
	for _, u := range st.unexpected {
		t.Errorf("during the flood: %s", u)
	}
	if !b.alive() {
		t.Fatal("the bot died under the flood")
	}

	// Every acknowledged create is there under the key it was acknowledged with, and nothing is
	// stored twice or half: one created event per inquiry.
	db, err := sql.Open("postgres", databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stored := map[string]string{}
	rows, err := db.Query(`SELECT id, key FROM inquiries WHERE id LIKE 'flood-%'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, key string
		if err := rows.Scan(&id, &key); err != nil {
			t.Fatal(err)
		}
		stored[id] = key
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	lost := 0
	for id, key := range st.created {
		if stored[id] != key {
			lost++
			if lost <= 10 {
				t.Errorf("acknowledged %s as %s, stored as %q", id, key, stored[id])
			}
		}
	}
	var inquiries, events, unevenKeys int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM inquiries), (SELECT count(*) FROM events WHERE type = 'created'),
		(SELECT count(*) FROM (SELECT inquiry_key FROM events WHERE type = 'created' GROUP BY inquiry_key HAVING count(*) <> 1) x)`).
		Scan(&inquiries, &events, &unevenKeys); err != nil {
		t.Fatal(err)
	}
	if inquiries != events || unevenKeys != 0 {
		t.Errorf("%d inquiries, %d created events, %d inquiries with other than one: a create half stored", inquiries, events, unevenKeys)
	}
	if len(st.created) < clients {
		t.Errorf("only %d creates acknowledged: the flood did not run", len(st.created))
	}
	t.Logf("figures: %d clients for %s; %d creates acknowledged (%d lost), %d stored in all; %d proper 503s, "+
		"%d requests unanswered by a killed bot; %d acknowledged with 200 on a retry (stored despite an earlier failure); "+
		"2 SIGKILLs; %d rounds of pg_terminate_backend every %s terminated %d backends",
		clients, load, len(st.created), lost, inquiries, st.unavailble, st.noAnswer, st.lostAck, rounds, every, terminated)
}
