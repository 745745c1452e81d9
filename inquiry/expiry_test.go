package inquiry_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// setupOn gives a service over a fresh database of the URL's kind, on the test clock.
func setupOn(t *testing.T, databaseURL string) *bundle {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, databaseURL)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	c := &clock{now: time.Now().UTC().Truncate(time.Second)}
	reg := inquiry.NewRegistry()
	reg.Register("chat", &fakeTransport{})
	svc := inquiry.NewService(st, reg)
	svc.Now = c.Now
	svc.Log = quietLog
	return &bundle{svc: svc, store: st, clock: c, ctx: ctx}
}

// Expiry is exact wherever it is looked at (issue 12): a read, an answer, a run's ask after
// expires_at see the inquiry expired, and the follow-up work of the expiry is enqueued once,
// however many readers and sweepers race for it.
func TestExpiryIsExactWhereverItIsLookedAt(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setupOn(t, databaseURL)
		at := b.clock.Now().Add(time.Hour)
		in := merge()
		in.ExpiresAt = &at
		req := inquiry.AskRequest{Namespace: "ns", Inquiry: in, CallbackURL: "https://example.com/cb",
			Config: &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: "chat"}}
		rec, _, err := b.svc.Ask(b.ctx, req)
		require.NoError(t, err)

		b.clock.Add(time.Hour) // exactly at the expiry: no longer a person's to answer
		out, err := b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, "U1")
		require.Equal(t, inquiry.CodeAlreadyResolved, inquiry.ErrorCode(err))
		require.Contains(t, inquiry.ErrorMessage(err), "expired")
		require.Contains(t, inquiry.ErrorMessage(err), "Hold (assumed: nobody answered in time)")
		require.Equal(t, inquiry.StatusExpired, out.Status)
		require.Equal(t, inquiry.SourceExpired, out.Answer.Source)

		// Readers and two sweepers race over a second one; it resolves once.
		in.ID = "deploy-42:other"
		at2 := b.clock.Now().Add(time.Minute)
		in.ExpiresAt = &at2
		req.Inquiry = in
		rec2, _, err := b.svc.Ask(b.ctx, req)
		require.NoError(t, err)
		b.clock.Add(2 * time.Minute)
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				switch i % 4 {
				case 0:
					got, err := b.svc.Get(b.ctx, rec2.Key)
					if err == nil && got.Status != inquiry.StatusExpired {
						t.Errorf("a read after the expiry saw %s", got.Status)
					}
				case 1:
					_, _, err := b.svc.List(b.ctx, inquiry.ListFilter{Namespace: "ns", Status: inquiry.StatusPending})
					if err != nil {
						t.Error(err)
					}
				case 2:
					due, err := b.store.DueInquiries(b.ctx, b.clock.Now(), 10)
					if err == nil {
						_, err = b.svc.ExpireMany(b.ctx, due)
					}
					if err != nil {
						t.Error(err)
					}
				case 3:
					_, err := b.svc.Answer(b.ctx, rec2.Key, inquiry.Reply{Value: inquiry.One("merge")}, "U2")
					if inquiry.ErrorCode(err) != inquiry.CodeAlreadyResolved {
						t.Errorf("an answer after the expiry: %v", err)
					}
				}
			}(i)
		}
		wg.Wait()
		ds, err := b.store.ListDeliveries(b.ctx, rec2.Key)
		require.NoError(t, err)
		kinds := map[inquiry.DeliveryKind]int{}
		for _, d := range ds {
			kinds[d.Kind]++
		}
		require.Equal(t, map[inquiry.DeliveryKind]int{inquiry.DeliverPost: 1, inquiry.DeliverUpdate: 1, inquiry.DeliverCallback: 1}, kinds,
			"the message update and the callback of one expiry are enqueued once")
		got, err := b.svc.Get(b.ctx, rec2.Key)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusExpired, got.Status)
		require.Empty(t, got.Answer.AnsweredBy)
	})
}

func TestAWaitEndsAtTheExpiry(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setupOn(t, databaseURL)
		b.svc.Now = nil // the wall clock: the wait is timed by it
		at := time.Now().Add(300 * time.Millisecond)
		in := merge()
		in.ExpiresAt = &at
		rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: in, Config: &inquiry.Config{Policy: inquiry.PolicyAsk}})
		require.NoError(t, err)
		start := time.Now()
		got, err := b.svc.Wait(b.ctx, rec.Key, inquiry.MaxWait)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusExpired, got.Status, "the wait ends at the expiry, with the inquiry expired")
		require.Less(t, time.Since(start), inquiry.MaxWait/2, "not at the end of the wait")
	})
}

func TestAnIDOfBlanksIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, id := range []string{" ", "   ", "\t"} {
		in := merge()
		in.ID = id
		_, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, in))
		require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err), "%q", id)
		require.Equal(t, "id", inquiry.ErrorField(err))
	}
}
