package testkit

// A clock the tests of inquiry, scheduler and slackapp give the code under test in place of the
// wall clock, so that expiry, leases and signatures are judged at a time the test chose.

import (
	"sync"
	"time"
)

// Clock is a test clock that moves only when told. It is safe for concurrent use: the code under
// test reads it from its own goroutines (a dispatcher, every replica of a scheduler test) while
// the test moves it.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock is a clock that stands at now until it is moved.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

// Now is the clock's time; its method value stands in for time.Now.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock by d (back, when d is negative).
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
