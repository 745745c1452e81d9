package inquiry_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// waitResult is what a Wait run aside returned.
type waitResult struct {
	rec *inquiry.Record
	err error
}

// waitOn runs Wait on key for d on a goroutine of its own; the channel gives what it returned.
func waitOn(ctx context.Context, b *bundle, key string, d time.Duration) <-chan waitResult {
	out := make(chan waitResult, 1)
	go func() {
		rec, err := b.svc.Wait(ctx, key, d)
		out <- waitResult{rec, err}
	}()
	return out
}

// returned gives what the wait returned; it fails the test when it is not within limit.
func returned(t *testing.T, c <-chan waitResult, limit time.Duration) (*inquiry.Record, error) {
	t.Helper()
	select {
	case r := <-c:
		return r.rec, r.err
	case <-time.After(limit):
		t.Fatal("the wait did not return")
		return nil, nil
	}
}

func pendingInquiry(t *testing.T, b *bundle, in inquiry.Inquiry) *inquiry.Record {
	t.Helper()
	rec, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, in))
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, rec.Status)
	return rec
}

// waiting waits until n waits are subscribed.
func waiting(t *testing.T, b *bundle, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return b.hub.Waiters() == n }, 10*time.Second, time.Millisecond)
}

func TestWaitOnAResolvedInquiryReturnsAtOnce(t *testing.T) {
	b := setup(t)
	rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: merge()}) // answered by the default
	require.NoError(t, err)
	got, err := b.svc.Wait(b.ctx, rec.Key, 30*time.Second)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusAnswered, got.Status)

	// So does a wait of nothing on a pending one, and an unknown key.
	p := pendingInquiry(t, b, merge2())
	got, err = b.svc.Wait(b.ctx, p.Key, 0)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, got.Status)
	_, err = b.svc.Wait(b.ctx, "inq_nope", time.Minute)
	require.Equal(t, inquiry.CodeNotFound, inquiry.ErrorCode(err))
	require.Equal(t, 0, b.hub.Waiters())
}

func merge2() inquiry.Inquiry {
	in := merge()
	in.ID = "deploy-43:merge"
	return in
}

func TestWaitReturnsAtTheEndOfItsWait(t *testing.T) {
	b := setup(t)
	rec := pendingInquiry(t, b, merge())
	got, err := b.svc.Wait(b.ctx, rec.Key, 200*time.Millisecond)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, got.Status, "as it stands")
	require.Equal(t, 0, b.hub.Waiters())
}

// The service's clock is the test's: expiry is what it says. A wake after the clock has passed
// the expiry reads the inquiry expired (the read expires it).
func TestWaitReadsTheExpiryOfTheServiceClock(t *testing.T) {
	b := setup(t)
	counter := &storagetest.Counting{Store: b.svc.Store}
	b.svc.Store = counter
	in := merge()
	at := b.clock.Now().Add(time.Hour)
	in.ExpiresAt = &at
	rec := pendingInquiry(t, b, in)
	r := waitOn(b.ctx, b, rec.Key, 30*time.Second)
	waiting(t, b, 1)
	reads := counter.Inquiries.Load()
	b.hub.Wake(rec.Key) // a vote, say: still pending
	require.Eventually(t, func() bool { return counter.Inquiries.Load() > reads }, 10*time.Second, time.Millisecond, "the wake read it again")
	require.Empty(t, r, "still pending: the wait waits on")
	b.clock.Add(2 * time.Hour)
	b.hub.Wake(rec.Key)
	got, err := returned(t, r, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusExpired, got.Status)
}

// The end of a wait is read from the service's clock too, not the wall clock alone: a wake after
// the test's clock has passed the end returns the inquiry as it stands.
func TestWaitEndsWhenTheServiceClockPassesItsEnd(t *testing.T) {
	b := setup(t)
	rec := pendingInquiry(t, b, merge())
	r := waitOn(b.ctx, b, rec.Key, 30*time.Second)
	waiting(t, b, 1)
	b.clock.Add(time.Minute)
	b.hub.Wake(rec.Key) // a vote, say: still pending, and the wait is over by the service's clock
	got, err := returned(t, r, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, got.Status, "as it stands")
	require.Equal(t, 0, b.hub.Waiters())
}

// An Extend during the wait moves its timer: it does not end at the old expiry. The service's
// clock stands still, so a timer left at the old expiry would end the wait with the inquiry
// still pending.
func TestWaitFollowsAnExtendedExpiry(t *testing.T) {
	b := setup(t)
	in := merge()
	at := b.clock.Now().Add(300 * time.Millisecond)
	in.ExpiresAt = &at
	in.Extend = &inquiry.Extension{By: inquiry.Duration(time.Hour), Max: inquiry.Duration(time.Hour)}
	rec := pendingInquiry(t, b, in)
	r := waitOn(b.ctx, b, rec.Key, 30*time.Second)
	waiting(t, b, 1)
	_, err := b.svc.Extend(b.ctx, rec.Key, 0, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	time.Sleep(600 * time.Millisecond) // past the old expiry, by the wall clock its timer ran on
	require.Empty(t, r, "the wait outlived the old expiry")
	_, err = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	got, err := returned(t, r, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusAnswered, got.Status)
}

func TestWaitEndsOnHubCloseAndOnItsContext(t *testing.T) {
	b := setup(t)
	rec := pendingInquiry(t, b, merge())

	ctx, cancel := context.WithCancel(b.ctx)
	r := waitOn(ctx, b, rec.Key, 30*time.Second)
	waiting(t, b, 1)
	cancel()
	got, err := returned(t, r, 10*time.Second)
	require.NoError(t, err, "read without the ended context")
	require.Equal(t, inquiry.StatusPending, got.Status)

	r = waitOn(b.ctx, b, rec.Key, 30*time.Second)
	waiting(t, b, 1)
	b.hub.Close()
	got, err = returned(t, r, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, got.Status, "the inquiry as it stands")

	// After Close a wait returns at once.
	got, err = b.svc.Wait(b.ctx, rec.Key, 30*time.Second)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, got.Status)
	require.Equal(t, 0, b.hub.Waiters())
}

// However wakes, ended contexts and the hub's close interleave, every wait returns and leaves
// nothing behind.
func TestWaitsEndWhateverTheInterleaving(t *testing.T) {
	b := setup(t)
	rec := pendingInquiry(t, b, merge())
	const n = 200
	results := make([]<-chan waitResult, n)
	cancels := make([]context.CancelFunc, n)
	for i := range results {
		ctx, cancel := context.WithCancel(b.ctx)
		cancels[i] = cancel
		results[i] = waitOn(ctx, b, rec.Key, 30*time.Second)
	}
	waiting(t, b, n) // each has read the inquiry once and waits
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() { defer wg.Done(); b.hub.Wake(rec.Key) }()
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				cancels[i]()
			}
		}()
	}
	b.hub.Close()
	wg.Wait()
	for i, r := range results {
		got, err := returned(t, r, 10*time.Second)
		require.NoError(t, err, "wait %d", i)
		require.Equal(t, inquiry.StatusPending, got.Status, "wait %d", i)
		cancels[i]()
	}
	require.Equal(t, 0, b.hub.Waiters())
}
