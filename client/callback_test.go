package client_test

import (
	"testing"
	"time"

	"github.com/inquiry-bot/bot/client"
)

// TestSignFixedVector: the callback signature's base string is "v1:{timestamp}:{body}". The
// vector is worked out outside Go: printf 'v1:1700000000:{"key":"inq_1"}' | openssl dgst -sha256
// -hmac whsec-test.
func TestSignFixedVector(t *testing.T) {
	body := []byte(`{"key":"inq_1"}`)
	const want = "v1=fcdded4bd7ddbb44b8d0636a400934256b7a2a0f189bcb5f8faca6d0c177186d"
	if got := client.Sign([]byte("whsec-test"), 1700000000, body); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
	now := time.Unix(1700000000, 0)
	if err := client.Verify([]byte("whsec-test"), want, "1700000000", body, now, time.Minute); err != nil {
		t.Fatalf("Verify of the vector: %v", err)
	}
	if err := client.Verify([]byte("whsec-test"), want, "1700000001", body, now, time.Minute); err == nil {
		t.Fatal("a signature is bound to its timestamp")
	}
}
