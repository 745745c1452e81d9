-- A reply in a question's thread answers it: the Slack app finds the inquiry by the message it
-- was posted as (channel, ts). Only posted inquiries are in the index.

-- +goose Up
CREATE INDEX inquiries_slack_message ON inquiries (slack_channel, slack_ts) WHERE slack_ts <> '';

-- +goose Down
DROP INDEX inquiries_slack_message;
