-- The record of every event of an inquiry (the README's Follow what happens), append-only. A
-- follower reads it by id ("the events after the last one I saw"), and a sequence alone does not
-- make that safe: a transaction that took id 10 may commit after one that took id 11, and a
-- follower that read 11 would never see 10. So every writer numbers its events under a shared
-- transaction lock, held to its commit (the trigger below; writers do not wait for one another),
-- and a follower reads only up to a settled id: the newest id read while holding that lock
-- exclusively, which waits for the writers numbering at that moment to finish (Store.settled).
-- Every id up to it is committed or never will be. The store writes events last in each
-- transaction, so the lock is held for the commit only and its holder never waits on a row lock.
-- Followers on other replicas are woken by a NOTIFY the store sends after the commit
-- (Store.recorded), not from here: a NOTIFY in the writer's transaction would serialize every
-- writer's commit.

-- +goose Up
CREATE SEQUENCE events_id_seq;
CREATE TABLE events (
    id          bigint      PRIMARY KEY,
    inquiry_key text        NOT NULL,
    namespace   text        NOT NULL,
    type        text        NOT NULL,
    at          timestamptz NOT NULL,
    actor       text        NOT NULL DEFAULT '', -- the event's "by" (BY is an SQL keyword)
    data        json        NOT NULL DEFAULT '{}'
);
ALTER SEQUENCE events_id_seq OWNED BY events.id;
-- An inquiry's record, and retention's delete of it.
CREATE INDEX events_inquiry ON events (inquiry_key, id);
-- A namespace's followers.
CREATE INDEX events_namespace ON events (namespace, id);

-- +goose StatementBegin
CREATE FUNCTION events_numbered() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(111559182283891); -- 0x6576656e7473, "events"
    NEW.id := nextval('events_id_seq');
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER events_numbered BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION events_numbered();

-- +goose Down
DROP TABLE events;
DROP FUNCTION events_numbered();
