package inquiry_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/inflight"
)

// heldStore holds every Resolve until release is closed, and counts them.
type heldStore struct {
	inquiry.Store
	entered  chan struct{}
	release  chan struct{}
	resolves atomic.Int32
	fail     error // the first Resolve's outcome instead of the store's
}

func (s *heldStore) Resolve(ctx context.Context, key string, r inquiry.Resolution) (*inquiry.Record, error) {
	n := s.resolves.Add(1)
	s.entered <- struct{}{}
	<-s.release
	if n == 1 && s.fail != nil {
		return nil, s.fail
	}
	return s.Store.Resolve(ctx, key, r)
}

// TestAnswersInFlight: a second answer to an inquiry whose first answer this process is still
// recording waits for it instead of racing it to the store, and gets CodeAlreadyResolved with
// the first's record — one Resolve reaches the store. When the first fails, the second records
// itself.
func TestAnswersInFlight(t *testing.T) {
	for _, firstFails := range []bool{false, true} {
		b := setup(t)
		flights := inflight.New[*inquiry.Record]()
		b.svc.Answering = flights
		rec, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, merge()))
		require.NoError(t, err)
		held := &heldStore{Store: b.store, entered: make(chan struct{}, 4), release: make(chan struct{})}
		if firstFails {
			held.fail = inquiry.Errorf(inquiry.CodeStorageUnavailable, "the database cannot be reached right now")
		}
		b.svc.Store = held

		var wg sync.WaitGroup
		outs := make([]*inquiry.Record, 2)
		errs := make([]error, 2)
		wg.Go(func() {
			outs[0], errs[0] = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
		})
		<-held.entered // the first is in the store
		wg.Go(func() {
			outs[1], errs[1] = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("hold")}, inquiry.SlackUser("U2", nil))
		})
		// The second read the inquiry pending and now waits on the first, not in the store.
		require.Eventually(t, func() bool { return flights.Waiting(rec.Key) == 2 }, 10*time.Second, time.Millisecond)
		close(held.release)
		wg.Wait()
		require.Zero(t, flights.Waiting(rec.Key), "nothing in flight")

		if !firstFails {
			require.NoError(t, errs[0])
			require.Equal(t, "U1", outs[0].Answer.AnsweredBy)
			require.Equal(t, inquiry.CodeAlreadyResolved, inquiry.ErrorCode(errs[1]))
			require.Equal(t, outs[0], outs[1], "the record the first left")
			require.EqualError(t, errs[1], inquiry.AlreadyResolved(outs[0]).Error())
			require.EqualValues(t, 1, held.resolves.Load(), "one Resolve reached the store")
			continue
		}
		require.Equal(t, inquiry.CodeStorageUnavailable, inquiry.ErrorCode(errs[0]))
		require.NoError(t, errs[1], "the first failed: the second answered")
		require.Equal(t, "U2", outs[1].Answer.AnsweredBy)
		require.EqualValues(t, 2, held.resolves.Load())
	}
}

// panicStore panics in its first Resolve, as a bug below the service would.
type panicStore struct {
	inquiry.Store
	resolves atomic.Int32
}

func (s *panicStore) Resolve(ctx context.Context, key string, r inquiry.Resolution) (*inquiry.Record, error) {
	if s.resolves.Add(1) == 1 {
		panic("a bug in the store")
	}
	return s.Store.Resolve(ctx, key, r)
}

// TestAnAnswerThatPanicsLeavesNoFlight: an answer whose recording panics (the HTTP server
// recovers it; the process goes on) does not leave its inquiry marked as being answered: the
// next answer to it is recorded, rather than waiting for an answer that will never end and then
// failing with its context.
func TestAnAnswerThatPanicsLeavesNoFlight(t *testing.T) {
	b := setup(t)
	flights := inflight.New[*inquiry.Record]()
	b.svc.Answering = flights
	rec, _, err := b.svc.Ask(b.ctx, ask(inquiry.PolicyAsk, merge()))
	require.NoError(t, err)
	b.svc.Store = &panicStore{Store: b.store}
	func() {
		defer func() { require.NotNil(t, recover(), "the first answer panics") }()
		_, _ = b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge")}, inquiry.SlackUser("U1", nil))
	}()
	require.Zero(t, flights.Waiting(rec.Key))
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	out, err := b.svc.Answer(ctx, rec.Key, inquiry.Reply{Value: inquiry.One("hold")}, inquiry.SlackUser("U2", nil))
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusAnswered, out.Status)
}
