package slackapp

// The App Home: when a person opens the app's Home tab (app_home_opened, tab "home", over HTTP
// or Socket Mode alike), the app publishes (views.publish) the questions waiting for them and
// what they answered lately (blockkit.HomeView). Its buttons are the message's, so a click there
// answers through blockAction like a click in the channel.
//
// Refresh: the app remembers, per replica, who opened their Home tab in the last day (at most
// homeRecentMax people, the least recent forgotten first). When the message of an inquiry is
// updated (it resolved, or a vote changed its tally), the Home tab of each of them it waits for,
// or who voted in it, is published again in the background. A person whose app_home_opened
// reached another replica is refreshed there, or the next time they open the tab.

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// Answers finds what a person answered or voted in lately, the last first, at most limit. It is
// declared here, where it is used; the store implements it (storage.Store.AnsweredBy).
type Answers interface {
	AnsweredBy(ctx context.Context, who string, limit int) ([]*inquiry.Record, error)
}

// Bounds of the App Home.
const (
	// homeScan is how many pending questions, newest first, are read to find those waiting for
	// one person; past it the Home tab says older ones may wait too.
	homeScan = 500
	// homeWaiting bounds the questions kept for one Home tab: more than it shows, to count them.
	homeWaiting = 200
	// homeRecentMax and homeRecentTTL bound who gets refreshed: who opened the tab lately.
	homeRecentMax = 1000
	homeRecentTTL = 24 * time.Hour
	// homeTimeout bounds one refresh: the listing, the group lookups and views.publish.
	homeTimeout = 15 * time.Second
	// homeParallel bounds the refreshes running at once (views.publish is Tier 4).
	homeParallel = 4
)

// appHomeOpened serves app_home_opened: the Home tab of the person is published in the
// background, so the event is acked at once (Slack wants it within three seconds).
func (a *App) appHomeOpened(ctx context.Context, ev *slackevents.AppHomeOpenedEvent) {
	if ev.Tab != "home" || ev.User == "" {
		return // the Messages tab, or nobody
	}
	a.homes.opened(ev.User, a.now())
	a.refreshHome(ev.User)
}

// refreshHome publishes user's Home tab in the background. A refresh asked for while one runs
// for the same person runs once more after it, so the last state is the one shown.
func (a *App) refreshHome(user string) {
	if !a.homes.begin(user) {
		return
	}
	go func() {
		defer a.homes.wg.Done()
		for {
			a.homes.slots <- struct{}{}
			ctx, cancel := context.WithTimeout(context.Background(), homeTimeout)
			if err := a.publishHome(ctx, user); err != nil {
				a.log.WarnContext(ctx, "publish the home tab", "user", user, "err", err)
			}
			cancel()
			<-a.homes.slots
			if !a.homes.again(user) {
				return
			}
		}
	}()
}

// publishHome renders and publishes user's Home tab as things stand now.
func (a *App) publishHome(ctx context.Context, user string) error {
	h, err := a.homeOf(ctx, user)
	if err != nil {
		return err
	}
	for i, rec := range h.Waiting {
		// A proposal's "View all" and "Edit on the web" link to the answer page as in the
		// message, where the question has one (withPage).
		h.Waiting[i] = a.withPage(rec)
	}
	_, err = a.client.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: user, View: blockkit.HomeView(h, a.now())})
	return err
}

// homeOf gathers what user's Home tab shows: of the newest pending questions posted in Slack,
// those that name them among who may answer (inquiry.MayAnswer: themselves or a user group
// of theirs, and not requested by them), newest first; and what they answered lately. A question
// that names nobody may be answered by anyone in its channel but waits for no one in particular:
// it is not listed, as the channel may be one the person is not in.
func (a *App) homeOf(ctx context.Context, user string) (blockkit.Home, error) {
	h := blockkit.Home{User: user}
	f := inquiry.ListFilter{Status: inquiry.StatusPending, Limit: 100}
	for read := 0; read < homeScan; {
		recs, next, err := a.svc.List(ctx, f) // as they stand now: none past its expiry
		if err != nil {
			return h, err
		}
		read += len(recs)
		for _, rec := range recs {
			if _, ok := rec.PostedOn(inquiry.TransportSlack); !ok {
				continue // not in Slack (yet): nothing to link to, nowhere its buttons live
			}
			if p := a.permission(ctx, rec, user); p.Allowed && p.Named && len(h.Waiting) < homeWaiting {
				h.Waiting = append(h.Waiting, rec)
			}
		}
		if next == "" {
			break
		}
		if read >= homeScan {
			h.Unread = true
			break
		}
		f.Cursor = next
	}
	if a.answers != nil {
		recs, err := a.answers.AnsweredBy(ctx, user, blockkit.HomeAnswered)
		if err != nil {
			return h, err
		}
		h.Answered = recs
	}
	return h, nil
}

// refreshHomesFor refreshes the Home tab of each person who opened it lately and for whom rec
// matters: it waits for them, or they voted in it or answered it.
func (a *App) refreshHomesFor(ctx context.Context, rec *inquiry.Record) {
	for _, user := range a.homes.recent(a.now()) {
		if a.homeMatters(ctx, rec, user) {
			a.refreshHome(user)
		}
	}
}

// homeMatters reports whether rec shows in user's Home tab, or did: it waits for them, or they
// voted in it or answered it.
func (a *App) homeMatters(ctx context.Context, rec *inquiry.Record, user string) bool {
	by := func(v inquiry.Vote) bool { return v.By == user }
	if slices.ContainsFunc(rec.Votes, by) {
		return true
	}
	if rec.Answer != nil && (rec.Answer.AnsweredBy == user || slices.ContainsFunc(rec.Answer.Votes, by)) {
		return true
	}
	p := a.permission(ctx, rec, user)
	return p.Named
}

// homes is who opened their Home tab lately, and the refreshes running.
type homes struct {
	slots chan struct{} // homeParallel refreshes at once
	// wg counts the refreshes running; Close waits for them. Refreshes start from the
	// dispatcher's goroutines too, so each Add happens under mu while not closed: none can race
	// the final Wait.
	wg sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	seen    map[string]time.Time // user → when they last opened the tab
	running map[string]bool      // user → a refresh runs; true again when another was asked for
	pending map[string]bool
}

func newHomes() *homes {
	return &homes{slots: make(chan struct{}, homeParallel), seen: map[string]time.Time{},
		running: map[string]bool{}, pending: map[string]bool{}}
}

// opened records that user opened the tab at now, forgetting the least recent past the bound.
func (h *homes) opened(user string, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen[user] = now
	for len(h.seen) > homeRecentMax {
		oldest, at := "", now
		for u, t := range h.seen {
			if !t.After(at) {
				oldest, at = u, t
			}
		}
		delete(h.seen, oldest)
	}
}

// recent lists who opened the tab within homeRecentTTL of now, forgetting the others.
func (h *homes) recent(now time.Time) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for u, t := range h.seen {
		if now.Sub(t) > homeRecentTTL {
			delete(h.seen, u)
			continue
		}
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// begin reports whether a refresh of user should start (and counts it in wg); when one runs
// already, it is asked to run again instead; once closed, none starts.
func (h *homes) begin(user string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	if h.running[user] {
		h.pending[user] = true
		return false
	}
	h.running[user] = true
	h.wg.Add(1)
	return true
}

// close stops new refreshes and waits for those running.
func (h *homes) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.wg.Wait()
}

// again reports whether the refresh of user that just ended must run once more; otherwise it
// has ended.
func (h *homes) again(user string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pending[user] {
		delete(h.pending, user)
		return true
	}
	delete(h.running, user)
	return false
}
