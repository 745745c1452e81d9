package storage_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestWaitingRunResumedWhenItsInquiryEndsUnanswered: a run parked on an inquiry that is then
// cancelled or fails is resumed all the same (its resume URL called, nothing put in its state),
// so that it learns its question will never be answered instead of waiting for ever.
func TestWaitingRunResumedWhenItsInquiryEndsUnanswered(t *testing.T) {
	t.Parallel()
	for _, status := range []inquiry.Status{inquiry.StatusCancelled, inquiry.StatusFailed} {
		t.Run(string(status), func(t *testing.T) {
			t.Parallel()
			each(t, func(t *testing.T, b *bundle) {
				ctx := context.Background()
				rec := resumableRun(t, b, "run", "gone")
				_, _, err := b.store.ParkRun(ctx, "ns", "run", rec.Key, t0)
				require.NoError(t, err)
				res := inquiry.Resolution{Status: status, At: t0}
				if status == inquiry.StatusFailed {
					res.Failure = &inquiry.Failure{Code: inquiry.CodeUnavailable, Message: "channel_not_found"}
				}
				_, err = b.store.Resolve(ctx, rec.Key, res)
				require.NoError(t, err)
				ds, err := b.store.ListDeliveries(ctx, rec.Key)
				require.NoError(t, err)
				require.Len(t, ds, 1)
				require.Equal(t, inquiry.DeliverResume, ds[0].Kind)
				require.Equal(t, "https://ci/resume", ds[0].Target)
				run, err := b.store.Run(ctx, "ns", "run")
				require.NoError(t, err)
				require.Equal(t, inquiry.RunWaiting, run.Status, "it has no process until it is resumed")
				require.NotContains(t, run.Answers, "gone", "nothing was answered")
			})
		})
	}
}
