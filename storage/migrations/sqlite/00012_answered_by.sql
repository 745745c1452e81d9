-- What a person answered lately (the Slack App Home lists it): their answered and voted events,
-- newest first. Without this index the lookup read every event of the retention window; with it,
-- a few index entries of that person. Only answers and votes with an actor are in it; the query
-- (AnsweredBy) must say type IN ('answered', 'voted') and actor <> '' literally for the planner
-- to use it. Numbered 00012 to leave 00009..00011 to the other work of issue 17 and deadlines.

-- +goose Up
CREATE INDEX events_answered_by ON events (actor, id)
    WHERE type IN ('answered', 'voted') AND actor <> '';

-- +goose Down
DROP INDEX events_answered_by;
