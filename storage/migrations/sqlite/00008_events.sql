-- The record of every event of an inquiry (the README's Follow what happens), append-only. A
-- follower reads it by id ("the events after the last one I saw"): SQLite has one writer at a time,
-- so ids are handed out in commit order; AUTOINCREMENT never reuses one, even after retention
-- deleted the newest.

-- +goose Up
CREATE TABLE events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    inquiry_key TEXT    NOT NULL,
    namespace   TEXT    NOT NULL,
    type        TEXT    NOT NULL,
    at          TEXT    NOT NULL,
    actor       TEXT    NOT NULL DEFAULT '', -- the event's "by" (BY is an SQL keyword)
    data        TEXT    NOT NULL DEFAULT '{}'
) STRICT;
-- An inquiry's record, and retention's delete of it.
CREATE INDEX events_inquiry ON events (inquiry_key, id);
-- A namespace's followers.
CREATE INDEX events_namespace ON events (namespace, id);

-- +goose Down
DROP TABLE events;
