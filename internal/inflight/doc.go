// Package inflight shares one piece of work in progress, by key, with the callers that ask for
// the same key while it runs: the first caller runs it, the others wait for its outcome instead
// of repeating it. The service uses it for a person's answer to an inquiry: when forty people
// press one Slack message at once, one answer reaches the database and the other thirty-nine are
// told its outcome, rather than each holding a transaction open on the inquiry's row lock only
// to find it resolved (cmd/benchmark row 9: on PostgreSQL the ack takes about twice as long
// without it).
//
// The lifecycle of one key:
//
//	Do(key) ──► no flight for key ──► register it ──► run fn ──► publish outcome ──► forget key
//	   │                                   (the leader)   │ a panic in fn publishes ErrNoOutcome,
//	   │                                                  │ forgets the key and panics on
//	   └──► a flight for key ──► wait ──┬── its outcome (shared)
//	                                    └── ctx ends first: ctx.Err() (shared)
//
// Nothing outlives a flight: a key is held only while its leader runs, so a Group needs no
// closing, no sweeping and no bound beyond the callers running at once. It is per process: two
// replicas do not share flights, and the store's conditional update still decides between them.
//
// golang.org/x/sync/singleflight does nearly this, but its DoChan re-raises a panic of fn in a
// goroutine of its own, ending the process, where here an answer that panics is recovered by the
// HTTP server like any other request and its waiters go on.
package inflight
