package slackapp

import (
	"bytes"
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

	"github.com/gin-gonic/gin"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// The paths Slack posts to (the app manifest's request URLs).
const (
	PathInteractions = "/slack/interactions"
	PathEvents       = "/slack/events"
	PathCommands     = "/slack/commands"
)

// maxBody bounds a request from Slack. Interaction payloads carry the whole message or view; the
// largest real one in slackapp/testdata/payloads is 122 kB.
const maxBody = 2 << 20

// signatureWindow is how far a request's timestamp may lie from now, either way.
const signatureWindow = 5 * time.Minute

// Handler serves POST /slack/interactions, /slack/events and /slack/commands.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+PathInteractions, a.serveInteractions)
	mux.HandleFunc("POST "+PathEvents, a.serveEvents)
	mux.HandleFunc("POST "+PathCommands, a.serveCommands)
	return mux
}

// Mount adds the three Slack endpoints to a gin engine (gateway.Config.Mount).
func (a *App) Mount(r gin.IRoutes) {
	h := gin.WrapH(a.Handler())
	r.POST(PathInteractions, h)
	r.POST(PathEvents, h)
	r.POST(PathCommands, h)
}

// Signature errors. A request that fails any check gets 401 and is neither parsed nor recorded.
var (
	ErrNoSecret         = errors.New("no signing secret is configured (SLACK_SIGNING_SECRET): every Slack request is refused")
	ErrMissingSignature = errors.New("the request has no X-Slack-Signature or X-Slack-Request-Timestamp")
	ErrStaleTimestamp   = errors.New("the request timestamp is more than five minutes from now")
	ErrBadSignature     = errors.New("the request signature does not match")
)

// Verify checks a request from Slack: the signature "v0=" + hex HMAC-SHA256 of
// "v0:{timestamp}:{body}" keyed by the signing secret, over the raw body, with a timestamp
// within five minutes of now either way. An empty secret fails closed.
func Verify(secret string, header http.Header, body []byte, now time.Time) error {
	if secret == "" {
		return ErrNoSecret
	}
	sig, stamp := header.Get("X-Slack-Signature"), header.Get("X-Slack-Request-Timestamp")
	if sig == "" || stamp == "" {
		return ErrMissingSignature
	}
	secs, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return ErrStaleTimestamp
	}
	if d := now.Sub(time.Unix(secs, 0)); d > signatureWindow || d < -signatureWindow {
		return ErrStaleTimestamp
	}
	hexSig, ok := strings.CutPrefix(sig, "v0=")
	if !ok {
		return ErrBadSignature
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || len(got) != sha256.Size {
		return ErrBadSignature
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + stamp + ":"))
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return ErrBadSignature
	}
	return nil
}

// verified reads the raw body and checks its signature before anything looks at it. On failure
// it answers (401, 413) and returns false.
func (a *App) verified(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if a.cfg.SigningSecret == "" {
		a.log.ErrorContext(r.Context(), "slack request refused", "path", r.URL.Path, "err", ErrNoSecret)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "cannot read request", http.StatusBadRequest)
		}
		return nil, false
	}
	if err := Verify(a.cfg.SigningSecret, r.Header, body, a.now()); err != nil {
		a.log.WarnContext(r.Context(), "slack request refused", "path", r.URL.Path, "err", err, "remote", r.RemoteAddr)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return nil, false
	}
	return body, true
}

// verifiedAs is the verified body read by parse. When it is not, it has answered (401, or 400
// with "unreadable slack <what>" logged) and reports false.
func verifiedAs[T any](a *App, w http.ResponseWriter, r *http.Request, what string, parse func([]byte) (T, error)) (T, bool) {
	var v T
	body, ok := a.verified(w, r)
	if !ok {
		return v, false
	}
	v, err := parse(body)
	if err != nil {
		a.log.WarnContext(r.Context(), "unreadable slack "+what, "err", err)
		http.Error(w, "bad request", http.StatusBadRequest)
		return v, false
	}
	return v, true
}

func (a *App) serveInteractions(w http.ResponseWriter, r *http.Request) {
	ic, ok := verifiedAs(a, w, r, "interaction", parseInteraction)
	if !ok {
		return
	}
	resp, err := a.handleInteraction(r.Context(), ic)
	if err != nil {
		a.log.ErrorContext(r.Context(), "slack interaction failed", "type", ic.Type, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	writeJSON(w, resp)
}

// parseInteraction reads the payload form field of a verified body. Only the body counts: a
// signature covers nothing else.
func parseInteraction(body []byte) (slack.InteractionCallback, error) {
	var ic slack.InteractionCallback
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return ic, fmt.Errorf("parse interaction form: %w", err)
	}
	payload := form.Get("payload")
	if payload == "" {
		return ic, errors.New("parse interaction: no payload field")
	}
	// slack-go's own decoding, whole: one decoder for the payload, the message acted in included.
	if err := json.Unmarshal([]byte(payload), &ic); err != nil {
		return ic, fmt.Errorf("parse interaction payload: %w", err)
	}
	return ic, nil
}

func (a *App) serveEvents(w http.ResponseWriter, r *http.Request) {
	ev, ok := verifiedAs(a, w, r, "event", parseEvent)
	if !ok {
		return
	}
	if ev.Type == slackevents.URLVerification {
		if v, ok := ev.Data.(*slackevents.EventsAPIURLVerificationEvent); ok {
			writeJSON(w, slackevents.ChallengeResponse{Challenge: v.Challenge})
			return
		}
	}
	if err := a.handleEvent(r.Context(), ev); err != nil {
		// Slack delivers the event again (X-Slack-Retry-Num); it was not marked seen.
		a.log.WarnContext(r.Context(), "slack event failed; Slack will retry", "retry", r.Header.Get("X-Slack-Retry-Num"), "err", err)
		http.Error(w, "try again", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// parseEvent reads an Events API body whose signature was verified, so the deprecated
// verification token is not checked.
func parseEvent(body []byte) (slackevents.EventsAPIEvent, error) {
	ev, err := slackevents.ParseEvent(json.RawMessage(body), slackevents.OptionNoVerifyToken())
	if err != nil {
		return ev, fmt.Errorf("parse event: %w", err)
	}
	return ev, nil
}

func (a *App) serveCommands(w http.ResponseWriter, r *http.Request) {
	body, ok := a.verified(w, r)
	if !ok {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	cmd, err := slack.SlashCommandParse(r)
	if err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	writeJSON(w, a.handleCommand(r.Context(), cmd))
}

// writeJSON writes v as the 200 answer, or an empty 200 when v is nil.
func writeJSON(w http.ResponseWriter, v any) {
	if v == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}
