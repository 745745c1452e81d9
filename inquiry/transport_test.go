package inquiry_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// pureTransport is a transport that does nothing; tests tell seats apart by its name.
type pureTransport struct{ name string }

func (*pureTransport) Post(context.Context, *inquiry.Record) (inquiry.Posted, error) {
	return inquiry.Posted{}, nil
}
func (*pureTransport) Update(context.Context, *inquiry.Record) error { return nil }
func (*pureTransport) Notice(context.Context, *inquiry.Record) error { return nil }

var (
	_ inquiry.Transport = (*pureTransport)(nil)
	_ inquiry.Transport = inquiry.Inbox{}
)

func TestRegistryInboxAlwaysSeated(t *testing.T) {
	t.Parallel()
	r := inquiry.NewRegistry()

	require.True(t, r.Has(inquiry.TransportInbox))
	require.Equal(t, []string{inquiry.TransportInbox}, r.Keys())
	tr, err := r.Lookup(inquiry.TransportInbox)
	require.NoError(t, err)
	require.Equal(t, inquiry.Inbox{}, tr)

	r.Release(inquiry.TransportInbox)
	require.True(t, r.Has(inquiry.TransportInbox), "releasing the inbox is a no-op")
	r.Register(inquiry.TransportInbox, nil)
	require.True(t, r.Has(inquiry.TransportInbox), "seating nil on the inbox is a no-op")
	_, err = r.Lookup(inquiry.TransportInbox)
	require.NoError(t, err)
}

func TestRegistryRegisterReleaseHasLookup(t *testing.T) {
	t.Parallel()
	r := inquiry.NewRegistry()
	slack := &pureTransport{name: "slack"}

	require.False(t, r.Has(inquiry.TransportSlack))
	r.Register(inquiry.TransportSlack, slack)
	require.True(t, r.Has(inquiry.TransportSlack))
	require.Equal(t, []string{"inbox", "slack"}, r.Keys())
	got, err := r.Lookup(inquiry.TransportSlack)
	require.NoError(t, err)
	require.Same(t, slack, got)

	again := &pureTransport{name: "slack again"}
	r.Register(inquiry.TransportSlack, again)
	got, err = r.Lookup(inquiry.TransportSlack)
	require.NoError(t, err)
	require.Same(t, again, got, "register replaces what sat there")

	r.Release(inquiry.TransportSlack)
	require.False(t, r.Has(inquiry.TransportSlack))
	require.Equal(t, []string{"inbox"}, r.Keys())
	_, err = r.Lookup(inquiry.TransportSlack)
	require.ErrorIs(t, err, inquiry.ErrUnavailable)

	r.Release("never-seated") // releasing a free seat is harmless
	require.Equal(t, []string{"inbox"}, r.Keys())
}

func TestRegistryRegisterNilReleases(t *testing.T) {
	t.Parallel()
	r := inquiry.NewRegistry()
	r.Register("teams", &pureTransport{name: "teams"})
	r.Register("teams", nil)

	require.False(t, r.Has("teams"))
	tr, err := r.Lookup("teams")
	require.Nil(t, tr)
	require.ErrorIs(t, err, inquiry.ErrUnavailable, "a nil seat must never look like a transport")
}

func TestRegistryLookupUnseated(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name   string
		key    string
		wantIn []string
	}{
		{"slack, not configured", inquiry.TransportSlack, []string{"slack transport is not configured", "do not retry", `use transport "inbox"`}},
		{"a key nobody seated", "teams", []string{`no transport "teams" is available`, "seated: [inbox mail]", "do not retry"}},
		{"the empty key", "", []string{`no transport "" is available`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := inquiry.NewRegistry()
			r.Register("mail", &pureTransport{name: "mail"})

			done := make(chan error, 1)
			go func() {
				_, err := r.Lookup(tc.key)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Lookup waited for a seat; it must fail at once")
			}

			require.ErrorIs(t, err, inquiry.ErrUnavailable)
			require.True(t, inquiry.Fatal(err), "a missing transport stops every retry loop")
			require.Equal(t, inquiry.CodeUnavailable, inquiry.ErrorCode(err))
			msg := inquiry.ErrorMessage(err)
			require.NotContains(t, msg, "\n")
			for _, want := range tc.wantIn {
				require.Contains(t, msg, want)
			}
		})
	}
}

func TestRegistryLookupDoesNotWaitForALaterSeat(t *testing.T) {
	t.Parallel()
	r := inquiry.NewRegistry()
	_, err := r.Lookup("later")
	require.ErrorIs(t, err, inquiry.ErrUnavailable)

	r.Register("later", &pureTransport{name: "later"})
	_, err = r.Lookup("later")
	require.NoError(t, err, "a seat taken after a miss is found by the next lookup")
}

func TestInboxDoesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := &inquiry.Record{Key: "inq_1"}
	var inbox inquiry.Inbox

	ref, err := inbox.Post(ctx, rec)
	require.NoError(t, err)
	require.Equal(t, inquiry.Posted{}, ref)
	require.NoError(t, inbox.Update(ctx, rec))
	require.NoError(t, inbox.Notice(ctx, rec))
}

// Run with -race: a registry wired before serving is read by every request and delivery at
// once (it takes no lock: only its wiring writes).
func TestRegistryWiredIsReadConcurrently(t *testing.T) {
	t.Parallel()
	r := inquiry.NewRegistry()
	for i := range 2 {
		key := fmt.Sprintf("t%d", i)
		r.Register(key, &pureTransport{name: key})
	}

	const workers, rounds = 8, 200
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			key := fmt.Sprintf("t%d", w%3) // t2 was never seated
			for range rounds {
				tr, err := r.Lookup(key)
				switch {
				case key == "t2" && !inquiry.Fatal(err):
					t.Errorf("Lookup(%q) of a free seat: %v, want a fatal error", key, err)
					return
				case key != "t2" && (err != nil || tr == nil):
					t.Errorf("Lookup(%q) = %v, %v", key, tr, err)
					return
				}
				if r.Has(key) == (key == "t2") || len(r.Keys()) != 3 {
					t.Errorf("Has(%q) or Keys() %v wrong", key, r.Keys())
					return
				}
			}
		})
	}
	wg.Wait()
}
