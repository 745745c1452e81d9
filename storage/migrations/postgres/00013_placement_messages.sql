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
INSERT INTO placements (channel, ts, inquiry_key)
    SELECT p->>'channel', p->>'ts', inquiries.key FROM inquiries, json_array_elements(placements) AS p
    WHERE p->>'channel' <> '' AND p->>'ts' <> ''
    ON CONFLICT DO NOTHING;

-- +goose Down
DROP TABLE placements;
