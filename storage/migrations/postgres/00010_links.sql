-- Answer links (the README's Answer in a browser) are signed, not stored: a link carries its
-- inquiry, its recipient and when it was issued. What undoes one is stored here: the links of a
-- recipient ('' for the inquiry's general link) issued at or before revoked_at no longer work.
-- Retention deletes the rows of the inquiries it deletes.

-- +goose Up
CREATE TABLE link_revocations (
    inquiry_key TEXT NOT NULL,
    recipient   TEXT NOT NULL,
    revoked_at  timestamptz NOT NULL,
    PRIMARY KEY (inquiry_key, recipient)
);

-- +goose Down
DROP TABLE link_revocations;
