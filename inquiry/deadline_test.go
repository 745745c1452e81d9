package inquiry_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

func mins(ms ...int) []inquiry.Duration {
	out := make([]inquiry.Duration, len(ms))
	for i, m := range ms {
		out[i] = inquiry.Duration(time.Duration(m) * time.Minute)
	}
	return out
}

func TestDeadlinesRefused(t *testing.T) {
	t.Parallel()
	step := func(after int, channel string, answerers ...string) inquiry.Step {
		return inquiry.Step{After: inquiry.Duration(time.Duration(after) * time.Minute), Channel: channel, Answerers: answerers}
	}
	tests := []struct {
		name  string
		edit  func(in *inquiry.Inquiry)
		field string
		says  string
	}{
		{"reminder without expiry", func(in *inquiry.Inquiry) { in.ExpiresAt, in.Remind = nil, mins(10) }, "remind", "needs an expiry"},
		{"reminder at the expiry", func(in *inquiry.Inquiry) { in.Remind = mins(0) }, "remind[0]", "is not before the expiry"},
		{"reminder after the expiry", func(in *inquiry.Inquiry) { in.Remind = mins(-5) }, "remind[0]", "is not before the expiry"},
		{"reminder before now", func(in *inquiry.Inquiry) { in.Remind = mins(10, 90) }, "remind[1]", "falls at or before now"},
		{"six reminders", func(in *inquiry.Inquiry) { in.Remind = mins(1, 2, 3, 4, 5, 6) }, "remind", "at most 5"},
		{"a reminder twice", func(in *inquiry.Inquiry) { in.Remind = mins(5, 5) }, "remind[1]", "repeats remind[0]"},
		{"four steps", func(in *inquiry.Inquiry) {
			in.Escalate = []inquiry.Step{step(1, "C2"), step(2, "C3"), step(3, "C4"), step(4, "C5")}
		}, "escalate", "at most 3"},
		{"step after the expiry", func(in *inquiry.Inquiry) { in.Escalate = []inquiry.Step{step(60, "C2")} }, "escalate[0].after", "at or after the expiry"},
		{"steps out of order", func(in *inquiry.Inquiry) { in.Escalate = []inquiry.Step{step(20, "C2"), step(10, "C3")} }, "escalate[1].after", "order the steps"},
		{"step at once", func(in *inquiry.Inquiry) { in.Escalate = []inquiry.Step{step(0, "C2")} }, "escalate[0].after", "positive duration"},
		{"bad channel id", func(in *inquiry.Inquiry) { in.Escalate = []inquiry.Step{step(10, "#general")} }, "escalate[0].channel", "not a Slack channel id"},
		{"bad answerer", func(in *inquiry.Inquiry) { in.Escalate = []inquiry.Step{step(10, "", "alice")} }, "escalate[0].answerers[0]", "not a Slack user"},
		{"step widening nothing", func(in *inquiry.Inquiry) { in.Escalate = []inquiry.Step{step(10, "")} }, "escalate[0]", "widens nothing"},
		{"mention nobody", func(in *inquiry.Inquiry) {
			s := step(10, "C2")
			s.Mention = true
			in.Escalate = []inquiry.Step{s}
		}, "escalate[0].mention", "nobody to mention"},
		{"extend without expiry", func(in *inquiry.Inquiry) {
			in.ExpiresAt, in.Extend = nil, &inquiry.Extension{By: mins(10)[0], Max: mins(20)[0]}
		}, "extend", "needs an expiry"},
		{"extend by over max", func(in *inquiry.Inquiry) { in.Extend = &inquiry.Extension{By: mins(30)[0], Max: mins(20)[0]} }, "extend.by", "more than extend.max"},
		{"extend by nothing", func(in *inquiry.Inquiry) { in.Extend = &inquiry.Extension{Max: mins(20)[0]} }, "extend.by", "positive"},
		{"here without reminders", func(in *inquiry.Inquiry) { in.RemindHere = true }, "remind_here", "no reminder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := pureValid(inquiry.KindChoice)
			in.ExpiresAt = pureAt(time.Hour)
			tt.edit(in)
			err := inquiry.Validate(in, pureNow)
			require.Error(t, err)
			require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err))
			e, _ := err.(*inquiry.Error)
			require.Equal(t, tt.field, e.Field)
			require.Contains(t, e.Message, tt.says)
			require.Equal(t, 1, strings.Count(e.Message, ". ")+1, "one sentence: %s", e.Message)
			require.Contains(t, e.Message, ": ", "says how to fix it: %s", e.Message)
		})
	}
}

func TestDeadlinesOnTheWire(t *testing.T) {
	t.Parallel()
	var req inquiry.AskRequest
	require.NoError(t, json.Unmarshal([]byte(`{"id":"q","kind":"confirm","question":"Deploy?","expires_in":"2h",
		"remind":["30m","1h"],"escalate":[{"after":"1h","channel":"C2","answerers":["S1"],"mention":true}],
		"extend":{"by":"1h","max":"4h"}}`), &req))
	require.Equal(t, mins(30, 60), req.Remind)
	require.Equal(t, "C2", req.Escalate[0].Channel)
	require.Equal(t, mins(240)[0], req.Extend.Max)
	require.Error(t, json.Unmarshal([]byte(`{"remind":["soon"]}`), &req), "a duration that is none")

	rec := inquiry.Record{Key: "inq_1", Inquiry: req.Inquiry, Progress: inquiry.Progress{Reminders: 1, Escalation: 1, ExtendedBy: mins(60)[0]}}
	b, err := json.Marshal(&rec)
	require.NoError(t, err)
	for _, want := range []string{`"remind":["30m","1h"]`, `"reminders":1`, `"escalation":1`, `"extended_by":"1h"`, `"extend":{"by":"1h","max":"4h"}`} {
		require.Contains(t, string(b), want)
	}
	require.NotContains(t, string(b), "remind_step", "the sweeper's cursor is its own")
}

func TestNextDueAndAnswerers(t *testing.T) {
	t.Parallel()
	in := pureValid(inquiry.KindConfirm)
	in.ExpiresAt = pureAt(time.Hour)
	in.Remind = mins(10, 30)
	in.Escalate = []inquiry.Step{{After: mins(20)[0], Answerers: []string{"S2"}}}
	require.NoError(t, inquiry.Validate(in, pureNow))
	rec := &inquiry.Record{Key: "inq_1", Inquiry: *in, Status: inquiry.StatusPending, CreatedAt: pureNow,
		Slack: inquiry.SlackRef{Answerers: []string{"U1"}}}
	p := inquiry.StartProgress(rec, pureNow)
	require.Equal(t, pureNow.Add(20*time.Minute), *p.Next, "the escalation comes before the first reminder")
	rec.Progress = p
	rec.Escalation = 1
	require.Equal(t, pureNow.Add(30*time.Minute), *inquiry.NextDue(rec, rec.Progress))
	require.Equal(t, []string{"U1", "S2"}, inquiry.Answerers(rec))
	rec.Slack.Answerers = nil
	require.Nil(t, inquiry.Answerers(rec), "anybody may answer, and a step cannot narrow it")
	// Anybody may answer, yet the step named people to ask: a reminder calls on them, not on
	// nobody (before: it mentioned nobody, and a step without a channel told them nothing ever).
	require.Equal(t, []string{"S2"}, inquiry.Mentions(rec, 1))
	require.Empty(t, inquiry.Mentions(rec, 0), "before the step, nobody named and no @here opted in")
	rec.RemindHere = true
	require.Equal(t, []string{"here"}, inquiry.Mentions(rec, 0))
	require.Equal(t, []string{"S2"}, inquiry.Mentions(rec, 1), "people named come before @here")
	rec.RemindHere = false

	require.Equal(t, "Still waiting for an answer: 1h 5m left; if nobody answers: declined (no default).",
		inquiry.ReminderText(rec, pureNow.Add(-5*time.Minute)))
	rec.Default = inquiry.One("no")
	require.Equal(t, "Still waiting for an answer: under a minute left; if nobody answers: No.",
		inquiry.ReminderText(rec, pureNow.Add(time.Hour-time.Second)))
}

// TestPlanDeadlines: one look at a due inquiry takes the step due and the latest reminder due,
// the step first so the reminder calls on the people it adds; an inbox question gets the events
// and no delivery; one past its expiry gets nothing.
func TestPlanDeadlines(t *testing.T) {
	t.Parallel()
	svc := &inquiry.Service{}
	in := pureValid(inquiry.KindConfirm)
	in.ExpiresAt = pureAt(time.Hour)
	in.Remind = mins(40, 20)
	in.Escalate = []inquiry.Step{{After: mins(20)[0], Answerers: []string{"S2"}}, {After: mins(50)[0], Channel: "C3"}}
	require.NoError(t, inquiry.Validate(in, pureNow))
	rec := &inquiry.Record{Key: "inq_1", Inquiry: *in, Status: inquiry.StatusPending, CreatedAt: pureNow,
		Config: inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportSlack},
		Slack:  inquiry.SlackRef{Channel: "C1", Answerers: []string{"U1"}}}
	rec.Progress = inquiry.StartProgress(rec, pureNow)

	w := svc.PlanDeadlines(rec, pureNow.Add(45*time.Minute)) // both reminders' times passed, and step 1's
	require.Len(t, w.Events, 2)
	require.Equal(t, inquiry.EventEscalated, w.Events[0].Type)
	require.Equal(t, inquiry.EventReminded, w.Events[1].Type)
	require.Contains(t, string(w.Events[1].Data), `"before":"20m"`, "the latest reminder due, alone")
	require.Contains(t, string(w.Events[1].Data), `"mentions":["U1","S2"]`)
	require.Equal(t, 1, w.Progress.Reminders)
	require.Equal(t, 2, w.Progress.RemindStep)
	require.Equal(t, 1, w.Progress.Escalation)
	require.Equal(t, pureNow.Add(50*time.Minute), *w.Progress.Next, "step 2 next")
	require.Len(t, w.Deliveries, 1, "step 1 posts nowhere; the reminder goes to Slack")
	require.Equal(t, inquiry.DeliverRemind, w.Deliveries[0].Kind)
	require.Equal(t, "C1", w.Deliveries[0].Lane, "behind the question's post")

	rec.Progress = w.Progress
	w = svc.PlanDeadlines(rec, pureNow.Add(50*time.Minute))
	require.Len(t, w.Deliveries, 1)
	require.Equal(t, inquiry.DeliverEscalate, w.Deliveries[0].Kind)
	require.Equal(t, "C3", w.Deliveries[0].Lane, "paced with the channel it posts in")
	require.Equal(t, 2, w.Deliveries[0].Step)
	require.Nil(t, w.Progress.Next)

	rec.Config.Transport = inquiry.TransportInbox
	rec.Progress = inquiry.Progress{}
	rec.Progress = inquiry.StartProgress(rec, pureNow)
	w = svc.PlanDeadlines(rec, pureNow.Add(21*time.Minute))
	require.Len(t, w.Events, 2)
	require.Empty(t, w.Deliveries, "an inbox question is reminded on its record only")

	w = svc.PlanDeadlines(rec, pureNow.Add(time.Hour))
	require.Empty(t, w.Events, "past its expiry nothing more is due")
	require.Nil(t, w.Progress.Next)
}

// TestExtendedTextSaysTheStepAndTheTotal: the sentence after an extension says what was just
// given; after a second one it adds the total, which it used to give as if it were the step.
func TestExtendedTextSaysTheStepAndTheTotal(t *testing.T) {
	exp := time.Date(2026, 12, 1, 18, 1, 0, 0, time.UTC)
	rec := &inquiry.Record{Inquiry: inquiry.Inquiry{ExpiresAt: &exp}}
	rec.Extend = &inquiry.Extension{By: inquiry.Duration(time.Hour), Max: inquiry.Duration(4 * time.Hour)}
	require.Equal(t, "", inquiry.ExtendedText(rec, 0), "never extended: nothing to say")

	rec.ExtendedBy = inquiry.Duration(time.Hour)
	require.Equal(t, "Deadline extended by 1h, to 2026-12-01 18:01 UTC.", inquiry.ExtendedText(rec, 0), "by 0 is extend.by")

	rec.ExtendedBy = inquiry.Duration(90 * time.Minute)
	require.Equal(t, "Deadline extended by 30m, to 2026-12-01 18:01 UTC (1h30m in all).",
		inquiry.ExtendedText(rec, inquiry.Duration(30*time.Minute)))
	require.Equal(t, "Deadline extended by 1h, to 2026-12-01 18:01 UTC (1h30m in all).", inquiry.ExtendedText(rec, 0))
}

// TestEscalatedSummaryClaimsNoPost: bot log's line of an escalation names the step's channel
// without saying it was posted there, since the event is written when the step is due — and an
// inbox question escalates on its record only ("posted in C3" was printed for one).
func TestEscalatedSummaryClaimsNoPost(t *testing.T) {
	t.Parallel()
	in := pureValid(inquiry.KindConfirm)
	in.ExpiresAt = pureAt(time.Hour)
	in.Escalate = []inquiry.Step{{After: mins(20)[0], Channel: "C3", Answerers: []string{"U0BOB"}}}
	require.NoError(t, inquiry.Validate(in, pureNow))
	rec := &inquiry.Record{Key: "inq_1", Inquiry: *in, Status: inquiry.StatusPending, CreatedAt: pureNow,
		Config: inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportInbox}}
	rec.Progress = inquiry.StartProgress(rec, pureNow)
	w := (&inquiry.Service{}).PlanDeadlines(rec, pureNow.Add(21*time.Minute))
	require.Len(t, w.Events, 1)
	require.Empty(t, w.Deliveries)
	require.Equal(t, "step 1: channel C3; may answer too: U0BOB", w.Events[0].Summary())
}

// TestDeadlineStateAfterAnExtension: an extension re-arms the reminders ahead of the new deadline,
// so the state says what was sent and what is to come apart, never "3 of 2 sent".
func TestDeadlineStateAfterAnExtension(t *testing.T) {
	t.Parallel()
	rec := &inquiry.Record{Inquiry: inquiry.Inquiry{Deadlines: inquiry.Deadlines{Remind: []inquiry.Duration{
		inquiry.Duration(30 * time.Minute), inquiry.Duration(5 * time.Minute)}}}}
	require.Equal(t, "0 reminder(s) sent, 2 to come", inquiry.DeadlineState(rec))
	rec.Reminders, rec.RemindStep = 2, 2
	require.Equal(t, "2 reminder(s) sent, 0 to come", inquiry.DeadlineState(rec))
	rec.Reminders, rec.RemindStep = 3, 1 // extended after both: the 5m reminder is ahead again
	require.Equal(t, "3 reminder(s) sent, 1 to come", inquiry.DeadlineState(rec))
}
