package testkit

// Waiting for an event the test cannot be told of directly (a row in a store, a line in a log, a
// gauge): a condition looked at again and again, failing only after a bound no healthy machine
// reaches, so that a slow machine makes a test slower, never wrong.

import "time"

// Fataler is what Eventually needs of a *testing.T or *testing.B (testing.TB has both methods);
// the interface keeps the package free of the testing package, which the benchmark binary links.
type Fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// poll is how often Eventually looks: often enough that a test hardly waits past the event,
// seldom enough that looking (a query, an HTTP request) does not load the machine.
const poll = 10 * time.Millisecond

// Eventually returns once cond holds, looking every few milliseconds, and fails t (saying what
// was awaited) when within passes first.
func Eventually(t Fataler, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			if !cond() {
				t.Fatalf("%s: not within %s", what, within)
			}
			return
		case <-tick.C:
		}
	}
}
