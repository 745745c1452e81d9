package slackapp

import (
	"os"
	"testing"
)

func BenchmarkParseInteractionTmp(b *testing.B) {
	body, _ := os.ReadFile("/tmp/click.body")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseInteraction(body); err != nil {
			b.Fatal(err)
		}
	}
}
