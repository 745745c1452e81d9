-- The inquiry bot's schema on SQLite. Tables are STRICT. Times are TEXT in one fixed-width form,
-- UTC with microseconds ("2006-01-02T15:04:05.000000Z"), so that they sort and compare as strings
-- exactly as they do as times; the store writes every time through one encoder. JSON is TEXT;
-- booleans are INTEGER 0 or 1.

-- +goose Up
CREATE TABLE inquiries (
    key             TEXT    PRIMARY KEY,
    namespace       TEXT    NOT NULL,
    run_id          TEXT    NOT NULL DEFAULT '',
    id              TEXT    NOT NULL,
    kind            TEXT    NOT NULL,
    question        TEXT    NOT NULL,
    context         TEXT    NOT NULL DEFAULT '',
    options         TEXT    NOT NULL DEFAULT 'null',
    multiple        INTEGER NOT NULL DEFAULT 0,
    allow_text      INTEGER NOT NULL DEFAULT 0,
    default_value   TEXT    NOT NULL DEFAULT 'null',
    expires_at      TEXT,
    policy          TEXT    NOT NULL DEFAULT '',
    transport       TEXT    NOT NULL DEFAULT '',
    status          TEXT    NOT NULL,
    answer          TEXT,
    slack_channel   TEXT    NOT NULL DEFAULT '',
    slack_thread_ts TEXT    NOT NULL DEFAULT '',
    slack_ts        TEXT    NOT NULL DEFAULT '',
    slack_permalink TEXT    NOT NULL DEFAULT '',
    slack_answerers TEXT    NOT NULL DEFAULT 'null',
    callback_url    TEXT    NOT NULL DEFAULT '',
    failure         TEXT,
    created_at      TEXT    NOT NULL,
    resolved_at     TEXT,
    -- asked once: an asker's id is unique within its namespace and run
    CONSTRAINT inquiries_asked_once UNIQUE (namespace, run_id, id),
    CONSTRAINT inquiries_status CHECK (status IN ('pending', 'answered', 'expired', 'cancelled', 'failed'))
) STRICT;
-- Only pending rows are in it, so finding due inquiries costs the same with a million pending rows
-- as with ten. The due query must say status = 'pending' literally for the planner to use it.
CREATE INDEX inquiries_due ON inquiries (expires_at) WHERE status = 'pending';
-- Newest first, per namespace and across namespaces, with a (created_at, key) keyset cursor.
CREATE INDEX inquiries_newest ON inquiries (namespace, created_at, key);
CREATE INDEX inquiries_newest_all ON inquiries (created_at, key);
-- Retention deletes resolved inquiries by age.
CREATE INDEX inquiries_resolved ON inquiries (resolved_at) WHERE status <> 'pending';

CREATE TABLE runs (
    namespace    TEXT NOT NULL,
    id           TEXT NOT NULL,
    status       TEXT NOT NULL,
    config       TEXT,
    resume_url   TEXT NOT NULL DEFAULT '',
    heartbeat_at TEXT NOT NULL,
    answers      TEXT NOT NULL DEFAULT '{}',
    waiting_on   TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (namespace, id),
    CONSTRAINT runs_status CHECK (status IN ('running', 'waiting', 'completed', 'failed', 'abandoned'))
) STRICT;
CREATE INDEX runs_stale ON runs (heartbeat_at) WHERE status = 'running';
CREATE INDEX runs_waiting_on ON runs (waiting_on) WHERE waiting_on <> '';
CREATE INDEX runs_recent ON runs (namespace, updated_at);

CREATE TABLE deliveries (
    -- AUTOINCREMENT: an id is never reused, so id order is creation order for good.
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    kind            TEXT    NOT NULL,
    inquiry_key     TEXT    NOT NULL DEFAULT '',
    namespace       TEXT    NOT NULL DEFAULT '',
    run_id          TEXT    NOT NULL DEFAULT '',
    target          TEXT    NOT NULL DEFAULT '',
    lane            TEXT    NOT NULL DEFAULT '',
    status          TEXT    NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT    NOT NULL,
    last_error      TEXT    NOT NULL DEFAULT '',
    created_at      TEXT    NOT NULL,
    updated_at      TEXT    NOT NULL,
    CONSTRAINT deliveries_status CHECK (status IN ('pending', 'done', 'failed'))
) STRICT;
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_inquiry ON deliveries (inquiry_key);

CREATE TABLE tokens (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    namespace   TEXT NOT NULL,
    scopes      TEXT NOT NULL,
    secret_hash BLOB NOT NULL,
    created_at  TEXT NOT NULL,
    revoked_at  TEXT
) STRICT;

CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

-- +goose Down
DROP TABLE settings;
DROP TABLE tokens;
DROP TABLE deliveries;
DROP TABLE runs;
DROP TABLE inquiries;
