package inquiry_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

func userIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("U%08d", i)
	}
	return ids
}

// One ask token could page thousands: slack.answerers is capped at 50 entries and 5 user groups,
// with a sentence that names the field.
func TestSlackAnswerersCapped(t *testing.T) {
	t.Parallel()
	require.NoError(t, inquiry.ValidateSlack(inquiry.SlackRef{Answerers: userIDs(inquiry.MaxSlackAnswerers)}))
	five := append(userIDs(3), "S0A1", "S0A2", "S0A3", "S0A4", "S0A5")
	require.NoError(t, inquiry.ValidateSlack(inquiry.SlackRef{Answerers: five}))

	err := inquiry.ValidateSlack(inquiry.SlackRef{Answerers: append(userIDs(2000), "S0A1", "S0A2")})
	require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err))
	require.Equal(t, "slack.answerers", inquiry.ErrorField(err))
	require.Contains(t, inquiry.ErrorMessage(err), "2002")
	require.Contains(t, inquiry.ErrorMessage(err), "at most 50")

	err = inquiry.ValidateSlack(inquiry.SlackRef{Answerers: append(five, "S0A6")})
	require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err))
	require.Equal(t, "slack.answerers", inquiry.ErrorField(err))
	require.Contains(t, inquiry.ErrorMessage(err), "6 user groups")
}

// The escalation steps name people a reminder calls on, and widen who may answer: everyone an
// inquiry names in Slack counts towards the same caps, at create.
func TestEscalationCountsTowardsTheCaps(t *testing.T) {
	b := setup(t)
	in := merge()
	in.ExpiresAt = nil
	base := userIDs(40)
	step := func(after time.Duration, ids ...string) inquiry.Step {
		return inquiry.Step{After: inquiry.Duration(after), Answerers: ids}
	}
	in.Escalate = []inquiry.Step{step(time.Hour, userIDs(45)[35:]...), step(2*time.Hour, "U1NEW0001")}
	req := ask(inquiry.PolicyDefault, in)
	req.Slack = &inquiry.SlackTarget{Answerers: base}
	_, _, err := b.svc.Ask(b.ctx, req) // 40 + 5 new + 1 new = 46: within the cap
	require.NoError(t, err)

	in.ID = "more"
	in.Escalate = []inquiry.Step{step(time.Hour, userIDs(55)[35:]...)} // 40 + 15 new = 55
	req = ask(inquiry.PolicyDefault, in)
	req.Slack = &inquiry.SlackTarget{Answerers: base}
	_, _, err = b.svc.Ask(b.ctx, req)
	require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err))
	require.Equal(t, "escalate", inquiry.ErrorField(err))
	require.Contains(t, inquiry.ErrorMessage(err), "55 people and groups")

	in.ID = "groups"
	in.Escalate = []inquiry.Step{step(time.Hour, "S0A3", "S0A4"), step(2*time.Hour, "S0A5", "S0A6")}
	req = ask(inquiry.PolicyDefault, in)
	req.Slack = &inquiry.SlackTarget{Answerers: []string{"U0ALICE01", "S0A1", "S0A2"}}
	_, _, err = b.svc.Ask(b.ctx, req)
	require.Equal(t, "escalate", inquiry.ErrorField(err))
	require.Contains(t, inquiry.ErrorMessage(err), "6 user groups")

	// Steps of a question anybody may answer still call on whom they name: counted too.
	in.ID = "anybody"
	in.Escalate = []inquiry.Step{step(time.Hour, userIDs(20)...), step(2*time.Hour, userIDs(40)[20:]...), step(3*time.Hour, userIDs(60)[40:]...)}
	_, _, err = b.svc.Ask(b.ctx, ask(inquiry.PolicyDefault, in))
	require.Equal(t, "escalate", inquiry.ErrorField(err))
}

// remind_here wakes a whole channel: only a server whose operator set BOT_ALLOW_BROADCAST=true
// takes it; elsewhere the create is refused with a sentence that says how to fix it.
func TestRemindHereNeedsTheOperator(t *testing.T) {
	b := setup(t)
	in := merge()
	in.Remind, in.RemindHere = []inquiry.Duration{inquiry.Duration(30 * time.Minute)}, true
	req := ask(inquiry.PolicyDefault, in)
	req.ExpiresIn = "2h"
	_, _, err := b.svc.Ask(b.ctx, req)
	require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err))
	require.Equal(t, "remind_here", inquiry.ErrorField(err))
	require.Equal(t, "this server does not allow @here reminders: ask its operator to set BOT_ALLOW_BROADCAST=true, or leave remind_here out", inquiry.ErrorMessage(err))

	b.svc.AllowBroadcast = true
	_, _, err = b.svc.Ask(b.ctx, req)
	require.NoError(t, err)
}
