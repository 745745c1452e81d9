package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Signed callbacks: what the bot POSTs to an inquiry's callback_url and a run's resume_url, and
// how a receiver checks it. They live here, beside the client, so that a receiver verifies a
// callback without importing the server (gin and all).

// Callback headers.
const (
	HeaderTimestamp = "X-Inquiry-Timestamp" // unix seconds the signature was made at
	HeaderSignature = "X-Inquiry-Signature" // v1=<hex HMAC-SHA256 of "v1:{timestamp}:{body}">
	HeaderDelivery  = "X-Inquiry-Delivery"  // the delivery's id, the same on every retry: dedupe by it
	HeaderEvent     = "X-Inquiry-Event"     // "callback" or "resume"
)

// DefaultSignatureWindow is how far a receiver should let a timestamp stray from its clock.
const DefaultSignatureWindow = 5 * time.Minute

// Sign returns the X-Inquiry-Signature value of body sent at ts (unix seconds):
// "v1=" and the hex HMAC-SHA256 of "v1:{ts}:{body}" keyed by secret.
func Sign(secret []byte, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	fmt.Fprintf(mac, "v1:%d:", ts)
	mac.Write(body)
	return "v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Errors of Verify.
var (
	ErrNoSecret        = errors.New("no signing secret: refusing to accept unsigned callbacks")
	ErrBadTimestamp    = errors.New("X-Inquiry-Timestamp is missing or not unix seconds")
	ErrStaleTimestamp  = errors.New("X-Inquiry-Timestamp is outside the allowed window")
	ErrBadSignature    = errors.New("X-Inquiry-Signature does not match the body")
	ErrNoSignatureSent = errors.New("X-Inquiry-Signature is missing")
)

// Verify checks a callback as a receiver gets it: header is X-Inquiry-Signature (one or more
// comma-separated v1= signatures, so a secret can be rotated), tsHeader X-Inquiry-Timestamp, body
// the raw body. The timestamp must lie within window of now (window <= 0: not checked). It
// compares in constant time and fails closed on an empty secret.
func Verify(secret []byte, header, tsHeader string, body []byte, now time.Time, window time.Duration) error {
	if len(secret) == 0 {
		return ErrNoSecret
	}
	ts, err := strconv.ParseInt(strings.TrimSpace(tsHeader), 10, 64)
	if err != nil {
		return ErrBadTimestamp
	}
	if window > 0 {
		skew := now.Sub(time.Unix(ts, 0))
		if skew > window || skew < -window {
			return ErrStaleTimestamp
		}
	}
	if strings.TrimSpace(header) == "" {
		return ErrNoSignatureSent
	}
	want := []byte(Sign(secret, ts, body))
	for _, part := range strings.Split(header, ",") {
		if hmac.Equal([]byte(strings.TrimSpace(part)), want) {
			return nil
		}
	}
	return ErrBadSignature
}
