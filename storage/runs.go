package storage

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/jmoiron/sqlx"
)

// runRow is a runs row as SQL sees it: its tags are the run columns.
type runRow struct {
	Namespace   string  `db:"namespace"`
	ID          string  `db:"id"`
	Status      string  `db:"status"`
	Config      jsonCol `db:"config"`
	ResumeURL   string  `db:"resume_url"`
	HeartbeatAt dbTime  `db:"heartbeat_at"`
	Answers     jsonCol `db:"answers"`
	WaitingOn   string  `db:"waiting_on"`
	CreatedAt   dbTime  `db:"created_at"`
	UpdatedAt   dbTime  `db:"updated_at"`
}

var runTable = tableOf[runRow]()

func (r *runRow) run() (*inquiry.Run, error) {
	run := &inquiry.Run{
		ID: r.ID, Namespace: r.Namespace, Status: inquiry.RunStatus(r.Status),
		ResumeURL: r.ResumeURL, HeartbeatAt: r.HeartbeatAt.Time, WaitingOn: r.WaitingOn,
		CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time,
	}
	if r.Config != nil {
		run.Config = new(inquiry.Config)
		if err := fromJSON(r.Config, run.Config, "run config"); err != nil {
			return nil, err
		}
	}
	answers, err := r.answers()
	if err != nil {
		return nil, err
	}
	run.Answers = answers
	return run, nil
}

// answers decodes the recorded answers; never nil.
func (r *runRow) answers() (map[string]inquiry.Answer, error) {
	m := map[string]inquiry.Answer{}
	if err := fromJSON(r.Answers, &m, "run answers"); err != nil {
		return nil, err
	}
	if m == nil { // the JSON null
		m = map[string]inquiry.Answer{}
	}
	for id, a := range m {
		a.AnsweredAt = norm(a.AnsweredAt)
		m[id] = a
	}
	return m, nil
}

// checkState applies the run's bound (inquiry.CheckRunState) to the row holding answers.
func (r *runRow) checkState(answers map[string]inquiry.Answer) error {
	run := &inquiry.Run{ID: r.ID, Namespace: r.Namespace, Answers: answers}
	if r.Config != nil {
		run.Config = new(inquiry.Config)
		if err := fromJSON(r.Config, run.Config, "run config"); err != nil {
			return err
		}
	}
	return inquiry.CheckRunState(run)
}

// noRun is the error for a run that is not there.
func noRun(namespace, id string) error {
	return notFound("no run %q in namespace %q: register it first (POST /v1/runs)", id, namespace)
}

// runWhere reads one run, locked on PostgreSQL when lock is set.
func (s *Store) runWhere(ctx context.Context, q sqlx.QueryerContext, lock bool, namespace, id string) (*runRow, error) {
	query := `SELECT ` + runTable.cols + ` FROM runs WHERE namespace = ? AND id = ?`
	if lock {
		query += s.forUpdate()
	}
	var row runRow
	err := sqlx.GetContext(ctx, q, &row, s.q(query), namespace, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, noRun(namespace, id)
	}
	if err != nil {
		return nil, err
	}
	return &row, nil
}

// PutRun registers a run, or returns the existing one with any config and resume URL given
// replacing the stored ones. A new run is running with its heartbeat at now.
func (s *Store) PutRun(ctx context.Context, run *inquiry.Run, now time.Time) (*inquiry.Run, error) {
	const step = "register the run"
	config, err := jsonOrNull(run.Config, run.Config != nil)
	if err != nil {
		return nil, translate(err, step)
	}
	answers := run.Answers
	if answers == nil {
		answers = map[string]inquiry.Answer{}
	}
	answersText, err := jsonOrNull(answers, true)
	if err != nil {
		return nil, translate(err, step)
	}
	row := runRow{Namespace: run.Namespace, ID: run.ID, Status: string(inquiry.RunRunning), Config: config,
		ResumeURL: run.ResumeURL, HeartbeatAt: at(now), Answers: answersText, CreatedAt: at(now), UpdatedAt: at(now)}
	// In a transaction: a config taken counts in the run's state, which must stay within its bound.
	var out *inquiry.Run
	err = s.inTx(ctx, step, func(tx *sqlx.Tx) error {
		err := sqlx.GetContext(ctx, tx, &row, s.q(`INSERT INTO runs (`+runTable.cols+`) VALUES (`+runTable.marks+`)
		ON CONFLICT (namespace, id) DO UPDATE SET
			config = COALESCE(excluded.config, runs.config),
			resume_url = CASE WHEN excluded.resume_url <> '' THEN excluded.resume_url ELSE runs.resume_url END,
			updated_at = CASE WHEN excluded.config IS NOT NULL OR excluded.resume_url <> ''
				THEN excluded.updated_at ELSE runs.updated_at END
		RETURNING `+runTable.cols), runTable.args(&row)...)
		if err != nil {
			return err
		}
		if out, err = row.run(); err != nil {
			return err
		}
		if run.Config == nil && run.Answers == nil {
			return nil // nothing of the state was written
		}
		return inquiry.CheckRunState(out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Run returns a run of the namespace.
func (s *Store) Run(ctx context.Context, namespace, id string) (*inquiry.Run, error) {
	row, err := s.runWhere(ctx, s.db, false, namespace, id)
	if err != nil {
		return nil, translate(err, "read the run")
	}
	r, err := row.run()
	return r, translate(err, "read the run")
}

// ListRuns lists a namespace's runs ("" for every namespace), most recently updated first: at
// most limit runs (inquiry.DefaultListLimit when 0, inquiry.MaxListLimit at most), and no more than
// inquiry.MaxRunPageBytes of state — the stored config and answers, as inquiry.RunStateBytes
// counts them — always the first run whatever its size. Rows are read one at a time, so a page
// of large runs never holds more than that in memory, and none past the page is read.
func (s *Store) ListRuns(ctx context.Context, namespace string, status inquiry.RunStatus, limit int) ([]*inquiry.Run, error) {
	const step = "list runs"
	if limit <= 0 {
		limit = inquiry.DefaultListLimit
	}
	limit = min(limit, inquiry.MaxListLimit)
	query := `SELECT ` + runTable.cols + ` FROM runs WHERE (? = '' OR namespace = ?) AND (? = '' OR status = ?)
		ORDER BY updated_at DESC, namespace, id LIMIT ?`
	// A page that ends early cancels the query before closing its rows: lib/pq would otherwise
	// read every row left to the end, up to inquiry.MaxListLimit runs of a MiB each.
	qctx, cancel := context.WithCancel(ctx)
	rows, err := s.db.QueryxContext(qctx, s.q(query), namespace, namespace, string(status), string(status), limit)
	if err != nil {
		cancel()
		return nil, translate(err, step)
	}
	defer func() { cancel(); rows.Close() }()
	var runs []*inquiry.Run
	left := inquiry.MaxRunPageBytes
	for rows.Next() {
		var row runRow
		if err := rows.StructScan(&row); err != nil {
			return nil, translate(err, step)
		}
		size := len(row.Config) + len(row.Answers)
		if len(runs) > 0 && size > left {
			break
		}
		left -= size
		run, err := row.run()
		if err != nil {
			return nil, translate(err, step)
		}
		runs = append(runs, run)
	}
	return runs, translate(rows.Err(), step)
}

// Heartbeat moves the heartbeat to now.
func (s *Store) Heartbeat(ctx context.Context, namespace, id string, now time.Time) (*inquiry.Run, error) {
	return s.updateRun(ctx, "record the heartbeat", namespace, id,
		`heartbeat_at = ?, updated_at = ?`, at(now), at(now))
}

// FinishRun sets a final status: completed, failed or abandoned.
func (s *Store) FinishRun(ctx context.Context, namespace, id string, status inquiry.RunStatus, now time.Time) (*inquiry.Run, error) {
	if !status.Finished() {
		return nil, inquiry.FieldErrorf(inquiry.CodeBadRequest, "status",
			"a run finishes as completed, failed or abandoned, not %q", status)
	}
	return s.updateRun(ctx, "finish the run", namespace, id,
		`status = ?, waiting_on = '', updated_at = ?`, string(status), at(now))
}

// updateRun sets columns of one run and returns it.
func (s *Store) updateRun(ctx context.Context, step, namespace, id, set string, args ...any) (*inquiry.Run, error) {
	var row runRow
	err := s.db.GetContext(ctx, &row, s.q(`UPDATE runs SET `+set+` WHERE namespace = ? AND id = ? RETURNING `+runTable.cols),
		append(args, namespace, id)...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, noRun(namespace, id)
	}
	if err != nil {
		return nil, translate(err, step)
	}
	r, err := row.run()
	return r, translate(err, step)
}

// RecordAnswers merges answers into the run's answers with the run row locked (PostgreSQL: FOR
// UPDATE; SQLite: the immediate transaction), so concurrent writers never lose a sibling's answer.
// A status given is taken; a run set running has its heartbeat moved to now and WaitingOn cleared.
func (s *Store) RecordAnswers(ctx context.Context, namespace, id string, answers map[string]inquiry.Answer, status inquiry.RunStatus, now time.Time) (*inquiry.Run, error) {
	if status != "" && !status.Valid() {
		return nil, inquiry.FieldErrorf(inquiry.CodeBadRequest, "status",
			"%q is not a run status: use running, waiting, completed, failed or abandoned", status)
	}
	var out *inquiry.Run
	err := s.inTx(ctx, "record the run's answers", func(tx *sqlx.Tx) error {
		row, err := s.runWhere(ctx, tx, true, namespace, id)
		if err != nil {
			return err
		}
		merged, err := row.answers()
		if err != nil {
			return err
		}
		for k, a := range answers {
			merged[k] = a
		}
		if len(answers) > 0 {
			if err := row.checkState(merged); err != nil {
				return err
			}
		}
		text, err := jsonText(merged)
		if err != nil {
			return err
		}
		row.Answers = []byte(text)
		row.UpdatedAt = at(now)
		if status != "" {
			row.Status = string(status)
		}
		if status == inquiry.RunRunning {
			row.HeartbeatAt, row.WaitingOn = at(now), ""
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE runs SET answers = ?, status = ?, heartbeat_at = ?, waiting_on = ?, updated_at = ?
			WHERE namespace = ? AND id = ?`),
			text, row.Status, row.HeartbeatAt, row.WaitingOn, row.UpdatedAt, namespace, id); err != nil {
			return err
		}
		out, err = row.run()
		return err
	})
	return out, err
}

// ParkRun makes the run wait on the inquiry with key, unless the inquiry is resolved already:
// then its answer (if it has one) is recorded in the run, the run stays as it is, and the
// resolved record is returned. Parking marks the inquiry with the run, where Resolve finds it; the
// run's WaitingOn shows the latest inquiry it parked on. The inquiry row is locked first (as
// Resolve's update locks it), so a resolution racing the park either sees the mark or is seen
// resolved here.
func (s *Store) ParkRun(ctx context.Context, namespace, id, key string, now time.Time) (*inquiry.Run, *inquiry.Record, error) {
	var run *inquiry.Run
	var resolved *inquiry.Record
	err := s.inTx(ctx, "park the run", func(tx *sqlx.Tx) error {
		rec, err := s.inquiryWhere(ctx, tx, "key = ?"+s.forUpdate(), key)
		if err != nil {
			return err
		}
		if rec.Namespace != namespace {
			return notFound("no such inquiry in namespace %q: a run waits only on its own namespace's inquiries", namespace)
		}
		row, err := s.runWhere(ctx, tx, true, namespace, id)
		if err != nil {
			return err
		}
		if rec.Status.Resolved() {
			resolved = rec
			if rec.Answer != nil {
				if err := s.recordStateAnswer(ctx, tx, row, rec, now); err != nil {
					return err
				}
			}
			run, err = row.run()
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE inquiries SET parked_run = ? WHERE key = ?`), id, key); err != nil {
			return err
		}
		row.Status, row.WaitingOn, row.UpdatedAt = string(inquiry.RunWaiting), key, at(now)
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE runs SET status = ?, waiting_on = ?, updated_at = ? WHERE namespace = ? AND id = ?`),
			row.Status, row.WaitingOn, row.UpdatedAt, namespace, id); err != nil {
			return err
		}
		run, err = row.run()
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return run, resolved, nil
}

// recordStateAnswer records what a run's state keeps of rec's answer, under the inquiry's id,
// in the locked row, and writes it back; a run it would take past its bound is left as it is
// and the bound's refusal returned (inquiry.CheckRunState).
func (s *Store) recordStateAnswer(ctx context.Context, tx *sqlx.Tx, row *runRow, rec *inquiry.Record, now time.Time) error {
	answers, err := row.answers()
	if err != nil {
		return err
	}
	answers[rec.ID] = inquiry.StateOf(*rec.Answer)
	if err := row.checkState(answers); err != nil {
		return err
	}
	text, err := jsonText(answers)
	if err != nil {
		return err
	}
	row.Answers, row.UpdatedAt = []byte(text), at(now)
	_, err = tx.ExecContext(ctx, s.q(`UPDATE runs SET answers = ?, updated_at = ? WHERE namespace = ? AND id = ?`),
		text, row.UpdatedAt, row.Namespace, row.ID)
	return err
}

// answerParkedRun records a resolved inquiry's answer in the run that parked on it, inside
// Resolve's transaction, after the inquiry row is locked (the order ParkRun locks in too). A run
// may have parked on several inquiries before it was resumed: each answer lands on its own. A
// waiting run stays waiting — it has no process until it is resumed — and its resume URL is
// called; also when the inquiry ended without an answer (cancelled, failed), with nothing put in
// its state, so that the run learns its question will never be answered. A run resumed meanwhile still gets the answer recorded (answers accumulate), with no
// resume; a finished run is left alone. A run full to its bound (inquiry.CheckRunState) does not
// take the answer into its state — the inquiry keeps it, and a resolution is never refused for a
// run's sake — and a waiting one is still resumed.
func (s *Store) answerParkedRun(ctx context.Context, tx *sqlx.Tx, rec *inquiry.Record, runID string, now time.Time) error {
	row, err := s.runWhere(ctx, tx, true, rec.Namespace, runID)
	if errors.Is(err, inquiry.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	status := inquiry.RunStatus(row.Status)
	if status.Finished() {
		return nil
	}
	if rec.Answer != nil {
		if err := s.recordStateAnswer(ctx, tx, row, rec, now); err != nil && inquiry.ErrorCode(err) != inquiry.CodeInvalidAnswer {
			return err
		}
	}
	if status != inquiry.RunWaiting || row.ResumeURL == "" {
		return nil
	}
	return s.insertDeliveries(ctx, tx, []inquiry.Delivery{{Kind: inquiry.DeliverResume, InquiryKey: rec.Key,
		Namespace: row.Namespace, RunID: row.ID, Target: row.ResumeURL}}, deliveryDefaults{now: now})
}

// AbandonStale marks running runs whose heartbeat is before cutoff abandoned. Waiting runs have
// no process by design and are never touched.
func (s *Store) AbandonStale(ctx context.Context, cutoff, now time.Time) (int, error) {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE runs SET status = 'abandoned', updated_at = ?
		WHERE status = 'running' AND heartbeat_at < ?`), at(now), at(cutoff))
	if err != nil {
		return 0, translate(err, "abandon stale runs")
	}
	n, err := res.RowsAffected()
	return int(n), translate(err, "abandon stale runs")
}
