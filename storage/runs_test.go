package storage_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/stretchr/testify/require"
)

func putRun(t *testing.T, b *bundle, namespace, id, resumeURL string, now time.Time) *inquiry.Run {
	t.Helper()
	run, err := b.store.PutRun(context.Background(), &inquiry.Run{ID: id, Namespace: namespace, ResumeURL: resumeURL,
		Config: &inquiry.Config{Policy: inquiry.PolicyAsk}}, now)
	require.NoError(t, err)
	return run
}

// resumableRun puts run runID of namespace "ns" at t0, to be resumed at https://ci/resume, and
// asks inquiry id in it.
func resumableRun(t *testing.T, b *bundle, runID, id string) *inquiry.Record {
	t.Helper()
	putRun(t, b, "ns", runID, "https://ci/resume", t0)
	return create(t, b.store, newRecord("ns", runID, id))
}

func TestPutRun(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		run := putRun(t, b, "ns", "deploy-42", "", t0)
		require.Equal(t, &inquiry.Run{ID: "deploy-42", Namespace: "ns", Status: inquiry.RunRunning,
			Config: &inquiry.Config{Policy: inquiry.PolicyAsk}, HeartbeatAt: t0, Answers: map[string]inquiry.Answer{},
			CreatedAt: t0, UpdatedAt: t0}, run)

		// Registering again changes only what is given.
		again, err := b.store.PutRun(ctx, &inquiry.Run{ID: "deploy-42", Namespace: "ns"}, t0.Add(time.Minute))
		require.NoError(t, err)
		require.Equal(t, run, again)
		again, err = b.store.PutRun(ctx, &inquiry.Run{ID: "deploy-42", Namespace: "ns", ResumeURL: "https://ci/resume",
			Config: &inquiry.Config{Policy: inquiry.PolicyDefault}}, t0.Add(time.Minute))
		require.NoError(t, err)
		require.Equal(t, "https://ci/resume", again.ResumeURL)
		require.Equal(t, inquiry.PolicyDefault, again.Config.Policy)
		require.Equal(t, t0, again.HeartbeatAt)
		require.Equal(t, t0.Add(time.Minute), again.UpdatedAt)
		got, err := b.store.Run(ctx, "ns", "deploy-42")
		require.NoError(t, err)
		require.Equal(t, again, got)

		// The same id in another namespace is another run.
		other := putRun(t, b, "other", "deploy-42", "", t0.Add(2*time.Minute))
		require.Empty(t, other.ResumeURL)

		hb, err := b.store.Heartbeat(ctx, "ns", "deploy-42", t0.Add(3*time.Minute))
		require.NoError(t, err)
		require.Equal(t, t0.Add(3*time.Minute), hb.HeartbeatAt)
		require.Equal(t, inquiry.RunRunning, hb.Status)

		runs, err := b.store.ListRuns(ctx, "", "", 0)
		require.NoError(t, err)
		require.Len(t, runs, 2)
		require.Equal(t, "ns", runs[0].Namespace, "most recently updated first")
		runs, err = b.store.ListRuns(ctx, "other", "", 0)
		require.NoError(t, err)
		require.Len(t, runs, 1)

		fin, err := b.store.FinishRun(ctx, "ns", "deploy-42", inquiry.RunCompleted, t0.Add(4*time.Minute))
		require.NoError(t, err)
		require.Equal(t, inquiry.RunCompleted, fin.Status)
		runs, err = b.store.ListRuns(ctx, "", inquiry.RunRunning, 10)
		require.NoError(t, err)
		require.Len(t, runs, 1)
		require.Equal(t, "other", runs[0].Namespace)

		_, err = b.store.FinishRun(ctx, "ns", "deploy-42", inquiry.RunWaiting, t0)
		requireCode(t, err, inquiry.CodeBadRequest)
		_, err = b.store.RecordAnswers(ctx, "ns", "deploy-42", nil, "sleeping", t0)
		requireCode(t, err, inquiry.CodeBadRequest)
	})
}

func TestRecordAnswersConcurrently(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		putRun(t, b, "ns", "run", "", t0)
		const n = 20
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				id := fmt.Sprintf("step-%d", i)
				_, errs[i] = b.store.RecordAnswers(ctx, "ns", "run", map[string]inquiry.Answer{
					id: *personAnswer(id, "merge", t0),
				}, "", t0.Add(time.Duration(i)*time.Second))
			})
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		run, err := b.store.Run(ctx, "ns", "run")
		require.NoError(t, err)
		require.Len(t, run.Answers, n, "no writer lost a sibling's answer")
		for i := range n {
			id := fmt.Sprintf("step-%d", i)
			require.Equal(t, *personAnswer(id, "merge", t0), run.Answers[id])
		}
		require.Equal(t, inquiry.RunRunning, run.Status)
		require.Equal(t, t0, run.HeartbeatAt, "no status given: the heartbeat stays")
	})
}

func TestParkRun(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		rec := resumableRun(t, b, "run", "step-1")

		run, resolved, err := b.store.ParkRun(ctx, "ns", "run", rec.Key, t0.Add(time.Minute))
		require.NoError(t, err)
		require.Nil(t, resolved)
		require.Equal(t, inquiry.RunWaiting, run.Status)
		require.Equal(t, rec.Key, run.WaitingOn)
		require.Equal(t, t0.Add(time.Minute), run.UpdatedAt)

		// The inquiry is answered while the run waits: the answer lands in the state, cut; the run
		// stays waiting; its resume URL is called.
		long := strings.Repeat("é", inquiry.DefaultAnswerChars+50)
		a := &inquiry.Answer{InquiryID: "step-1", Text: long, AnsweredBy: "U1", Source: inquiry.SourcePerson, AnsweredAt: t0}
		_, err = b.store.Resolve(ctx, rec.Key, inquiry.Resolution{Status: inquiry.StatusAnswered, Answer: a, At: t0.Add(2 * time.Minute),
			Deliveries: []inquiry.Delivery{{Kind: inquiry.DeliverUpdate, Target: "slack"}}})
		require.NoError(t, err)
		run, err = b.store.Run(ctx, "ns", "run")
		require.NoError(t, err)
		require.Equal(t, inquiry.RunWaiting, run.Status)
		require.Equal(t, rec.Key, run.WaitingOn)
		require.Equal(t, inquiry.StateAnswerOf(inquiry.CapAnswer(*a, inquiry.DefaultAnswerChars)), run.Answers["step-1"])
		require.Len(t, []rune(run.Answers["step-1"].Text), inquiry.StateTextChars)
		require.True(t, run.Answers["step-1"].Truncated)
		require.Equal(t, t0.Add(2*time.Minute), run.UpdatedAt)

		ds, err := b.store.ListDeliveries(ctx, rec.Key)
		require.NoError(t, err)
		require.Len(t, ds, 2)
		require.Equal(t, inquiry.DeliverUpdate, ds[0].Kind)
		require.Equal(t, inquiry.Delivery{ID: ds[1].ID, Kind: inquiry.DeliverResume, InquiryKey: rec.Key, Namespace: "ns",
			RunID: "run", Target: "https://ci/resume", Status: inquiry.DeliveryPending, NextAttemptAt: t0.Add(2 * time.Minute),
			CreatedAt: t0.Add(2 * time.Minute), UpdatedAt: t0.Add(2 * time.Minute)}, ds[1])

		// Resumed: running again, waiting on nothing, heartbeat moved.
		run, err = b.store.RecordAnswers(ctx, "ns", "run", map[string]inquiry.Answer{"other": {InquiryID: "other", Text: "ok"}},
			inquiry.RunRunning, t0.Add(3*time.Minute))
		require.NoError(t, err)
		require.Equal(t, inquiry.RunRunning, run.Status)
		require.Empty(t, run.WaitingOn)
		require.Equal(t, t0.Add(3*time.Minute), run.HeartbeatAt)
		require.Len(t, run.Answers, 2)
	})
}

// TestParkRunOnSeveralInquiries: a run that asks again before it is resumed waits on both
// inquiries; each answer lands in its state and calls its resume URL.
func TestParkRunOnSeveralInquiries(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		a := resumableRun(t, b, "run", "a")
		c := create(t, b.store, newRecord("ns", "run", "c"))
		_, _, err := b.store.ParkRun(ctx, "ns", "run", a.Key, t0)
		require.NoError(t, err)
		run, _, err := b.store.ParkRun(ctx, "ns", "run", c.Key, t0)
		require.NoError(t, err)
		require.Equal(t, c.Key, run.WaitingOn, "the latest")

		for _, rec := range []*inquiry.Record{a, c} {
			_, err := b.store.Resolve(ctx, rec.Key, inquiry.Resolution{Status: inquiry.StatusAnswered, Answer: personAnswer(rec.ID, "merge", t0), At: t0})
			require.NoError(t, err)
			ds, err := b.store.ListDeliveries(ctx, rec.Key)
			require.NoError(t, err)
			require.Len(t, ds, 1)
			require.Equal(t, inquiry.DeliverResume, ds[0].Kind)
		}
		run, err = b.store.Run(ctx, "ns", "run")
		require.NoError(t, err)
		require.Equal(t, inquiry.RunWaiting, run.Status)
		require.Contains(t, run.Answers, "a")
		require.Contains(t, run.Answers, "c")

		// Resumed, then a third parked inquiry is answered: recorded, nobody to resume. Once the
		// run is finished, nothing is recorded at all.
		d := create(t, b.store, newRecord("ns", "run", "d"))
		e := create(t, b.store, newRecord("ns", "run", "e"))
		for _, rec := range []*inquiry.Record{d, e} {
			_, _, err = b.store.ParkRun(ctx, "ns", "run", rec.Key, t0)
			require.NoError(t, err)
		}
		_, err = b.store.RecordAnswers(ctx, "ns", "run", nil, inquiry.RunRunning, t0)
		require.NoError(t, err)
		_, err = b.store.Resolve(ctx, d.Key, inquiry.Resolution{Status: inquiry.StatusAnswered, Answer: personAnswer("d", "hold", t0), At: t0})
		require.NoError(t, err)
		ds, err := b.store.ListDeliveries(ctx, d.Key)
		require.NoError(t, err)
		require.Empty(t, ds)
		_, err = b.store.FinishRun(ctx, "ns", "run", inquiry.RunCompleted, t0)
		require.NoError(t, err)
		_, err = b.store.Resolve(ctx, e.Key, inquiry.Resolution{Status: inquiry.StatusAnswered, Answer: personAnswer("e", "hold", t0), At: t0})
		require.NoError(t, err)
		run, err = b.store.Run(ctx, "ns", "run")
		require.NoError(t, err)
		require.Equal(t, "hold", run.Answers["d"].Value.First())
		require.NotContains(t, run.Answers, "e")
		require.Equal(t, inquiry.RunCompleted, run.Status)
	})
}

func TestParkRunOnResolvedInquiry(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		rec := resumableRun(t, b, "run", "step")
		_, err := b.store.Resolve(ctx, rec.Key, inquiry.Resolution{Status: inquiry.StatusAnswered, Answer: personAnswer("step", "merge", t0), At: t0})
		require.NoError(t, err)

		run, resolved, err := b.store.ParkRun(ctx, "ns", "run", rec.Key, t0.Add(time.Minute))
		require.NoError(t, err)
		require.NotNil(t, resolved)
		require.Equal(t, inquiry.StatusAnswered, resolved.Status)
		require.Equal(t, inquiry.RunRunning, run.Status, "the run stays as it is")
		require.Empty(t, run.WaitingOn)
		require.Equal(t, *personAnswer("step", "merge", t0), run.Answers["step"])
		stored, err := b.store.Run(ctx, "ns", "run")
		require.NoError(t, err)
		require.Equal(t, run, stored)

		// A cancelled inquiry has no answer to record; the run does not park on it either.
		gone := create(t, b.store, newRecord("ns", "run", "gone"))
		_, err = b.store.Resolve(ctx, gone.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0})
		require.NoError(t, err)
		run, resolved, err = b.store.ParkRun(ctx, "ns", "run", gone.Key, t0.Add(time.Minute))
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusCancelled, resolved.Status)
		require.Equal(t, inquiry.RunRunning, run.Status)
		require.NotContains(t, run.Answers, "gone")

		// Another namespace's inquiry cannot be waited on.
		foreign := create(t, b.store, newRecord("other", "run", "step"))
		_, _, err = b.store.ParkRun(ctx, "ns", "run", foreign.Key, t0)
		require.ErrorIs(t, err, inquiry.ErrNotFound)
	})
}

// TestParkRunRacesResolve parks a run on an inquiry while the inquiry is answered, many times
// over: whichever commits first, the answer always ends up in the run's state.
func TestParkRunRacesResolve(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		const rounds = 50
		parkedFirst, resolvedFirst := 0, 0
		for i := range rounds {
			runID := fmt.Sprintf("run-%d", i)
			rec := resumableRun(t, b, runID, "step")
			var wg sync.WaitGroup
			var parkErr, resolveErr error
			var resolved *inquiry.Record
			start := make(chan struct{})
			wg.Go(func() {
				<-start
				_, resolved, parkErr = b.store.ParkRun(ctx, "ns", runID, rec.Key, t0)
			})
			wg.Go(func() {
				<-start
				_, resolveErr = b.store.Resolve(ctx, rec.Key, inquiry.Resolution{Status: inquiry.StatusAnswered,
					Answer: personAnswer("step", "merge", t0), At: t0})
			})
			close(start)
			wg.Wait()
			require.NoError(t, parkErr)
			require.NoError(t, resolveErr)

			run, err := b.store.Run(ctx, "ns", runID)
			require.NoError(t, err)
			require.Contains(t, run.Answers, "step", "round %d: the answer was lost", i)
			require.Equal(t, "merge", run.Answers["step"].Value.First())
			ds, err := b.store.ListDeliveries(ctx, rec.Key)
			require.NoError(t, err)
			if resolved != nil {
				resolvedFirst++
				require.Equal(t, inquiry.RunRunning, run.Status)
				require.Empty(t, ds, "the run never waited: the caller has the answer, nothing to resume")
			} else {
				parkedFirst++
				require.Equal(t, inquiry.RunWaiting, run.Status)
				require.Len(t, ds, 1)
				require.Equal(t, inquiry.DeliverResume, ds[0].Kind)
			}
		}
		t.Logf("parked first %d times, resolved first %d times", parkedFirst, resolvedFirst)
	})
}

func TestAbandonStale(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		putRun(t, b, "ns", "stale", "", t0.Add(-time.Hour))
		putRun(t, b, "ns", "fresh", "", t0)
		putRun(t, b, "ns", "waiting", "", t0.Add(-48*time.Hour))
		rec := create(t, b.store, newRecord("ns", "waiting", "q"))
		_, _, err := b.store.ParkRun(ctx, "ns", "waiting", rec.Key, t0.Add(-47*time.Hour))
		require.NoError(t, err)
		putRun(t, b, "ns", "done", "", t0.Add(-48*time.Hour))
		_, err = b.store.FinishRun(ctx, "ns", "done", inquiry.RunCompleted, t0.Add(-48*time.Hour))
		require.NoError(t, err)

		n, err := b.store.AbandonStale(ctx, t0.Add(-10*time.Minute), t0)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		for id, want := range map[string]inquiry.RunStatus{
			"stale": inquiry.RunAbandoned, "fresh": inquiry.RunRunning,
			"waiting": inquiry.RunWaiting, "done": inquiry.RunCompleted,
		} {
			run, err := b.store.Run(ctx, "ns", id)
			require.NoError(t, err)
			require.Equal(t, want, run.Status, id)
		}
		n, err = b.store.AbandonStale(ctx, t0.Add(time.Hour), t0)
		require.NoError(t, err)
		require.Equal(t, 1, n, "only the fresh one, now stale; never the waiting one")
		run, err := b.store.Run(ctx, "ns", "waiting")
		require.NoError(t, err)
		require.Equal(t, inquiry.RunWaiting, run.Status)
	})
}
