package slackapp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// flakyFinder fails its first lookups, as a database that cannot be reached for a moment.
type flakyFinder struct {
	Finder
	fails atomic.Int32
}

func (f *flakyFinder) PendingInThread(ctx context.Context, channel, threadTS string, limit int) ([]*inquiry.Record, error) {
	if f.fails.Add(-1) >= 0 {
		return nil, &inquiry.Error{Code: inquiry.CodeStorageUnavailable, Message: "down", Err: errors.New("connection refused")}
	}
	return f.Finder.PendingInThread(ctx, channel, threadTS, limit)
}

// An event that could not be served is answered 500 and not remembered, so Slack's retry of it
// is served; once served, further retries are acked without serving it again.
func TestFailedEventIsServedOnRetry(t *testing.T) {
	ff := &flakyFinder{}
	ff.fails.Store(1)
	b := setup(t, func(c *Config) { ff.Finder = c.Finder; c.Finder = ff })
	rec := b.ask(mergeQuestion("retry"), inquiry.SlackRef{})

	r, err := b.fake.ReplyInThread("U0ALICE01", rec.Slack.Channel, rec.Slack.TS, "merge")
	require.NoError(t, err)
	require.Equal(t, http.StatusInternalServerError, r.Status)
	b.noAnswer(rec.Key)

	b.ok(b.fake.RedeliverLastEvent(1))
	require.Equal(t, "merge", b.resolved(rec.Key).Answer.Value.First())
	b.ok(b.fake.RedeliverLastEvent(2))
	b.settle()
	require.Empty(t, b.fake.Ephemerals("U0ALICE01"), "the retry after success is not served again")
}

// A modal submitted after somebody else answered closes with an ephemeral saying so.
func TestModalSubmittedAfterAnotherAnswer(t *testing.T) {
	b := setup(t)
	rec := b.ask(inquiry.Inquiry{ID: "race", Kind: inquiry.KindText, Question: "Codename?"}, inquiry.SlackRef{})
	b.click("U0ALICE01", rec, blockkit.ActionOpenText)
	b.ok(b.fake.ReplyInThread("U0BOB0001", rec.Slack.Channel, rec.Slack.TS, "Walrus"))
	require.Equal(t, "Walrus", b.resolved(rec.Key).Answer.Text)

	r := b.ok(b.fake.SubmitView("U0ALICE01", "", "Narwhal"))
	require.Nil(t, r.ViewErrors())
	_, open := b.fake.OpenView("U0ALICE01")
	require.False(t, open)
	require.Equal(t, `already answered by <@U0BOB0001>: “Walrus”`, b.ephemeral("U0ALICE01", 1).Text)
	require.Equal(t, "Walrus", b.get(rec.Key).Answer.Text)
}

// The gateway mounts the three endpoints on its gin engine.
func TestMountOnGin(t *testing.T) {
	b := setup(t)
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	b.app.Mount(r)
	srv := httptest.NewServer(r)
	defer srv.Close()
	b.fake.SetAppURL(srv.URL)

	rec := b.ask(mergeQuestion("gin"), inquiry.SlackRef{})
	b.click("U0ALICE01", rec, "Merge")
	require.Equal(t, "merge", b.resolved(rec.Key).Answer.Value.First())
	b.ok(b.fake.Command("U0ALICE01", rec.Slack.Channel, "/questions", ""))
	r2, err := b.fake.Send(PathEvents, "application/json", []byte(`not json`))
	require.NoError(t, err)
	require.Equal(t, http.StatusBadRequest, r2.Status, "signed but unreadable")
}

func TestEventLogIsBounded(t *testing.T) {
	l := newEventLog(2)
	require.Equal(t, eventNew, l.begin("Ev1"))
	require.Equal(t, eventInFlight, l.begin("Ev1"))
	l.end("Ev1", false)
	require.Equal(t, eventNew, l.begin("Ev1"), "a failed event may be served again")
	l.end("Ev1", true)
	require.Equal(t, eventServed, l.begin("Ev1"))
	for _, id := range []string{"Ev2", "Ev3"} {
		require.Equal(t, eventNew, l.begin(id))
		l.end(id, true)
	}
	require.Equal(t, eventNew, l.begin("Ev1"), "the oldest is forgotten past the bound")
	require.Equal(t, eventServed, l.begin("Ev3"))
}
