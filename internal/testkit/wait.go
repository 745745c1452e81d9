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

// Eventually looks again after a millisecond, then twice as long each time up to maxPoll: a
// test hardly waits past a quick event, and looking (a query, an HTTP request to a process)
// for a slow one does not load the machine.
const maxPoll = 100 * time.Millisecond

// Eventually returns once cond holds and fails t (saying what was awaited) when within passes
// first. cond runs on the caller's goroutine.
func Eventually(t Fataler, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	poll := time.NewTimer(time.Millisecond)
	defer poll.Stop()
	for wait := time.Millisecond; !cond(); wait = min(2*wait, maxPoll) {
		poll.Reset(wait)
		select {
		case <-deadline.C:
			if !cond() {
				t.Fatalf("%s: not within %s", what, within)
			}
			return
		case <-poll.C:
		}
	}
}
