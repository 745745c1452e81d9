-- Fan-out: the channels an inquiry is posted to, its transport first, as a JSON list such as
-- ["slack","teams"]; NULL for an inquiry stored before it could name several (its transport
-- alone) and for one put to the inbox, which posts nowhere.

-- +goose Up
ALTER TABLE inquiries ADD COLUMN channels TEXT;

-- +goose Down
ALTER TABLE inquiries DROP COLUMN channels;
