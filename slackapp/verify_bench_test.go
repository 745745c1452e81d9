package slackapp_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/slackapp"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// BenchmarkVerify checks the signature of real interaction bodies as Slack sends them (the
// payload form field of a signed POST): a button click (1.4 kB of JSON) and a selection in a
// message with a static select (14 kB). "floor" computes the bare HMAC-SHA256 of the same
// signed string: verification cannot cost less. cmd/benchmark runs it; it is never part of a
// plain go test run.
func BenchmarkVerify(b *testing.B) {
	for _, c := range []struct{ name, file string }{
		{"button-1k", "block_actions_button.json"},
		{"select-14k", "block_actions_static_select_in_message.json"},
	} {
		payload, err := os.ReadFile(filepath.Join("testdata", "payloads", c.file))
		if err != nil {
			b.Fatal(err)
		}
		body := []byte(url.Values{"payload": {string(payload)}}.Encode())
		now := time.Now()
		h := http.Header{}
		h.Set("X-Slack-Request-Timestamp", strconv.FormatInt(now.Unix(), 10))
		h.Set("X-Slack-Signature", slackfake.Sign(slackfake.SigningSecret, now, body))
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if err := slackapp.Verify(slackfake.SigningSecret, h, body, now); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"-floor", func(b *testing.B) {
			prefix := []byte("v0:" + h.Get("X-Slack-Request-Timestamp") + ":")
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				mac := hmac.New(sha256.New, []byte(slackfake.SigningSecret))
				mac.Write(prefix)
				mac.Write(body)
				mac.Sum(nil)
			}
		})
	}
}
