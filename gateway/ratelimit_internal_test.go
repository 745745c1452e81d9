package gateway

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/inquiry"
)

// clock is a limiter's time, moved by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func testLimiter(l RateLimits) (*limiter, *clock) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	lim := newLimiter(l)
	lim.now = c.now
	return lim, c
}

// retrySeconds is the Retry-After of a refusal, requiring it is rate_limited.
func retrySeconds(t *testing.T, err error) int {
	t.Helper()
	require.Equal(t, inquiry.CodeRateLimited, inquiry.ErrorCode(err), "err: %v", err)
	return retryAfterOf(err)
}

func TestLimiterDefaults(t *testing.T) {
	l, clk := testLimiter(RateLimits{})
	tok := &inquiry.Token{ID: "t1", Name: "agent"}
	// The default burst of 100 goes through at one instant; the 101st waits a tenth of a second
	// (10/s), which Retry-After rounds up to 1 s.
	for i := range DefaultBurst {
		require.NoError(t, l.create(tok), "create %d", i+1)
	}
	err := l.create(tok)
	require.Equal(t, 1, retrySeconds(t, err))
	require.Equal(t, `token "agent" is over its limit of creates and answers (10 a second, in bursts of up to 100): retry in 1 s`, inquiry.ErrorMessage(err))
	clk.advance(101 * time.Millisecond)
	require.NoError(t, l.create(tok), "a tenth of a second later, one more")
	require.Error(t, l.create(tok))
	// A refused create costs nothing: after a whole second, ten go through.
	clk.advance(time.Second)
	for i := range 10 {
		require.NoError(t, l.create(tok), "create %d after a second", i+1)
	}
	// The default cap of 1000 long-polls.
	var release []func()
	for i := range DefaultMaxWaiters {
		r, err := l.hold(tok)
		require.NoError(t, err, "long-poll %d", i+1)
		release = append(release, r)
	}
	_, err = l.hold(tok)
	require.Equal(t, 1, retrySeconds(t, err))
	release[0]()
	release[0]() // letting go twice frees one place, not two
	r, err := l.hold(tok)
	require.NoError(t, err)
	_, err = l.hold(tok)
	require.Error(t, err)
	r()
}

func TestLimiterRetryAfter(t *testing.T) {
	l, _ := testLimiter(RateLimits{Rate: rate.Every(time.Minute), Burst: 2})
	tok := &inquiry.Token{ID: "t1", Name: "agent"}
	require.NoError(t, l.create(tok))
	require.NoError(t, l.create(tok))
	err := l.create(tok)
	require.Equal(t, 60, retrySeconds(t, err), "one a minute: the next in a minute")
	require.Contains(t, inquiry.ErrorMessage(err), "1 a minute, in bursts of up to 2")
}

func TestLimiterOffAndNoCap(t *testing.T) {
	l, _ := testLimiter(RateLimits{Rate: rate.Inf, MaxWaiters: -1, AddressRate: rate.Inf})
	tok := &inquiry.Token{ID: "t1", Name: "agent"}
	for range 10 * DefaultBurst {
		require.NoError(t, l.create(tok))
		require.NoError(t, l.anonymous("192.0.2.1"))
	}
	for range 2 * DefaultMaxWaiters {
		_, err := l.hold(tok)
		require.NoError(t, err)
	}
	require.Zero(t, l.addresses.Len(), "no limit keeps no entry")
}

// An attacker rotating addresses cannot grow the table past its cap: addresses past it share
// one bucket, and idle entries are dropped once their bucket has refilled.
func TestLimiterTableBounded(t *testing.T) {
	l, clk := testLimiter(RateLimits{AddressRate: 10, AddressBurst: 5, MaxKeys: 100})
	admitted := 0
	for i := range 10_000 {
		if l.anonymous(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}).String()) == nil {
			admitted++
		}
	}
	require.LessOrEqual(t, l.addresses.Len(), 100)
	// 100 addresses with a bucket of their own, and the shared bucket's burst.
	require.Equal(t, 100+5, admitted)
	// Known addresses keep their own bucket; a new one meets the shared, empty one.
	require.NoError(t, l.anonymous("10.0.0.1"))
	require.Error(t, l.anonymous("192.0.2.7"))
	// A second later every bucket has refilled: idle entries go, and room is made.
	clk.advance(time.Second)
	require.NoError(t, l.anonymous("192.0.2.7"))
	require.Equal(t, 1, l.addresses.Len(), "idle entries are dropped")
	// An entry whose bucket is not full, or that holds a long-poll, is not idle.
	tl, tclk := testLimiter(RateLimits{Rate: 10, Burst: 5, MaxKeys: 2})
	held, err := tl.hold(&inquiry.Token{ID: "a", Name: "a"})
	require.NoError(t, err)
	require.NoError(t, tl.create(&inquiry.Token{ID: "b", Name: "b"}))
	tclk.advance(2 * time.Minute)
	require.NoError(t, tl.create(&inquiry.Token{ID: "c", Name: "c"}))
	require.True(t, tl.tokens.Has("a"), "a token holding a long-poll keeps its entry")
	require.False(t, tl.tokens.Has("b"))
	held()
}

// One client of IPv6 has a /64 to itself: its addresses share one bucket.
func TestLimiterIPv6Prefix(t *testing.T) {
	l, _ := testLimiter(RateLimits{AddressRate: rate.Every(time.Minute), AddressBurst: 3})
	for i := range 3 {
		require.NoError(t, l.anonymous(fmt.Sprintf("2001:db8:1:2::%x", i+1)))
	}
	err := l.anonymous("2001:db8:1:2:ffff::1")
	require.Contains(t, inquiry.ErrorMessage(err), "2001:db8:1:2::/64")
	require.NoError(t, l.anonymous("2001:db8:1:3::1"), "another /64 is another client")
	// An IPv4-mapped address is its IPv4 address.
	require.NoError(t, l.anonymous("::ffff:192.0.2.1"))
	require.NoError(t, l.anonymous("192.0.2.1"))
	require.NoError(t, l.anonymous("192.0.2.1"))
	require.Error(t, l.anonymous("::ffff:192.0.2.1"))
}
