package gateway_test

import (
	"fmt"
	"time"

	"github.com/inquiry-bot/bot/gateway"
)

// A receiver checks a callback with the raw body and the two headers, before it parses anything.
func ExampleVerify() {
	secret := []byte("the BOT_CALLBACK_SECRET")
	body := []byte(`{"key":"inq_2xk","status":"answered"}`)
	sent := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)

	// What the server sends.
	ts := fmt.Sprint(sent.Unix())
	sig := gateway.Sign(secret, sent.Unix(), body)

	// What the receiver does, a few seconds later.
	now := sent.Add(3 * time.Second)
	fmt.Println(gateway.Verify(secret, sig, ts, body, now, gateway.DefaultSignatureWindow))
	fmt.Println(gateway.Verify(secret, sig, ts, []byte(`{"key":"inq_2xk","status":"cancelled"}`), now, gateway.DefaultSignatureWindow))
	fmt.Println(gateway.Verify(secret, sig, ts, body, sent.Add(time.Hour), gateway.DefaultSignatureWindow))
	// Output:
	// <nil>
	// X-Inquiry-Signature does not match the body
	// X-Inquiry-Timestamp is outside the allowed window
}
