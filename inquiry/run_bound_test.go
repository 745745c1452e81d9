package inquiry_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// requireRunFull checks err is the refusal of a run past its bound: 422 invalid_answer on
// answers, one sentence naming the limit and the fix.
func requireRunFull(t *testing.T, err error, limit string) {
	t.Helper()
	require.Equal(t, inquiry.CodeInvalidAnswer, inquiry.ErrorCode(err), "err: %v", err)
	require.Equal(t, "answers", inquiry.ErrorField(err))
	msg := inquiry.ErrorMessage(err)
	require.Contains(t, msg, limit, "the sentence names the limit")
	require.Contains(t, msg, "finish this run and start another", "the sentence names the fix")
	require.NotContains(t, msg, "\n")
}

// smallAnswers are n answers handed back for ids no inquiry has, from step-<from>.
func smallAnswers(from, n int) map[string]inquiry.Answer {
	m := make(map[string]inquiry.Answer, n)
	for i := from; i < from+n; i++ {
		m[fmt.Sprintf("step-%04d", i)] = inquiry.Answer{Value: inquiry.One("ok")}
	}
	return m
}

// bigAnswers are n answers as large as a resume lets an answer be: 12 decisions of 150
// characters that JSON escapes six bytes each (about 11 kB of state apiece, from 2 kB sent).
func bigAnswers(from, n int) map[string]inquiry.Answer {
	items := make([]string, inquiry.MaxOptions)
	for i := range items {
		items[i] = fmt.Sprintf("%02d", i) + strings.Repeat("<", inquiry.MaxOptionValueChars-2)
	}
	m := make(map[string]inquiry.Answer, n)
	for i := from; i < from+n; i++ {
		m[fmt.Sprintf("big-%04d", i)] = inquiry.Answer{Value: inquiry.Many(items...)}
	}
	return m
}

// A run holds at most MaxRunAnswers answers: a resume past it is refused whole, handing back
// what the run holds already is taken, and a new question is refused before anybody is asked.
func TestRunHoldsAtMostMaxRunAnswers(t *testing.T) {
	b := setup(t)
	ctx := asNS(b.ctx)
	_, err := b.svc.RegisterRun(ctx, "r1", nil, "")
	require.NoError(t, err)

	run, err := b.svc.Resume(ctx, "r1", smallAnswers(0, inquiry.MaxRunAnswers))
	require.NoError(t, err)
	require.Equal(t, inquiry.MaxRunAnswers, len(run.Answers))

	_, err = b.svc.Resume(ctx, "r1", smallAnswers(inquiry.MaxRunAnswers, 1))
	requireRunFull(t, err, "1000 answers")
	run, err = b.svc.GetRun(ctx, "r1")
	require.NoError(t, err)
	require.Equal(t, inquiry.MaxRunAnswers, len(run.Answers), "the refused resume wrote nothing")

	_, err = b.svc.Resume(ctx, "r1", smallAnswers(0, 10))
	require.NoError(t, err, "answers the run holds already add nothing")

	in := merge()
	_, err = b.svc.AskInRun(ctx, "r1", inquiry.AskRequest{Inquiry: in, Config: &inquiry.Config{Policy: inquiry.PolicyDefault}})
	requireRunFull(t, err, "1000 answers")
	_, err = b.store.InquiryByID(b.ctx, "ns", "r1", in.ID)
	require.Equal(t, inquiry.CodeNotFound, inquiry.ErrorCode(err), "a full run asks nobody")

	res, err := b.svc.AskInRun(ctx, "r1", inquiry.AskRequest{Inquiry: inquiry.Inquiry{ID: "step-0001", Kind: inquiry.KindText, Question: "Again?"}})
	require.NoError(t, err, "a re-entry still finds its answer in a full run")
	require.Equal(t, inquiry.RunAskAnswered, res.Status)
}

// A run holds at most MaxRunStateBytes of state, its config and answers as JSON: resumes that
// would pass it are refused whole, whoever writes (the store refuses too).
func TestRunStateAtMostOneMiB(t *testing.T) {
	b := setup(t)
	ctx := asNS(b.ctx)
	_, err := b.svc.RegisterRun(ctx, "r1", &inquiry.Config{Policy: inquiry.PolicyAsk}, "")
	require.NoError(t, err)

	_, err = b.svc.Resume(ctx, "r1", bigAnswers(0, 120))
	requireRunFull(t, err, "1 MiB")
	run, err := b.svc.GetRun(ctx, "r1")
	require.NoError(t, err)
	require.Equal(t, 0, len(run.Answers), "the refused resume wrote nothing")

	run, err = b.svc.Resume(ctx, "r1", bigAnswers(0, 60))
	require.NoError(t, err)
	require.Equal(t, 60, len(run.Answers))
	_, err = b.svc.Resume(ctx, "r1", bigAnswers(60, 60))
	requireRunFull(t, err, "1 MiB")

	_, err = b.store.RecordAnswers(b.ctx, "ns", "r1", bigAnswers(60, 60), inquiry.RunRunning, b.clock.Now())
	requireRunFull(t, err, "1 MiB")
	run, err = b.svc.GetRun(ctx, "r1")
	require.NoError(t, err)
	require.Equal(t, 60, len(run.Answers))
	require.LessOrEqual(t, inquiry.RunStateBytes(run), inquiry.MaxRunStateBytes)
}

// A run whose state has no room left for one more answer asks nobody.
func TestFullStateAsksNobody(t *testing.T) {
	b := setup(t)
	ctx := asNS(b.ctx)
	_, err := b.svc.RegisterRun(ctx, "r1", nil, "")
	require.NoError(t, err)
	// Fill the state ten answers at a time, then one at a time, until it takes no more.
	next := 0
	for _, step := range []int{10, 1} {
		for {
			require.Less(t, next, 200, "200 answers of 11 kB are past 1 MiB, yet the run took them all")
			_, err := b.svc.Resume(ctx, "r1", bigAnswers(next, step))
			if err != nil {
				requireRunFull(t, err, "1 MiB")
				break
			}
			next += step
		}
	}
	run, err := b.svc.GetRun(ctx, "r1")
	require.NoError(t, err)
	require.Greater(t, inquiry.RunStateBytes(run), inquiry.MaxRunStateBytes-20<<10, "full to within two answers")
	in := merge()
	_, err = b.svc.AskInRun(ctx, "r1", inquiry.AskRequest{Inquiry: in, Config: &inquiry.Config{Policy: inquiry.PolicyDefault}})
	requireRunFull(t, err, "1 MiB")
	_, err = b.store.InquiryByID(b.ctx, "ns", "r1", in.ID)
	require.Equal(t, inquiry.CodeNotFound, inquiry.ErrorCode(err), "a full run asks nobody")
}

// An answer to a question the run parked on is never refused for the run's sake: the inquiry
// is answered, and a run already full does not take it into its state.
func TestParkedAnswerNeverOverfillsARun(t *testing.T) {
	b := setup(t)
	ctx := asNS(b.ctx)
	_, err := b.svc.RegisterRun(ctx, "r1", &inquiry.Config{Policy: inquiry.PolicyAsk}, "")
	require.NoError(t, err)
	res, err := b.svc.AskInRun(ctx, "r1", inquiry.AskRequest{Inquiry: merge()})
	require.NoError(t, err)
	require.Equal(t, inquiry.RunAskWaiting, res.Status)

	_, err = b.svc.Resume(ctx, "r1", smallAnswers(0, inquiry.MaxRunAnswers))
	require.NoError(t, err)
	rec, err := b.svc.Answer(b.ctx, res.Inquiry.Key, inquiry.Reply{Value: inquiry.One("merge")}, "U1")
	require.NoError(t, err, "the person's answer is taken")
	require.Equal(t, inquiry.StatusAnswered, rec.Status)

	run, err := b.svc.GetRun(ctx, "r1")
	require.NoError(t, err)
	require.Equal(t, inquiry.MaxRunAnswers, len(run.Answers))
	_, ok := run.Answers[merge().ID]
	require.False(t, ok, "the full run did not take the answer")

	_, err = b.svc.AskInRun(ctx, "r1", inquiry.AskRequest{Inquiry: merge()})
	requireRunFull(t, err, "1000 answers")
}
