package inquiry_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/dispatch"
)

// channelFake is one channel's transport, recording what it was asked to do; fail, when set,
// answers every post.
type channelFake struct {
	name                       string
	mu                         sync.Mutex
	posted, updated, reminders []string
	fail                       error
}

func (f *channelFake) Post(_ context.Context, rec *inquiry.Record) (inquiry.Posted, error) {
	if f.fail != nil {
		return inquiry.Posted{}, f.fail
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posted = append(f.posted, rec.Key)
	return inquiry.Posted{Place: f.name + "-place", ID: fmt.Sprintf("%s-%d", f.name, len(f.posted))}, nil
}

func (f *channelFake) Update(_ context.Context, rec *inquiry.Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.updated = append(f.updated, rec.Key)
	return nil
}

func (f *channelFake) Notice(context.Context, *inquiry.Record) error { return nil }

func (f *channelFake) Remind(_ context.Context, rec *inquiry.Record, n int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reminders = append(f.reminders, fmt.Sprintf("%s#%d", rec.Key, n))
	return nil
}

func (f *channelFake) count(what *[]string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(*what)
}

// fanOut is a service with Slack, Teams and email seated as fakes, and a dispatcher over them.
type fanOut struct {
	*bundle
	slack, teams, email *channelFake
	d                   *dispatch.Dispatcher
}

func setupFanOut(t *testing.T) *fanOut {
	b := setup(t)
	f := &fanOut{bundle: b, slack: &channelFake{name: "slack"}, teams: &channelFake{name: "teams"}, email: &channelFake{name: "email"}}
	b.svc.Transports.Register(inquiry.TransportSlack, f.slack)
	b.svc.Transports.Register(inquiry.TransportTeams, f.teams)
	b.svc.Transports.Register(inquiry.TransportEmail, f.email)
	b.svc.Log = quietLog
	f.d = &dispatch.Dispatcher{Store: b.store, Handlers: b.svc.TransportHandlers(), Now: b.clock.Now}
	return f
}

func (f *fanOut) drain(t *testing.T) {
	t.Helper()
	_, err := f.d.Drain(f.ctx)
	require.NoError(t, err)
}

var (
	slackIn = &inquiry.SlackTarget{Channel: "C1"}
	teamsIn = &inquiry.TeamsTarget{Conversation: "19:c@thread.tacv2", ServiceURL: "https://smba.example/teams/"}
	emailIn = &inquiry.EmailTarget{To: []string{"alice@example.com"}}
)

// The channels of an inquiry: its transport first, then each channel its objects name, once, in
// the order slack, teams, email; the first one named is the transport when nothing else names it.
func TestChannelsAreTheTransportThenEveryOneNamed(t *testing.T) {
	for _, tc := range []struct {
		name             string
		transport        string // config.transport of the request
		serverDefault    string
		slack            *inquiry.SlackTarget
		teams            *inquiry.TeamsTarget
		email            *inquiry.EmailTarget
		wantTransport    string
		wantChannels     []string
		wantSlackChannel string
	}{
		{name: "slack alone", slack: slackIn, wantTransport: "slack", wantChannels: []string{"slack"}, wantSlackChannel: "C1"},
		{name: "teams alone", teams: teamsIn, wantTransport: "teams", wantChannels: []string{"teams"}},
		{name: "email alone", email: emailIn, wantTransport: "email", wantChannels: []string{"email"}},
		{name: "slack and teams", slack: slackIn, teams: teamsIn, wantTransport: "slack", wantChannels: []string{"slack", "teams"}, wantSlackChannel: "C1"},
		{name: "teams and email", teams: teamsIn, email: emailIn, wantTransport: "teams", wantChannels: []string{"teams", "email"}},
		{name: "all three", slack: slackIn, teams: teamsIn, email: emailIn, wantTransport: "slack", wantChannels: []string{"slack", "teams", "email"}, wantSlackChannel: "C1"},
		{name: "transport teams first", transport: "teams", slack: slackIn, teams: teamsIn, wantTransport: "teams", wantChannels: []string{"teams", "slack"}, wantSlackChannel: "C1"},
		{name: "transport email, others named", transport: "email", slack: slackIn, teams: teamsIn, email: emailIn, wantTransport: "email", wantChannels: []string{"email", "slack", "teams"}, wantSlackChannel: "C1"},
		{name: "transport slack, default channel", transport: "slack", wantTransport: "slack", wantChannels: []string{"slack"}, wantSlackChannel: "CDEF"},
		{name: "transport slack and a teams object", transport: "slack", teams: teamsIn, wantTransport: "slack", wantChannels: []string{"slack", "teams"}, wantSlackChannel: "CDEF"},
		{name: "server default slack, teams named", serverDefault: "slack", teams: teamsIn, wantTransport: "teams", wantChannels: []string{"teams"}},
		{name: "server default slack, nothing named", serverDefault: "slack", wantTransport: "slack", wantChannels: []string{"slack"}, wantSlackChannel: "CDEF"},
		{name: "slack object without a channel names no channel", slack: &inquiry.SlackTarget{Answerers: []string{"U1"}}, teams: teamsIn, wantTransport: "teams", wantChannels: []string{"teams"}},
		{name: "inbox", transport: "inbox", wantTransport: "inbox", wantChannels: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := setupFanOut(t)
			f.svc.DefaultChannel, f.svc.DefaultTransport = "CDEF", tc.serverDefault
			req := ask(inquiry.PolicyAsk, merge())
			req.Config.Transport = tc.transport
			req.Slack, req.Teams, req.Email = tc.slack, tc.teams, tc.email
			rec, _, err := f.svc.Ask(f.ctx, req)
			require.NoError(t, err)
			require.Equal(t, tc.wantTransport, rec.Config.Transport)
			require.Equal(t, tc.wantChannels, rec.Channels)
			require.Equal(t, tc.wantSlackChannel, rec.Slack.Channel)

			read, err := f.svc.Get(f.ctx, rec.Key)
			require.NoError(t, err)
			require.Equal(t, tc.wantChannels, read.Channels, "stored and read back")

			f.drain(t)
			for _, ch := range []*channelFake{f.slack, f.teams, f.email} {
				want := 0
				for _, c := range tc.wantChannels {
					if c == ch.name {
						want = 1
					}
				}
				require.Equal(t, want, ch.count(&ch.posted), "posts on %s", ch.name)
			}
		})
	}
}

// The inbox shows the question nowhere: an inquiry put there that names channels is refused in one
// sentence that says how to post to them.
func TestTheInboxWithChannelsIsRefused(t *testing.T) {
	f := setupFanOut(t)
	req := ask(inquiry.PolicyAsk, merge())
	req.Config.Transport = inquiry.TransportInbox
	req.Slack, req.Teams = slackIn, teamsIn
	_, _, err := f.svc.Ask(f.ctx, req)
	require.Error(t, err)
	require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err))
	var e *inquiry.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "config.transport", e.Field)
	require.Contains(t, err.Error(), "slack and teams")
	require.Contains(t, err.Error(), "leave config.transport out to post to each channel named")
	require.Zero(t, strings.Count(e.Message, ". "), "one sentence: %s", e.Message)
}

// Every channel named must be seated: one nobody seated is refused at create, naming the fix,
// before anything is posted anywhere.
func TestAChannelNobodySeatedIsRefused(t *testing.T) {
	f := setupFanOut(t)
	f.svc.Transports.Release(inquiry.TransportTeams)
	req := ask(inquiry.PolicyAsk, merge())
	req.Slack, req.Teams = slackIn, teamsIn
	_, _, err := f.svc.Ask(f.ctx, req)
	require.Equal(t, inquiry.CodeUnavailable, inquiry.ErrorCode(err), "%v", err)
	require.Contains(t, err.Error(), `"teams"`)
	f.drain(t)
	require.Zero(t, f.slack.count(&f.slack.posted))
}

// A quorum counts the people named on every channel: one Slack person and one Teams person make
// two approvals; a channel that names nobody leaves the count open.
func TestQuorumCountsAnswerersAcrossChannels(t *testing.T) {
	confirm := func(n int) inquiry.Inquiry {
		return inquiry.Inquiry{ID: fmt.Sprintf("deploy-%d", n), Kind: inquiry.KindConfirm, Question: "Deploy?", Approval: inquiry.Approval{Approvals: &n}}
	}
	for _, tc := range []struct {
		name  string
		n     int
		slack *inquiry.SlackTarget
		teams *inquiry.TeamsTarget
		email *inquiry.EmailTarget
		says  string // "" for accepted
	}{
		{"one in Slack, one in Teams", 2, &inquiry.SlackTarget{Channel: "C1", Answerers: []string{"U1"}}, &inquiry.TeamsTarget{Conversation: "c", Answerers: []string{"aad-1"}}, nil, ""},
		{"three asked of two", 3, &inquiry.SlackTarget{Channel: "C1", Answerers: []string{"U1"}}, &inquiry.TeamsTarget{Conversation: "c", Answerers: []string{"aad-1"}}, nil,
			"approvals 3 is more than the 2 people slack.answerers and teams.answerers allow: ask for at most 2, or add answerers"},
		{"email recipients count", 3, &inquiry.SlackTarget{Channel: "C1", Answerers: []string{"U1"}}, nil, &inquiry.EmailTarget{To: []string{"a@example.com", "b@example.com"}}, ""},
		{"Teams names nobody", 3, &inquiry.SlackTarget{Channel: "C1", Answerers: []string{"U1"}}, &inquiry.TeamsTarget{Conversation: "c"}, nil, ""},
		{"Slack alone, as before", 2, &inquiry.SlackTarget{Channel: "C1", Answerers: []string{"U1"}}, nil, nil,
			"approvals 2 is more than the 1 people slack.answerers allows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := setupFanOut(t)
			req := ask(inquiry.PolicyAsk, confirm(tc.n))
			req.Slack, req.Teams, req.Email = tc.slack, tc.teams, tc.email
			_, _, err := f.svc.Ask(f.ctx, req)
			if tc.says == "" {
				require.NoError(t, err)
				return
			}
			require.Equal(t, inquiry.CodeInvalidInquiry, inquiry.ErrorCode(err), "%v", err)
			require.Contains(t, err.Error(), tc.says)
		})
	}
}

// One inquiry to Slack and Teams: posted on both (Slack's in the slack fields, Teams' as a step-0
// placement), two votes from the two channels resolve it, and both messages are updated.
func TestFanOutSettlesEveryChannel(t *testing.T) {
	f := setupFanOut(t)
	two := 2
	in := inquiry.Inquiry{ID: "deploy", Kind: inquiry.KindConfirm, Question: "Deploy?", Approval: inquiry.Approval{Approvals: &two}}
	req := ask(inquiry.PolicyAsk, in)
	req.Config.Transport = inquiry.TransportTeams // Slack's post is Slack's all the same
	req.Slack = &inquiry.SlackTarget{Channel: "C1", Answerers: []string{"U1"}}
	req.Teams = &inquiry.TeamsTarget{Conversation: "19:c@thread.tacv2", Answerers: []string{"aad-1"}}
	rec, _, err := f.svc.Ask(f.ctx, req)
	require.NoError(t, err)
	f.drain(t)
	f.drain(t) // a retried post finds it shown and posts nothing twice

	rec, err = f.svc.Get(f.ctx, rec.Key)
	require.NoError(t, err)
	require.Equal(t, []string{rec.Key}, f.slack.posted)
	require.Equal(t, []string{rec.Key}, f.teams.posted)
	require.Equal(t, "slack-1", rec.Slack.TS, "Slack's post stays in the slack fields")
	require.Equal(t, []inquiry.Placement{{Step: 0, Via: "teams", Channel: "teams-place", TS: "teams-1"}}, rec.Placements)
	where, ok := rec.PostedOn(inquiry.TransportTeams)
	require.True(t, ok)
	require.Equal(t, "teams-1", where.ID)

	evs, err := f.store.InquiryEvents(f.ctx, rec.Key)
	require.NoError(t, err)
	var posted []string
	for _, e := range evs {
		if e.Type == inquiry.EventPosted {
			posted = append(posted, e.By+": "+e.Summary())
		}
	}
	require.ElementsMatch(t, []string{"slack: in slack-place, ts slack-1", "teams: on teams, in teams-place, ts teams-1"}, posted)

	_, err = f.svc.Answer(f.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("yes")}, inquiry.Identity{Channel: inquiry.ChannelTeams, ID: "aad-1"})
	require.NoError(t, err)
	f.drain(t) // the tally, on both
	require.Equal(t, 1, f.slack.count(&f.slack.updated))
	require.Equal(t, 1, f.teams.count(&f.teams.updated))

	out, err := f.svc.Answer(f.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("yes")}, inquiry.SlackUser("U1", nil))
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusAnswered, out.Status, "one Teams and one Slack approval are two distinct people")
	require.Len(t, out.Answer.Votes, 2)
	f.drain(t)
	require.Equal(t, 2, f.slack.count(&f.slack.updated), "the Slack message shows the outcome")
	require.Equal(t, 2, f.teams.count(&f.teams.updated), "the Teams card shows the outcome")
}

// A channel that cannot take the post fails the inquiry (fail closed), and the failure names it:
// part of the audience cannot be reached, and the asker hears it at once.
func TestAFatalPostOnOneChannelFailsTheInquiry(t *testing.T) {
	f := setupFanOut(t)
	f.teams.fail = inquiry.Unavailable("the bot is not in conversation 19:c: add it to the team, then ask again")
	req := ask(inquiry.PolicyAsk, merge())
	req.Slack, req.Teams = slackIn, teamsIn
	rec, _, err := f.svc.Ask(f.ctx, req)
	require.NoError(t, err)
	f.drain(t)
	f.drain(t)
	rec, err = f.svc.Get(f.ctx, rec.Key)
	require.NoError(t, err)
	require.Equal(t, inquiry.StatusFailed, rec.Status)
	require.Equal(t, "teams: the bot is not in conversation 19:c: add it to the team, then ask again", rec.Failure.Message)
	require.True(t, rec.Failure.Fatal)
	require.Equal(t, 1, f.slack.count(&f.slack.updated), "the Slack message says it failed")
}

// Reminders go to each channel, each in the lane of that channel's post; a channel that never
// showed the question reminds nobody of it.
func TestRemindersGoToEveryChannel(t *testing.T) {
	f := setupFanOut(t)
	in := merge()
	at := f.clock.Now().Add(time.Hour)
	in.ExpiresAt = &at
	in.Remind = []inquiry.Duration{inquiry.Duration(30 * time.Minute)}
	req := ask(inquiry.PolicyAsk, in)
	req.Slack, req.Teams = slackIn, teamsIn
	rec, _, err := f.svc.Ask(f.ctx, req)
	require.NoError(t, err)

	f.clock.Add(31 * time.Minute)
	w := f.svc.PlanDeadlines(rec, f.clock.Now())
	var targets, lanes []string
	for _, d := range w.Deliveries {
		require.Equal(t, inquiry.DeliverRemind, d.Kind)
		targets, lanes = append(targets, d.Target), append(lanes, d.Lane)
	}
	require.Equal(t, []string{"slack", "teams"}, targets)
	require.Equal(t, []string{"C1", rec.Key + "/teams"}, lanes, "a channel's pacing never holds another's")

	remind := f.svc.TransportHandlers()[inquiry.DeliverRemind]
	require.NoError(t, remind(f.ctx, inquiry.Delivery{Kind: inquiry.DeliverRemind, InquiryKey: rec.Key, Target: "teams", Step: 1}))
	require.Zero(t, f.teams.count(&f.teams.reminders), "never shown on Teams: nobody to remind there")

	f.drain(t) // the posts
	require.NoError(t, remind(f.ctx, inquiry.Delivery{Kind: inquiry.DeliverRemind, InquiryKey: rec.Key, Target: "teams", Step: 1}))
	require.Equal(t, []string{rec.Key + "#1"}, f.teams.reminders)
}

// TestPostedOnReadsOldAndNewRecords: a record stored before Channels kept its transport's post in
// the slack fields, whichever channel that was; a record since keeps only Slack's there.
func TestPostedOnReadsOldAndNewRecords(t *testing.T) {
	slackFields := inquiry.SlackRef{Channel: "19:c@thread.tacv2", TS: "1700000000001"}
	for _, c := range []struct {
		name      string
		rec       inquiry.Record
		slack, tm bool
	}{
		{"old Teams record", inquiry.Record{Config: inquiry.Config{Transport: inquiry.TransportTeams}, Slack: slackFields}, false, true},
		{"old Slack record", inquiry.Record{Config: inquiry.Config{Transport: inquiry.TransportSlack}, Slack: slackFields}, true, false},
		{"new Teams record", inquiry.Record{Config: inquiry.Config{Transport: inquiry.TransportTeams}, Channels: []string{"teams", "slack"}, Slack: slackFields}, true, false},
		{"new Teams record posted", inquiry.Record{Config: inquiry.Config{Transport: inquiry.TransportTeams}, Channels: []string{"teams"},
			Placements: []inquiry.Placement{{Via: "teams", Channel: "19:c@thread.tacv2", TS: "1"}}}, false, true},
		{"an escalation is not the question", inquiry.Record{Config: inquiry.Config{Transport: inquiry.TransportTeams}, Channels: []string{"teams"},
			Placements: []inquiry.Placement{{Step: 1, Via: "teams", Channel: "19:c@thread.tacv2", TS: "1"}}}, false, false},
	} {
		_, slack := c.rec.PostedOn(inquiry.TransportSlack)
		_, tm := c.rec.PostedOn(inquiry.TransportTeams)
		if slack != c.slack || tm != c.tm {
			t.Errorf("%s: posted on slack %v, teams %v; want %v, %v", c.name, slack, tm, c.slack, c.tm)
		}
	}
}
