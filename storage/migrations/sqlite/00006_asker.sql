-- An agent never answers its own question: an inquiry remembers the name of the token that asked
-- it (asked_by), and the answer path refuses that token. An answer token created with
-- --namespace answers only that namespace (namespace_bound); a token whose namespace was left to
-- default to its name sees every namespace, as answer tokens always did. Tokens made before this
-- migration were bound exactly when their namespace differs from their name (the default is the
-- name).

-- +goose Up
ALTER TABLE inquiries ADD COLUMN asked_by TEXT NOT NULL DEFAULT '';
ALTER TABLE tokens ADD COLUMN namespace_bound INTEGER NOT NULL DEFAULT 0;
UPDATE tokens SET namespace_bound = 1 WHERE namespace <> name;

-- +goose Down
ALTER TABLE tokens DROP COLUMN namespace_bound;
ALTER TABLE inquiries DROP COLUMN asked_by;
