-- Deadlines people notice (the README's Deadlines): what the asker set (remind, escalate, extend
-- and the opt-ins) is one JSON document, as the approval is; what the server did of it is counters
-- the sweeper advances under the row's lock. next_deadline_at is when the inquiry's next reminder
-- or escalation step is due (NULL: none), claimed with SKIP LOCKED through the partial index below,
-- which holds only the pending rows that have one: a sweep costs the rows due, not the rows
-- pending. placements are the other messages that show the inquiry (escalation channels). A
-- delivery's step says which reminder or escalation step it shows.

-- +goose Up
ALTER TABLE inquiries ADD COLUMN deadlines json NOT NULL DEFAULT '{}';
ALTER TABLE inquiries ADD COLUMN reminders integer NOT NULL DEFAULT 0;
ALTER TABLE inquiries ADD COLUMN remind_step integer NOT NULL DEFAULT 0;
ALTER TABLE inquiries ADD COLUMN escalation integer NOT NULL DEFAULT 0;
ALTER TABLE inquiries ADD COLUMN extended_by bigint NOT NULL DEFAULT 0;
ALTER TABLE inquiries ADD COLUMN next_deadline_at timestamptz;
ALTER TABLE inquiries ADD COLUMN placements json NOT NULL DEFAULT '[]';
CREATE INDEX inquiries_deadline_due ON inquiries (next_deadline_at)
    WHERE status = 'pending' AND next_deadline_at IS NOT NULL;
ALTER TABLE deliveries ADD COLUMN step integer NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE deliveries DROP COLUMN step;
DROP INDEX inquiries_deadline_due;
ALTER TABLE inquiries DROP COLUMN placements;
ALTER TABLE inquiries DROP COLUMN next_deadline_at;
ALTER TABLE inquiries DROP COLUMN extended_by;
ALTER TABLE inquiries DROP COLUMN escalation;
ALTER TABLE inquiries DROP COLUMN remind_step;
ALTER TABLE inquiries DROP COLUMN reminders;
ALTER TABLE inquiries DROP COLUMN deadlines;
