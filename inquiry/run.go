package inquiry

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Runs live in the namespace of the caller in ctx (WithCaller): each run method reads it there,
// and without a caller nobody's runs are reached (fail closed).

// runCaller is the caller of a run method.
func runCaller(ctx context.Context) (*Token, error) {
	tok := CallerFrom(ctx)
	if tok == nil {
		return nil, Errorf(CodeUnauthenticated, "no caller: a run belongs to the namespace of the token that uses it; send Authorization: Bearer <token>")
	}
	return tok, nil
}

// RegisterRun registers a run of the caller's namespace (or returns the existing one, taking any
// config and resume URL given). The config is kept with the run so that a run resumed days later
// asks the same way.
func (s *Service) RegisterRun(ctx context.Context, id string, cfg *Config, resumeURL string) (*Run, error) {
	tok, err := runCaller(ctx)
	if err != nil {
		return nil, err
	}
	namespace := tok.Namespace
	id = Canon(id)
	if err := checkID("id", id, "give the run a stable id such as \"deploy-42\""); err != nil {
		return nil, err
	}
	if err := CheckConfig(cfg); err != nil {
		return nil, err
	}
	return s.Store.PutRun(ctx, &Run{ID: id, Namespace: namespace, Config: cfg, ResumeURL: resumeURL}, s.Clock())
}

// GetRun returns a run of the caller's namespace.
func (s *Service) GetRun(ctx context.Context, id string) (*Run, error) {
	tok, err := runCaller(ctx)
	if err != nil {
		return nil, err
	}
	return s.Store.Run(ctx, tok.Namespace, Canon(id))
}

// ListRuns lists runs, most recently updated first: the caller's namespace, or for an admin
// token every namespace (namespace "") or the one it names.
func (s *Service) ListRuns(ctx context.Context, namespace string, status RunStatus, limit int) ([]*Run, error) {
	tok, err := runCaller(ctx)
	if err != nil {
		return nil, err
	}
	if err := status.CheckFilter(); err != nil {
		return nil, err
	}
	if !tok.IsAdmin() {
		namespace = tok.Namespace
	}
	return s.Store.ListRuns(ctx, namespace, status, limit)
}

// Heartbeat says the run's process is alive.
func (s *Service) Heartbeat(ctx context.Context, id string) (*Run, error) {
	tok, err := runCaller(ctx)
	if err != nil {
		return nil, err
	}
	return s.Store.Heartbeat(ctx, tok.Namespace, Canon(id), s.Clock())
}

// FinishRun ends a run with completed, failed or abandoned.
func (s *Service) FinishRun(ctx context.Context, id string, status RunStatus) (*Run, error) {
	tok, err := runCaller(ctx)
	if err != nil {
		return nil, err
	}
	if !status.Finished() {
		return nil, FieldErrorf(CodeBadRequest, "status", "status %q does not finish a run: use completed, failed or abandoned", string(status))
	}
	return s.Store.FinishRun(ctx, tok.Namespace, Canon(id), status, s.Clock())
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
func (s *Service) AskInRun(ctx context.Context, runID string, req AskRequest) (*RunAsk, error) {
	tok, err := runCaller(ctx)
	if err != nil {
		return nil, err
	}
	namespace := tok.Namespace
	runID, req.Inquiry.ID = Canon(runID), Canon(req.Inquiry.ID)
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
	DeriveID(&req.Inquiry) // before the state is read: a re-entry without an id finds its answer
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
	// A new question needs room in the run's state for its answer: a full run asks nobody.
	if err := runHasRoom(run); err != nil {
		return nil, err
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
	run, err = s.Store.RecordAnswers(ctx, namespace, runID, map[string]Answer{id: StateOf(full)}, RunRunning, s.Clock())
	if err != nil {
		return nil, err
	}
	return &RunAsk{Status: RunAskAnswered, Answer: &full, Inquiry: rec, Run: run}, nil
}

// Resume merges what the run's caller hands back into the run's state, with the same cut as
// the live path (StateAnswerOf(CapAnswer(…))), and sets the run running. Answers accumulate: a
// resume never loses an answer recorded before it.
//
// What a resume brings is the caller's word, never a person's: only the value, text and
// declined of each answer are taken; who answered and when are the server's. For an answer keyed
// by the id of an inquiry of this run:
//   - the inquiry is pending: the answer is checked like any other (CheckAnswer) and resolves it
//     — its Slack message is updated, callbacks go out — labelled SourceCaller with the token's
//     name, or SourcePerson when the caller may answer it (MayAnswer: the answer scope, never
//     the asker);
//   - the inquiry is resolved: an answer with the same decision records the stored answer as it
//     is (its honest label); one that contradicts it is refused with CodeAlreadyResolved.
//
// An answer for an id the run never asked is recorded as SourceCaller, its value bounded like an
// option's. Everything is checked before anything is written.
func (s *Service) Resume(ctx context.Context, runID string, answers map[string]Answer) (*Run, error) {
	tok, err := runCaller(ctx)
	if err != nil {
		return nil, err
	}
	namespace, runID := tok.Namespace, Canon(runID)
	run, err := s.Store.Run(ctx, namespace, runID)
	if err != nil {
		return nil, err
	}
	if len(answers) > MaxRunAnswers {
		return nil, FieldErrorf(CodeInvalidAnswer, "answers", "a resume brings %d answers but a run holds at most %d: hand back the answers of this run's questions only", len(answers), MaxRunAnswers)
	}
	ids := make([]string, 0, len(answers))
	for id := range answers {
		ids = append(ids, id)
	}
	sort.Strings(ids)

	type step struct {
		id    string
		rec   *Record // the run's inquiry with this id, nil for none
		reply Reply
		own   Answer // the caller's answer, checked, for an id with no inquiry or a pending one
	}
	steps := make([]step, 0, len(ids))
	now := s.Clock()
	seen := make(map[string]bool, len(ids))
	for _, raw := range ids {
		a, id := answers[raw], Canon(raw)
		field := fmt.Sprintf("answers[%q]", raw)
		if err := checkID("answers", id, "key each answer by its inquiry id"); err != nil {
			return nil, err
		}
		if seen[id] {
			return nil, answerErr(field, "answers holds the id %q twice, written two ways (composed and decomposed, or with a byte order mark): send it once", id)
		}
		seen[id] = true
		if a.Source != "" && !a.Source.Valid() {
			return nil, answerErr(field+".source", "%s.source %q is not one of person, default, expired or caller: leave it out, a resume records the caller's answer as source caller", field, string(a.Source))
		}
		st := step{id: id, reply: Reply{Value: a.Value, Text: a.Text, Declined: a.Declined, Content: a.Content}}
		rec, err := s.Store.InquiryByID(ctx, namespace, runID, id)
		switch {
		case ErrorCode(err) == CodeNotFound:
			own, err := callerAnswer(field, st.reply)
			if err != nil {
				return nil, err
			}
			st.own = own
		case err != nil:
			return nil, err
		default:
			if rec, err = s.current(ctx, rec); err != nil {
				return nil, err
			}
			st.rec = rec
			if rec.Status == StatusPending {
				own, err := CheckAnswer(&rec.Inquiry, st.reply)
				if err != nil {
					return nil, withField(err, field)
				}
				st.own = own
			} else if rec.Answer == nil || !SameDecision(&rec.Inquiry, *rec.Answer, st.reply) {
				return nil, resumeContradicts(rec)
			}
		}
		st.own.InquiryID, st.own.AnsweredAt = id, now
		st.own.Source, st.own.AnsweredBy = SourceCaller, tok.Name
		steps = append(steps, st)
	}

	// The run's state with these answers must stay within its bound, before anything is written
	// (the store checks again under the run's lock).
	merged := maps.Clone(run.Answers)
	if merged == nil {
		merged = make(map[string]Answer, len(steps))
	}
	for _, st := range steps {
		a := st.own
		if st.rec != nil && st.rec.Status != StatusPending && st.rec.Answer != nil {
			a = *st.rec.Answer // one that ended unanswered (cancelled, failed) keeps the caller's own
		}
		merged[st.id] = StateOf(a)
	}
	if err := CheckRunState(&Run{ID: runID, Config: run.Config, Answers: merged}); err != nil {
		return nil, err
	}

	cut := make(map[string]Answer, len(steps))
	for _, st := range steps {
		a := st.own
		if st.rec != nil && st.rec.Status == StatusPending {
			source := SourceCaller
			if MayAnswer(st.rec, TokenHolder(tok)).Allowed {
				source = SourcePerson
			}
			out, err := s.answer(ctx, st.rec.Key, st.reply, TokenHolder(tok), source)
			switch {
			case err == nil && out.Answer == nil:
				continue // one vote of several: the run's state waits for the decision
			case err == nil:
				a = *out.Answer
			case ErrorCode(err) == CodeAlreadyResolved && out != nil && out.Answer != nil && SameDecision(&out.Inquiry, *out.Answer, st.reply):
				a = *out.Answer // resolved meanwhile, the same way
			case ErrorCode(err) == CodeAlreadyResolved && out != nil:
				return nil, resumeContradicts(out)
			default:
				return nil, err
			}
		} else if st.rec != nil && st.rec.Answer != nil {
			a = *st.rec.Answer
		}
		cut[st.id] = StateOf(a)
	}
	return s.Store.RecordAnswers(ctx, namespace, runID, cut, RunRunning, s.Clock())
}

// The bound of a run (the README's Limits). A run's state is what accumulates in it: its config and
// its answers (the state's cut of each, StateOf), as the store keeps them — the encoding/json text
// of the config (none when the run has no config) and of the answers map, keys and all. Its id,
// namespace, resume URL and times are bounded on their own and not counted. MaxRunStateBytes is
// counted in bytes of that JSON, so text that JSON escapes (<, >, & and controls: six bytes each)
// counts as it is stored. A write that would pass either bound is refused whole with
// CodeInvalidAnswer (CheckRunState): the run is done asking, and its caller finishes it and starts
// another. One resume brings at most MaxRunAnswers answers too, checked before any is looked up.
const (
	MaxRunAnswers    = 1000
	MaxRunStateBytes = 1 << 20
)

// MaxRunPageBytes bounds a page of runs (ListRuns, GET /v1/runs) in bytes as well as in count,
// so that a page of full runs stays well within what a client reads (16 MiB for client.Client)
// and what the server holds for it: the store's page ends before the run whose state
// (RunStateBytes) would take the page's past it, and the gateway's before the run whose JSON as
// shown (the inquiry it waits on and all) would. The first run is always on the page.
const MaxRunPageBytes = 8 << 20

// runAnswerRoom is the room a new question needs left in its run's state: more than the state's
// cut of any one answer takes (12 decisions of 150 characters and 200 of prose, under an id of
// 200, each character six bytes at worst once JSON escapes it: about 16 kB).
const runAnswerRoom = 32 << 10

// runFixSentence ends every refusal of a run past its bound.
const runFixSentence = ": finish this run and start another for the questions that remain"

// CheckRunState refuses a run whose state passes its bound, MaxRunAnswers answers or
// MaxRunStateBytes of state, with CodeInvalidAnswer on answers. The store calls it on every
// write of a run's state, under the run's lock, so the bound holds whoever writes; Resume calls
// it before it writes anything.
func CheckRunState(run *Run) error {
	if n := len(run.Answers); n > MaxRunAnswers {
		return FieldErrorf(CodeInvalidAnswer, "answers", "run %q would hold %d answers but a run holds at most %d answers and 1 MiB of state"+runFixSentence, run.ID, n, MaxRunAnswers)
	}
	if n := RunStateBytes(run); n > MaxRunStateBytes {
		return FieldErrorf(CodeInvalidAnswer, "answers", "run %q would hold %d bytes of state (its config and answers as JSON) but a run holds at most 1 MiB (%d bytes) and %d answers"+runFixSentence, run.ID, n, MaxRunStateBytes, MaxRunAnswers)
	}
	return nil
}

// runHasRoom refuses a new question in a run that could not record its answer: one that holds
// MaxRunAnswers answers, or whose state has less than runAnswerRoom left of MaxRunStateBytes.
func runHasRoom(run *Run) error {
	if n := len(run.Answers); n >= MaxRunAnswers {
		return FieldErrorf(CodeInvalidAnswer, "answers", "run %q holds %d answers and a run holds at most %d answers, so it asks nothing more"+runFixSentence, run.ID, n, MaxRunAnswers)
	}
	if n := RunStateBytes(run); n > MaxRunStateBytes-runAnswerRoom {
		return FieldErrorf(CodeInvalidAnswer, "answers", "run %q holds %d bytes of state and a run holds at most 1 MiB (%d bytes), too little room for another answer"+runFixSentence, run.ID, n, MaxRunStateBytes)
	}
	return nil
}

// RunStateBytes is the size of a run's state as MaxRunStateBytes counts it.
func RunStateBytes(run *Run) int {
	n := 0
	if run.Config != nil {
		n += jsonLen(run.Config)
	}
	answers := run.Answers
	if answers == nil {
		answers = map[string]Answer{}
	}
	return n + jsonLen(answers)
}

// jsonLen is the length of v's JSON; a value JSON cannot encode counts as unbounded.
func jsonLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return math.MaxInt / 2
	}
	return len(b)
}

// callerAnswer checks an answer handed back for an id the run never asked: a decision bounded
// like an option's value (at most MaxOptions items of at most MaxOptionValueChars), prose capped
// at the ceiling.
func callerAnswer(field string, r Reply) (Answer, error) {
	a := Answer{Value: r.Value, Declined: r.Declined}
	if !utf8.ValidString(r.Text) {
		return a, answerErr(field+".text", "%s.text is not valid UTF-8: send it as UTF-8 text", field)
	}
	r.Text = NormalizeNewlines(r.Text)
	if err := checkWordsShown(field+".text", r.Text); err != nil {
		return a, err
	}
	if c, ok := controlChar(r.Text); ok {
		return a, answerErr(field+".text", "%s.text contains the control character %U: remove it", field, c)
	}
	a.Text = strings.TrimSpace(r.Text)
	if r.Declined && !r.Value.IsZero() {
		return a, answerErr(field+".declined", "%s is either declined or a value, not both: drop one", field)
	}
	items := r.Value.Strings()
	if len(items) > MaxOptions {
		return a, answerErr(field+".value", "%s.value holds %d items but an answer chooses at most %d: hand back the decision only", field, len(items), MaxOptions)
	}
	for _, v := range items {
		n := utf8.RuneCountInString(v)
		switch {
		case !utf8.ValidString(v):
			return a, answerErr(field+".value", "%s.value is not valid UTF-8: send it as UTF-8 text", field)
		case n > MaxOptionValueChars:
			return a, answerErr(field+".value", "%s.value is %d characters long but a decision has at most %d: put prose in text", field, n, MaxOptionValueChars)
		}
		if c, ok := controlChar(v); ok {
			return a, answerErr(field+".value", "%s.value contains the control character %U: remove it", field, c)
		}
	}
	return CapAnswer(a, DefaultAnswerChars), nil
}

// resumeContradicts is the refusal of a resumed answer that contradicts an inquiry already
// resolved.
func resumeContradicts(rec *Record) error {
	e := AlreadyResolved(rec)
	e.Message = strings.TrimSuffix(e.Message, "; nothing was changed") + "; the resumed answer contradicts it and nothing was changed: hand back the recorded answer, or leave this id out"
	return e
}

// SweepStale abandons running runs whose heartbeat is older than staleAfter. Waiting runs are
// never touched: they have no process by design.
func (s *Service) SweepStale(ctx context.Context, staleAfter time.Duration) (int, error) {
	now := s.Clock()
	return s.Store.AbandonStale(ctx, now.Add(-staleAfter), now)
}
