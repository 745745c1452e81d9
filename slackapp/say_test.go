package slackapp

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

func TestSayResolved(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	exp := now.Add(-time.Hour)
	in := mergeQuestion("m")
	in.ExpiresAt = &exp
	rec := func(status inquiry.Status, a *inquiry.Answer, f *inquiry.Failure) *inquiry.Record {
		return &inquiry.Record{Key: "inq_1", Inquiry: in, Status: status, Answer: a, Failure: f}
	}
	tests := []struct {
		name string
		rec  *inquiry.Record
		want string
	}{
		{"by a person", rec(inquiry.StatusAnswered, &inquiry.Answer{Value: inquiry.One("merge"), AnsweredBy: "U0ALICE01", Source: inquiry.SourcePerson}, nil),
			"already answered by <@U0ALICE01>: Merge"},
		{"with a note", rec(inquiry.StatusAnswered, &inquiry.Answer{Value: inquiry.One("hold"), Text: "wait for <b>", AnsweredBy: "U0ALICE01", Source: inquiry.SourcePerson}, nil),
			"already answered by <@U0ALICE01>: Hold — “wait for &lt;b&gt;”"},
		{"declined by a token", rec(inquiry.StatusAnswered, &inquiry.Answer{Declined: true, AnsweredBy: "ops-cli", Source: inquiry.SourcePerson}, nil),
			"already answered by “ops-cli”: declined"},
		{"by policy", rec(inquiry.StatusAnswered, &inquiry.Answer{Value: inquiry.One("hold"), Source: inquiry.SourceDefault}, nil),
			"already answered by policy, without asking anybody: Hold."},
		{"expired with a default", rec(inquiry.StatusExpired, &inquiry.Answer{Value: inquiry.One("hold"), Source: inquiry.SourceExpired}, nil),
			"this question expired at <!date^" + strconv.FormatInt(exp.Unix(), 10) + "^{date_short_pretty} at {time}|2026-12-01 11:00 UTC>; the run assumed Hold."},
		{"expired without", rec(inquiry.StatusExpired, &inquiry.Answer{Declined: true, Source: inquiry.SourceExpired}, nil),
			"this question expired at <!date^" + strconv.FormatInt(exp.Unix(), 10) + "^{date_short_pretty} at {time}|2026-12-01 11:00 UTC>; nobody decided, and it had no default."},
		{"cancelled", rec(inquiry.StatusCancelled, nil, nil), "this question was withdrawn by whoever asked it; nothing was recorded."},
		{"failed", rec(inquiry.StatusFailed, nil, &inquiry.Failure{Message: "not_in_channel: invite <bot>"}),
			"this question could not be asked: not_in_channel: invite &lt;bot&gt;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, sayResolved(tt.rec, now).text())
		})
	}
}

func TestSayInvalid(t *testing.T) {
	choice := &inquiry.Record{Inquiry: mergeQuestion("m")}
	_, err := inquiry.CheckAnswer(&choice.Inquiry, inquiry.Reply{Text: "hold it please"})
	require.Error(t, err)
	require.Equal(t, "that is none of the offered answers: “Merge”, “Hold”. Reply in the thread with exactly one of them, or use the buttons.",
		sayInvalid(choice, inquiry.Reply{Text: "hold it please"}, err).text())

	multi := &inquiry.Record{Inquiry: inquiry.Inquiry{Kind: inquiry.KindChoice, Multiple: true, Options: choice.Options}}
	require.Equal(t, "tick at least one answer, then press Submit.", sayInvalid(multi, inquiry.Reply{Value: inquiry.Many()}, errors.New("x")).text())
	_, err = inquiry.CheckAnswer(&multi.Inquiry, inquiry.Reply{Text: "merge and hold"})
	require.Error(t, err)
	require.Equal(t, "that is none of the offered answers: “Merge”, “Hold”. Reply in the thread with one or more of them, separated by commas, or use the buttons.",
		sayInvalid(multi, inquiry.Reply{Text: "merge and hold"}, err).text())

	confirm := &inquiry.Record{Inquiry: inquiry.Inquiry{Kind: inquiry.KindConfirm}}
	require.Equal(t, "Choose Yes or No.", plainInvalid(confirm, inquiry.Reply{}, errors.New("x")))
}
