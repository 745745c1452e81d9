package storage_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// BenchmarkCreateInquiry measures asking: one new inquiry with its post delivery per operation,
// from parallel clients (GOMAXPROCS times BENCH_PARALLELISM, default 1). Compare with pgbench
// inserting one row per transaction from as many clients.
func BenchmarkCreateInquiry(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		benchCreate(b, openBundle(b, storagetest.SQLiteURL(b)).store)
	})
	if os.Getenv(storagetest.Env) != "" {
		b.Run("postgres", func(b *testing.B) {
			benchCreate(b, openBundle(b, storagetest.PostgresURL(b)).store)
		})
	}
}

func benchCreate(b *testing.B, s *storage.Store) {
	ctx := context.Background()
	r := make([]byte, 6)
	rand.Read(r)
	prefix := "bench_" + hex.EncodeToString(r) // a database may be reused between runs
	var n atomic.Int64
	if p, err := strconv.Atoi(os.Getenv("BENCH_PARALLELISM")); err == nil {
		b.SetParallelism(p) // clients per GOMAXPROCS
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			rec := newRecord("bench", prefix, fmt.Sprintf("q%d", i))
			rec.Key = fmt.Sprintf("%s_%d", prefix, i)
			_, _, err := s.CreateInquiry(ctx, rec, []inquiry.Delivery{{Kind: inquiry.DeliverPost, Target: "slack", Lane: "C1"}})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
}
