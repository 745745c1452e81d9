package storage

import (
	"context"
	"time"

	"github.com/lib/pq"
)

// Listen calls onResolved with the key of every inquiry resolved by any replica sharing the
// PostgreSQL database, until ctx ends (then it returns nil). onResolved("") means "re-check
// everything": it is called once the listener is subscribed and again after every reconnect,
// since notifications sent while not subscribed are lost. onResolved runs on Listen's goroutine
// and should not block. On the same connection it hears every replica's new events
// (eventsChannel) and wakes this store's followers (WatchEvents) — after a reconnect too.
//
// On SQLite there is one process and the service wakes its waiters itself: Listen returns nil at
// once.
func (s *Store) Listen(ctx context.Context, onResolved func(key string)) error {
	if !s.postgres() {
		return nil
	}
	l := pq.NewListener(s.dsn, 100*time.Millisecond, 10*time.Second, nil)
	defer l.Close()

	// Listen blocks until subscribed, retrying the connection meanwhile; closing the listener (on
	// the way out) ends it.
	subscribed := make(chan error, 1)
	go func() {
		err := l.Listen(notifyChannel)
		if err == nil {
			err = l.Listen(eventsChannel)
		}
		subscribed <- err
	}()
	select {
	case <-ctx.Done():
		return nil
	case err := <-subscribed:
		if err != nil {
			return translate(err, "listen for resolved inquiries")
		}
	}
	onResolved("")
	s.events.wake()

	// A dead connection is noticed only when something is sent on it: ping now and then.
	ping := time.NewTicker(30 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case n, ok := <-l.Notify:
			switch {
			case !ok:
				return nil
			case n == nil: // reconnected
				onResolved("")
				s.events.wake()
			case n.Channel == eventsChannel:
				s.events.wake()
			default:
				onResolved(n.Extra)
			}
		case <-ping.C:
			go l.Ping() //nolint:errcheck // a failed ping makes the listener reconnect
		}
	}
}
