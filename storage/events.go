package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/inquiry-bot/bot/inquiry"
)

// eventsChannel is the PostgreSQL channel on which a store announces the events it recorded
// (recorded): Listen hears it and wakes this store's followers.
const eventsChannel = "inquiry_events"

// eventRow is an events row as SQL sees it. The JSON's "by" is the column actor: BY is an SQL
// keyword.
type eventRow struct {
	ID         int64   `db:"id"`
	InquiryKey string  `db:"inquiry_key"`
	Namespace  string  `db:"namespace"`
	Type       string  `db:"type"`
	At         dbTime  `db:"at"`
	Actor      string  `db:"actor"`
	Data       jsonCol `db:"data"`
}

// eventTable is the event columns; newEventTable those an event is written with (the id is the
// database's, given in commit order).
var eventTable, newEventTable = tableOf[eventRow](), tableOf[eventRow]("id")

func (r *eventRow) event() (inquiry.Event, error) {
	return inquiry.Event{ID: r.ID, InquiryKey: r.InquiryKey, Namespace: r.Namespace, Type: inquiry.EventType(r.Type),
		At: r.At.Time, By: r.Actor, Data: []byte(r.Data)}, nil
}

// eventArgs are the arguments of newEventTable.values(len(evs), …).
func eventArgs(evs []inquiry.Event) []any {
	args := make([]any, 0, len(newEventTable.names)*len(evs))
	for _, e := range evs {
		args = append(args, newEventTable.args(newEventRow(e))...)
	}
	return args
}

// newEventRow is the row e is written as: an event without data has the empty object.
func newEventRow(e inquiry.Event) *eventRow {
	data := jsonCol(e.Data)
	if len(data) == 0 {
		data = jsonCol(`{}`)
	}
	return &eventRow{InquiryKey: e.InquiryKey, Namespace: e.Namespace, Type: string(e.Type), At: at(e.At), Actor: e.By, Data: data}
}

// insertEvents appends evs to the record, in order. Call it last in a transaction: on
// PostgreSQL numbering an event takes the lock that keeps ids in commit order (migration
// 00008), held to the commit, and a transaction holding it must not wait on anything else.
func (s *Store) insertEvents(ctx context.Context, x sqlx.ExecerContext, evs []inquiry.Event) error {
	for len(evs) > 0 {
		batch := evs[:min(len(evs), deliveryBatch)]
		evs = evs[len(batch):]
		if _, err := x.ExecContext(ctx, s.q(insertEventsQuery(len(batch))), eventArgs(batch)...); err != nil {
			return err
		}
	}
	return nil
}

// insertEventsQuery is the INSERT of n events, given by eventArgs.
func insertEventsQuery(n int) string {
	return `INSERT INTO events (` + newEventTable.cols + `) VALUES ` + newEventTable.values(n, false)
}

// insertEventsTx is insertEvents inside tx. Call it last, as insertEvents. On PostgreSQL more
// events than maxValuesRows (a sweep's batch) go in as one array a column (insertEventsArrays).
func (s *Store) insertEventsTx(ctx context.Context, tx *sqlx.Tx, evs []inquiry.Event) error {
	if s.postgres() && len(evs) > maxValuesRows {
		_, err := tx.ExecContext(ctx, s.q(insertEventsArrays), eventArrays(evs)...)
		return err
	}
	return s.insertEvents(ctx, tx, evs)
}

// insertEventsArrays inserts the events given as one array a column (eventArrays), in the
// arrays' order — so numbered by the trigger in that order, as a VALUES list of them would be.
const insertEventsArrays = `INSERT INTO events (inquiry_key, namespace, type, at, actor, data)
	SELECT e.k, e.ns, e.t, e.at, e.actor, e.data::json
	FROM unnest(?::text[], ?::text[], ?::text[], ?::timestamptz[], ?::text[], ?::text[]) WITH ORDINALITY AS e(k, ns, t, at, actor, data, n)
	ORDER BY e.n`

// eventArrays are the arguments of insertEventsArrays: the columns of eventArgs, one array each.
func eventArrays(evs []inquiry.Event) []any {
	keys, namespaces, types, actors := make([]string, len(evs)), make([]string, len(evs)), make([]string, len(evs)), make([]string, len(evs))
	ats, data := make([]dbTime, len(evs)), make([]jsonCol, len(evs))
	for i, e := range evs {
		keys[i], namespaces[i], types[i], ats[i], actors[i], data[i] = e.InquiryKey, e.Namespace, string(e.Type), at(e.At), e.By, jsonCol(e.Data)
		if len(data[i]) == 0 {
			data[i] = jsonCol(`{}`)
		}
	}
	return []any{pq.StringArray(keys), pq.StringArray(namespaces), pq.StringArray(types), pq.GenericArray{A: ats},
		pq.StringArray(actors), pq.GenericArray{A: data}}
}

// InquiryEvents returns the events of the inquiry with key, oldest first.
func (s *Store) InquiryEvents(ctx context.Context, key string) ([]inquiry.Event, error) {
	var rows []eventRow
	err := s.db.SelectContext(ctx, &rows, s.q(`SELECT `+eventTable.cols+` FROM events WHERE inquiry_key = ? ORDER BY id`), key)
	evs, err := decode(rows, err, (*eventRow).event)
	return evs, translate(err, "read the events of the inquiry")
}

// EventsAfter returns up to limit events with an id above after, in id order, of namespace ("":
// every namespace). It reads no further than the settled id (see settled), so what it returns
// is a prefix of everything recorded after after: nothing committed later comes before its last
// id.
func (s *Store) EventsAfter(ctx context.Context, after int64, namespace string, limit int) ([]inquiry.Event, error) {
	if limit <= 0 {
		limit = inquiry.MaxEventBatch
	}
	query, args := `SELECT `+eventTable.cols+` FROM events WHERE id > ?`, []any{after}
	if s.postgres() {
		upTo, err := s.settled(ctx)
		if err != nil {
			return nil, err
		}
		if upTo <= after {
			return nil, nil
		}
		query, args = query+` AND id <= ?`, append(args, upTo)
	}
	if namespace != "" {
		query, args = query+` AND namespace = ?`, append(args, namespace)
	}
	var rows []eventRow
	err := s.db.SelectContext(ctx, &rows, s.q(query+` ORDER BY id LIMIT ?`), append(args, limit)...)
	evs, err := decode(rows, err, (*eventRow).event)
	return evs, translate(err, "read the events")
}

// LastEventID is the id of the newest event, 0 when there is none: on PostgreSQL the settled id,
// so that a follower starting there misses none being committed meanwhile.
func (s *Store) LastEventID(ctx context.Context) (int64, error) {
	if s.postgres() {
		return s.settled(ctx)
	}
	var id int64
	err := s.db.GetContext(ctx, &id, `SELECT COALESCE(max(id), 0) FROM events`)
	return id, translate(err, "read the newest event")
}

// eventsLock is the transaction lock under which PostgreSQL writers number their events (shared,
// the trigger of migration 00008) and settled reads the newest id (exclusive).
const eventsLock = 0x6576656e7473 // "events"

// settled is, on PostgreSQL, the newest event id below which nothing is still to commit: it is
// read holding eventsLock exclusively, which waits for every writer then numbering events to
// commit or roll back (writers arriving meanwhile wait behind it for as long as the read takes),
// so every id up to it is committed or never will be, and every id numbered later is above it.
// Concurrent callers share one reading: a caller joins the next one to start, never one already
// under way, so what it gets was settled after it asked.
func (s *Store) settled(ctx context.Context) (int64, error) {
	s.horizon.mu.Lock()
	if s.horizon.running != nil {
		if s.horizon.next == nil {
			s.horizon.next = &settling{done: make(chan struct{})}
		}
		c := s.horizon.next
		s.horizon.mu.Unlock()
		select {
		case <-c.done:
			return c.id, c.err
		case <-ctx.Done():
			return 0, translate(ctx.Err(), "read the newest event")
		}
	}
	c := &settling{done: make(chan struct{})}
	s.horizon.running = c
	s.horizon.mu.Unlock()
	s.settle(c)
	return c.id, c.err
}

// settle reads one settled id for c and whoever joined it, then starts the reading that callers
// arriving meanwhile wait for. It runs without the caller's context: others wait on it too.
func (s *Store) settle(c *settling) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c.err = s.inTx(ctx, "read the newest event", func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, eventsLock); err != nil {
			return err
		}
		return tx.GetContext(ctx, &c.id, `SELECT COALESCE(max(id), 0) FROM events`)
	})
	close(c.done)
	s.horizon.mu.Lock()
	next := s.horizon.next
	s.horizon.running, s.horizon.next = next, nil
	s.horizon.mu.Unlock()
	if next != nil {
		go s.settle(next)
	}
}

// horizon coordinates the settled readings of a store (settled).
type horizon struct {
	mu            sync.Mutex
	running, next *settling
}

// settling is one reading of the settled id.
type settling struct {
	done chan struct{}
	id   int64
	err  error
}

// WatchEvents returns a channel woken after this store committed events and, on PostgreSQL
// while Listen runs, after any replica did; and the function that ends the watch.
func (s *Store) WatchEvents() (<-chan struct{}, func()) { return s.events.watch() }

// watchers are the followers of a store's events: each a channel holding at most one wake-up,
// so a wake costs no goroutine and a slow follower never holds up a writer.
type watchers struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
}

func (w *watchers) watch() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	if w.subs == nil {
		w.subs = map[chan struct{}]struct{}{}
	}
	w.subs[ch] = struct{}{}
	w.mu.Unlock()
	return ch, sync.OnceFunc(func() {
		w.mu.Lock()
		delete(w.subs, ch)
		w.mu.Unlock()
	})
}

// wake wakes every follower.
func (w *watchers) wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.subs {
		select {
		case ch <- struct{}{}:
		default: // woken already
		}
	}
}

// recorded follows a commit that recorded events: it wakes this store's followers, and on
// PostgreSQL announces the events to the other replicas' (eventsChannel). The announcement is
// sent after the commit, in a statement of its own, at most one at a time with the commits
// meanwhile folded into the next: a NOTIFY in the writer's own transaction would make every
// writer's commit wait for the others' (PostgreSQL serializes the commits of notifying
// transactions). One lost with a crash costs a follower elsewhere one fallback read.
func (s *Store) recorded() {
	s.events.wake()
	if !s.postgres() {
		return
	}
	a := &s.announcer
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		a.again = true
		return
	}
	a.running = true
	go func() {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			// Best effort: followers also read on their own.
			_, _ = s.db.ExecContext(ctx, s.q(announceQuery), eventsChannel)
			cancel()
			a.mu.Lock()
			if !a.again {
				a.running = false
				a.mu.Unlock()
				return
			}
			a.again = false
			a.mu.Unlock()
		}
	}()
}

// announceQuery announces recorded events to every replica's followers.
const announceQuery = `SELECT pg_notify(?, '')`

// announcer sends the announcements of recorded (at most one goroutine, only while there is
// something to announce).
type announcer struct {
	mu             sync.Mutex
	running, again bool
}

// deleteEvents deletes the events of the inquiries with keys (retention), in batches.
func (s *Store) deleteEvents(ctx context.Context, tx *sqlx.Tx, keys []string) error {
	for len(keys) > 0 {
		batch := keys[:min(len(keys), deliveryBatch)]
		keys = keys[len(batch):]
		args := make([]any, len(batch))
		for i, k := range batch {
			args[i] = k
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM events WHERE inquiry_key IN (`+placeholders(len(batch))+`)`), args...); err != nil {
			return err
		}
		// The revocations of their links go with them: nothing is left to revoke.
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM link_revocations WHERE inquiry_key IN (`+placeholders(len(batch))+`)`), args...); err != nil {
			return err
		}
	}
	return nil
}

// recordedKinds is the SQL list of the delivery kinds whose end is on the record
// (inquiry.DeliveryEvent), for the one-statement path of the others.
var recordedKinds = func() string {
	var q []string
	for _, k := range inquiry.RecordedDeliveries {
		q = append(q, fmt.Sprintf("'%s'", k))
	}
	return strings.Join(q, ", ")
}()

// endDelivery sets the delivery with id done or failed (set: the SET clause, with setArgs), at
// now. A delivery whose end is not on the record takes one statement; a callback's or a resume's
// takes a transaction that records callback_delivered or callback_failed with it — once, as it
// leaves pending, and only while its inquiry is there (retention may have taken it).
func (s *Store) endDelivery(ctx context.Context, step string, id int64, done bool, lastErr string, now time.Time, set string, setArgs ...any) error {
	res, err := s.db.ExecContext(ctx, s.q(set+` WHERE id = ? AND NOT (kind IN (`+recordedKinds+`) AND inquiry_key <> '')`), append(setArgs, id)...)
	if err != nil {
		return translate(err, step)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return translate(err, step)
	}
	recorded := false
	err = s.inTx(ctx, step, func(tx *sqlx.Tx) error {
		var row deliveryRow
		err := tx.GetContext(ctx, &row, s.q(`SELECT `+deliveryTable.cols+` FROM deliveries WHERE id = ?`+s.forUpdate()), id)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("no such delivery")
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(set+` WHERE id = ?`), append(setArgs, id)...); err != nil {
			return err
		}
		e, ok := inquiry.DeliveryEvent(row.delivery(), done, lastErr, now)
		if !ok || row.Status != string(inquiry.DeliveryPending) {
			return nil
		}
		// The inquiry's row is held against retention's delete (KEY SHARE on PostgreSQL; SQLite
		// has one writer) until the event is in, so that no event outlives its inquiry.
		lock := ""
		if s.postgres() {
			lock = " FOR KEY SHARE"
		}
		var there []int
		if err := tx.SelectContext(ctx, &there, s.q(`SELECT 1 FROM inquiries WHERE key = ?`+lock), row.InquiryKey); err != nil || len(there) == 0 {
			return err
		}
		recorded = true
		return s.insertEventsTx(ctx, tx, []inquiry.Event{e})
	})
	if err == nil && recorded {
		s.recorded()
	}
	return err
}
