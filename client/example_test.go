package client_test

import (
	"fmt"
	"time"

	"github.com/inquiry-bot/bot/client"
)

// A receiver checks a callback with the raw body and the two headers, before it parses anything.
func ExampleVerify() {
	secret := []byte("the BOT_CALLBACK_SECRET")
	body := []byte(`{"key":"inq_2xk","status":"answered"}`)
	sent := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)

	// What the server sends.
	ts := fmt.Sprint(sent.Unix())
	sig := client.Sign(secret, sent.Unix(), body)

	// What the receiver does, a few seconds later.
	now := sent.Add(3 * time.Second)
	fmt.Println(client.Verify(secret, sig, ts, body, now, client.DefaultSignatureWindow))
	fmt.Println(client.Verify(secret, sig, ts, []byte(`{"key":"inq_2xk","status":"cancelled"}`), now, client.DefaultSignatureWindow))
	fmt.Println(client.Verify(secret, sig, ts, body, sent.Add(time.Hour), client.DefaultSignatureWindow))
	// Output:
	// <nil>
	// X-Inquiry-Signature does not match the body
	// X-Inquiry-Timestamp is outside the allowed window
}
