// Package faulttest holds the fault tests of issue 9: each one runs the real `bot serve` binary
// (built once, in TestMain, with the race detector when the tests run with -race) against a real
// database and a fake Slack, injects one fault, and checks the bot's promises
// (docs/RELIABILITY.md): an answer once acknowledged is never lost, an inquiry is never answered
// twice, a question is never lost between the store and Slack, and a request during an outage gets
// a 503 with a sentence and Retry-After — never a hang or a crash.
//
// The faults and the tests that inject them (docs/RELIABILITY.md, section "Faults", has the table
// with the figures these tests log):
//
//   - TestPostgresConnectionsKilledUnderLoad: the bot's PostgreSQL connections terminated with
//     pg_terminate_backend every 200 ms while clients create and answer inquiries;
//   - TestKilledBetweenCommitAndPost: the bot SIGKILLed after it committed an inquiry and before
//     the post to Slack completed, then started again on the same database;
//   - TestSlackDown, TestSlackSlow, TestSlack500: the Slack Web API refusing connections, taking
//     5 s per call, answering 500;
//   - TestSlackConnectionCutAfterPost: the connection to Slack cut after Slack took a post and
//     before its answer reached the bot;
//   - TestBurstOutlastsLease: a dispatcher's work on one channel outlasting the lease it claimed
//     it under, while the sweeper claims beside it;
//   - TestCallbackReceiverDownThenUp: a callback receiver that refuses connections, then answers;
//   - TestSlackDuplicates: a click replayed, the same event_id redelivered with X-Slack-Retry-Num,
//     concurrently and across a restart of the bot.
//
// Databases follow the repository's convention (storage/storagetest): SQLite always, PostgreSQL
// too when TEST_DATABASE_URL is set, and then it must be reachable. The one fault that only
// exists on PostgreSQL (killed connections) skips, saying why, when TEST_DATABASE_URL is unset;
// CI (.ci/run) always sets it, so it always runs there. It only terminates the backends of the
// test's own database, since other packages' tests share the cluster.
//
// The fake Slack (which answers conversations.history and conversations.replies, the lookups of
// a retried post, itself) sits behind a proxy of the tests' own (switch_test.go) that refuses
// connections, cuts them, holds Slack's answers to chat.postMessage and counts calls.
// FAULT_LOG_DIR=<dir> keeps every bot process's log there.
//
// Longer variants stay out of the default run:
//
//   - FAULT_SOAK=1 loads PostgreSQL for 60 s instead of 10 s, and the crash test waits for the
//     dispatcher's default one-minute lease instead of shortening it with BOT_DELIVERY_LEASE;
//   - FAULT_PG_RESTART=<version>/<cluster> (e.g. 15/main) also restarts that PostgreSQL cluster
//     with pg_ctlcluster in the middle of the load. It stops every connection of the cluster,
//     other tests' included: use it on a cluster of its own, never beside a running test suite.
package faulttest
