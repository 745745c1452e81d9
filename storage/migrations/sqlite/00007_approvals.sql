-- Team approvals (the README's Team approvals): what an inquiry asks of a team (approvals, veto,
-- requested_by, reason) is one JSON document, so that a field of it added later needs no migration;
-- the votes so far of an inquiry that needs several people are a JSON list, rewritten under the
-- row's lock on every vote.

-- +goose Up
ALTER TABLE inquiries ADD COLUMN approval TEXT NOT NULL DEFAULT '{}';
ALTER TABLE inquiries ADD COLUMN votes TEXT NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE inquiries DROP COLUMN votes;
ALTER TABLE inquiries DROP COLUMN approval;
