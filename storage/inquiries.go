package storage

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// maxStatementDeliveries bounds the deliveries CreateInquiry writes in its one statement on
// PostgreSQL (createQueries, one text per number of deliveries); an inquiry with more is stored
// by the general path.
const maxStatementDeliveries = 8

// notifyChannel is the PostgreSQL channel on which a resolution is announced, with the key.
const notifyChannel = "inquiry_resolved"

// inquiryRow is an inquiries row as SQL sees it: its tags are the inquiry columns.
type inquiryRow struct {
	Key            string   `db:"key"`
	Namespace      string   `db:"namespace"`
	RunID          string   `db:"run_id"`
	ID             string   `db:"id"`
	Kind           string   `db:"kind"`
	Question       string   `db:"question"`
	Context        string   `db:"context"`
	Options        jsonCol  `db:"options"`
	Multiple       bool     `db:"multiple"`
	AllowText      bool     `db:"allow_text"`
	Default        jsonCol  `db:"default_value"`
	ExpiresAt      nullTime `db:"expires_at"`
	Policy         string   `db:"policy"`
	Transport      string   `db:"transport"`
	Status         string   `db:"status"`
	Answer         jsonCol  `db:"answer"`
	SlackChannel   string   `db:"slack_channel"`
	SlackThreadTS  string   `db:"slack_thread_ts"`
	SlackTS        string   `db:"slack_ts"`
	SlackPermalink string   `db:"slack_permalink"`
	SlackAnswerers jsonCol  `db:"slack_answerers"`
	CallbackURL    string   `db:"callback_url"`
	Failure        jsonCol  `db:"failure"`
	CreatedAt      dbTime   `db:"created_at"`
	ResolvedAt     nullTime `db:"resolved_at"`
	AskedBy        string   `db:"asked_by"`
	Approval       jsonCol  `db:"approval"`
	Votes          jsonCol  `db:"votes"`
	Email          jsonCol  `db:"email"`
	Teams          jsonCol  `db:"teams"`
	Proposal       jsonCol  `db:"proposal"`
	Channels       jsonCol  `db:"channels"`
	Deadlines      jsonCol  `db:"deadlines"`
	Reminders      int      `db:"reminders"`
	RemindStep     int      `db:"remind_step"`
	Escalation     int      `db:"escalation"`
	ExtendedBy     int64    `db:"extended_by"`
	NextDeadlineAt nullTime `db:"next_deadline_at"`
	Placements     jsonCol  `db:"placements"`
}

// resolvedRow is an inquiry row with the run (of the inquiry's namespace) that parked waiting on
// it, "" for none: read only where a resolution needs it.
type resolvedRow struct {
	inquiryRow
	ParkedRun string `db:"parked_run"`
}

var inquiryTable, resolvedTable = tableOf[inquiryRow](), tableOf[resolvedRow]()

// encodeInquiry turns a record into its row.
func encodeInquiry(rec *inquiry.Record) (*inquiryRow, error) {
	var err error
	col := func(v any, present bool) jsonCol {
		j, e := jsonOrNull(v, present)
		err = cmp.Or(err, e)
		return j
	}
	row := &inquiryRow{
		Key: rec.Key, Namespace: rec.Namespace, RunID: rec.RunID, ID: rec.ID,
		Kind: string(rec.Kind), Question: rec.Question, Context: rec.Context,
		Options: col(rec.Options, true), Multiple: rec.Multiple, AllowText: rec.AllowText,
		Default: col(rec.Default, true), ExpiresAt: atPtr(rec.ExpiresAt),
		Policy: string(rec.Config.Policy), Transport: rec.Config.Transport,
		Status: string(rec.Status), Answer: col(rec.Answer, rec.Answer != nil),
		SlackChannel: rec.Slack.Channel, SlackThreadTS: rec.Slack.ThreadTS, SlackTS: rec.Slack.TS,
		SlackPermalink: rec.Slack.Permalink, SlackAnswerers: col(rec.Slack.Answerers, true),
		CallbackURL: rec.CallbackURL, Failure: col(rec.Failure, rec.Failure != nil),
		CreatedAt: at(rec.CreatedAt), ResolvedAt: atPtr(rec.ResolvedAt), AskedBy: rec.AskedBy,
		Approval: col(rec.Approval, true), Votes: col(votesOrEmpty(rec.Votes), true),
		Email:     col(rec.Email, rec.Email != nil),
		Teams:     col(rec.Teams, rec.Teams != nil),
		Proposal:  col(rec.Proposal, rec.Proposal != nil),
		Channels:  col(rec.Channels, rec.Channels != nil),
		Deadlines: col(rec.Deadlines, true), Reminders: rec.Reminders, RemindStep: rec.RemindStep,
		Escalation: rec.Escalation, ExtendedBy: int64(rec.ExtendedBy), NextDeadlineAt: atPtr(rec.Next),
		Placements: col(placementsOrEmpty(rec.Placements), true),
	}
	return row, err
}

// placementsOrEmpty is placements as stored: a list, empty rather than null.
func placementsOrEmpty(ps []inquiry.Placement) []inquiry.Placement {
	if ps == nil {
		return []inquiry.Placement{}
	}
	return ps
}

// votesOrEmpty is votes as stored: a list, empty rather than null.
func votesOrEmpty(votes []inquiry.Vote) []inquiry.Vote {
	if votes == nil {
		return []inquiry.Vote{}
	}
	return votes
}

// record decodes the row. Creating and reading both go through it, so a record reads back
// exactly as CreateInquiry returned it. It decodes the columns an inquiry keeps from its INSERT
// on, then the others (changing).
func (r *inquiryRow) record() (*inquiry.Record, error) {
	rec := &inquiry.Record{
		Key: r.Key,
		Inquiry: inquiry.Inquiry{
			ID: r.ID, RunID: r.RunID, Kind: inquiry.Kind(r.Kind), Question: r.Question,
			Context: r.Context, Multiple: r.Multiple, AllowText: r.AllowText,
		},
		Namespace:   r.Namespace,
		Config:      inquiry.Config{Policy: inquiry.Policy(r.Policy), Transport: r.Transport},
		CallbackURL: r.CallbackURL,
		CreatedAt:   r.CreatedAt.Time,
		AskedBy:     r.AskedBy,
	}
	if err := cmp.Or(fromJSON(r.Options, &rec.Options, "options"), fromJSON(r.Default, &rec.Default, "default"),
		fromJSON(r.Approval, &rec.Approval, "approval"), fromJSON(r.Deadlines, &rec.Deadlines, "deadlines"),
		fromJSON(r.Email, &rec.Email, "email"), fromJSON(r.Teams, &rec.Teams, "teams"),
		fromJSON(r.Proposal, &rec.Proposal, "proposal"), fromJSON(r.Channels, &rec.Channels, "channels")); err != nil {
		return nil, err
	}
	if err := r.changing(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// The columns of an inquiry's row that may hold other values than its INSERT wrote:
// resolutionCols, which a resolution's UPDATE sets, and changingCols (with parked_run, a
// resolvedRow's), which other UPDATEs set while it is pending. Every other column is written by
// the INSERT only, so a resolution reads back only changingCols and takes the rest from the
// record its caller read (resolvedFrom). TestChangingColumns holds every UPDATE of inquiries in
// this package to these lists.
var (
	resolutionCols = []string{"status", "answer", "failure", "resolved_at"}
	changingCols   = []string{"expires_at", "slack_channel", "slack_thread_ts", "slack_ts", "slack_permalink",
		"slack_answerers", "votes", "reminders", "remind_step", "escalation", "extended_by", "next_deadline_at", "placements"}
)

// changing decodes into rec the columns of resolutionCols and changingCols, setting every field
// they fill whatever rec held before.
func (r *inquiryRow) changing(rec *inquiry.Record) error {
	rec.ExpiresAt = r.ExpiresAt.Ptr()
	rec.Status = inquiry.Status(r.Status)
	rec.Slack = inquiry.SlackRef{Channel: r.SlackChannel, ThreadTS: r.SlackThreadTS, TS: r.SlackTS, Permalink: r.SlackPermalink}
	rec.ResolvedAt = r.ResolvedAt.Ptr()
	rec.Progress = inquiry.Progress{Reminders: r.Reminders, RemindStep: r.RemindStep, Escalation: r.Escalation,
		ExtendedBy: inquiry.Duration(r.ExtendedBy), Next: r.NextDeadlineAt.Ptr()}
	rec.Answer, rec.Failure, rec.Votes, rec.Placements = nil, nil, nil, nil
	if r.Answer != nil {
		rec.Answer = new(inquiry.Answer)
	}
	if r.Failure != nil {
		rec.Failure = new(inquiry.Failure)
	}
	if err := cmp.Or(fromJSON(r.SlackAnswerers, &rec.Slack.Answerers, "answerers"), fromJSON(r.Answer, rec.Answer, "answer"),
		fromJSON(r.Failure, rec.Failure, "failure"), fromJSON(r.Votes, &rec.Votes, "votes"),
		fromJSON(r.Placements, &rec.Placements, "placements")); err != nil {
		return err
	}
	if rec.Answer != nil {
		rec.Answer.AnsweredAt = norm(rec.Answer.AnsweredAt)
	}
	if len(rec.Votes) == 0 {
		rec.Votes = nil // none, however stored
	}
	if len(rec.Placements) == 0 {
		rec.Placements = nil
	}
	return nil
}

// resolvedFrom is the record of r, a row it.Resolution resolved, read back by updateResolved with
// the columns of changingCols only: resolutionCols are the resolution's own values as it sent
// them (the text of its answer and failure, its time as stored), and every other column is as
// its INSERT wrote it, so as it.Read holds it. The same decoding as record's, so the same record
// as a read of the row would return. It shares with it.Read what never changes (options,
// default…); it.Read itself is left as it was.
func (r *resolvedRow) resolvedFrom(it *resolveItem) (*inquiry.Record, error) {
	r.Status, r.Answer, r.Failure = string(it.Resolution.Status), it.answer, it.failure
	r.ResolvedAt = atPtr(&it.Resolution.At)
	rec := *it.Read
	rec.Links = nil // never stored
	if err := r.changing(&rec); err != nil {
		return nil, err
	}
	return &rec, nil
}

// CreateInquiry stores rec with its deliveries atomically: one INSERT … ON CONFLICT DO NOTHING
// that also inserts the deliveries when it inserted the inquiry, and a SELECT only when the
// (namespace, run_id, id) is taken. A record without a key gets one; one without a creation time is
// refused (the store keeps no clock). Concurrent creates are committed together (groupcommit.go);
// each returns only once its own row is committed.
func (s *Store) CreateInquiry(ctx context.Context, rec *inquiry.Record, deliveries []inquiry.Delivery) (*inquiry.Record, bool, error) {
	const step = "create the inquiry"
	in := *rec
	if in.CreatedAt.IsZero() {
		return nil, false, translate(errNoTime, step)
	}
	if in.Key == "" {
		in.Key = inquiry.NewKey(in.CreatedAt)
	}
	if in.Status == "" {
		in.Status = inquiry.StatusPending
	}
	row, err := encodeInquiry(&in)
	if err != nil {
		return nil, false, translate(err, step)
	}
	stored, err := row.record()
	if err != nil {
		return nil, false, translate(err, step)
	}
	def := deliveryDefaults{key: in.Key, namespace: in.Namespace, runID: in.RunID, now: in.CreatedAt}
	evs := []inquiry.Event{inquiry.CreatedEvent(stored)}
	if e, ok := inquiry.ResolvedEvent(stored, inquiry.CallerFrom(ctx)); ok { // resolved at once by policy
		evs = append(evs, e)
	}
	return s.create(&createReq{ctx: ctx, in: in, row: row, stored: stored, deliveries: deliveries, def: def, evs: evs})
}

// createAlone writes r in a transaction of its own (the path of every create before group
// commit). afterBatch says r's batch failed before: its commit may have gone through all the
// same (a connection lost at COMMIT), and a row found with r's own key is then r's.
func (s *Store) createAlone(ctx context.Context, r *createReq, afterBatch bool) (*inquiry.Record, bool, error) {
	if rec, created, err := s.insertOwn(ctx, r); created || err != nil {
		return rec, created, err
	}
	return s.resolveTaken(ctx, r, afterBatch)
}

// insertOwn inserts r in a transaction of its own: created with r's record when it wrote it,
// neither created nor an error when its (namespace, run_id, id) was taken.
func (s *Store) insertOwn(ctx context.Context, r *createReq) (rec *inquiry.Record, created bool, err error) {
	key, err := s.insertInquiry(ctx, r.row, r.deliveries, r.def, r.evs)
	if err != nil || key == "" {
		return nil, false, translate(err, "create the inquiry")
	}
	s.recorded()
	return r.stored, true, nil
}

// resolveTaken answers a create whose (namespace, run_id, id) was taken when it inserted. The
// conflict wrote nothing, and the row it met is committed (PostgreSQL waits for a concurrent
// inserter to finish), so this read sees it — unless retention deleted it in between, and then
// the insert is tried again, once.
func (s *Store) resolveTaken(ctx context.Context, r *createReq, afterBatch bool) (*inquiry.Record, bool, error) {
	existing, err := s.InquiryByID(ctx, r.in.Namespace, r.in.RunID, r.in.ID)
	if errors.Is(err, inquiry.ErrNotFound) {
		if rec, created, err := s.insertOwn(ctx, r); created || err != nil {
			return rec, created, err
		}
		existing, err = s.InquiryByID(ctx, r.in.Namespace, r.in.RunID, r.in.ID)
	}
	if err != nil {
		return nil, false, err
	}
	if afterBatch && existing.Key == r.in.Key {
		s.recorded()
		return existing, true, nil // its batch did commit: the row is this create's own
	}
	if !inquiry.SameContent(&existing.Inquiry, &r.in.Inquiry) {
		return nil, false, idConflict(r.in.ID)
	}
	return existing, false, nil
}

// idConflict refuses a create whose id was asked before with other content.
func idConflict(id string) error {
	return &inquiry.Error{Code: inquiry.CodeIDConflict, Field: "id",
		Message: fmt.Sprintf("an inquiry with id %q was already asked here (same namespace and run_id) with different content: "+
			"ask the same question the same way, or give the new question a new id", id)}
}

// insertInquiry writes the inquiry row, its deliveries and its events (evs: created, and how it
// resolved when it did at once) atomically unless the (namespace, run_id, id) is taken; it
// returns the key when it wrote them, "" when it wrote nothing.
func (s *Store) insertInquiry(ctx context.Context, row *inquiryRow, deliveries []inquiry.Delivery, def deliveryDefaults, evs []inquiry.Event) (string, error) {
	var key string
	if s.postgres() && len(deliveries) <= maxStatementDeliveries && len(evs) <= maxCreateEvents {
		args := append(append(inquiryTable.args(row), deliveryArgs(deliveries, def)...), eventArgs(evs)...)
		err := s.db.QueryRowxContext(ctx, s.q(createQueries[len(deliveries)][len(evs)-1]), args...).Scan(&key)
		if errors.Is(err, sql.ErrNoRows) {
			return "", nil
		}
		return key, err
	}
	err := s.inTx(ctx, "create the inquiry", func(tx *sqlx.Tx) error {
		err := tx.QueryRowxContext(ctx, s.q(insertInquiryQuery), inquiryTable.args(row)...).Scan(&key)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // asked before: nothing to write
		}
		if err != nil {
			return err
		}
		if err := s.insertDeliveries(ctx, tx, deliveries, def); err != nil {
			return err
		}
		return s.insertEvents(ctx, tx, evs) // last: see insertEvents
	})
	return key, err
}

// insertInquiryQuery inserts an inquiry unless its (namespace, run_id, id) is taken; it returns
// the key when it inserted.
var insertInquiryQuery = `INSERT INTO inquiries (` + inquiryTable.cols + `) VALUES (` + inquiryTable.marks + `)
	ON CONFLICT (namespace, run_id, id) DO NOTHING RETURNING key`

// maxCreateEvents is how many events a creation records at most: created, and its resolution
// when a policy resolved it at once.
const maxCreateEvents = 2

// createQueries[n][m-1] is CreateInquiry's statement on PostgreSQL for an inquiry with n
// deliveries and m events. It is one statement, so one round trip and no
// BEGIN/COMMIT: the deliveries and the events are inserted by data-modifying CTEs that read the
// first one's RETURNING, so they are written only when the inquiry is. The events' CTE numbers
// its rows (the trigger's lock, migration 00008) only once the inquiry's row is in, and nothing
// after it waits on a lock.
var createQueries = func() (qs [maxStatementDeliveries + 1][maxCreateEvents]string) {
	for n := range qs {
		for m := 1; m <= maxCreateEvents; m++ {
			q := `WITH ins AS (` + insertInquiryQuery + `)`
			if n > 0 {
				q += `, dl AS (
			INSERT INTO deliveries (` + newDeliveryTable.cols + `)
			SELECT * FROM (VALUES ` + newDeliveryTable.values(n, true) + `) AS v WHERE EXISTS (SELECT 1 FROM ins))`
			}
			qs[n][m-1] = q + `, ev AS (
			INSERT INTO events (` + newEventTable.cols + `)
			SELECT * FROM (VALUES ` + newEventTable.values(m, true) + `) AS v WHERE EXISTS (SELECT 1 FROM ins))
			SELECT key FROM ins`
		}
	}
	return qs
}()

// Inquiry returns the inquiry with the server key.
func (s *Store) Inquiry(ctx context.Context, key string) (*inquiry.Record, error) {
	rec, err := s.inquiryByKey(ctx, nil, key)
	return rec, translate(err, "read the inquiry")
}

// inquiryByKey reads the inquiry with key, inside tx unless tx is nil.
func (s *Store) inquiryByKey(ctx context.Context, tx *sqlx.Tx, key string) (*inquiry.Record, error) {
	var q sqlx.QueryerContext = s.db
	if tx != nil {
		q = tx
	}
	return s.inquiryWhere(ctx, q, "key = ?", key)
}

// InquiryByID returns the inquiry with the asker's (namespace, run_id, id).
func (s *Store) InquiryByID(ctx context.Context, namespace, runID, id string) (*inquiry.Record, error) {
	rec, err := s.inquiryWhere(ctx, s.db, "namespace = ? AND run_id = ? AND id = ?", namespace, runID, id)
	return rec, translate(err, "read the inquiry")
}

// queryPendingInThread finds the pending inquiries a reply in a Slack thread may answer, in two
// arms that cannot overlap (a message posted into a thread is never itself a thread's root: Slack
// threads are one level deep): the one posted as the thread's root message, found by
// inquiries_slack_message (channel, ts), and those posted into the thread, found by the partial
// index inquiries_thread_pending (migration 00005). Each arm repeats its index's predicate
// literally (status = 'pending', and slack_ts, slack_thread_ts not empty) for the planners to
// use it; a UNION ALL rather than an OR because SQLite's planner will not split that OR over two
// indexes. A third arm finds the inquiry an escalation step posted as this thread's root, by the
// primary key of placements (migration 00013); it cannot overlap the others either, a message
// being one inquiry's. The few rows found are then sorted. Arguments: channel, ts three times,
// then limit.
var queryPendingInThread = `SELECT ` + inquiryTable.cols + ` FROM inquiries
		WHERE status = 'pending' AND slack_channel = ? AND slack_ts = ? AND slack_ts <> '' AND slack_thread_ts = ''
	UNION ALL
	SELECT ` + inquiryTable.cols + ` FROM inquiries
		WHERE status = 'pending' AND slack_channel = ? AND slack_thread_ts = ? AND slack_thread_ts <> '' AND slack_ts <> ''
	UNION ALL
	SELECT ` + inquiryTable.cols + ` FROM inquiries
		WHERE status = 'pending' AND key IN (SELECT inquiry_key FROM placements WHERE channel = ? AND ts = ?)
	ORDER BY created_at DESC, key DESC LIMIT ?`

// Bounds of PendingInThread.
const (
	defaultThreadLimit = 20
	maxThreadLimit     = 100
)

// PendingInThread returns the pending inquiries posted in the Slack thread (channel, threadTS) —
// as its root message (slack_ts = threadTS), into it (slack_thread_ts = threadTS, posted), or as
// the root message of an escalation step (placements) —
// newest first by (created_at, key), at most limit of them (20 when limit <= 0, never more than
// 100). A reply in that thread may answer any of them (slackapp.Finder). An empty threadTS is no
// thread: nothing.
func (s *Store) PendingInThread(ctx context.Context, channel, threadTS string, limit int) ([]*inquiry.Record, error) {
	if threadTS == "" || channel == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = defaultThreadLimit
	}
	limit = min(limit, maxThreadLimit)
	var rows []inquiryRow
	err := s.db.SelectContext(ctx, &rows, s.q(queryPendingInThread), channel, threadTS, channel, threadTS, channel, threadTS, limit)
	recs, err := decode(rows, err, (*inquiryRow).record)
	return recs, translate(err, "find the questions of a Slack thread")
}

// inquiryWhere reads one inquiry; where may end in FOR UPDATE.
func (s *Store) inquiryWhere(ctx context.Context, q sqlx.QueryerContext, where string, args ...any) (*inquiry.Record, error) {
	var row inquiryRow
	return inquiryOf(&row, sqlx.GetContext(ctx, q, &row, s.q(`SELECT `+inquiryTable.cols+` FROM inquiries WHERE `+where), args...))
}

// inquiryOf decodes the row that a read of one inquiry filled in, unless the read failed or found
// nothing.
func inquiryOf(row *inquiryRow, err error) (*inquiry.Record, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("no such inquiry: check the key (or id), and that it belongs to your namespace")
	}
	if err != nil {
		return nil, err
	}
	return row.record()
}

// ListInquiries lists newest first — (created_at, key) descending — and pages with a keyset
// cursor, so a page costs the same however deep it is.
func (s *Store) ListInquiries(ctx context.Context, f inquiry.ListFilter) ([]*inquiry.Record, string, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = inquiry.DefaultListLimit
	}
	limit = min(limit, inquiry.MaxListLimit)
	var where []string
	var args []any
	if f.Namespace != "" {
		where, args = append(where, "namespace = ?"), append(args, f.Namespace)
	}
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, string(f.Status))
	}
	if f.RunID != "" {
		where, args = append(where, "run_id = ?"), append(args, f.RunID)
	}
	if f.Channel != "" {
		where, args = append(where, "slack_channel = ?"), append(args, f.Channel)
	}
	if f.Cursor != "" {
		created, key, err := decodeCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		where, args = append(where, "(created_at, key) < (?, ?)"), append(args, at(created), key)
	}
	query := `SELECT ` + inquiryTable.cols + ` FROM inquiries`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	query += ` ORDER BY created_at DESC, key DESC LIMIT ?`
	args = append(args, limit+1)

	var rows []inquiryRow
	if err := s.db.SelectContext(ctx, &rows, s.q(query), args...); err != nil {
		return nil, "", translate(err, "list inquiries")
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[limit-1]
		next = encodeCursor(last.CreatedAt.Time, last.Key)
	}
	recs, err := decode(rows, nil, (*inquiryRow).record)
	if err != nil {
		return nil, "", translate(err, "list inquiries")
	}
	return recs, next, nil
}

// encodeCursor makes the opaque cursor after (created, key).
func encodeCursor(created time.Time, key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(created.UnixMicro(), 10) + "|" + key))
}

func decodeCursor(c string) (time.Time, string, error) {
	bad := inquiry.FieldErrorf(inquiry.CodeBadRequest, "cursor",
		"the cursor is not one this server gave out: pass next_cursor from the previous page as it is, or none for the first page")
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", bad
	}
	micros, key, ok := strings.Cut(string(b), "|")
	if !ok || key == "" || !inquiry.Printable(key) { // every key of ours is; a NUL would choke the database
		return time.Time{}, "", bad
	}
	n, err := strconv.ParseInt(micros, 10, 64)
	if err != nil {
		return time.Time{}, "", bad
	}
	return time.UnixMicro(n).UTC(), key, nil
}

// Resolve moves a pending inquiry to r.Status with one conditional update; the first resolution
// wins. In the same transaction it enqueues r.Deliveries, records the answer in the run that
// parked on the inquiry (with a DeliverResume when the run is waiting and has a resume URL), and
// on PostgreSQL announces the key on the inquiry_resolved channel (delivered at commit). It is
// ResolveMany of one item, except that a resolution that came second gets CodeAlreadyResolved with
// the record as it stands.
func (s *Store) Resolve(ctx context.Context, key string, r inquiry.Resolution) (*inquiry.Record, error) {
	items := []inquiry.ResolveItem{{Key: key, Resolution: r}}
	var rec *inquiry.Record
	var lost error // the resolution came second
	err := s.resolveMany(ctx, "resolve the inquiry", items, func(tx *sqlx.Tx, won []*inquiry.Record) error {
		if len(won) == 1 {
			rec = won[0]
			return nil
		}
		// Not pending, or not there. On PostgreSQL the update waited for a racing resolver's
		// commit and then found the row no longer pending; this read sees that commit.
		var err error
		if rec, err = s.inquiryByKey(ctx, tx, key); err != nil {
			return err
		}
		lost = inquiry.AlreadyResolved(rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rec, lost
}

// ResolveMany applies each item as Resolve does — conditional update, deliveries, the parked
// run's answer and resume, the notification — all in one transaction, and returns the records
// this call resolved. An item whose inquiry is no longer pending (or not there) is skipped.
//
// Lock order: the pending inquiry rows are locked in key order (one SELECT … ORDER BY key FOR
// UPDATE, before the one UPDATE that resolves them all), and only then are the parked runs
// locked, in (namespace, id) order. Two batches over the same keys, or a batch racing Resolve,
// ParkRun or RecordAnswers (each of which locks at most one inquiry, then at most one run),
// therefore never wait on each other in a cycle.
func (s *Store) ResolveMany(ctx context.Context, items []inquiry.ResolveItem) ([]*inquiry.Record, error) {
	var out []*inquiry.Record
	err := s.resolveMany(ctx, "resolve the inquiries", items, func(_ *sqlx.Tx, won []*inquiry.Record) error {
		out = won
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// resolveItem is an item of resolveMany with its answer and failure encoded.
type resolveItem struct {
	inquiry.ResolveItem
	answer, failure jsonCol
	expiry          nullTime // Resolution.Expiry: the expires_at the row must still hold
}

// resolveMany is the one copy of the resolution logic (see ResolveMany). then runs inside the
// transaction, after the resolutions, with the records resolved, in key order.
func (s *Store) resolveMany(ctx context.Context, step string, items []inquiry.ResolveItem,
	then func(tx *sqlx.Tx, won []*inquiry.Record) error) error {
	sorted, err := prepareResolutions(items)
	if err != nil {
		return translate(err, step)
	}
	if len(sorted) == 0 {
		return nil
	}
	recorded := false
	err = s.inTx(ctx, step, func(tx *sqlx.Tx) error {
		won, err := s.resolveTx(ctx, tx, sorted, nil)
		if err != nil {
			return err
		}
		recorded = len(won) > 0
		return then(tx, won)
	})
	if err == nil && recorded {
		s.recorded() // a resolution that came second recorded no event: nothing to announce
	}
	return err
}

// prepareResolutions checks and encodes items, in key order.
func prepareResolutions(items []inquiry.ResolveItem) ([]resolveItem, error) {
	sorted := make([]resolveItem, 0, len(items))
	for _, it := range items {
		r := &it.Resolution
		if !r.Status.Resolved() {
			return nil, fmt.Errorf("status %q is not a resolution", r.Status)
		}
		if r.At.IsZero() {
			return nil, errNoTime
		}
		answer, err := jsonOrNull(r.Answer, r.Answer != nil)
		if err != nil {
			return nil, err
		}
		failure, err := jsonOrNull(r.Failure, r.Failure != nil)
		if err != nil {
			return nil, err
		}
		if it.Read != nil && it.Read.Key != it.Key {
			it.Read = nil // not this inquiry's: read the row back whole
		}
		sorted = append(sorted, resolveItem{ResolveItem: it, answer: answer, failure: failure, expiry: atPtr(r.Expiry)})
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Key < sorted[j].Key })
	return sorted, nil
}

// resolveTx applies sorted inside tx in a handful of statements, whatever the batch's size: the
// pending rows locked in key order (PostgreSQL; SQLite has one writer), one UPDATE … FROM of
// them all, one multi-row INSERT of their deliveries, one pg_notify over their keys, then the
// parked runs, then the events — lead (what led to the resolutions: the deciding vote), and how
// each inquiry resolved — last, as insertEvents must be. It returns the records it resolved, in
// key order. An item whose inquiry is not pending (or not there) is skipped: another resolution
// came first. A key given twice is resolved by its first item.
func (s *Store) resolveTx(ctx context.Context, tx *sqlx.Tx, sorted []resolveItem, lead []inquiry.Event) ([]*inquiry.Record, error) {
	type parked struct {
		rec *inquiry.Record
		run string
		at  time.Time
	}
	sorted = firstOfEachKey(sorted)
	items := make(map[string]*resolveItem, len(sorted))
	for i := range sorted {
		items[sorted[i].Key] = &sorted[i]
	}
	slim := everyRead(sorted)
	rows, err := s.updateResolved(ctx, tx, sorted, slim)
	if err != nil {
		return nil, err
	}
	won := make([]*inquiry.Record, 0, len(rows))
	var runs []parked
	var dargs []any
	var ndl int
	keys := make([]string, 0, len(rows))
	for i := range rows {
		row := &rows[i]
		it := items[row.Key]
		r := it.Resolution
		var rec *inquiry.Record
		if slim {
			rec, err = row.resolvedFrom(it)
		} else {
			rec, err = row.record()
		}
		if err != nil {
			return nil, err
		}
		if r.Status == inquiry.StatusExpired && rec.Answer != nil && !reflect.DeepEqual(rec.Answer.Votes, rec.Votes) {
			// The expiry was built from a record read without a lock; a vote committed since is
			// one given in time all the same: the answer keeps the votes the row holds. (Rare:
			// a vote between the sweeper's read and its update; one statement each.)
			rec.Answer.Votes = rec.Votes
			text, err := jsonText(rec.Answer)
			if err != nil {
				return nil, err
			}
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE inquiries SET answer = ? WHERE key = ?`), text, it.Key); err != nil {
				return nil, err
			}
		}
		def := deliveryDefaults{key: it.Key, namespace: rec.Namespace, runID: rec.RunID, now: r.At}
		for _, d := range r.Deliveries {
			dargs = append(dargs, deliveryArgs([]inquiry.Delivery{d}, def)...)
			if ndl++; ndl == deliveryBatch {
				if _, err := tx.ExecContext(ctx, s.q(insertDeliveriesQuery(ndl)), dargs...); err != nil {
					return nil, err
				}
				dargs, ndl = dargs[:0], 0
			}
		}
		if row.ParkedRun != "" {
			runs = append(runs, parked{rec: rec, run: row.ParkedRun, at: r.At})
		}
		keys = append(keys, it.Key)
		won = append(won, rec)
	}
	if ndl > 0 {
		if _, err := tx.ExecContext(ctx, s.q(insertDeliveriesQuery(ndl)), dargs...); err != nil {
			return nil, err
		}
	}
	if s.postgres() && len(keys) > 0 {
		if _, err := tx.ExecContext(ctx, s.q(notifyQuery), notifyChannel, pq.StringArray(keys)); err != nil {
			return nil, err
		}
	}
	// Then the parked runs, in (namespace, id) order.
	sort.SliceStable(runs, func(i, j int) bool {
		if runs[i].rec.Namespace != runs[j].rec.Namespace {
			return runs[i].rec.Namespace < runs[j].rec.Namespace
		}
		return runs[i].run < runs[j].run
	})
	for _, p := range runs {
		if err := s.answerParkedRun(ctx, tx, p.rec, p.run, p.at); err != nil {
			return nil, err
		}
	}
	evs := lead
	caller := inquiry.CallerFrom(ctx) // who cancelled, when one did
	for _, rec := range won {
		if e, ok := inquiry.ResolvedEvent(rec, caller); ok {
			evs = append(evs, e)
		}
	}
	if err := s.insertEventsTx(ctx, tx, evs); err != nil {
		return nil, err
	}
	return won, nil
}

// everyRead reports whether every item carries the record its caller read (ResolveItem.Read),
// so that their UPDATE need return only changingCols.
func everyRead(sorted []resolveItem) bool {
	for i := range sorted {
		if sorted[i].Read == nil {
			return false
		}
	}
	return true
}

// firstOfEachKey drops from sorted (in key order, stably) every item but the first of its key:
// the later ones would find the inquiry resolved by it, as they did when each item was its own
// UPDATE, and one UPDATE … FROM must not meet a row twice.
func firstOfEachKey(sorted []resolveItem) []resolveItem {
	for i := 1; i < len(sorted); i++ {
		if sorted[i].Key == sorted[i-1].Key {
			out := slices.Clone(sorted[:i])
			for _, it := range sorted[i+1:] {
				if it.Key != out[len(out)-1].Key {
					out = append(out, it)
				}
			}
			return out
		}
	}
	return sorted
}

// updateResolved moves the pending inquiries of sorted to their resolutions (one with an expiry
// only while its row still expires then: an Extend since wins) and returns the rows it moved, in
// key order: every column, or with slim only the key, changingCols and parked_run (for
// resolvedFrom). On PostgreSQL a batch of more than one first locks its pending rows in key order
// (SELECT … ORDER BY key FOR UPDATE), so that two batches over the same keys never wait on each
// other in a cycle, then updates exactly the rows it locked with one UPDATE … FROM unnest of
// arrays; a batch of one is that UPDATE alone, its one row lock taken by it. On SQLite (one
// writer: no row locks) it is UPDATE … FROM a VALUES list, one per deliveryBatch items.
func (s *Store) updateResolved(ctx context.Context, tx *sqlx.Tx, sorted []resolveItem, slim bool) ([]resolvedRow, error) {
	var rows []resolvedRow
	returning := resolvedTable.cols
	if slim {
		returning = slimCols
	}
	if !s.postgres() {
		for len(sorted) > 0 {
			batch := sorted[:min(len(sorted), deliveryBatch)]
			sorted = sorted[len(batch):]
			args := make([]any, 0, 6*len(batch))
			for _, it := range batch {
				r := &it.Resolution
				args = append(args, it.Key, string(r.Status), it.answer, it.failure, at(r.At), it.expiry)
			}
			var got []resolvedRow
			if err := tx.SelectContext(ctx, &got, `UPDATE inquiries
				SET status = v.column2, answer = v.column3, failure = v.column4, resolved_at = v.column5
				FROM (VALUES `+strings.Repeat("(?, ?, ?, ?, ?, ?), ", len(batch)-1)+`(?, ?, ?, ?, ?, ?)) AS v
				WHERE inquiries.key = v.column1 AND inquiries.status = 'pending'
					AND (v.column6 IS NULL OR inquiries.expires_at = v.column6)
				RETURNING `+returning, args...); err != nil {
				return nil, err
			}
			rows = append(rows, got...)
		}
		slices.SortFunc(rows, func(a, b resolvedRow) int { return strings.Compare(a.Key, b.Key) })
		return rows, nil
	}
	if len(sorted) > 1 {
		keys := make([]string, len(sorted))
		for i, it := range sorted {
			keys[i] = it.Key
		}
		var locked []string
		if err := tx.SelectContext(ctx, &locked, `SELECT key FROM inquiries
			WHERE key = ANY($1::text[]) AND status = 'pending' ORDER BY key FOR UPDATE`, pq.StringArray(keys)); err != nil {
			return nil, err
		}
		mine := make(map[string]bool, len(locked))
		for _, k := range locked {
			mine[k] = true
		}
		sorted = slices.DeleteFunc(slices.Clone(sorted), func(it resolveItem) bool { return !mine[it.Key] })
		if len(sorted) == 0 {
			return nil, nil
		}
	}
	keys := make([]string, len(sorted))
	statuses := make([]string, len(sorted))
	answers := make([]jsonCol, len(sorted))
	failures := make([]jsonCol, len(sorted))
	times := make([]dbTime, len(sorted))
	expiries := make([]nullTime, len(sorted))
	for i, it := range sorted {
		keys[i], statuses[i], answers[i], failures[i], times[i] = it.Key, string(it.Resolution.Status), it.answer, it.failure, at(it.Resolution.At)
		expiries[i] = it.expiry
	}
	if err := tx.SelectContext(ctx, &rows, s.q(resolveQuery(slim)), pq.StringArray(keys), pq.StringArray(statuses),
		pq.GenericArray{A: answers}, pq.GenericArray{A: failures}, pq.GenericArray{A: times}, pq.GenericArray{A: expiries}); err != nil {
		return nil, err
	}
	slices.SortFunc(rows, func(a, b resolvedRow) int { return strings.Compare(a.Key, b.Key) })
	return rows, nil
}

// notifyQuery announces each key of an array on notifyChannel (delivered at commit).
const notifyQuery = `SELECT pg_notify(?, k) FROM unnest(?::text[]) AS k`

// resolveQuery is updateResolved's UPDATE on PostgreSQL, returning every column or (slim) only
// slimCols: one text for every batch size. The arrays are the keys,
// statuses, answers and failures (JSON text or NULL) and times of the resolutions, and the
// expiries each must still find (NULL: none, see Resolution.Expiry); the names given to unnest's
// columns keep the RETURNING list (the inquiry's columns) unambiguous.
func resolveQuery(slim bool) string {
	if slim {
		return resolveQuerySlim
	}
	return resolveQueryFull
}

var resolveQueryFull, resolveQuerySlim = resolveUpdate + resolvedTable.cols, resolveUpdate + slimCols

const resolveUpdate = `UPDATE inquiries
	SET status = r.rstatus, answer = r.ranswer::json, failure = r.rfailure::json, resolved_at = r.rat
	FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[], ?::timestamptz[]) AS r(rkey, rstatus, ranswer, rfailure, rat, rexp)
	WHERE inquiries.key = r.rkey AND inquiries.status = 'pending' AND (r.rexp IS NULL OR inquiries.expires_at = r.rexp)
	RETURNING `

// slimCols is what a resolution returns when its caller holds the record (resolvedFrom).
var slimCols = "key, " + strings.Join(changingCols, ", ") + ", parked_run"

// NoteFailure records f on the inquiry unless it has a failure already; nothing else changes.
func (s *Store) NoteFailure(ctx context.Context, key string, f inquiry.Failure) error {
	text, err := jsonText(f)
	if err != nil {
		return translate(err, "record why a delivery failed")
	}
	_, err = s.db.ExecContext(ctx, s.q(`UPDATE inquiries SET failure = ? WHERE key = ? AND failure IS NULL`), text, key)
	return translate(err, "record why a delivery failed")
}

// SetPosted records where a transport showed the inquiry. A ref with a message ts says where the
// message is, thread included (an empty thread: at the top of the channel); other empty fields
// of ref keep what is stored. The answerers are the asker's and are kept unless ref names some.
//
// The same transaction records the posted event, at the time of the attempt that showed it: the
// last the dispatcher wrote on the inquiry's post delivery (its claim), the store keeping no clock
// (the inquiry's creation when no delivery posted it).
func (s *Store) SetPosted(ctx context.Context, key string, ref inquiry.SlackRef) error {
	const step = "record where the inquiry was posted"
	answerers, err := jsonOrNull(ref.Answerers, ref.Answerers != nil)
	if err != nil {
		return translate(err, step)
	}
	err = s.inTx(ctx, step, func(tx *sqlx.Tx) error {
		var row inquiryRow
		err := tx.GetContext(ctx, &row, s.q(`UPDATE inquiries SET
				slack_channel = COALESCE(NULLIF(?, ''), slack_channel),
				slack_thread_ts = CASE WHEN ? = '' THEN COALESCE(NULLIF(?, ''), slack_thread_ts) ELSE ? END,
				slack_ts = COALESCE(NULLIF(?, ''), slack_ts),
				slack_permalink = COALESCE(NULLIF(?, ''), slack_permalink),
				slack_answerers = COALESCE(?, slack_answerers)
			WHERE key = ?
			RETURNING `+inquiryTable.cols), ref.Channel, ref.TS, ref.ThreadTS, ref.ThreadTS, ref.TS, ref.Permalink, answerers, key)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("no such inquiry: check the key")
		}
		if err != nil {
			return err
		}
		rec, err := row.record()
		if err != nil {
			return err
		}
		var claimed nullTime
		if err := tx.GetContext(ctx, &claimed, s.q(`SELECT max(updated_at) FROM deliveries WHERE inquiry_key = ? AND kind = ?`),
			key, string(inquiry.DeliverPost)); err != nil {
			return err
		}
		when := rec.CreatedAt
		if claimed.Valid {
			when = claimed.T
		}
		return s.insertEvents(ctx, tx, []inquiry.Event{inquiry.PostedEvent(rec, when)})
	})
	if err == nil {
		s.recorded()
	}
	return err
}

// oneRow turns an exec that should touch one row into an error: translated, or not found.
func (s *Store) oneRow(res sql.Result, err error, step, missing string) error {
	if err != nil {
		return translate(err, step)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return translate(err, step)
	}
	if n == 0 {
		return notFound("%s", missing)
	}
	return nil
}

// queryDue finds due inquiries, and queryDueAfter those after a cursor (an expiry and a key).
// Both name status = 'pending' literally so both planners use the partial index inquiries_due,
// which holds pending rows only, ordered by (expiry, key): the cost is that of the rows
// returned, not of the rows pending. The cursor is a row comparison, which both planners read
// as the start of that index range, so a page deep inside many inquiries sharing one expiry
// costs its own rows, not the ones before it.
var (
	queryDue = `SELECT ` + inquiryTable.cols + ` FROM inquiries
	WHERE status = 'pending' AND expires_at <= ?
	ORDER BY expires_at, key LIMIT ?`
	queryDueAfter = `SELECT ` + inquiryTable.cols + ` FROM inquiries
	WHERE status = 'pending' AND expires_at <= ? AND (expires_at, key) > (?, ?)
	ORDER BY expires_at, key LIMIT ?`
)

// DueInquiries returns up to limit pending inquiries whose expiry is at or before now, oldest
// expiry first (ties by key), after the record after when it is not nil (one with no expiry is
// no cursor). The claim is advisory: Resolve's conditional update is the guard against two
// sweepers resolving one inquiry.
func (s *Store) DueInquiries(ctx context.Context, now time.Time, after *inquiry.Record, limit int) ([]*inquiry.Record, error) {
	if limit <= 0 {
		limit = inquiry.DefaultListLimit
	}
	var rows []inquiryRow
	var err error
	if after == nil || after.ExpiresAt == nil {
		err = s.db.SelectContext(ctx, &rows, s.q(queryDue), at(now), limit)
	} else {
		exp := at(*after.ExpiresAt)
		err = s.db.SelectContext(ctx, &rows, s.q(queryDueAfter), at(now), exp, after.Key, limit)
	}
	recs, err := decode(rows, err, (*inquiryRow).record)
	return recs, translate(err, "find due inquiries")
}

// DeleteResolvedBefore deletes inquiries resolved before t with their events, and the finished
// (done or failed) deliveries last touched before t, so that retention bounds every table.
// Pending deliveries are kept whatever their age. The events go after their inquiries, by the
// keys deleted: a callback's event being written meanwhile holds its inquiry's row (endDelivery),
// so the inquiry's delete waits for it and this delete then sees it.
func (s *Store) DeleteResolvedBefore(ctx context.Context, t time.Time) (int, error) {
	var keys []string
	err := s.inTx(ctx, "delete old inquiries", func(tx *sqlx.Tx) error {
		if err := tx.SelectContext(ctx, &keys, s.q(`DELETE FROM inquiries WHERE status <> 'pending' AND resolved_at < ? RETURNING key`), at(t)); err != nil {
			return err
		}
		if err := s.deleteEvents(ctx, tx, keys); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`DELETE FROM deliveries WHERE status <> 'pending' AND updated_at < ?`), at(t))
		return err
	})
	return len(keys), err
}

// CountPending counts pending inquiries (from the partial index alone on PostgreSQL).
func (s *Store) CountPending(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM inquiries WHERE status = 'pending'`)
	return n, translate(err, "count pending inquiries")
}
