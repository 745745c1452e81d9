package faulttest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/storage/storagetest"
)

// TestRateLimited is issue 14 item 5 against the real binary: one token firing creates, and one
// address firing requests without a token, each get their burst and then 429 rate_limited with
// Retry-After and a sentence, while what was accepted is stored and the probes still answer.
// (Before: 23,748 creates in 30 s from one token, 20,000 unauthenticated requests in 2.2 s.)
func TestRateLimited(t *testing.T) {
	const (
		rate    = 5 // a second
		burst   = 10
		creates = 50
		anon    = 300
		workers = 10
	)
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := startBot(t, databaseURL, fmt.Sprintf("BOT_RATE_LIMIT=%d/s", rate), fmt.Sprintf("BOT_RATE_BURST=%d", burst))
		ctx := context.Background()

		// fire sends n requests from workers goroutines and returns every reply, and how long
		// they took (what a token bucket may have refilled meanwhile).
		fire := func(n int, send func(i int) reply) ([]reply, time.Duration) {
			out := make([]reply, n)
			next := make(chan int)
			var wg sync.WaitGroup
			start := time.Now()
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range next {
						out[i] = send(i)
					}
				}()
			}
			for i := range n {
				next <- i
			}
			close(next)
			wg.Wait()
			return out, time.Since(start)
		}
		// most is how many a bucket of burst refilling at rate lets through in d.
		most := func(d time.Duration) int { return burst + int(math.Ceil(d.Seconds()*rate)) + 1 }
		// refused checks a 429 is rate_limited with whole seconds of Retry-After and a sentence
		// saying when to retry; it returns the Retry-After.
		refused := func(r reply) int {
			t.Helper()
			secs, err := strconv.Atoi(r.header.Get("Retry-After"))
			e := r.apiError().Error
			if err != nil || secs < 1 || e.Code != "rate_limited" || !strings.Contains(e.Message, fmt.Sprintf("retry in %d s", secs)) {
				t.Fatalf("a refusal without rate_limited, Retry-After and its sentence: Retry-After %q, %s", r.header.Get("Retry-After"), r)
			}
			return secs
		}

		// One token's creates.
		replies, took := fire(creates, func(i int) reply {
			return b.call(ctx, http.MethodPost, "/v1/inquiries", choice(fmt.Sprintf("rl-%d", i), inbox))
		})
		accepted := map[string]string{} // id -> key
		var refusals, maxRetry int
		for i, r := range replies {
			switch {
			case r.err == nil && r.status == http.StatusCreated:
				accepted[fmt.Sprintf("rl-%d", i)] = decode(t, r).Key
			case r.err == nil && r.status == http.StatusTooManyRequests:
				refusals++
				maxRetry = max(maxRetry, refused(r))
			default:
				t.Fatalf("create %d: want 201 or 429, got %s", i, r)
			}
		}
		if len(accepted) < burst || len(accepted) > most(took) {
			t.Fatalf("%d of %d creates in %s were accepted: want from %d (the burst) to %d (the burst and what %d/s refills)",
				len(accepted), creates, took, burst, most(took), rate)
		}
		if refusals != creates-len(accepted) || refusals == 0 {
			t.Fatalf("%d creates refused, want %d", refusals, creates-len(accepted))
		}
		// Every accepted create is stored, and none of the refused ones.
		list := b.call(ctx, http.MethodGet, "/v1/inquiries?limit=500", nil)
		var page struct{ Inquiries []record }
		if err := json.Unmarshal(list.body, &page); list.status != http.StatusOK || err != nil {
			t.Fatalf("list: %s", list)
		}
		stored := map[string]string{}
		for _, rec := range page.Inquiries {
			stored[rec.ID] = rec.Key
		}
		if fmt.Sprint(stored) != fmt.Sprint(accepted) {
			t.Fatalf("stored %v, want exactly the accepted %v", stored, accepted)
		}
		t.Logf("%d creates from one token (rate %d/s, burst %d) in %s: %d accepted and stored, %d refused 429 rate_limited (Retry-After up to %d s)",
			creates, rate, burst, took.Round(time.Millisecond), len(accepted), refusals, maxRetry)

		// One address's requests without a token, while probes keep asking.
		replies, took = fire(anon, func(i int) reply {
			if i%10 == 0 {
				path := []string{"/healthz", "/readyz"}[i/10%2]
				if r := call(ctx, b.url, "", http.MethodGet, path, nil); r.err != nil || r.status != http.StatusOK {
					return reply{status: -1, body: []byte(path + " during the flood: " + r.String())}
				}
			}
			return call(ctx, b.url, "", http.MethodGet, "/v1/inquiries", nil)
		})
		var unauthenticated, limited int
		for i, r := range replies {
			switch {
			case r.err == nil && r.status == http.StatusUnauthorized:
				unauthenticated++
			case r.err == nil && r.status == http.StatusTooManyRequests:
				limited++
				refused(r)
			default:
				t.Fatalf("request %d without a token: want 401 or 429, got %s", i, r)
			}
		}
		if unauthenticated < burst || unauthenticated > most(took) {
			t.Fatalf("%d of %d requests without a token in %s were served: want from %d to %d", unauthenticated, anon, took, burst, most(took))
		}
		t.Logf("%d requests without a token from one address in %s: %d answered 401, %d refused 429 rate_limited; /healthz and /readyz answered 200 throughout (%d probes)",
			anon, took.Round(time.Millisecond), unauthenticated, limited, anon/10)
		// The token's own requests are not the address's: the admin token still reads.
		if r := b.call(ctx, http.MethodGet, "/v1/inquiries", nil); r.status != http.StatusOK {
			t.Fatalf("a valid token after the flood: %s", r)
		}
	})
}
