package gateway_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

// BenchmarkCreateThroughGateway asks inquiries through the HTTP API in this process — the gin
// engine, authentication, the ask service and the store, as cmd/benchmark's row 1 drives the
// real `bot serve` — from 32 parallel clients (16 per GOMAXPROCS on 2 CPUs): policy ask, inbox
// transport, so the create is one insert. It exists to be profiled:
//
//	TEST_DATABASE_URL=… go test -run '^$' -bench CreateThroughGateway/postgres -cpuprofile cpu.out ./gateway
//
// It is never part of a plain go test run.
func BenchmarkCreateThroughGateway(b *testing.B) {
	dbs := map[string]string{"sqlite": ""}
	if admin := adminURL(); admin != "" {
		dbs["postgres"] = admin
	}
	for _, name := range []string{"sqlite", "postgres", "postgres-tokencache"} {
		admin, ok := dbs[strings.TrimSuffix(name, "-tokencache")]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			opts := []option{withDB(admin), withPolicy(inquiry.PolicyAsk), withoutDispatcher()}
			if strings.HasSuffix(name, "-tokencache") {
				// An experiment, not the product: what authenticating without a database read per
				// request would save (docs/BENCHMARKS.md, row 1).
				opts = append(opts, withStore(func(s inquiry.Store) inquiry.Store { return &tokenCache{Store: s} }))
			}
			bd := setup(b, opts...)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			url, auth := bd.url+"/v1/inquiries", "Bearer "+bd.askA
			var seq atomic.Int64
			b.SetParallelism(16)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					id := "bench-" + strconv.FormatInt(seq.Add(1), 10)
					body := `{"id":"` + id + `","kind":"choice","question":"Merge PR #` + id + ` into main now?",` +
						`"context":"CI is green and the PR has two approvals.",` +
						`"options":[{"value":"merge","label":"Merge"},{"value":"hold","label":"Hold"}],` +
						`"default":"hold","config":{"policy":"ask","transport":"inbox"}}`
					req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
					req.Header.Set("Authorization", auth)
					req.Header.Set("Content-Type", "application/json")
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusCreated {
						b.Errorf("create: %d", resp.StatusCode)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
		})
	}
}

// tokenCache keeps tokens read by id for ever: the experiment of authenticating from memory.
type tokenCache struct {
	inquiry.Store
	m sync.Map // id -> *inquiry.Token
}

func (c *tokenCache) Token(ctx context.Context, id string) (*inquiry.Token, error) {
	if t, ok := c.m.Load(id); ok {
		return t.(*inquiry.Token), nil
	}
	t, err := c.Store.Token(ctx, id)
	if err == nil {
		c.m.Store(id, t)
	}
	return t, err
}
