package blockkit_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// BenchmarkMessage12Options renders the question message of a Choice with the most options an
// inquiry may offer (12: a static select with a confirmation, every third option described) —
// the blocks alone, and the blocks with the JSON that goes to chat.postMessage. cmd/benchmark
// runs it; it is never part of a plain go test run.
func BenchmarkMessage12Options(b *testing.B) {
	rec := choice(12, false)
	rec.Default = inquiry.One(rec.Options[1].Value)
	rec.ExpiresAt = at(2 * time.Hour)
	rec.Slack.Answerers = []string{"U0ALICE", "S0ONCALL"}

	b.Run("blocks", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, blocks := blockkit.Message(rec, now)
			if len(blocks) == 0 {
				b.Fatal("no blocks")
			}
		}
	})
	b.Run("blocks+json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, blocks := blockkit.Message(rec, now)
			if _, err := json.Marshal(blocks); err != nil {
				b.Fatal(err)
			}
		}
	})
}
