-- Microsoft Teams (the README's Microsoft Teams section): where in Teams an inquiry is asked,
-- {"conversation", "service_url", "answerers"}, NULL for an inquiry asked some other way.

-- +goose Up
ALTER TABLE inquiries ADD COLUMN teams json;

-- +goose Down
ALTER TABLE inquiries DROP COLUMN teams;
