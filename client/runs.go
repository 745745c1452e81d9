package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/inquiry-bot/bot/inquiry"
)

// Run is a run as the API returns it: the run and, while it waits, the inquiry it waits on.
type Run struct {
	inquiry.Run
	WaitingOn *inquiry.Record `json:"waiting_on"`
}

// RunRequest registers a run (POST /v1/runs).
type RunRequest struct {
	ID        string          `json:"id"`
	Config    *inquiry.Config `json:"config,omitempty"`
	ResumeURL string          `json:"resume_url,omitempty"`
}

// RegisterRun registers a run, or returns the existing one with any config and resume URL given.
func (c *Client) RegisterRun(ctx context.Context, req RunRequest) (*Run, error) {
	return c.runCall(ctx, http.MethodPost, "/v1/runs", req)
}

// GetRun returns a run (GET /v1/runs/{id}).
func (c *Client) GetRun(ctx context.Context, id string) (*Run, error) {
	return c.runCall(ctx, http.MethodGet, runPath(id, ""), nil)
}

// RunListOptions selects runs; the zero value lists every run the token may see.
type RunListOptions struct {
	Status    inquiry.RunStatus // "" for any
	Namespace string            // admin tokens only: one namespace instead of all
	Limit     int               // 0: the server's page size
}

// runList is the answer of GET /v1/runs.
type runList struct {
	Runs []*Run `json:"runs"`
}

// ListRuns lists runs, most recently updated first (GET /v1/runs).
func (c *Client) ListRuns(ctx context.Context, opts RunListOptions) ([]*Run, error) {
	q := url.Values{}
	set(q, "status", string(opts.Status))
	set(q, "namespace", opts.Namespace)
	if opts.Limit > 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	out, err := call[runList](ctx, c, http.MethodGet, "/v1/runs", q, nil, 0)
	if err != nil {
		return nil, err
	}
	return out.Runs, nil
}

// Heartbeat says the run's process is alive (POST /v1/runs/{id}/heartbeat).
func (c *Client) Heartbeat(ctx context.Context, id string) (*Run, error) {
	return c.runCall(ctx, http.MethodPost, runPath(id, "/heartbeat"), struct{}{})
}

// RunAsk is the outcome of an ask inside a run: Status "answered" with the full (capped) answer,
// or "waiting" with the inquiry the run now waits on.
type RunAsk struct {
	Status  string          `json:"status"`
	Answer  *inquiry.Answer `json:"answer"`
	Inquiry *inquiry.Record `json:"inquiry"`
}

// Answered reports whether the ask came back with an answer.
func (r *RunAsk) Answered() bool { return r.Status == inquiry.RunAskAnswered }

// AskInRun asks inside a run (POST /v1/runs/{runID}/ask). It has three outcomes: the answer the
// run's state already holds (a re-entry: never asked twice), an answer given within req.Wait,
// or "waiting" — the run parks on the inquiry and is resumed when it resolves. req.RunID is
// taken from runID.
func (c *Client) AskInRun(ctx context.Context, runID string, req AskRequest) (*RunAsk, error) {
	req.RunID = ""
	body, err := askBody(req)
	if err != nil {
		return nil, err
	}
	return call[RunAsk](ctx, c, http.MethodPost, runPath(runID, "/ask"), nil, body, waitOf(req))
}

// Resume merges answers (by inquiry id) into the run's state and sets it running
// (POST /v1/runs/{id}/resume).
func (c *Client) Resume(ctx context.Context, id string, answers map[string]inquiry.Answer) (*Run, error) {
	if answers == nil {
		answers = map[string]inquiry.Answer{}
	}
	return c.runCall(ctx, http.MethodPost, runPath(id, "/resume"), struct {
		Answers map[string]inquiry.Answer `json:"answers"`
	}{answers})
}

// FinishRun ends a run with completed, failed or abandoned (POST /v1/runs/{id}/finish).
func (c *Client) FinishRun(ctx context.Context, id string, status inquiry.RunStatus) (*Run, error) {
	return c.runCall(ctx, http.MethodPost, runPath(id, "/finish"), struct {
		Status inquiry.RunStatus `json:"status"`
	}{status})
}

func (c *Client) runCall(ctx context.Context, method, path string, body any) (*Run, error) {
	return call[Run](ctx, c, method, path, nil, body, 0)
}

func runPath(id, suffix string) string { return "/v1/runs/" + url.PathEscape(id) + suffix }
