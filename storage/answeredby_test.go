package storage_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestAnsweredBy: what a person answered or voted in lately, the one answered last first,
// whatever became of it, each once however often they changed their vote; bounded; nobody else's.
func TestAnsweredBy(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		answer := func(id, by string, at time.Time) *inquiry.Record {
			rec := create(t, b.store, newRecord("ns", "", id))
			a := personAnswer(id, "merge", at)
			a.AnsweredBy = by
			_, err := b.store.Resolve(ctx, rec.Key, inquiry.Resolution{Status: inquiry.StatusAnswered, Answer: a, At: at})
			require.NoError(t, err)
			return rec
		}
		first := answer("first", "U0ALICE01", t0.Add(time.Minute))
		answer("bobs", "U0BOB0001", t0.Add(2*time.Minute))
		second := answer("second", "U0ALICE01", t0.Add(3*time.Minute))

		// A vote in a team approval still pending, changed once: one entry, the newest.
		two := 2
		team := newRecord("ns", "", "team")
		team.Kind, team.Options, team.Default = inquiry.KindConfirm, nil, inquiry.Value{}
		team.Approval = inquiry.Approval{Approvals: &two}
		team = create(t, b.store, team)
		for i, v := range []string{"no", "yes"} {
			_, err := b.store.Vote(ctx, team.Key, inquiry.Vote{By: "U0ALICE01", Value: inquiry.One(v), At: t0.Add(time.Duration(4+i) * time.Minute), Via: inquiry.ViaSlack}, noDecision)
			require.NoError(t, err)
		}

		got, err := b.store.AnsweredBy(ctx, "U0ALICE01", 10)
		require.NoError(t, err)
		require.Equal(t, []string{team.Key, second.Key, first.Key}, orderedKeys(got))
		require.Equal(t, inquiry.StatusPending, got[0].Status)
		require.Equal(t, "U0ALICE01", got[1].Answer.AnsweredBy)

		got, err = b.store.AnsweredBy(ctx, "U0ALICE01", 2)
		require.NoError(t, err)
		require.Equal(t, []string{team.Key, second.Key}, orderedKeys(got), "bounded by limit")

		for _, who := range []string{"", "U0CAROL01", "u0alice01"} {
			got, err = b.store.AnsweredBy(ctx, who, 10)
			require.NoError(t, err)
			require.Empty(t, got, "AnsweredBy(%q)", who)
		}

		// The bound holds past many answers: at most 50 whatever is asked.
		for i := range 55 {
			answer(fmt.Sprintf("many-%d", i), "U0DAN0001", t0.Add(time.Duration(10+i)*time.Minute))
		}
		got, err = b.store.AnsweredBy(ctx, "U0DAN0001", 1000)
		require.NoError(t, err)
		require.Len(t, got, 50)
		require.Equal(t, "many-54", got[0].ID)
	})
}
