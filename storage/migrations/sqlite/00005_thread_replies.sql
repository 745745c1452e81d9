-- A reply in a Slack thread answers a pending inquiry posted in that thread: the thread's root
-- message, or a message the bot posted into the thread (slack_thread_ts). The root is found by
-- inquiries_slack_message (slack_channel, slack_ts), migration 00003; this index finds the pending
-- messages posted into a thread, so a reply costs a few index lookups however many inquiries the
-- table holds (before it, the lookup read every posted inquiry of the channel). Only pending,
-- posted inquiries that were posted into a thread are in it; the query (PendingInThread) must say
-- status = 'pending', slack_ts <> '' and slack_thread_ts <> '' literally for the planner to use it.

-- +goose Up
CREATE INDEX inquiries_thread_pending ON inquiries (slack_channel, slack_thread_ts)
    WHERE status = 'pending' AND slack_thread_ts <> '' AND slack_ts <> '';

-- +goose Down
DROP INDEX inquiries_thread_pending;
