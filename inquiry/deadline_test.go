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

	require.Equal(t, "Still waiting for an answer: 1h 5m left; if nobody answers: nothing: it will be declined.",
		inquiry.ReminderText(rec, pureNow.Add(-5*time.Minute)))
	rec.Default = inquiry.One("no")
	require.Equal(t, "Still waiting for an answer: under a minute left; if nobody answers: No.",
		inquiry.ReminderText(rec, pureNow.Add(time.Hour-time.Second)))
}
