// Package storage keeps the inquiry bot's state: it implements inquiry.Store with sqlx on
// PostgreSQL (lib/pq) for deployments and on SQLite (modernc.org/sqlite, no cgo) as the embedded
// default.
//
// It owns the schema and its embedded migrations (one folder per dialect, applied by goose on
// Open and by `bot migrate`), the one translation of driver errors into *inquiry.Error, the claims
// several replicas race for (FOR UPDATE SKIP LOCKED and conditional updates on PostgreSQL, immediate
// transactions on SQLite), and the PostgreSQL LISTEN/NOTIFY wake-ups that let a long-poll on one
// replica hear of an answer recorded by another.
//
// Time never comes from the database: every method that needs "now" takes it, and what a caller
// leaves without a time gets the store's injected clock (Store.Now), so tests can pin it.
// SQL is shared between the dialects and branches only where the SQL differs.
package storage

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/groupcommit"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // registers "sqlite"
)

// The two dialects, as Dialect reports them and as the migrations folders are named.
const (
	DialectPostgres = "postgres"
	DialectSQLite   = "sqlite"
)

var _ inquiry.Store = (*Store)(nil)

// Store is the sqlx implementation of inquiry.Store. It is safe for concurrent use, also by
// several processes sharing one database.
type Store struct {
	db      *sqlx.DB
	dialect string
	// dsn is the PostgreSQL connection string, kept for the listener's own connection.
	dsn string

	events    watchers  // the followers of the event record (events.go)
	announcer announcer // tells other replicas' followers of events recorded here
	horizon   horizon   // the settled id of the event record, read once for concurrent followers
	// gc gathers concurrent creates into one transaction on SQLite (groupcommit.go); nil writes
	// each alone. counts counts how creates were committed; onBatch (tests only) runs as a batch's
	// transaction starts.
	gc      *groupcommit.Committer[*createReq]
	counts  createCounts
	onBatch func()
	// noGroupCommit writes every create in a transaction of its own (WithoutGroupCommit).
	noGroupCommit bool
}

// Option changes how Open builds a Store: the switch of its machinery, so that a benchmark can
// measure it on and off in one run (cmd/benchmark row m).
type Option func(*Store)

// WithoutGroupCommit writes each create in a transaction of its own, never batched with others
// (SQLite; on PostgreSQL a create is always its own statement).
func WithoutGroupCommit() Option { return func(s *Store) { s.noGroupCommit = true } }

// errNoTime refuses a write that carries no time: the caller's clock (the service's, which tests
// move) is the only one, so that every stored time agrees with what the service decided.
var errNoTime = errors.New("the store keeps no clock: the caller must give the time (a creation, a resolution)")

//go:embed migrations/postgres/*.sql migrations/sqlite/*.sql
var migrations embed.FS

// errBadURL names the variable and the forms it takes, without echoing the URL (it may carry a
// password).
var errBadURL = errors.New("DATABASE_URL must be postgres://USER:PASSWORD@HOST:PORT/DATABASE " +
	"(or postgresql://…) or sqlite:PATH (for example sqlite:inquiry-bot.db, or sqlite::memory:)")

// RedactURL is a database URL fit for a log line or an error: its password, if any, replaced by
// REDACTED.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "REDACTED")
	}
	return u.String()
}

// Open connects to the database named by databaseURL — postgres://… or postgresql://… for
// PostgreSQL, sqlite:PATH or sqlite::memory: for SQLite — and applies the embedded migrations.
func Open(ctx context.Context, databaseURL string, opts ...Option) (*Store, error) {
	s, err := open(databaseURL, opts...)
	if err != nil {
		return nil, err
	}
	if err := s.Migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// open builds the Store without touching the database: lib/pq connects lazily, and SQLite
// connects on first use.
func open(databaseURL string, opts ...Option) (*Store, error) {
	s, err := openDB(databaseURL)
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(s)
	}
	s.gc = s.newCommitter()
	return s, nil
}

// openDB is open's connection pool, by dialect.
func openDB(databaseURL string) (*Store, error) {
	switch {
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		dsn, err := postgresDSN(databaseURL)
		if err != nil {
			return nil, err
		}
		// The connector checks the settings now; connections are made when first needed.
		connector, err := pq.NewConnector(dsn)
		if err != nil {
			return nil, fmt.Errorf("DATABASE_URL is not a PostgreSQL URL lib/pq accepts: %w", err)
		}
		db := sqlx.NewDb(sql.OpenDB(connector), "postgres")
		db.SetMaxOpenConns(32)
		db.SetMaxIdleConns(32)
		db.SetConnMaxIdleTime(5 * time.Minute)
		db.SetConnMaxLifetime(time.Hour)
		return &Store{db: db, dialect: DialectPostgres, dsn: dsn}, nil

	case strings.HasPrefix(databaseURL, "sqlite:"):
		path := strings.TrimPrefix(databaseURL, "sqlite:")
		if path == "" || strings.ContainsAny(path, "?#") {
			return nil, errBadURL
		}
		// busy_timeout first: it makes the other pragmas, and every writer that meets another,
		// wait for the lock instead of failing with SQLITE_BUSY. _txlock=immediate takes the write
		// lock at BEGIN, so a transaction that reads then writes never finds its snapshot stale
		// (which no busy timeout can cure) and transactions serialize like row locks would.
		if err := createPrivate(path); err != nil {
			return nil, err
		}
		dsn := path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate"
		db, err := sqlx.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("open sqlite database %s: %w", path, err)
		}
		if path == ":memory:" {
			// Every connection to :memory: is a database of its own: keep exactly one, for ever.
			db.SetMaxOpenConns(1)
			db.SetMaxIdleConns(1)
			db.SetConnMaxLifetime(0)
			db.SetConnMaxIdleTime(0)
		} else {
			// WAL lets readers run beside the one writer; writers queue on the busy timeout.
			db.SetMaxOpenConns(4)
			db.SetMaxIdleConns(4)
		}
		return &Store{db: db, dialect: DialectSQLite}, nil
	}
	return nil, errBadURL
}

// createPrivate creates the SQLite database file at path (a plain path or a file: URI) empty and
// 0600 when it is not there yet: it holds the callback secret and every token's hash, and SQLite
// would create it 0644 (less the umask). SQLite takes an empty file for a new database and gives
// the -wal and -shm files it creates the main file's permissions, so they are 0600 too. A file
// that is there keeps the mode its operator gave it; :memory: has no file. The process's umask is
// left alone: it is shared with every other file the process creates.
func createPrivate(path string) error {
	file := path
	if strings.HasPrefix(path, "file:") {
		u, err := url.Parse(path)
		if err != nil {
			return errBadURL
		}
		if file = u.Opaque; file == "" {
			file = u.Path
		}
	}
	if file == "" || file == ":memory:" {
		return nil
	}
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case errors.Is(err, fs.ErrExist):
		return nil
	case err != nil:
		return &inquiry.Error{Code: inquiry.CodeStorageUnavailable, Err: err,
			Message: fmt.Sprintf("cannot create the SQLite database %s (%v): create its folder and let the bot write there, or set DATABASE_URL to another path", file, errors.Unwrap(err))}
	}
	return f.Close()
}

// postgresDSN checks the URL and turns on binary_parameters unless the operator chose: lib/pq then
// sends a statement and its arguments in one round trip instead of preparing it first.
func postgresDSN(databaseURL string) (string, error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "", errBadURL // url's error repeats the URL, password and all
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return "", errBadURL
	}
	if !q.Has("binary_parameters") {
		q.Set("binary_parameters", "yes")
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Dialect reports "postgres" or "sqlite".
func (s *Store) Dialect() string { return s.dialect }

// Close closes the connection pool.
func (s *Store) Close() error { return s.db.Close() }

// Migrate applies the embedded migrations that are not applied yet. On PostgreSQL a session
// advisory lock keeps replicas starting together from migrating at once.
func (s *Store) Migrate(ctx context.Context) error {
	fsys, err := fs.Sub(migrations, "migrations/"+s.dialect)
	if err != nil {
		return translate(err, "read the embedded migrations")
	}
	dialect := goose.DialectSQLite3
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}
	if s.postgres() {
		dialect = goose.DialectPostgres
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
		if err != nil {
			return translate(err, "apply the database migrations")
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, s.db.DB, fsys, opts...)
	if err != nil {
		return translate(err, "apply the database migrations")
	}
	if _, err := p.Up(ctx); err != nil {
		return translate(err, "apply the database migrations")
	}
	return nil
}

// Ping checks the database can be reached.
func (s *Store) Ping(ctx context.Context) error {
	return translate(s.db.PingContext(ctx), "reach the database")
}

func (s *Store) postgres() bool { return s.dialect == DialectPostgres }

// q rewrites a query written with ? placeholders for the dialect.
func (s *Store) q(query string) string { return s.db.Rebind(query) }

// forUpdate locks the selected rows on PostgreSQL. SQLite needs no row locks: every transaction
// is immediate, so it holds the database's one write lock from BEGIN to COMMIT.
func (s *Store) forUpdate() string {
	if s.postgres() {
		return " FOR UPDATE"
	}
	return ""
}

// inTx runs fn in one transaction, committing when it returns nil. Errors come back translated,
// with step naming what was being done.
func (s *Store) inTx(ctx context.Context, step string, fn func(tx *sqlx.Tx) error) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return translateBegin(err, step)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if err := fn(tx); err != nil {
		return translate(err, step)
	}
	return translate(tx.Commit(), step)
}

// placeholders returns "?, ?, ?" for n arguments.
func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}
