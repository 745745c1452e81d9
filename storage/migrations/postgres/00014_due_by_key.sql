-- The expiry sweep reads due inquiries a page at a time after a cursor (the expiry and key of the
-- last one read), so that it can read the next page while the previous one is being resolved
-- (scheduler.expire). The order is (expires_at, key), so the index of due rows holds both: the
-- index gives the order of a page, and the cursor, a row comparison, is where its range starts.
-- Pending rows only, as before; the due queries (queryDue, queryDueAfter) must say
-- status = 'pending' literally. The new index is built before the old one is dropped, so reads
-- go on during the build (writes wait for it, as for every index this schema adds); the drop and
-- the rename hold their locks for an instant at the end.

-- +goose Up
CREATE INDEX inquiries_due_by_key ON inquiries (expires_at, key) WHERE status = 'pending';
DROP INDEX inquiries_due;
ALTER INDEX inquiries_due_by_key RENAME TO inquiries_due;

-- +goose Down
CREATE INDEX inquiries_due_by_expiry ON inquiries (expires_at) WHERE status = 'pending';
DROP INDEX inquiries_due;
ALTER INDEX inquiries_due_by_expiry RENAME TO inquiries_due;
