-- The messages of escalation steps (inquiries.placements, migration 00009), one row each, so that a
-- reply in the thread of an escalated message finds its inquiry by (channel, ts) through the
-- primary key, as a reply under the first message does through inquiries_slack_message
-- (PendingInThread). Written in the transaction that appends to inquiries.placements; the rows of
-- an inquiry go with it. The placements already recorded are copied in.

-- +goose Up
CREATE TABLE placements (
    channel text NOT NULL,
    ts text NOT NULL,
    inquiry_key text NOT NULL REFERENCES inquiries (key) ON DELETE CASCADE,
    PRIMARY KEY (channel, ts)
);
CREATE INDEX placements_inquiry ON placements (inquiry_key);
INSERT OR IGNORE INTO placements (channel, ts, inquiry_key)
    SELECT json_extract(p.value, '$.channel'), json_extract(p.value, '$.ts'), inquiries.key FROM inquiries, json_each(inquiries.placements) AS p
    WHERE json_extract(p.value, '$.channel') <> '' AND json_extract(p.value, '$.ts') <> '';

-- +goose Down
DROP TABLE placements;
