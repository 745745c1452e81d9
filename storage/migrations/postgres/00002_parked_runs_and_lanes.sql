-- A run may wait on several inquiries at once (it asked again before it was resumed), so the
-- inquiry records the run that parked on it, and a resolution finds the run from there; the
-- run's waiting_on only shows the latest. A lane's deliveries go out in order: a claim looks for
-- an earlier pending delivery of the same lane, through deliveries_lane.

-- +goose Up
ALTER TABLE inquiries ADD COLUMN parked_run text NOT NULL DEFAULT '';
DROP INDEX runs_waiting_on;
CREATE INDEX deliveries_lane ON deliveries (lane, id) WHERE status = 'pending' AND lane <> '';

-- +goose Down
DROP INDEX deliveries_lane;
CREATE INDEX runs_waiting_on ON runs (waiting_on) WHERE waiting_on <> '';
ALTER TABLE inquiries DROP COLUMN parked_run;
