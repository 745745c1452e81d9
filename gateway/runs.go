package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/inquiry-bot/bot/inquiry"
)

// RunBody is the body of POST /v1/runs.
type RunBody struct {
	ID        string          `json:"id"`
	Config    *inquiry.Config `json:"config"`
	ResumeURL string          `json:"resume_url"`
}

// ResumeBody is the body of POST /v1/runs/{id}/resume: answers by inquiry id.
type ResumeBody struct {
	Answers map[string]inquiry.Answer `json:"answers"`
}

// FinishBody is the body of POST /v1/runs/{id}/finish.
type FinishBody struct {
	Status inquiry.RunStatus `json:"status"`
}

// RunView is the run shape every endpoint returns: the run with its answers (never null) and,
// while it waits, the whole inquiry it waits on.
type RunView struct {
	ID          string                    `json:"id"`
	Namespace   string                    `json:"namespace"`
	Status      inquiry.RunStatus         `json:"status"`
	Config      *inquiry.Config           `json:"config"`
	ResumeURL   string                    `json:"resume_url"`
	HeartbeatAt time.Time                 `json:"heartbeat_at"`
	Answers     map[string]inquiry.Answer `json:"answers"`
	WaitingOn   *inquiry.Record           `json:"waiting_on"`
	CreatedAt   time.Time                 `json:"created_at"`
	UpdatedAt   time.Time                 `json:"updated_at"`
}

// RunList is the body of GET /v1/runs.
type RunList struct {
	Runs []*RunView `json:"runs"`
}

// RunAskView is the body of POST /v1/runs/{id}/ask: 200 answered (with the full, capped answer)
// or 202 waiting (the run parked on the inquiry).
type RunAskView struct {
	Status  string          `json:"status"`
	Answer  *inquiry.Answer `json:"answer,omitempty"`
	Inquiry *inquiry.Record `json:"inquiry"`
	Run     *RunView        `json:"run"`
}

// runView builds the run shape, reading the inquiry a waiting run waits on.
func (s *Server) runView(ctx context.Context, run *inquiry.Run) (*RunView, error) {
	v := &RunView{
		ID: run.ID, Namespace: run.Namespace, Status: run.Status, Config: run.Config,
		ResumeURL: run.ResumeURL, HeartbeatAt: run.HeartbeatAt, Answers: run.Answers,
		CreatedAt: run.CreatedAt, UpdatedAt: run.UpdatedAt,
	}
	if v.Answers == nil {
		v.Answers = map[string]inquiry.Answer{}
	}
	if run.Status == inquiry.RunWaiting && run.WaitingOn != "" {
		rec, err := s.svc.Get(ctx, run.WaitingOn)
		switch {
		case err == nil:
			v.WaitingOn = s.present(rec)
		case inquiry.ErrorCode(err) != inquiry.CodeNotFound:
			return nil, err
		}
	}
	return v, nil
}

// writeRun answers with a run.
func (s *Server) writeRun(c *gin.Context, status int, run *inquiry.Run, err error) {
	if err != nil {
		s.abort(c, runNotFound(err, c.Param("id"), token(c).Namespace))
		return
	}
	v, err := s.runView(c.Request.Context(), run)
	if err != nil {
		s.abort(c, err)
		return
	}
	c.JSON(status, v)
}

// runNotFound gives a missing run a sentence that says what to do.
func runNotFound(err error, id, namespace string) error {
	if inquiry.ErrorCode(err) != inquiry.CodeNotFound || id == "" {
		return err
	}
	return &inquiry.Error{Code: inquiry.CodeNotFound, Err: err,
		Message: fmt.Sprintf("no run %q in namespace %q: register it with POST /v1/runs, or ask inside it with POST /v1/runs/{id}/ask", id, namespace)}
}

// registerRun registers a run in the token's namespace: 201 when it is new, 200 when it existed
// (taking any config and resume URL given).
func (s *Server) registerRun(c *gin.Context) {
	var b RunBody
	if !s.bind(c, &b, false) {
		return
	}
	if b.ResumeURL != "" {
		if err := s.guard.Check(c.Request.Context(), "resume_url", b.ResumeURL); err != nil {
			s.abort(c, err)
			return
		}
	}
	ctx := c.Request.Context()
	status := http.StatusOK
	if b.ID != "" && printable(b.ID) { // an id that is not is refused by RegisterRun with its rule
		if _, err := s.svc.GetRun(ctx, b.ID); inquiry.ErrorCode(err) == inquiry.CodeNotFound {
			status = http.StatusCreated
		} else if err != nil {
			s.abort(c, err)
			return
		}
	}
	run, err := s.svc.RegisterRun(ctx, b.ID, b.Config, b.ResumeURL)
	if err == nil {
		c.Header("Location", "/v1/runs/"+run.ID)
	}
	s.writeRun(c, status, run, err)
}

// listRuns lists runs, most recently updated first: an ask token's own namespace; an admin
// token's every namespace, or the one named by ?namespace= (the service decides). One page: at
// most ?limit= runs and inquiry.MaxRunPageBytes of them.
func (s *Server) listRuns(c *gin.Context) {
	limit, err := queryLimit(c)
	if err != nil {
		s.abort(c, err)
		return
	}
	runs, err := s.svc.ListRuns(c.Request.Context(), c.Query("namespace"), inquiry.RunStatus(c.Query("status")), limit)
	if err != nil {
		s.abort(c, err)
		return
	}
	// A page ends where its runs, as shown (the inquiries waited on too), pass
	// inquiry.MaxRunPageBytes; the first is always shown.
	out := RunList{Runs: make([]*RunView, 0, len(runs))}
	size := 0
	for _, run := range runs {
		v, err := s.runView(c.Request.Context(), run)
		if err != nil {
			s.abort(c, err)
			return
		}
		raw, err := json.Marshal(v)
		if err != nil {
			s.abort(c, err)
			return
		}
		if size += len(raw) + 1; len(out.Runs) > 0 && size > inquiry.MaxRunPageBytes {
			break
		}
		out.Runs = append(out.Runs, v)
	}
	c.JSON(http.StatusOK, out)
}

func (s *Server) getRun(c *gin.Context) {
	run, err := s.svc.GetRun(c.Request.Context(), c.Param("id"))
	s.writeRun(c, http.StatusOK, run, err)
}

// runAction is the handler of an action on the path's run: it decodes a body of T (optional: an
// empty body is the zero T) and answers with the run do leaves.
func runAction[T any](s *Server, optional bool, do func(ctx context.Context, id string, b T) (*inquiry.Run, error)) gin.HandlerFunc {
	return func(c *gin.Context) {
		var b T
		if !s.bind(c, &b, optional) {
			return
		}
		run, err := do(c.Request.Context(), c.Param("id"), b)
		s.writeRun(c, http.StatusOK, run, err)
	}
}

// heartbeat marks a run alive; it takes no body (an empty object at most).
func (s *Server) heartbeat(ctx context.Context, id string, _ struct{}) (*inquiry.Run, error) {
	return s.svc.Heartbeat(ctx, id)
}

// askInRun asks inside a run, with the three outcomes of inquiry.Service.AskInRun: a re-entry
// (200 with the state's answer), an answer within the wait (200 with the full capped answer),
// or nobody in time (202, the run waiting).
func (s *Server) askInRun(c *gin.Context) {
	runID := c.Param("id")
	sameRun := func(b *AskBody) error {
		if b.RunID != "" && b.RunID != runID {
			return inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, "run_id", "run_id %q differs from the run %q in the path: leave run_id out, the path names the run", b.RunID, runID)
		}
		return nil
	}
	s.serveAsk(c, sameRun, func(ctx context.Context, req inquiry.AskRequest) error {
		out, err := s.svc.AskInRun(ctx, runID, req)
		if err != nil {
			return err
		}
		view := RunAskView{Status: out.Status, Answer: out.Answer, Inquiry: s.present(out.Inquiry)}
		if out.Run != nil {
			if view.Run, err = s.runView(ctx, out.Run); err != nil {
				return err
			}
		}
		status := http.StatusOK
		if out.Status == inquiry.RunAskWaiting {
			status = http.StatusAccepted
			view.Answer = nil
		}
		c.JSON(status, view)
		return nil
	})
}

// resumeRun merges the caller's answers into the run's state (cut as on the live path), resolving
// the run's pending inquiries they answer, and sets it running.
func (s *Server) resumeRun(ctx context.Context, id string, b ResumeBody) (*inquiry.Run, error) {
	// What the caller hands back is the caller's: the service labels it (source "caller" and the
	// token's name) whatever the body says of who answered.
	return s.svc.Resume(ctx, id, b.Answers)
}

// finishRun ends a run with completed, failed or abandoned.
func (s *Server) finishRun(ctx context.Context, id string, b FinishBody) (*inquiry.Run, error) {
	return s.svc.FinishRun(ctx, id, b.Status)
}
