package inquiry

import (
	"context"
	"time"
)

// RegisterRun registers a run (or returns the existing one, taking any config and resume URL
// given). The config is kept with the run so that a run resumed days later asks the same way.
func (s *Service) RegisterRun(ctx context.Context, namespace, id string, cfg *Config, resumeURL string) (*Run, error) {
	if err := checkID("id", id, "give the run a stable id such as \"deploy-42\""); err != nil {
		return nil, err
	}
	if err := CheckConfig(cfg); err != nil {
		return nil, err
	}
	return s.Store.PutRun(ctx, &Run{ID: id, Namespace: namespace, Config: cfg, ResumeURL: resumeURL}, s.Clock())
}

// GetRun returns a run of the namespace.
func (s *Service) GetRun(ctx context.Context, namespace, id string) (*Run, error) {
	return s.Store.Run(ctx, namespace, id)
}

// Heartbeat says the run's process is alive.
func (s *Service) Heartbeat(ctx context.Context, namespace, id string) (*Run, error) {
	return s.Store.Heartbeat(ctx, namespace, id, s.Clock())
}

// FinishRun ends a run with completed, failed or abandoned.
func (s *Service) FinishRun(ctx context.Context, namespace, id string, status RunStatus) (*Run, error) {
	if !status.Finished() {
		return nil, FieldErrorf(CodeBadRequest, "status", "status %q does not finish a run: use completed, failed or abandoned", string(status))
	}
	return s.Store.FinishRun(ctx, namespace, id, status, s.Clock())
}

// RunAsk is the outcome of an ask inside a run: answered (with the full, capped answer) or
// waiting (the run parked on the inquiry).
type RunAsk struct {
	Status  string  // "answered" or "waiting"
	Answer  *Answer // when answered
	Inquiry *Record // the inquiry, when there is one
	Run     *Run
}

// Run ask outcomes.
const (
	RunAskAnswered = "answered"
	RunAskWaiting  = "waiting"
)

// AskInRun asks inside a run, with exactly three outcomes, in order:
//  1. the run's state already holds an answer for this inquiry id (a re-entry): it is returned
//     at once — a question is never asked twice;
//  2. the inquiry is answered within req.Wait (or by policy): StateAnswerOf(CapAnswer(answer))
//     is recorded in the state and the full capped answer returned;
//  3. nobody answered in time: the run parks waiting on the inquiry.
//
// A run that was never registered is registered by its first ask.
func (s *Service) AskInRun(ctx context.Context, namespace, runID string, req AskRequest) (*RunAsk, error) {
	if err := checkID("run_id", runID, "use the id of the run in the path"); err != nil {
		return nil, err
	}
	run, err := s.Store.Run(ctx, namespace, runID)
	if ErrorCode(err) == CodeNotFound {
		run, err = s.Store.PutRun(ctx, &Run{ID: runID, Namespace: namespace}, s.Clock())
	}
	if err != nil {
		return nil, err
	}
	if run.Status.Finished() {
		return nil, Errorf(CodeBadRequest, "run %q is %s and asks nothing more: register a new run id to ask again", runID, run.Status)
	}
	id := req.Inquiry.ID
	if a, ok := run.Answers[id]; ok {
		// 1. A re-entry: the process is back, so the run is running again.
		run, err = s.Store.RecordAnswers(ctx, namespace, runID, nil, RunRunning, s.Clock())
		if err != nil {
			return nil, err
		}
		rec, err := s.Store.InquiryByID(ctx, namespace, runID, id)
		if err != nil && ErrorCode(err) != CodeNotFound {
			return nil, err
		}
		return &RunAsk{Status: RunAskAnswered, Answer: &a, Inquiry: rec, Run: run}, nil
	}
	req.Namespace = namespace
	req.Inquiry.RunID = runID
	if req.Config == nil {
		req.Config = run.Config
	}
	rec, _, err := s.Ask(ctx, req)
	if err != nil {
		return nil, err
	}
	if rec.Status == StatusPending {
		// 3. Nobody answered in time. ParkRun re-checks under the inquiry's row lock, so an answer
		// landing right now is handed back instead of being missed.
		var resolved *Record
		run, resolved, err = s.Store.ParkRun(ctx, namespace, runID, rec.Key, s.Clock())
		if err != nil {
			return nil, err
		}
		if resolved == nil {
			s.logger().InfoContext(ctx, "run waiting", "run", runID, "namespace", namespace, "key", rec.Key)
			return &RunAsk{Status: RunAskWaiting, Inquiry: rec, Run: run}, nil
		}
		rec = resolved
	}
	if rec.Answer == nil {
		// Cancelled or failed: there is no answer to record.
		if rec.Status == StatusFailed {
			msg := "the inquiry failed"
			if rec.Failure != nil {
				msg = rec.Failure.Message
			}
			return nil, Unavailable("%s", msg)
		}
		return nil, AlreadyResolved(rec)
	}
	// 2. Answered: record the state's cut, hand back the full capped answer.
	full := CapAnswer(*rec.Answer, DefaultAnswerChars)
	run, err = s.Store.RecordAnswers(ctx, namespace, runID, map[string]Answer{id: StateAnswerOf(full)}, RunRunning, s.Clock())
	if err != nil {
		return nil, err
	}
	return &RunAsk{Status: RunAskAnswered, Answer: &full, Inquiry: rec, Run: run}, nil
}

// Resume merges answers into a run's state with the same cut as the live path
// (StateAnswerOf(CapAnswer(…))) and sets the run running. Answers accumulate: a resume never
// loses an answer recorded before it.
func (s *Service) Resume(ctx context.Context, namespace, runID string, answers map[string]Answer) (*Run, error) {
	cut := make(map[string]Answer, len(answers))
	for id, a := range answers {
		if err := checkID("answers", id, "key each answer by its inquiry id"); err != nil {
			return nil, err
		}
		if a.InquiryID == "" {
			a.InquiryID = id
		}
		if a.AnsweredAt.IsZero() {
			a.AnsweredAt = s.Clock()
		}
		cut[id] = StateAnswerOf(CapAnswer(a, DefaultAnswerChars))
	}
	return s.Store.RecordAnswers(ctx, namespace, runID, cut, RunRunning, s.Clock())
}

// SweepStale abandons running runs whose heartbeat is older than staleAfter. Waiting runs are
// never touched: they have no process by design.
func (s *Service) SweepStale(ctx context.Context, staleAfter time.Duration) (int, error) {
	now := s.Clock()
	return s.Store.AbandonStale(ctx, now.Add(-staleAfter), now)
}
