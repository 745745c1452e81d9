-- The expiry sweep reads due inquiries a page at a time after a cursor (the expiry and key of the
-- last one read), so that it can read the next page while the previous one is being resolved
-- (scheduler.expire). The order is (expires_at, key), so the index of due rows holds both: the
-- index gives the order of a page, and the cursor, a row comparison, is where its range starts.
-- Pending rows only, as before; the due queries (queryDue, queryDueAfter) must say
-- status = 'pending' literally.

-- +goose Up
DROP INDEX inquiries_due;
CREATE INDEX inquiries_due ON inquiries (expires_at, key) WHERE status = 'pending';

-- +goose Down
DROP INDEX inquiries_due;
CREATE INDEX inquiries_due ON inquiries (expires_at) WHERE status = 'pending';
