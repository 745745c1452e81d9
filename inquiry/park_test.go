package inquiry_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// parkResult is what a Park's done was called with, and how often.
type parkResult struct {
	once  chan struct{}
	calls atomic.Int32
	rec   *inquiry.Record
	err   error
}

func newParkResult() *parkResult { return &parkResult{once: make(chan struct{})} }

func (r *parkResult) done(rec *inquiry.Record, err error) {
	if r.calls.Add(1) == 1 {
		r.rec, r.err = rec, err
		close(r.once)
	}
}

// wait returns once done has been called; it fails the test when it is not within limit.
func (r *parkResult) wait(t *testing.T, limit time.Duration) (*inquiry.Record, error) {
	t.Helper()
	select {
	case <-r.once:
		return r.rec, r.err
	case <-time.After(limit):
		t.Fatal("done was not called")
		return nil, nil
	}
}

func (r *parkResult) called() bool {
	select {
	case <-r.once:
		return true
	default:
		return false
	}
}

// park parks on key for wait: the result is what done is called with.
func park(b *bundle, key string, wait time.Duration) *parkResult {
	r := newParkResult()
	b.svc.Park(b.ctx, key, wait, r.done)
	return r
}

func pendingInquiry(t *testing.T, b *bundle, in inquiry.Inquiry) *inquiry.Record {
	t.Helper()
	rec, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, in))
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, rec.Status)
	return rec
}

func TestParkIsWokenByTheAnswerAndHoldsNothingAfter(t *testing.T) {
	b := setup(t)
	rec := pendingInquiry(t, b, merge())
	r := park(b, rec.Key, 30*time.Second)
	require.False(t, r.called(), "pending: the park waits")
	require.Equal(t, 1, b.svc.Hub.Waiters())
	_, err := b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	got, err := r.wait(t, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusAnswered, got.Status)
	require.Equal(t, 0, b.svc.Hub.Waiters(), "a finished park leaves nothing behind")
	b.svc.Hub.Wake(rec.Key)
	b.svc.Hub.Close()
	time.Sleep(50 * time.Millisecond)
	require.EqualValues(t, 1, r.calls.Load(), "done is called once")
}

func TestParkOnAResolvedInquiryAnswersBeforeReturning(t *testing.T) {
	b := setup(t)
	rec, _, err := b.svc.Ask(b.ctx, inquiry.AskRequest{Namespace: "ns", Inquiry: merge()}) // answered by the default
	require.NoError(t, err)
	r := park(b, rec.Key, 30*time.Second)
	require.True(t, r.called(), "done ran on the caller's goroutine")
	require.Equal(t, inquiry.StatusAnswered, r.rec.Status)
	require.Equal(t, 0, b.svc.Hub.Waiters())

	// So does a wait of nothing on a pending one, and an unknown key.
	p := pendingInquiry(t, b, merge2())
	r = park(b, p.Key, 0)
	require.True(t, r.called())
	require.Equal(t, inquiry.StatusPending, r.rec.Status)
	r = park(b, "inq_nope", time.Minute)
	require.True(t, r.called())
	require.Equal(t, inquiry.CodeNotFound, inquiry.ErrorCode(r.err))
	require.Equal(t, 0, b.svc.Hub.Waiters())
}

func merge2() inquiry.Inquiry {
	in := merge()
	in.ID = "deploy-43:merge"
	return in
}

func TestParkReturnsAtTheEndOfItsWait(t *testing.T) {
	b := setup(t)
	rec := pendingInquiry(t, b, merge())
	r := park(b, rec.Key, 200*time.Millisecond)
	got, err := r.wait(t, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, got.Status, "as it stands")
	require.Equal(t, 0, b.svc.Hub.Waiters())
}

// The service's clock is the test's: expiry is what it says. A wake after the clock has passed
// the expiry reads the inquiry expired (the read expires it).
func TestParkReadsTheExpiryOfTheServiceClock(t *testing.T) {
	b := setup(t)
	in := merge()
	at := b.clock.Now().Add(time.Hour)
	in.ExpiresAt = &at
	rec := pendingInquiry(t, b, in)
	r := park(b, rec.Key, 30*time.Second)
	b.svc.Hub.Wake(rec.Key) // a vote, say: still pending
	time.Sleep(50 * time.Millisecond)
	require.False(t, r.called(), "still pending: the park waits on")
	b.clock.Add(2 * time.Hour)
	b.svc.Hub.Wake(rec.Key)
	got, err := r.wait(t, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusExpired, got.Status)
}

// An Extend during the park moves its timer: it does not end at the old expiry. The service's
// clock stands still, so a timer left at the old expiry would end the park with the inquiry
// still pending.
func TestParkFollowsAnExtendedExpiry(t *testing.T) {
	b := setup(t)
	in := merge()
	at := b.clock.Now().Add(300 * time.Millisecond)
	in.ExpiresAt = &at
	in.Extend = &inquiry.Extension{By: inquiry.Duration(time.Hour), Max: inquiry.Duration(time.Hour)}
	rec := pendingInquiry(t, b, in)
	r := park(b, rec.Key, 30*time.Second)
	_, err := b.svc.Extend(b.ctx, rec.Key, 0, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	time.Sleep(600 * time.Millisecond) // past the old expiry, by the wall clock its timer ran on
	require.False(t, r.called(), "the park outlived the old expiry")
	_, err = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	got, err := r.wait(t, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusAnswered, got.Status)
}

func TestParkEndsOnHubCloseAndOnItsContext(t *testing.T) {
	b := setup(t)
	rec := pendingInquiry(t, b, merge())

	ctx, cancel := context.WithCancel(b.ctx)
	r := newParkResult()
	b.svc.Park(ctx, rec.Key, 30*time.Second, r.done)
	cancel()
	got, err := r.wait(t, 10*time.Second)
	require.NoError(t, err, "read without the ended context")
	require.Equal(t, inquiry.StatusPending, got.Status)

	r = park(b, rec.Key, 30*time.Second)
	b.svc.Hub.Close()
	got, err = r.wait(t, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, got.Status, "the inquiry as it stands")

	// After Close a park returns at once.
	r = park(b, rec.Key, 30*time.Second)
	require.True(t, r.called())
	require.Equal(t, 0, b.svc.Hub.Waiters())
}

func TestParkCancel(t *testing.T) {
	b := setup(t)
	rec := pendingInquiry(t, b, merge())
	r := newParkResult()
	cancel := b.svc.Park(b.ctx, rec.Key, 30*time.Second, r.done)
	cancel()
	require.True(t, r.called(), "cancel calls done at once")
	require.Nil(t, r.rec)
	require.ErrorIs(t, r.err, context.Canceled)
	cancel()
	_, err := b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	time.Sleep(50 * time.Millisecond)
	require.EqualValues(t, 1, r.calls.Load())
	require.Equal(t, 0, b.svc.Hub.Waiters())
}

// However wakes, cancels and the hub's close interleave, done is called exactly once.
func TestParkCallsDoneOnce(t *testing.T) {
	b := setup(t)
	rec := pendingInquiry(t, b, merge())
	const n = 200
	results := make([]*parkResult, n)
	cancels := make([]func(), n)
	for i := range results {
		results[i] = newParkResult()
		cancels[i] = b.svc.Park(b.ctx, rec.Key, 30*time.Second, results[i].done)
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() { defer wg.Done(); b.svc.Hub.Wake(rec.Key) }()
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				cancels[i]()
			}
		}()
	}
	b.svc.Hub.Close()
	wg.Wait()
	for i, r := range results {
		r.wait(t, 10*time.Second)
		time.Sleep(time.Millisecond)
		require.EqualValues(t, 1, r.calls.Load(), "park %d", i)
	}
	require.Eventually(t, func() bool { return b.svc.Hub.Waiters() == 0 }, 10*time.Second, 10*time.Millisecond)
}

func TestParkReadTrustsTheCallersReadWhileNothingWasWoken(t *testing.T) {
	b := setup(t)
	rec := pendingInquiry(t, b, merge())
	counter := &storagetest.Counting{Store: b.svc.Store}
	b.svc.Store = counter
	mark := b.svc.WakeMark()
	got, err := b.svc.Get(b.ctx, rec.Key)
	require.NoError(t, err)
	r := newParkResult()
	b.svc.ParkRead(b.ctx, got, mark, 30*time.Second, r.done)
	require.False(t, r.called(), "pending: the park waits")
	require.EqualValues(t, 1, counter.Inquiries.Load(), "the caller's read is the park's first: one read in all")
	_, err = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	got, err = r.wait(t, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusAnswered, got.Status)
}

func TestParkReadReadsAgainWhenAWakeCameAfterTheCallersRead(t *testing.T) {
	b := setup(t)
	rec := pendingInquiry(t, b, merge())
	mark := b.svc.WakeMark()
	stale, err := b.svc.Get(b.ctx, rec.Key)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusPending, stale.Status)
	// Answered between the caller's read and its park: the wake-up found no waiter.
	_, err = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	r := newParkResult()
	b.svc.ParkRead(b.ctx, stale, mark, 30*time.Second, r.done)
	got, err := r.wait(t, 5*time.Second) // without the mark it would wait the whole 30 s
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusAnswered, got.Status)
	require.Equal(t, 0, b.svc.Hub.Waiters())
}
