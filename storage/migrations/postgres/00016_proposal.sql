-- Reviewable decisions: what the person approves, {"format", "content",
-- "title", "editable"}, NULL for an inquiry without one. The approved (edited) content is the
-- answer's own, in the answer column, so the record keeps both versions.

-- +goose Up
ALTER TABLE inquiries ADD COLUMN proposal json;

-- +goose Down
ALTER TABLE inquiries DROP COLUMN proposal;
