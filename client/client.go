// Package client is a small Go client for the inquiry bot's v1 HTTP API: ask a question, wait
// for its answer, list and answer questions, and drive runs (register, heartbeat, ask inside a
// run, resume, finish).
//
// Every method takes ctx first. Errors the gateway reports come back as *inquiry.Error (reach it
// with errors.As) carrying the code, the one-sentence message and the field of the error body, so
// callers use the domain's vocabulary: inquiry.ErrorCode(err), inquiry.ErrorMessage(err),
// inquiry.Fatal(err), errors.Is(err, inquiry.ErrUnavailable). An error body that says
// "fatal": true is Fatal whatever its code. A gateway that cannot be reached, or answers with
// something that is not the API's JSON, gives a *TransportError; Temporary tells passing faults
// from the rest.
//
// The bot CLI and the MCP server are built on it.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// MaxWait is the longest a single long-poll may wait on the server (openapi.yaml: wait).
const MaxWait = inquiry.MaxWait

// requestSlack is how long a request may take beyond the server-side wait it asks for.
const requestSlack = 30 * time.Second

// Client talks to one gateway with one token. It is safe for concurrent use.
type Client struct {
	base      *url.URL
	token     string
	http      *http.Client
	userAgent string
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient uses hc for requests (its Timeout, if set, must exceed MaxWait for long-polls).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a client for the gateway at baseURL (such as "http://127.0.0.1:8080") that
// authenticates with token. A baseURL that does not parse fails on the first request.
func New(baseURL, token string, opts ...Option) *Client {
	c := &Client{token: token, http: http.DefaultClient, userAgent: "inquiry-bot-client"}
	if u, err := url.Parse(strings.TrimRight(strings.TrimSpace(baseURL), "/")); err == nil && u.Scheme != "" && u.Host != "" {
		c.base = u
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// BaseURL is the gateway's address as configured, with any password hidden.
func (c *Client) BaseURL() string {
	if c.base == nil {
		return "(invalid URL)"
	}
	return c.base.Redacted()
}

// SlackTarget says where in Slack to ask and who may answer.
type SlackTarget = inquiry.SlackTarget

// AskRequest is the body of POST /v1/inquiries (and of POST /v1/runs/{id}/ask): the domain's
// own request, by the wire names. Wait is in seconds (inquiry.Seconds makes one of a duration).
type AskRequest = inquiry.AskRequest

// Ask puts an inquiry (POST /v1/inquiries). created reports a new pending inquiry (201); false
// means the same inquiry was asked before (it comes back as it stands, answered or not) or it
// was resolved at once, by policy or within Wait.
func (c *Client) Ask(ctx context.Context, req AskRequest) (rec *inquiry.Record, created bool, err error) {
	rec = new(inquiry.Record)
	body, err := askBody(req)
	if err != nil {
		return nil, false, err
	}
	status, err := c.do(ctx, http.MethodPost, "/v1/inquiries", nil, body, rec, waitOf(req))
	if err != nil {
		return nil, false, err
	}
	return rec, status == http.StatusCreated, nil
}

// Get returns the inquiry with the server key. With wait > 0 the server long-polls up to wait
// (at most MaxWait) until the inquiry leaves pending; it comes back as it stands either way.
func (c *Client) Get(ctx context.Context, key string, wait time.Duration) (*inquiry.Record, error) {
	var q url.Values
	if wait > 0 {
		q = url.Values{"wait": {strconv.Itoa(waitSeconds(wait))}}
	}
	return call[inquiry.Record](ctx, c, http.MethodGet, "/v1/inquiries/"+url.PathEscape(key), q, nil, wait)
}

// ListOptions selects inquiries; the zero value lists everything the token may see.
type ListOptions struct {
	Status inquiry.Status // "" for any
	RunID  string
	Limit  int    // 0: the server's page size
	Cursor string // from the previous page's NextCursor
}

// InquiryList is one page of inquiries, newest first.
type InquiryList struct {
	Inquiries  []*inquiry.Record `json:"inquiries"`
	NextCursor string            `json:"next_cursor"` // "" on the last page
}

// List lists inquiries, newest first, one page at a time (GET /v1/inquiries).
func (c *Client) List(ctx context.Context, opts ListOptions) (*InquiryList, error) {
	q := url.Values{}
	set(q, "status", string(opts.Status))
	set(q, "run_id", opts.RunID)
	if opts.Limit > 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	set(q, "cursor", opts.Cursor)
	return call[InquiryList](ctx, c, http.MethodGet, "/v1/inquiries", q, nil, 0)
}

// ListAll follows the cursor through every page, newest first, and stops after max inquiries
// (max <= 0: no bound).
func (c *Client) ListAll(ctx context.Context, opts ListOptions, max int) ([]*inquiry.Record, error) {
	var all []*inquiry.Record
	for {
		page, err := c.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Inquiries...)
		if max > 0 && len(all) >= max {
			return all[:max], nil
		}
		if page.NextCursor == "" || page.NextCursor == opts.Cursor || len(page.Inquiries) == 0 {
			return all, nil
		}
		opts.Cursor = page.NextCursor
	}
}

// Reply is an answer as a person (or their tool) sends it: a value (an option's value, or a
// list of them for a multiple choice), text (own words), or a decline (with an optional reason
// in Text).
type Reply struct {
	Value    inquiry.Value `json:"value,omitzero"`
	Text     string        `json:"text,omitempty"`
	Declined bool          `json:"declined,omitempty"`
	// Content is the approved version of an editable proposal, whole (edited when it differs).
	Content string `json:"content,omitempty"`
}

// Answer answers a pending inquiry (POST /v1/inquiries/{key}/answer) and returns it resolved.
// Answering one that is no longer pending fails with code already_resolved.
func (c *Client) Answer(ctx context.Context, key string, r Reply) (*inquiry.Record, error) {
	return call[inquiry.Record](ctx, c, http.MethodPost, "/v1/inquiries/"+url.PathEscape(key)+"/answer", nil, r, 0)
}

// Cancel withdraws a pending inquiry the token asked (POST /v1/inquiries/{key}/cancel).
func (c *Client) Cancel(ctx context.Context, key string) (*inquiry.Record, error) {
	return call[inquiry.Record](ctx, c, http.MethodPost, "/v1/inquiries/"+url.PathEscape(key)+"/cancel", nil, struct{}{}, 0)
}

// Extend gives a pending inquiry more time, by by (0: the inquiry's own extend.by).
func (c *Client) Extend(ctx context.Context, key string, by time.Duration) (*inquiry.Record, error) {
	return call[inquiry.Record](ctx, c, http.MethodPost, "/v1/inquiries/"+url.PathEscape(key)+"/extend", nil,
		inquiry.ExtendRequest{By: inquiry.Duration(by)}, 0)
}

// WaitAnswer waits until the inquiry leaves pending or timeout passes, long-polling in slices
// of at most MaxWait. It returns the inquiry as it stands: resolved, or still pending when the
// timeout passed (that is not an error). Passing faults — the database or the gateway briefly
// unreachable — are retried with backoff within the timeout; any other error, or ctx ending,
// stops the wait.
func (c *Client) WaitAnswer(ctx context.Context, key string, timeout time.Duration) (*inquiry.Record, error) {
	deadline := time.Now().Add(timeout)
	backoff := 500 * time.Millisecond
	var last *inquiry.Record
	for {
		left := time.Until(deadline)
		wait := min(left, MaxWait)
		if wait < 0 {
			wait = 0
		}
		start := time.Now()
		rec, err := c.Get(ctx, key, wait)
		switch {
		case err == nil:
			backoff = 500 * time.Millisecond
			last = rec
			left := time.Until(deadline)
			if rec.Status.Resolved() || left <= 0 {
				return rec, nil
			}
			// A server that did not hold the request (an older one, or a proxy) must not make
			// this a busy loop.
			if pause := min(time.Second-time.Since(start), left); pause > 0 {
				if err := sleep(ctx, pause); err != nil {
					return last, err
				}
			}
			continue
		case ctx.Err() != nil:
			return last, ctx.Err()
		case !Temporary(err):
			return last, err
		}
		// A passing fault: retry within the timeout, or report it when the time is up.
		pause := backoff
		if ra := retryAfter(err); ra > 0 {
			pause = ra
		}
		if left := time.Until(deadline); left <= 0 {
			if last != nil {
				return last, nil
			}
			return nil, err
		} else if pause > left {
			pause = left
		}
		if err := sleep(ctx, pause); err != nil {
			return last, err
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Temporary reports whether err is a passing fault worth retrying: the database unreachable
// right now (storage_unavailable), the caller over a rate limit (rate_limited: nothing was
// done), or the gateway not answering (connection refused, a proxy's 502/503/504). A fatal
// error never is. Retry no sooner than the answer's Retry-After (WaitAnswer does).
func Temporary(err error) bool {
	if err == nil || inquiry.Fatal(err) {
		return false
	}
	if code := inquiry.ErrorCode(err); code == inquiry.CodeStorageUnavailable || code == inquiry.CodeRateLimited {
		return true
	}
	var te *TransportError
	return errors.As(err, &te)
}

// TransportError is a request that never got an answer from the gateway (or got one that is
// not the gateway's: a proxy's error page). It is Temporary.
type TransportError struct {
	URL    string // redacted
	Status int    // the HTTP status of a foreign answer; 0 when there was none
	Err    error
}

func (e *TransportError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("the gateway at %s answered %d %s, not the API's JSON: check BOT_URL", e.URL, e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("cannot reach the gateway at %s (%s): is bot serve running there? check BOT_URL", e.URL, rootCause(e.Err))
}

func (e *TransportError) Unwrap() error { return e.Err }

// rootCause gives the innermost message of a network error, e.g. "connection refused".
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// retryAfter is the pause a storage_unavailable or rate_limited answer asked for (its
// Retry-After), else 0.
func retryAfter(err error) time.Duration {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.retryAfter
	}
	return 0
}

// errorBody is the API's error envelope.
type errorBody struct {
	Error *struct {
		Code    inquiry.Code `json:"code"`
		Message string       `json:"message"`
		Fatal   bool         `json:"fatal"`
		Field   string       `json:"field"`
	} `json:"error"`
}

// apiError is what do returns for an error body: the *inquiry.Error (reached with errors.As,
// inquiry.ErrorCode and inquiry.ErrorMessage) plus what the wire said beside it.
type apiError struct {
	err        *inquiry.Error
	fatal      bool          // the body said "fatal": true
	retryAfter time.Duration // Retry-After of a storage_unavailable or rate_limited answer
}

func (e *apiError) Error() string { return e.err.Error() }

func (e *apiError) Unwrap() error { return e.err }

// Is makes a body that said fatal count as fatal whatever its code, so inquiry.Fatal reports it.
func (e *apiError) Is(target error) bool { return e.fatal && target == inquiry.ErrUnavailable }

// do sends one request and decodes a 2xx JSON answer into out. wait is the server-side wait the
// request asks for; the request is bounded by wait plus requestSlack unless ctx is shorter.
// call is one request whose answer decodes into a new T: what most methods are.
func call[T any](ctx context.Context, c *Client, method, path string, q url.Values, body any, wait time.Duration) (*T, error) {
	out := new(T)
	if _, err := c.do(ctx, method, path, q, body, out, wait); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *Client) do(ctx context.Context, method, path string, q url.Values, body, out any, wait time.Duration) (int, error) {
	if c.base == nil {
		return 0, inquiry.Errorf(inquiry.CodeBadRequest, "the gateway URL is not an absolute http(s) URL: set BOT_URL to one such as http://127.0.0.1:8080")
	}
	// path is already escaped (url.PathEscape of keys and ids), so it is joined as text.
	target := strings.TrimRight(c.base.String(), "/") + path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	var rd io.Reader
	if body != nil {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // markup as written: a proposal's 256 KiB of it fits the body limit
		if err := enc.Encode(body); err != nil {
			return 0, fmt.Errorf("encode the request: %w", err)
		}
		rd = &b
	}
	ctx, cancel := context.WithTimeout(ctx, min(wait, MaxWait)+requestSlack)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return 0, fmt.Errorf("build the request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return 0, ctxErr
		}
		return 0, &TransportError{URL: c.BaseURL(), Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return resp.StatusCode, &TransportError{URL: c.BaseURL(), Err: fmt.Errorf("read the answer: %w", err)}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if out != nil {
			if err := json.Unmarshal(raw, out); err != nil {
				return resp.StatusCode, fmt.Errorf("decode the answer of %s %s: %w", method, path, err)
			}
		}
		return resp.StatusCode, nil
	}
	return resp.StatusCode, decodeError(resp, raw, c.BaseURL())
}

// decodeError turns an error answer into an *inquiry.Error, or a *TransportError when the
// answer is not the API's (a proxy's error page).
func decodeError(resp *http.Response, raw []byte, base string) error {
	var eb errorBody
	if err := json.Unmarshal(raw, &eb); err != nil || eb.Error == nil || eb.Error.Code == "" {
		if resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable ||
			resp.StatusCode == http.StatusGatewayTimeout {
			return &TransportError{URL: base, Status: resp.StatusCode}
		}
		return &inquiry.Error{Code: codeForStatus(resp.StatusCode), Message: fmt.Sprintf(
			"the gateway at %s answered %d %s without an error body: check BOT_URL and the server log",
			base, resp.StatusCode, http.StatusText(resp.StatusCode))}
	}
	e := &inquiry.Error{Code: eb.Error.Code, Message: eb.Error.Message, Field: eb.Error.Field}
	if e.Message == "" {
		e.Message = strings.ReplaceAll(string(e.Code), "_", " ")
	}
	if !eb.Error.Fatal && e.Code != inquiry.CodeStorageUnavailable && e.Code != inquiry.CodeRateLimited {
		return e
	}
	ae := &apiError{err: e, fatal: eb.Error.Fatal}
	if s, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && s > 0 {
		ae.retryAfter = time.Duration(s) * time.Second
	}
	return ae
}

// codeForStatus names a bare HTTP status in the API's vocabulary.
func codeForStatus(status int) inquiry.Code {
	switch status {
	case http.StatusBadRequest:
		return inquiry.CodeBadRequest
	case http.StatusUnauthorized:
		return inquiry.CodeUnauthenticated
	case http.StatusForbidden:
		return inquiry.CodeForbidden
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return inquiry.CodeNotFound
	case http.StatusRequestEntityTooLarge:
		return inquiry.CodeTooLarge
	}
	return inquiry.CodeInternal
}

// askBody is req as the client sends it: the domain's request, whose zero members its JSON
// leaves out (inquiry.AskRequest.MarshalJSON, omitempty), with the wait in whole seconds,
// rounded up.
func askBody(req AskRequest) (json.RawMessage, error) {
	if req.Wait != nil {
		w := math.Ceil(min(*req.Wait, MaxWait.Seconds()))
		req.Wait = &w
	}
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false) // markup as written, as call sends every body
	if err := enc.Encode(req); err != nil {
		return nil, fmt.Errorf("encode the ask: %w", err)
	}
	return bytes.TrimSuffix(raw.Bytes(), []byte("\n")), nil
}

// waitOf is how long the server may hold an ask.
func waitOf(req AskRequest) time.Duration {
	if req.Wait == nil {
		return 0
	}
	return time.Duration(*req.Wait * float64(time.Second))
}

// waitSeconds is a wait in whole seconds, rounded up and bounded by MaxWait.
func waitSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Ceil(min(d, MaxWait).Seconds()))
}

func set(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}
