package client_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// BenchmarkVerify checks a callback as a receiver gets it: the body is a resolved Choice inquiry
// as the bot POSTs it (about 1 kB), signed with Sign. "floor" computes the bare HMAC-SHA256 of
// the same signed string: verification cannot cost less. cmd/benchmark runs it; it is never
// part of a plain go test run.
func BenchmarkVerify(b *testing.B) {
	now := time.Now().UTC().Truncate(time.Microsecond)
	expires := now.Add(2 * time.Hour)
	rec := &inquiry.Record{
		Key: "inq_abcdefghijklmnopqrst",
		Inquiry: inquiry.Inquiry{
			ID: "deploy-42:merge", RunID: "deploy-42", Kind: inquiry.KindChoice,
			Question: "Merge PR #1234 into main now?",
			Context:  "CI is green and the PR has two approvals. The release train leaves at 15:00 UTC.",
			Options:  []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}},
			Default:  inquiry.One("hold"), ExpiresAt: &expires,
		},
		Namespace: "ci",
		Config:    inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportSlack},
		Status:    inquiry.StatusAnswered,
		Answer: &inquiry.Answer{InquiryID: "deploy-42:merge", Value: inquiry.One("merge"),
			AnsweredBy: "U0ALICE", Source: inquiry.SourcePerson, AnsweredAt: now},
		Slack:     inquiry.SlackRef{Channel: "C0DEPLOYS", TS: "1700000000.000100", Answerers: []string{}},
		CreatedAt: now.Add(-time.Minute), ResolvedAt: &now,
	}
	body, err := json.Marshal(rec)
	if err != nil {
		b.Fatal(err)
	}
	secret := []byte(inquiry.NewSecret())
	ts := now.Unix()
	sig := client.Sign(secret, ts, body)
	stamp := strconv.FormatInt(ts, 10)

	b.Run(fmt.Sprintf("callback-%dB", len(body)), func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if err := client.Verify(secret, sig, stamp, body, now, client.DefaultSignatureWindow); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("callback-%dB-floor", len(body)), func(b *testing.B) {
		prefix := []byte("v1:" + stamp + ":")
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			mac := hmac.New(sha256.New, secret)
			mac.Write(prefix)
			mac.Write(body)
			mac.Sum(nil)
		}
	})
}
