package gateway

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

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

// ResumeCallback is the body POSTed to a run's resume_url when the inquiry it waits on is
// resolved: the run (its answers hold the state's cut), the inquiry id, the full capped answer
// (null when the inquiry was cancelled or failed), and the inquiry.
type ResumeCallback struct {
	Run       *RunView        `json:"run"`
	InquiryID string          `json:"inquiry_id"`
	Answer    *inquiry.Answer `json:"answer"`
	Inquiry   *inquiry.Record `json:"inquiry"`
}

// DeliveryHandlers returns the handlers of the deliveries the gateway carries out: callbacks to
// an inquiry's callback_url and resumes to a run's resume_url. Merge them with the service's
// TransportHandlers for the dispatcher.
//
// A handler returns nil when the receiver answered 2xx; a plain error (retried with backoff) for
// a network error, a timeout, 408 or 5xx; an *inquiry.RetryAfterError for 429 with Retry-After;
// and, to give up at once, an *inquiry.Error with CodeUnavailable — the code for which
// inquiry.Fatal is true, the only way to tell the dispatcher to stop — for any other answer, a
// redirect, a URL that is not http(s), and an address the guard refuses.
func (s *Server) DeliveryHandlers() map[inquiry.DeliveryKind]inquiry.DeliveryHandler {
	return map[inquiry.DeliveryKind]inquiry.DeliveryHandler{
		inquiry.DeliverCallback: s.deliverCallback,
		inquiry.DeliverResume:   s.deliverResume,
	}
}

// Merge joins handler maps; a later map wins for a kind both have.
func Merge(maps ...map[inquiry.DeliveryKind]inquiry.DeliveryHandler) map[inquiry.DeliveryKind]inquiry.DeliveryHandler {
	out := map[inquiry.DeliveryKind]inquiry.DeliveryHandler{}
	for _, m := range maps {
		for k, h := range m {
			out[k] = h
		}
	}
	return out
}

func (s *Server) deliverCallback(ctx context.Context, d inquiry.Delivery) error {
	rec, err := s.store.Inquiry(ctx, d.InquiryKey)
	if inquiry.ErrorCode(err) == inquiry.CodeNotFound {
		return nil // deleted by retention: nothing left to tell
	}
	if err != nil {
		return err
	}
	body, err := json.Marshal(present(rec))
	if err != nil {
		return fmt.Errorf("encode callback: %w", err)
	}
	return s.post(ctx, d, "callback", body)
}

func (s *Server) deliverResume(ctx context.Context, d inquiry.Delivery) error {
	run, err := s.store.Run(ctx, d.Namespace, d.RunID)
	if inquiry.ErrorCode(err) == inquiry.CodeNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	view, err := s.runView(ctx, run)
	if err != nil {
		return err
	}
	payload := ResumeCallback{Run: view}
	rec, err := s.store.Inquiry(ctx, d.InquiryKey)
	switch {
	case err == nil:
		payload.Inquiry, payload.InquiryID = present(rec), rec.ID
		payload.Answer = rec.Answer // stored capped at the one ceiling (CheckAnswer)
	case inquiry.ErrorCode(err) != inquiry.CodeNotFound:
		return err
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("encode resume: %w", err)
	}
	return s.post(ctx, d, "resume", body)
}

// post sends one signed attempt of d and says what the dispatcher should do next.
func (s *Server) post(ctx context.Context, d inquiry.Delivery, event string, body []byte) error {
	u, err := url.Parse(d.Target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return giveUp("the %s URL is not an absolute http or https URL", event)
	}
	label := u.Scheme + "://" + u.Host + u.Path // never the query: it may carry a secret
	var secret []byte
	if s.cfg.CallbackSecret != nil {
		secret = s.cfg.CallbackSecret()
	}
	if len(secret) == 0 {
		// Fail closed, but keep the delivery: a configured secret lets a later attempt succeed.
		return fmt.Errorf("%s to %s not sent: no callback secret is configured (BOT_CALLBACK_SECRET)", event, label)
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.CallbackTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Target, bytes.NewReader(body))
	if err != nil {
		return giveUp("the %s URL cannot be requested", event)
	}
	ts := s.svc.Clock().Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "inquiry-bot")
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderSignature, Sign(secret, ts, body))
	req.Header.Set(HeaderDelivery, strconv.FormatInt(d.ID, 10))
	req.Header.Set(HeaderEvent, event)

	resp, err := s.client.Do(req)
	if err != nil {
		var refused *RefusedAddrError
		if errors.As(err, &refused) {
			return &inquiry.Error{Code: inquiry.CodeUnavailable, Err: refused,
				Message: fmt.Sprintf("%s to %s refused: %s", event, label, refused.Error())}
		}
		return fmt.Errorf("%s to %s: %w", event, label, errors.Unwrap(err)) // url.Error repeats the whole URL
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()

	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusTooManyRequests:
		err := fmt.Errorf("%s to %s: receiver answered 429", event, label)
		if after, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return &inquiry.RetryAfterError{After: after, Err: err}
		}
		return err
	case code == http.StatusRequestTimeout || code >= 500:
		return fmt.Errorf("%s to %s: receiver answered %d", event, label, code)
	case code >= 300 && code < 400:
		return giveUp("%s to %s: receiver answered %d with a redirect, which callbacks do not follow; register the final URL", event, label, code)
	default:
		return giveUp("%s to %s: receiver answered %d, which a retry will not change", event, label, code)
	}
}

// giveUp is an error for which inquiry.Fatal is true, so the dispatcher stops retrying.
func giveUp(format string, args ...any) error {
	return inquiry.Unavailable(format, args...)
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date. It caps the wait at an hour.
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	var d time.Duration
	if secs, err := strconv.Atoi(h); err == nil {
		d = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(h); err == nil {
		d = at.Sub(now)
	} else {
		return 0, false
	}
	if d < 0 {
		d = 0
	}
	if d > time.Hour {
		d = time.Hour
	}
	return d, true
}
