-- The inquiry bot's schema on PostgreSQL. Times are timestamptz (UTC, microseconds); JSON is
-- json, which keeps what was written exactly.

-- +goose Up
CREATE TABLE inquiries (
    key             text        PRIMARY KEY,
    namespace       text        NOT NULL,
    run_id          text        NOT NULL DEFAULT '',
    id              text        NOT NULL,
    kind            text        NOT NULL,
    question        text        NOT NULL,
    context         text        NOT NULL DEFAULT '',
    options         json        NOT NULL DEFAULT 'null',
    multiple        boolean     NOT NULL DEFAULT false,
    allow_text      boolean     NOT NULL DEFAULT false,
    default_value   json        NOT NULL DEFAULT 'null',
    expires_at      timestamptz,
    policy          text        NOT NULL DEFAULT '',
    transport       text        NOT NULL DEFAULT '',
    status          text        NOT NULL,
    answer          json,
    slack_channel   text        NOT NULL DEFAULT '',
    slack_thread_ts text        NOT NULL DEFAULT '',
    slack_ts        text        NOT NULL DEFAULT '',
    slack_permalink text        NOT NULL DEFAULT '',
    slack_answerers json        NOT NULL DEFAULT 'null',
    callback_url    text        NOT NULL DEFAULT '',
    failure         json,
    created_at      timestamptz NOT NULL,
    resolved_at     timestamptz,
    -- asked once: an asker's id is unique within its namespace and run
    CONSTRAINT inquiries_asked_once UNIQUE (namespace, run_id, id),
    CONSTRAINT inquiries_status CHECK (status IN ('pending', 'answered', 'expired', 'cancelled', 'failed'))
);
-- Only pending rows are in it, so finding due inquiries costs the same with a million pending rows
-- as with ten. The due query must say status = 'pending' literally for the planner to use it.
CREATE INDEX inquiries_due ON inquiries (expires_at) WHERE status = 'pending';
-- Newest first, per namespace and across namespaces, with a (created_at, key) keyset cursor.
CREATE INDEX inquiries_newest ON inquiries (namespace, created_at, key);
CREATE INDEX inquiries_newest_all ON inquiries (created_at, key);
-- Retention deletes resolved inquiries by age.
CREATE INDEX inquiries_resolved ON inquiries (resolved_at) WHERE status <> 'pending';

CREATE TABLE runs (
    namespace    text        NOT NULL,
    id           text        NOT NULL,
    status       text        NOT NULL,
    config       json,
    resume_url   text        NOT NULL DEFAULT '',
    heartbeat_at timestamptz NOT NULL,
    answers      json        NOT NULL DEFAULT '{}',
    waiting_on   text        NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (namespace, id),
    CONSTRAINT runs_status CHECK (status IN ('running', 'waiting', 'completed', 'failed', 'abandoned'))
);
CREATE INDEX runs_stale ON runs (heartbeat_at) WHERE status = 'running';
CREATE INDEX runs_waiting_on ON runs (waiting_on) WHERE waiting_on <> '';
CREATE INDEX runs_recent ON runs (namespace, updated_at);

CREATE TABLE deliveries (
    id              bigserial   PRIMARY KEY,
    kind            text        NOT NULL,
    inquiry_key     text        NOT NULL DEFAULT '',
    namespace       text        NOT NULL DEFAULT '',
    run_id          text        NOT NULL DEFAULT '',
    target          text        NOT NULL DEFAULT '',
    lane            text        NOT NULL DEFAULT '',
    status          text        NOT NULL,
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    last_error      text        NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT deliveries_status CHECK (status IN ('pending', 'done', 'failed'))
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_inquiry ON deliveries (inquiry_key);

CREATE TABLE tokens (
    id          text        PRIMARY KEY,
    name        text        NOT NULL UNIQUE,
    namespace   text        NOT NULL,
    scopes      text        NOT NULL,
    secret_hash bytea       NOT NULL,
    created_at  timestamptz NOT NULL,
    revoked_at  timestamptz
);

CREATE TABLE settings (
    name  text PRIMARY KEY,
    value text NOT NULL
);

-- +goose Down
DROP TABLE settings;
DROP TABLE tokens;
DROP TABLE deliveries;
DROP TABLE runs;
DROP TABLE inquiries;
