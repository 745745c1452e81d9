package scheduler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// shower is a transport that records what it was asked to show: posts, updates (with how many
// places they reached), reminders and escalation steps, by inquiry key. It stands in for Slack
// where the test is about the durable work, not the wire (slackapp tests the wire).
type shower struct {
	mu        sync.Mutex
	posts     map[string]int
	updates   map[string][]int // each update: the placements it reached besides the first
	reminders map[string][]int // the reminder numbers shown
	steps     map[string][]int
	notes     []string
	clock     func() time.Time
}

func newShower(clock func() time.Time) *shower {
	return &shower{posts: map[string]int{}, updates: map[string][]int{}, reminders: map[string][]int{},
		steps: map[string][]int{}, clock: clock}
}

func (f *shower) Post(_ context.Context, rec *inquiry.Record) (inquiry.Posted, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posts[rec.Key]++
	return inquiry.Posted{Place: rec.Slack.Channel, ID: fmt.Sprintf("1700000000.%06d", len(f.posts))}, nil
}

func (f *shower) Update(_ context.Context, rec *inquiry.Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.updates[rec.Key] = append(f.updates[rec.Key], len(rec.Placements))
	return nil
}

func (f *shower) Notice(context.Context, *inquiry.Record) error { return nil }

func (f *shower) Remind(_ context.Context, rec *inquiry.Record, n int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reminders[rec.Key] = append(f.reminders[rec.Key], n)
	f.notes = append(f.notes, inquiry.ReminderText(rec, f.clock()))
	return nil
}

func (f *shower) Escalate(_ context.Context, rec *inquiry.Record, step int) (inquiry.Placement, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.steps[rec.Key] = append(f.steps[rec.Key], step)
	return inquiry.Placement{Channel: rec.Escalate[step-1].Channel, TS: fmt.Sprintf("1700000001.%06d", step)}, nil
}

func (f *shower) remindersOf(key string) []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reminders[key])
}

// deadlineReplica is a replica whose Slack is a shower.
func deadlineReplica(t *testing.T, dbURL string, c *testkit.Clock, f *shower) *replica {
	r := newReplica(t, dbURL, c)
	r.svc.Transports.Register(inquiry.TransportSlack, f)
	return r
}

// eachDeadlineReplica runs test against each store with a deadlineReplica, its clock at noon on
// 1 December 2026.
func eachDeadlineReplica(t *testing.T, test func(t *testing.T, ctx context.Context, c *testkit.Clock, f *shower, r *replica)) {
	storagetest.Each(t, func(t *testing.T, dbURL string) {
		c := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
		f := newShower(c.Now)
		test(t, context.Background(), c, f, deadlineReplica(t, dbURL, c, f))
	})
}

// reminded asks a question through the shower that expires in an hour and is reminded of 30
// and 10 minutes before.
func reminded(id string, now time.Time) inquiry.AskRequest {
	req := choice(id, now.Add(time.Hour), "hold")
	req.Config.Transport = inquiry.TransportSlack
	req.Slack = &inquiry.SlackTarget{Channel: "C1", Answerers: []string{"U1"}}
	req.Remind = []inquiry.Duration{inquiry.Duration(10 * time.Minute), inquiry.Duration(30 * time.Minute)}
	return req
}

// sweepAndDrain is one sweep of r, and what it enqueued carried out.
func sweepAndDrain(t *testing.T, r *replica) {
	t.Helper()
	ctx := context.Background()
	r.sched.Sweep(ctx)
	_, err := r.disp.Drain(ctx)
	require.NoError(t, err)
}

func eventTypes(t *testing.T, r *replica, key string) []inquiry.EventType {
	t.Helper()
	evs, err := r.store.InquiryEvents(context.Background(), key)
	require.NoError(t, err)
	var out []inquiry.EventType
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func TestRemindersAtTheirTimesAndNeverAfterAnAnswer(t *testing.T) {
	eachDeadlineReplica(t, func(t *testing.T, ctx context.Context, c *testkit.Clock, f *shower, r *replica) {
		waits, _, err := r.svc.Ask(ctx, reminded("waits", c.Now()))
		require.NoError(t, err)
		require.Equal(t, []inquiry.Duration{inquiry.Duration(30 * time.Minute), inquiry.Duration(10 * time.Minute)}, waits.Remind,
			"kept in the order they fall due")
		answered, _, err := r.svc.Ask(ctx, reminded("answered", c.Now()))
		require.NoError(t, err)
		inbox := reminded("inbox", c.Now())
		inbox.Config.Transport, inbox.Slack = inquiry.TransportInbox, nil
		boxed, _, err := r.svc.Ask(ctx, inbox)
		require.NoError(t, err)
		sweepAndDrain(t, r)

		c.Add(30*time.Minute - time.Second)
		sweepAndDrain(t, r)
		require.Empty(t, f.remindersOf(waits.Key), "a second before its time no reminder is sent")

		c.Add(time.Second)
		sweepAndDrain(t, r)
		require.Equal(t, []int{1}, f.remindersOf(waits.Key), "the first reminder at 30m before the expiry")
		require.Equal(t, []int{1}, f.remindersOf(answered.Key))
		require.Contains(t, f.notes[0], "30m left; if nobody answers: Hold.")
		sweepAndDrain(t, r)
		require.Equal(t, []int{1}, f.remindersOf(waits.Key), "a sweep again sends nothing again")

		_, err = r.svc.Answer(ctx, answered.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
		require.NoError(t, err)

		c.Add(20 * time.Minute)
		sweepAndDrain(t, r)
		require.Equal(t, []int{1, 2}, f.remindersOf(waits.Key), "the second reminder at 10m before the expiry")
		require.Equal(t, []int{1}, f.remindersOf(answered.Key), "no reminder after an answer")

		got, err := r.svc.Get(ctx, waits.Key)
		require.NoError(t, err)
		require.Equal(t, 2, got.Reminders)
		require.Nil(t, got.Next, "nothing left to do")

		// An inbox question is reminded on its record and in its events, and shown nowhere.
		got, err = r.svc.Get(ctx, boxed.Key)
		require.NoError(t, err)
		require.Equal(t, 2, got.Reminders)
		require.Equal(t, []inquiry.EventType{inquiry.EventCreated, inquiry.EventReminded, inquiry.EventReminded}, eventTypes(t, r, boxed.Key))
		require.Empty(t, f.remindersOf(boxed.Key))
		evs, err := r.store.InquiryEvents(ctx, boxed.Key)
		require.NoError(t, err)
		var data struct {
			Before inquiry.Duration `json:"before"`
			Number int              `json:"number"`
		}
		require.NoError(t, json.Unmarshal(evs[2].Data, &data))
		require.Equal(t, inquiry.Duration(10*time.Minute), data.Before)
		require.Equal(t, 2, data.Number)

		c.Add(10 * time.Minute)
		sweepAndDrain(t, r)
		got, err = r.svc.Get(ctx, waits.Key)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusExpired, got.Status)
		require.Equal(t, []int{1, 2}, f.remindersOf(waits.Key))
	})
}

// TestRemindersMissedWhileDownAreNotSentInABurst: a sweeper that comes back after two reminders'
// times sends the later one only.
func TestRemindersMissedWhileDownAreNotSentInABurst(t *testing.T) {
	eachDeadlineReplica(t, func(t *testing.T, ctx context.Context, c *testkit.Clock, f *shower, r *replica) {
		rec, _, err := r.svc.Ask(ctx, reminded("late", c.Now()))
		require.NoError(t, err)
		c.Add(55 * time.Minute)
		sweepAndDrain(t, r)
		require.Equal(t, []int{1}, f.remindersOf(rec.Key))
		got, err := r.svc.Get(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, 1, got.Reminders)
		require.Nil(t, got.Next)
	})
}

func TestEscalationChainOfTwoSteps(t *testing.T) {
	eachDeadlineReplica(t, func(t *testing.T, ctx context.Context, c *testkit.Clock, f *shower, r *replica) {
		req := reminded("chain", c.Now())
		req.Remind = nil
		req.Escalate = []inquiry.Step{
			{After: inquiry.Duration(10 * time.Minute), Channel: "C2", Answerers: []string{"U2"}},
			{After: inquiry.Duration(20 * time.Minute), Answerers: []string{"S3"}, Mention: true},
		}
		rec, _, err := r.svc.Ask(ctx, req)
		require.NoError(t, err)
		sweepAndDrain(t, r)
		require.Equal(t, []string{"U1"}, inquiry.Answerers(rec))

		c.Add(10 * time.Minute)
		sweepAndDrain(t, r)
		got, err := r.svc.Get(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, 1, got.Escalation)
		require.Equal(t, []string{"U1", "U2"}, inquiry.Answerers(got), "step 1 adds its answerers")
		require.Equal(t, []inquiry.Placement{{Step: 1, Channel: "C2", TS: "1700000001.000001"}}, got.Placements)

		c.Add(10 * time.Minute)
		sweepAndDrain(t, r)
		got, err = r.svc.Get(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, 2, got.Escalation)
		require.Equal(t, []string{"U1", "U2", "S3"}, inquiry.Answerers(got))
		require.Len(t, got.Placements, 1, "step 2 names no channel: no message of its own to update")
		f.mu.Lock()
		require.Equal(t, []int{1, 2}, f.steps[rec.Key], "each step shown once (step 2, mentioning its answerers, in the question's thread)")
		f.mu.Unlock()
		require.Equal(t, []inquiry.EventType{inquiry.EventCreated, inquiry.EventPosted, inquiry.EventEscalated, inquiry.EventEscalated},
			eventTypes(t, r, rec.Key))

		// The answer is the one inquiry's, and the update reaches the escalated message too.
		_, err = r.svc.Answer(ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U2", nil))
		require.NoError(t, err)
		_, err = r.disp.Drain(ctx)
		require.NoError(t, err)
		f.mu.Lock()
		require.Equal(t, []int{1}, f.updates[rec.Key], "one update, with the escalated placement on the record")
		f.mu.Unlock()
	})
}

func TestExtendMovesTheDeadlineAndTheReminders(t *testing.T) {
	eachDeadlineReplica(t, func(t *testing.T, ctx context.Context, c *testkit.Clock, f *shower, r *replica) {
		req := reminded("more-time", c.Now())
		req.Remind = []inquiry.Duration{inquiry.Duration(10 * time.Minute)}
		req.Extend = &inquiry.Extension{By: inquiry.Duration(30 * time.Minute), Max: inquiry.Duration(45 * time.Minute)}
		rec, _, err := r.svc.Ask(ctx, req)
		require.NoError(t, err)
		sweepAndDrain(t, r)

		c.Add(40 * time.Minute)
		got, err := r.svc.Extend(ctx, rec.Key, 0, inquiry.SlackUser("U1", nil))
		require.NoError(t, err)
		require.Equal(t, c.Now().Add(50*time.Minute), *got.ExpiresAt, "pushed back by extend.by")
		require.Equal(t, inquiry.Duration(30*time.Minute), got.ExtendedBy)
		require.Equal(t, c.Now().Add(40*time.Minute), *got.Next, "the reminder moved with the expiry")
		_, err = r.disp.Drain(ctx)
		require.NoError(t, err)
		f.mu.Lock()
		require.Equal(t, []int{0}, f.updates[rec.Key], "the message shows the new deadline")
		f.mu.Unlock()

		c.Add(10 * time.Minute) // the old reminder time
		sweepAndDrain(t, r)
		require.Empty(t, f.remindersOf(rec.Key), "no reminder at the old time")

		_, err = r.svc.Extend(ctx, rec.Key, inquiry.Duration(30*time.Minute), inquiry.SlackUser("U1", nil))
		require.ErrorContains(t, err, "more than the 15m left of extend.max 45m")
		_, err = r.svc.Extend(ctx, rec.Key, inquiry.Duration(15*time.Minute), inquiry.SlackUser("U1", nil))
		require.NoError(t, err)
		_, err = r.svc.Extend(ctx, rec.Key, 0, inquiry.SlackUser("U1", nil))
		require.ErrorContains(t, err, "the most its asker allows")

		c.Add(45 * time.Minute) // 10 minutes before the twice-moved expiry
		sweepAndDrain(t, r)
		require.Equal(t, []int{1}, f.remindersOf(rec.Key), "the reminder at its new time")
		require.Equal(t, []inquiry.EventType{inquiry.EventCreated, inquiry.EventPosted, inquiry.EventExtended, inquiry.EventExtended, inquiry.EventReminded},
			eventTypes(t, r, rec.Key))

		c.Add(10 * time.Minute)
		got, err = r.svc.Get(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusExpired, got.Status, "expired at the new deadline")
		_, err = r.svc.Extend(ctx, rec.Key, 0, inquiry.SlackUser("U1", nil))
		require.ErrorIs(t, err, inquiry.ErrAlreadyResolved)
	})
}

// TestExtendWhileAReminderIsQueued: the reminder was claimed and enqueued, and before the
// dispatcher posted it the deadline was pushed back past every reminder. It is not posted early
// ("40m left" is no reminder); it comes once, at its new time. Before: it was posted at once,
// and again at the new time.
func TestExtendWhileAReminderIsQueued(t *testing.T) {
	eachDeadlineReplica(t, func(t *testing.T, ctx context.Context, c *testkit.Clock, f *shower, r *replica) {
		req := reminded("queued", c.Now())
		req.Remind = []inquiry.Duration{inquiry.Duration(10 * time.Minute)}
		req.Extend = &inquiry.Extension{By: inquiry.Duration(30 * time.Minute), Max: inquiry.Duration(time.Hour)}
		rec, _, err := r.svc.Ask(ctx, req)
		require.NoError(t, err)
		sweepAndDrain(t, r)

		c.Add(50 * time.Minute)
		n, err := r.svc.SweepDeadlines(ctx, 100) // the reminder is enqueued, not posted yet
		require.NoError(t, err)
		require.Equal(t, 1, n)
		_, err = r.svc.Extend(ctx, rec.Key, 0, inquiry.SlackUser("U1", nil))
		require.NoError(t, err)
		_, err = r.disp.Drain(ctx)
		require.NoError(t, err)
		require.Empty(t, f.remindersOf(rec.Key), "no reminder 40 minutes before the new expiry")

		c.Add(30 * time.Minute) // 10 minutes before the new expiry
		sweepAndDrain(t, r)
		require.Len(t, f.remindersOf(rec.Key), 1, "the reminder once, at its new time")
		f.mu.Lock()
		require.Equal(t, []string{"Still waiting for an answer: 10m left; if nobody answers: Hold."}, f.notes)
		f.mu.Unlock()
	})
}

// TestNoReminderOrEscalationPastTheExpiry: a reminder and a step enqueued in time but carried
// out only after the expiry (Slack was slow, the dispatcher behind), before the expiry sweep
// resolved the inquiry, are not shown: "under a minute left" of a question already expired, or
// its buttons in one more channel, would be wrong.
func TestNoReminderOrEscalationPastTheExpiry(t *testing.T) {
	eachDeadlineReplica(t, func(t *testing.T, ctx context.Context, c *testkit.Clock, f *shower, r *replica) {
		req := reminded("late", c.Now())
		req.Remind = []inquiry.Duration{inquiry.Duration(time.Minute)}
		req.Escalate = []inquiry.Step{{After: inquiry.Duration(59 * time.Minute), Channel: "C2"}}
		rec, _, err := r.svc.Ask(ctx, req)
		require.NoError(t, err)
		sweepAndDrain(t, r)

		c.Add(59 * time.Minute)
		_, err = r.svc.SweepDeadlines(ctx, 100) // both enqueued, neither carried out yet
		require.NoError(t, err)
		got, err := r.store.Inquiry(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, 1, got.Reminders)
		require.Equal(t, 1, got.Escalation)

		c.Add(2 * time.Minute) // past the expiry; the expiry sweep has not run
		_, err = r.disp.Drain(ctx)
		require.NoError(t, err)
		require.Empty(t, f.remindersOf(rec.Key), "no reminder of an expired question")
		f.mu.Lock()
		require.Empty(t, f.steps[rec.Key], "no escalation of an expired question")
		f.mu.Unlock()
	})
}

func TestTwoSweepersRemindOnce(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		c := testkit.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
		f := newShower(c.Now)
		a, b := deadlineReplica(t, dbURL, c, f), deadlineReplica(t, dbURL, c, f)
		const n = 1000
		keys := make([]string, 0, n)
		for i := range n {
			rec, _, err := a.svc.Ask(ctx, reminded(fmt.Sprintf("q%04d", i), c.Now()))
			require.NoError(t, err)
			keys = append(keys, rec.Key)
		}
		for _, r := range []*replica{a, b} {
			_, err := r.disp.Drain(ctx)
			require.NoError(t, err)
		}
		for _, step := range []time.Duration{30 * time.Minute, 20 * time.Minute} {
			c.Add(step)
			var wg sync.WaitGroup
			reminded := make([]int, 2)
			start := time.Now()
			for i, r := range []*replica{a, b} {
				wg.Go(func() { reminded[i] = r.sched.Sweep(ctx).Reminded })
			}
			wg.Wait()
			swept := time.Since(start)
			require.Equal(t, n, reminded[0]+reminded[1], "each inquiry claimed by one sweeper: %v", reminded)
			for range 50 { // both dispatchers side by side until the queue is empty
				wg.Add(2)
				for _, r := range []*replica{a, b} {
					go func() { defer wg.Done(); _, _ = r.disp.Drain(ctx) }()
				}
				wg.Wait()
				left, err := a.store.CountDeliveries(ctx, inquiry.DeliveryPending)
				require.NoError(t, err)
				if left == 0 {
					break
				}
			}
			t.Logf("figures: two sweepers claimed %d reminders (%d and %d) in %s; every post done %s after the sweep began",
				n, reminded[0], reminded[1], swept.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, k := range keys {
			require.Equal(t, []int{1, 2}, f.reminders[k], "every reminder of %s posted exactly once", k)
		}
	})
}
