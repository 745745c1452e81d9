// Package slackfaketest starts a fake Slack (slackfake) for a test, in one line: the fake is
// closed when the test ends, what it logs goes to the test's log, what goes wrong inside it fails
// the test, and so does every delivery the app did not ack within Slack's time — "acked in time"
// is checked in every test — unless the test took it (Server.TakeTimeouts) to say it expected it.
package slackfaketest

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// New starts a fake Slack as Slack is (slackfake.Options{}) for the test.
func New(t testing.TB) *slackfake.Server {
	t.Helper()
	return NewWith(t, slackfake.Options{})
}

// NewWith starts a fake Slack with options for the test. Without a Logger, the fake logs to the
// test's log, and what it logs at Error fails the test.
func NewWith(t testing.TB, o slackfake.Options) *slackfake.Server {
	t.Helper()
	h := &handler{t: t, state: &state{}}
	if o.Logger == nil {
		o.Logger = slog.New(h)
	}
	s := slackfake.New(o)
	t.Cleanup(func() {
		s.Close()
		h.state.end()
		for _, to := range s.TakeTimeouts() {
			t.Errorf("slackfake: %s (a test that expects it takes it with TakeTimeouts)", to)
		}
	})
	return s
}

// state is shared by a handler and its derivatives: after the test ends nothing is logged (a
// straggling goroutine of the fake must not log into a finished test).
type state struct {
	mu    sync.Mutex
	ended bool
}

func (s *state) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
}

// handler writes the fake's log records to the test's log, failing the test on Error.
type handler struct {
	t      testing.TB
	state  *state
	attrs  string // formatted, from WithAttrs
	prefix string // of attribute keys, from WithGroup
}

func (h *handler) Enabled(context.Context, slog.Level) bool { return true }

func (h *handler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	b.WriteString(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s%s=%v", h.prefix, a.Key, a.Value)
		return true
	})
	h.state.mu.Lock()
	defer h.state.mu.Unlock()
	if h.state.ended {
		return nil
	}
	if r.Level >= slog.LevelError {
		h.t.Errorf("%s", b.String())
	} else {
		h.t.Logf("%s", b.String())
	}
	return nil
}

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	var b strings.Builder
	for _, a := range attrs {
		fmt.Fprintf(&b, " %s%s=%v", h.prefix, a.Key, a.Value)
	}
	c.attrs += b.String()
	return &c
}

func (h *handler) WithGroup(name string) slog.Handler {
	c := *h
	c.prefix = h.prefix + name + "."
	return &c
}
