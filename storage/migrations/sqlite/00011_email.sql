-- Answering anywhere (the README's Answer by email): whom the email transport mails an inquiry to,
-- {"to": [...]}, NULL for an inquiry asked some other way.

-- +goose Up
ALTER TABLE inquiries ADD COLUMN email TEXT;

-- +goose Down
ALTER TABLE inquiries DROP COLUMN email;
