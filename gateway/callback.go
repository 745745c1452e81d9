package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

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
	req.Header.Set(client.HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(client.HeaderSignature, client.Sign(secret, ts, body))
	req.Header.Set(client.HeaderDelivery, strconv.FormatInt(d.ID, 10))
	req.Header.Set(client.HeaderEvent, event)

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
