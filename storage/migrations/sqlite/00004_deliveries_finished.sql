-- Retention deletes finished (done or failed) deliveries by age in every sweep. Without an index
-- that DELETE read the whole deliveries table each time: 76 ms per idle sweep with a million
-- finished deliveries on PostgreSQL, against 1 ms with this index (cmd/benchmark, row 6e). Only
-- finished deliveries are in it. The DELETE must say status <> 'pending' literally for the
-- planner to use it.

-- +goose Up
CREATE INDEX deliveries_finished ON deliveries (updated_at) WHERE status <> 'pending';

-- +goose Down
DROP INDEX deliveries_finished;
