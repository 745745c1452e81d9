package storage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
)

// types are the types of evs, in order.
func types(evs []inquiry.Event) []inquiry.EventType {
	out := make([]inquiry.EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

func eventsOf(t *testing.T, s *storage.Store, key string) []inquiry.Event {
	t.Helper()
	evs, err := s.InquiryEvents(context.Background(), key)
	require.NoError(t, err)
	return evs
}

func dataOf(t *testing.T, e inquiry.Event) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(e.Data, &m), "data: %s", e.Data)
	return m
}

// TestEventsOfAWholeLife: every change of an inquiry is on its record, in order, each with who
// and when: created by the asker, posted where, two votes, the answer they decide, and the
// callback delivered — once, however often the dispatcher says so.
func TestEventsOfAWholeLife(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		two := 2
		rec := newRecord("team-a", "", "deploy")
		rec.AskedBy = "agent-a"
		rec.Kind, rec.Options, rec.Default = inquiry.KindConfirm, nil, inquiry.Value{}
		rec.Approval = inquiry.Approval{Approvals: &two}
		rec = create(t, b.store, rec, inquiry.Delivery{Kind: inquiry.DeliverPost, Target: "slack"})

		claimed, err := b.store.ClaimDeliveries(ctx, t0.Add(time.Second), time.Minute, 10)
		require.NoError(t, err)
		require.Len(t, claimed, 1)
		require.NoError(t, b.store.SetPosted(ctx, rec.Key, inquiry.SlackRef{Channel: "C1", TS: "1700.1", Permalink: "https://slack/p"}))
		require.NoError(t, b.store.CompleteDelivery(ctx, claimed[0].ID, t0.Add(2*time.Second)))

		decide := func(cur *inquiry.Record) (*inquiry.Resolution, []inquiry.Delivery) {
			if a := inquiry.Tally(&cur.Inquiry, cur.Votes); a != nil {
				a.AnsweredAt = t0.Add(time.Minute)
				return &inquiry.Resolution{Status: inquiry.StatusAnswered, Answer: a, At: t0.Add(time.Minute),
					Deliveries: []inquiry.Delivery{{Kind: inquiry.DeliverCallback, Target: rec.CallbackURL}}}, nil
			}
			return nil, nil
		}
		vote := func(by string, at time.Time) {
			_, err := b.store.Vote(ctx, rec.Key, inquiry.Vote{By: by, Value: inquiry.One("yes"), At: at, Via: inquiry.ViaSlack}, decide)
			require.NoError(t, err)
		}
		vote("U1", t0.Add(30*time.Second))
		vote("U2", t0.Add(time.Minute))

		ds, err := b.store.ListDeliveries(ctx, rec.Key)
		require.NoError(t, err)
		var cb inquiry.Delivery
		for _, d := range ds {
			if d.Kind == inquiry.DeliverCallback {
				cb = d
			}
		}
		require.NotZero(t, cb.ID)
		require.NoError(t, b.store.CompleteDelivery(ctx, cb.ID, t0.Add(2*time.Minute)))
		require.NoError(t, b.store.CompleteDelivery(ctx, cb.ID, t0.Add(3*time.Minute)), "a second completion")

		evs := eventsOf(t, b.store, rec.Key)
		require.Equal(t, []inquiry.EventType{inquiry.EventCreated, inquiry.EventPosted, inquiry.EventVoted,
			inquiry.EventVoted, inquiry.EventAnswered, inquiry.EventCallbackDelivered}, types(evs))
		for i, e := range evs {
			require.Equal(t, rec.Key, e.InquiryKey)
			require.Equal(t, "team-a", e.Namespace)
			if i > 0 {
				require.Greater(t, e.ID, evs[i-1].ID, "ids in order")
			}
		}
		require.Equal(t, "agent-a", evs[0].By)
		require.Equal(t, t0, evs[0].At)
		require.Equal(t, "confirm", dataOf(t, evs[0])["kind"])
		require.EqualValues(t, 2, dataOf(t, evs[0])["approvals"])

		require.Equal(t, "slack", evs[1].By)
		require.Equal(t, t0.Add(time.Second), evs[1].At, "posted at the claim of the attempt that showed it")
		require.Equal(t, "C1", dataOf(t, evs[1])["channel"])
		require.Equal(t, "1700.1", dataOf(t, evs[1])["ts"])

		require.Equal(t, "U1", evs[2].By)
		require.Equal(t, t0.Add(30*time.Second), evs[2].At)
		require.Equal(t, "yes", dataOf(t, evs[2])["value"])
		require.Equal(t, "slack", dataOf(t, evs[2])["via"])
		require.Equal(t, "1 of 2 approvals: U1", dataOf(t, evs[2])["tally"])
		require.Equal(t, "U2", evs[3].By)

		require.Equal(t, t0.Add(time.Minute), evs[4].At)
		answer := dataOf(t, evs[4])
		require.Equal(t, "yes", answer["value"])
		require.Len(t, answer["votes"], 2)

		require.Equal(t, t0.Add(2*time.Minute), evs[5].At)
		require.Equal(t, map[string]any{"kind": "callback", "url": rec.CallbackURL, "attempts": float64(0)}, dataOf(t, evs[5]))
	})
}

// TestEventsOfOtherEnds: a policy's answer at creation, an expiry with what it assumed, a
// cancel by the token that cancelled, a failure with why, and a callback given up.
func TestEventsOfOtherEnds(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()

		byPolicy := newRecord("team-a", "", "policy")
		byPolicy.Status, byPolicy.ResolvedAt = inquiry.StatusAnswered, &t0
		byPolicy.Answer = &inquiry.Answer{InquiryID: "policy", Value: inquiry.One("hold"), Source: inquiry.SourceDefault, AnsweredAt: t0}
		byPolicy = create(t, b.store, byPolicy)
		evs := eventsOf(t, b.store, byPolicy.Key)
		require.Equal(t, []inquiry.EventType{inquiry.EventCreated, inquiry.EventAnswered}, types(evs))
		require.Equal(t, "default", dataOf(t, evs[1])["source"])
		require.Equal(t, "", evs[1].By)

		expiring := create(t, b.store, newRecord("team-a", "", "expiring"))
		at := t0.Add(3 * time.Hour)
		_, err := b.store.Resolve(ctx, expiring.Key, inquiry.Resolution{Status: inquiry.StatusExpired, At: at,
			Answer: &inquiry.Answer{Value: inquiry.One("hold"), Source: inquiry.SourceExpired, AnsweredAt: at}})
		require.NoError(t, err)
		evs = eventsOf(t, b.store, expiring.Key)
		require.Equal(t, []inquiry.EventType{inquiry.EventCreated, inquiry.EventExpired}, types(evs))
		require.Equal(t, "hold", dataOf(t, evs[1])["value"])
		require.Equal(t, at, evs[1].At)

		cancelled := create(t, b.store, newRecord("team-a", "", "cancelled"))
		caller := inquiry.WithCaller(ctx, &inquiry.Token{Name: "agent-a", Namespace: "team-a", Scopes: []inquiry.Scope{inquiry.ScopeAsk}})
		_, err = b.store.Resolve(caller, cancelled.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0.Add(time.Minute)})
		require.NoError(t, err)
		evs = eventsOf(t, b.store, cancelled.Key)
		require.Equal(t, []inquiry.EventType{inquiry.EventCreated, inquiry.EventCancelled}, types(evs))
		require.Equal(t, "agent-a", evs[1].By)

		failed := create(t, b.store, newRecord("team-a", "", "failed"))
		_, err = b.store.Resolve(ctx, failed.Key, inquiry.Resolution{Status: inquiry.StatusFailed, At: t0.Add(time.Minute),
			Failure: &inquiry.Failure{Code: inquiry.CodeUnavailable, Message: "channel_not_found", Fatal: true}})
		require.NoError(t, err)
		evs = eventsOf(t, b.store, failed.Key)
		require.Equal(t, []inquiry.EventType{inquiry.EventCreated, inquiry.EventFailed}, types(evs))
		require.Equal(t, "channel_not_found", dataOf(t, evs[1])["message"])

		// A callback given up, then (a late report) given up again: one event.
		require.NoError(t, b.store.EnqueueDeliveries(ctx, []inquiry.Delivery{{Kind: inquiry.DeliverCallback, InquiryKey: failed.Key,
			Namespace: "team-a", Target: failed.CallbackURL, CreatedAt: t0}}))
		ds, err := b.store.ListDeliveries(ctx, failed.Key)
		require.NoError(t, err)
		require.NoError(t, b.store.FailDelivery(ctx, ds[0].ID, "HTTP 500", t0.Add(time.Hour)))
		require.NoError(t, b.store.FailDelivery(ctx, ds[0].ID, "HTTP 500", t0.Add(2*time.Hour)))
		evs = eventsOf(t, b.store, failed.Key)
		require.Equal(t, []inquiry.EventType{inquiry.EventCreated, inquiry.EventFailed, inquiry.EventCallbackFailed}, types(evs))
		require.Equal(t, "HTTP 500", dataOf(t, evs[2])["error"])

		// Deliveries that are not the asker's own are not on the record; a missing one is not found.
		require.NoError(t, b.store.EnqueueDeliveries(ctx, []inquiry.Delivery{{Kind: inquiry.DeliverUpdate, InquiryKey: failed.Key,
			Namespace: "team-a", Target: "slack", CreatedAt: t0}}))
		ds, err = b.store.ListDeliveries(ctx, failed.Key)
		require.NoError(t, err)
		require.NoError(t, b.store.CompleteDelivery(ctx, ds[1].ID, t0.Add(time.Hour)))
		require.Len(t, eventsOf(t, b.store, failed.Key), 3)
		requireCode(t, b.store.CompleteDelivery(ctx, 1<<40, t0), inquiry.CodeNotFound)
		requireCode(t, b.store.FailDelivery(ctx, 1<<40, "x", t0), inquiry.CodeNotFound)
	})
}

// TestEventsAfterAndRetention: a follower reads by id, of one namespace or of all; retention
// takes an inquiry's events with it and leaves the rest; ids are never reused.
func TestEventsAfterAndRetention(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		last, err := b.store.LastEventID(ctx)
		require.NoError(t, err)
		require.Zero(t, last)

		old := create(t, b.store, newRecord("team-a", "", "old"))
		kept := create(t, b.store, newRecord("team-b", "", "kept"))
		_, err = b.store.Resolve(ctx, old.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0.Add(-48 * time.Hour)})
		require.NoError(t, err)

		all, err := b.store.EventsAfter(ctx, 0, "", 100)
		require.NoError(t, err)
		require.Len(t, all, 3)
		teamA, err := b.store.EventsAfter(ctx, 0, "team-a", 100)
		require.NoError(t, err)
		require.Equal(t, []inquiry.EventType{inquiry.EventCreated, inquiry.EventCancelled}, types(teamA))
		one, err := b.store.EventsAfter(ctx, all[0].ID, "", 1)
		require.NoError(t, err)
		require.Equal(t, []int64{all[1].ID}, []int64{one[0].ID})
		last, err = b.store.LastEventID(ctx)
		require.NoError(t, err)
		require.Equal(t, all[2].ID, last)

		n, err := b.store.DeleteResolvedBefore(ctx, t0.Add(-24*time.Hour))
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Empty(t, eventsOf(t, b.store, old.Key), "retention takes the events with the inquiry")
		require.Len(t, eventsOf(t, b.store, kept.Key), 1)

		again := create(t, b.store, newRecord("team-a", "", "again"))
		evs := eventsOf(t, b.store, again.Key)
		require.Greater(t, evs[0].ID, last, "an id is never reused")
	})
}

// TestEventIDsInCommitOrder: writers racing on many connections, and a follower reading after
// the last id it saw all the while: it sees every event exactly once, in id order. On
// PostgreSQL this holds only because ids are handed out in commit order (migration 00008).
func TestEventIDsInCommitOrder(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		const writers, perWriter = 8, 15
		done := make(chan struct{})
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := range perWriter {
					rec := newRecord("team-a", "", fmt.Sprintf("w%d-%d", w, i))
					if _, _, err := b.store.CreateInquiry(ctx, rec, []inquiry.Delivery{{Kind: inquiry.DeliverPost, Target: "slack"}}); err != nil {
						t.Error(err)
						return
					}
					if _, err := b.store.Resolve(ctx, rec.Key, inquiry.Resolution{Status: inquiry.StatusCancelled, At: t0}); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		go func() { wg.Wait(); close(done) }()

		seen := map[int64]bool{}
		var after int64
		follow := func() {
			evs, err := b.store.EventsAfter(ctx, after, "", 7)
			require.NoError(t, err)
			for _, e := range evs {
				require.False(t, seen[e.ID], "event %d twice", e.ID)
				require.Greater(t, e.ID, after)
				seen[e.ID], after = true, e.ID
			}
		}
		for running := true; running; {
			select {
			case <-done:
				running = false
			default:
				follow()
			}
		}
		for range writers * perWriter * 2 {
			follow()
		}
		var total int
		require.NoError(t, b.db.GetContext(ctx, &total, `SELECT count(*) FROM events`))
		require.Equal(t, writers*perWriter*2, total)
		require.Equal(t, total, len(seen), "the follower missed events that committed after a higher id")
	})
}

// TestWatchEvents: a follower is woken by this store's writes and, on PostgreSQL while Listen
// runs, by another replica's.
func TestWatchEvents(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		woken, stop := b.store.WatchEvents()
		defer stop()
		create(t, b.store, newRecord("team-a", "", "here"))
		requireWoken(t, woken)

		if !b.postgres() {
			return
		}
		replica := openBundle(t, b.url)
		listening := make(chan error, 1)
		go func() { listening <- b.store.Listen(ctx, func(string) {}) }()
		requireWoken(t, woken) // subscribed: re-check everything
		create(t, replica.store, newRecord("team-a", "", "there"))
		requireWoken(t, woken)
		cancel()
		require.NoError(t, <-listening)
	})
}

func requireWoken(t *testing.T, woken <-chan struct{}) {
	t.Helper()
	select {
	case <-woken:
	case <-time.After(20 * time.Second):
		t.Fatal("the follower was not woken")
	}
}

// TestFollowerWaitsForAnEarlierEvent: on PostgreSQL a writer may commit event 2 while the one
// that numbered event 1 is still open; a follower then gets nothing past 1 until 1 is settled —
// it waits for that writer, and then gets both, in order. (SQLite has one writer: the second
// waits for the first to commit.)
func TestFollowerWaitsForAnEarlierEvent(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		insert := b.db.Rebind(`INSERT INTO events (inquiry_key, namespace, type, at, actor, data) VALUES (?, 'team-a', 'created', '2026-12-01T12:00:00.000000Z', '', '{}')`)
		first, err := b.db.BeginTxx(ctx, nil)
		require.NoError(t, err)
		_, err = first.ExecContext(ctx, insert, "inq_first")
		require.NoError(t, err)

		second := make(chan error, 1)
		go func() {
			_, err := b.db.ExecContext(ctx, insert, "inq_second")
			second <- err
		}()
		followed := make(chan []inquiry.Event, 1)
		if b.postgres() {
			require.NoError(t, <-second, "writers do not wait for one another")
			go func() {
				evs, err := b.store.EventsAfter(ctx, 0, "", 10)
				assert.NoError(t, err)
				followed <- evs
			}()
			require.Eventually(t, func() bool {
				var waiting int
				require.NoError(t, b.db.GetContext(ctx, &waiting, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ExclusiveLock' AND NOT granted`))
				return waiting == 1
			}, 20*time.Second, 10*time.Millisecond, "the follower does not wait for the open writer")
			select {
			case evs := <-followed:
				t.Fatalf("the follower read %d event(s) while an earlier one was not committed", len(evs))
			default:
			}
		}
		require.NoError(t, first.Commit())
		if !b.postgres() {
			require.NoError(t, <-second)
			evs, err := b.store.EventsAfter(ctx, 0, "", 10)
			require.NoError(t, err)
			followed <- evs
		}
		evs := <-followed
		require.Len(t, evs, 2)
		require.Equal(t, []string{"inq_first", "inq_second"}, []string{evs[0].InquiryKey, evs[1].InquiryKey})
	})
}
