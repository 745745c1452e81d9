package gateway_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

// BenchmarkCreateThroughGateway asks inquiries through the HTTP API in this process — the gin
// engine, authentication, the ask service and the store, as cmd/benchmark's row 1 drives the
// real `bot serve` — from 32 parallel clients (16 per GOMAXPROCS on 2 CPUs): policy ask, inbox
// transport, so the create is one insert. Besides creates/s it reports how the store's group
// commit wrote them (storage.CreateCounts): the share written alone, and the creates per batch.
// It exists to be profiled:
//
//	TEST_DATABASE_URL=… go test -run '^$' -bench CreateThroughGateway/postgres -cpuprofile cpu.out ./gateway
//
// It is never part of a plain go test run.
func BenchmarkCreateThroughGateway(b *testing.B) {
	dbs := map[string]string{"sqlite": ""}
	if admin := adminURL(); admin != "" {
		dbs["postgres"] = admin
	}
	for _, name := range []string{"sqlite", "postgres"} {
		admin, ok := dbs[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			bd := setup(b, withDB(admin), withPolicy(inquiry.PolicyAsk), withoutDispatcher())
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			url, auth := bd.url+"/v1/inquiries", "Bearer "+bd.askA
			var seq atomic.Int64
			before := bd.store.CreateCounts()
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
			// How group commit wrote them: the share written alone, and the creates per batch of
			// the others (storage.CreateCounts).
			after := bd.store.CreateCounts()
			alone, batches, batched := after.Alone-before.Alone, after.Batches-before.Batches, after.Batched-before.Batched
			if all := alone + batched; all > 0 {
				b.ReportMetric(float64(alone)/float64(all), "alone/create")
			}
			if batches > 0 {
				b.ReportMetric(float64(batched)/float64(batches), "creates/batch")
			}
		})
	}
}
