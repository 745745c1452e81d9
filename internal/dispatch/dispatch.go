package dispatch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// Store is what the dispatcher needs of the store: claim due deliveries under a lease, and
// record each outcome.
type Store interface {
	ClaimDeliveriesEach(ctx context.Context, now time.Time, lease time.Duration, claims []inquiry.DeliveryClaim) ([][]inquiry.Delivery, error)
	CompleteDelivery(ctx context.Context, id int64, now time.Time) error
	RetryDelivery(ctx context.Context, id int64, next time.Time, lastErr string, now time.Time) error
	FailDelivery(ctx context.Context, id int64, lastErr string, now time.Time) error
	NoteFailure(ctx context.Context, key string, f inquiry.Failure) error
}

// Dispatcher carries out durable deliveries: it claims due ones with a lease, runs each lane's
// deliveries one after another in the order they were stored, and records the outcome. A
// dispatcher that dies mid-way loses nothing: its lease runs out and the deliveries are claimed
// again.
//
// Lanes run independently (the README's Limits: a slow receiver holds only its own deliveries):
// each lane claimed runs in a goroutine of its own, and the dispatcher goes on claiming while slow
// ones run — a callback whose receiver never answers holds its own goroutine for its timeout, never
// a Slack post. The lanes running at once are bounded per class of work (MaxLanes), so that a flood
// of slow receivers fills only the callbacks' share.
type Dispatcher struct {
	Store    Store
	Handlers map[inquiry.DeliveryKind]inquiry.DeliveryHandler
	Now      func() time.Time
	// Lease is how long a claim holds before another dispatcher may take the delivery again.
	Lease time.Duration
	// Batch is how many deliveries one claim takes (per class of work).
	Batch int
	// MaxLanes bounds the lanes of one class of work running at once in this process: deliveries
	// through transports (posts, updates, notices) and callbacks to receivers (callbacks, resumes)
	// have a bound each. A claim takes no more than there is room for. Default 256.
	MaxLanes int
	// MaxAttempts is when a delivery that keeps failing is given up (its error stays visible).
	MaxAttempts int
	// Poll is how often an idle dispatcher looks for due work nobody kicked it for.
	Poll time.Duration
	// Observe, when set, hears each outcome: "done", "retry", "rate_limited", "failed".
	Observe func(d inquiry.Delivery, outcome string, err error)
	Log     *slog.Logger

	once    sync.Once
	wake    chan struct{}
	kicked  [classes]atomic.Bool // the classes kicked, taken by Run's next claim
	laneEnd [classes]atomic.Bool // a lane of the class ended, and no claim of the class began since

	claiming sync.Mutex // one claim at a time, so that the bound of each class holds

	mu      sync.Mutex
	lanes   map[string]*lane // running in this process, by laneKey
	running [classes]int     // lanes registered, by class
	live    int              // lane goroutines not yet ended
	ended   *sync.Cond       // signalled when live drops to 0
	runs    int              // Run loops going
}

// class is a share of the dispatcher's lanes: work through transports, and callbacks to the
// asker's receivers, which anyone who asks can point at a receiver that never answers.
type class int

const (
	transportWork class = iota
	callbackWork
	classes
)

// classKinds are the kinds each class claims. A new inquiry.DeliveryKind must be added to one of
// them, or it is never claimed.
var classKinds = [classes][]inquiry.DeliveryKind{
	transportWork: {inquiry.DeliverPost, inquiry.DeliverUpdate, inquiry.DeliverTally, inquiry.DeliverNotice, inquiry.DeliverRemind, inquiry.DeliverEscalate, inquiry.DeliverRefresh},
	callbackWork:  {inquiry.DeliverCallback, inquiry.DeliverResume},
}

// lane is one lane running in this process: the delivery in flight and those claimed behind it.
// A claim that returns more of a lane running here hands them to it (see add) rather than
// starting the lane a second time beside itself.
type lane struct {
	key      string
	class    class
	queue    []leased      // claimed, waiting their turn, in id order (under Dispatcher.mu)
	inFlight int64         // the delivery being carried out (under Dispatcher.mu)
	stop     func()        // ends the lane's context: Run stops what it did not start too
	done     chan struct{} // closed when the lane's goroutine ends
}

// leased is a claimed delivery and when the claim that holds it runs out.
type leased struct {
	d     inquiry.Delivery
	until time.Time
}

// laneKey names a lane; unordered work is a lane of its own, so that one slow callback never
// holds another.
func laneKey(d inquiry.Delivery) string {
	if d.Lane == "" {
		return fmt.Sprintf("\x00%d", d.ID)
	}
	return d.Lane
}

// add puts a claimed delivery behind what the lane is doing. One already in flight is dropped:
// its claim ran out while its attempt runs (a slow attempt, a short lease), and the attempt
// records its outcome — it is not started twice. One already queued was claimed again because
// its lease ran out too: the new claim's copy (its lease, its attempt count) replaces it. Nothing
// else writes its lease meanwhile: the lane renews only what is under a lease with over a quarter
// of it to run, which no claim can take.
func (l *lane) add(x leased) {
	if x.d.ID == l.inFlight {
		return
	}
	for i := range l.queue {
		if l.queue[i].d.ID == x.d.ID {
			l.queue[i] = x
			return
		}
	}
	l.queue = append(l.queue, x)
	slices.SortFunc(l.queue, func(a, b leased) int { return cmp.Compare(a.d.ID, b.d.ID) })
}

func (p *Dispatcher) init() {
	p.once.Do(func() {
		p.wake = make(chan struct{}, 1)
		p.lanes = map[string]*lane{}
		p.ended = sync.NewCond(&p.mu)
		if p.Lease <= 0 {
			p.Lease = time.Minute
		}
		if p.Batch <= 0 {
			p.Batch = 100
		}
		if p.MaxLanes <= 0 {
			p.MaxLanes = 256
		}
		if p.MaxAttempts <= 0 {
			p.MaxAttempts = 20
		}
		if p.Poll <= 0 {
			p.Poll = 2 * time.Second
		}
		if p.Log == nil {
			p.Log = slog.Default()
		}
	})
}

func (p *Dispatcher) now() time.Time {
	if p.Now != nil {
		return p.Now().UTC().Truncate(time.Microsecond)
	}
	return time.Now().UTC().Truncate(time.Microsecond)
}

// Kick tells the dispatcher there is work now, of the given kinds (none: of any kind); Run's
// next claim claims the classes of work they belong to. It never blocks.
//
// The kinds spare the claim of a class that has nothing new (each is four round trips on
// PostgreSQL): a question posted to Slack has no callback to claim, and a lane that ends claims
// only its own class. The poll claims every class still.
func (p *Dispatcher) Kick(kinds ...inquiry.DeliveryKind) {
	p.init()
	which := allClasses
	if len(kinds) > 0 {
		which = [classes]bool{}
		for _, k := range kinds {
			c, ok := classOf(k)
			if !ok {
				which = allClasses // a kind no class claims: look everywhere
				break
			}
			which[c] = true
		}
	}
	for c := range classes {
		if which[c] {
			p.kicked[c].Store(true)
		}
	}
	p.wakeUp()
}

// laneEndWait is how long the claim that a lane's end asks for waits for a claim of its class that
// comes anyway: under load the next kick's claim covers it (a claim that finds nothing is four
// round trips on PostgreSQL, and there was one a Slack answer), and what it is for — work that was
// skipped behind the lane, room in a full class — is never in a hurry of milliseconds.
const laneEndWait = 10 * time.Millisecond

// laneEnded asks for a claim of c within laneEndWait, unless one begins before.
func (p *Dispatcher) laneEnded(c class) {
	if p.laneEnd[c].Swap(true) {
		return // a timer is on its way
	}
	time.AfterFunc(laneEndWait, func() {
		if p.laneEnd[c].Swap(false) {
			p.kickClass(c)
		}
	})
}

// kickClass asks Run's next claim to claim c.
func (p *Dispatcher) kickClass(c class) {
	p.kicked[c].Store(true)
	p.wakeUp()
}

// wakeUp wakes Run, after the classes to claim are marked: Run takes the wake before it reads the
// marks, so a mark set after its read comes with a wake of its own.
func (p *Dispatcher) wakeUp() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// classOf is the class of work that claims kind.
func classOf(kind inquiry.DeliveryKind) (class, bool) {
	for c := range classes {
		if slices.Contains(classKinds[c], kind) {
			return c, true
		}
	}
	return 0, false
}

// allClasses is a claim of every class: the first one, a poll, a Drain.
var allClasses = func() (all [classes]bool) {
	for c := range classes {
		all[c] = true
	}
	return all
}()

// takeKicked returns the classes kicked since the last take, and clears them.
func (p *Dispatcher) takeKicked() (which [classes]bool) {
	for c := range classes {
		which[c] = p.kicked[c].Swap(false)
	}
	return which
}

// Run dispatches until ctx ends; it returns once the lanes running in this process have stopped
// (they see ctx end, and record each outcome).
func (p *Dispatcher) Run(ctx context.Context) {
	p.init()
	p.mu.Lock()
	p.runs++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.runs--
		// Lanes a Drain beside Run started run under the Drain's context: end them too.
		for _, l := range p.lanes {
			l.stop()
		}
		for p.live > 0 {
			p.ended.Wait()
		}
	}()
	ticker := time.NewTicker(p.Poll)
	defer ticker.Stop()
	which := allClasses
	for {
		_, _, more, err := p.claim(ctx, which)
		if err != nil && ctx.Err() == nil {
			p.Log.Warn("claim deliveries", "err", err)
		}
		if more != ([classes]bool{}) && ctx.Err() == nil {
			which = more // there may be more of those
			select {
			case <-ticker.C:
				// The poll is due: a backlog of one class must not hold up what falls due in
				// another by the clock alone (a retry, a dead replica's lease), which no kick
				// announces.
				which = allClasses
			default:
			}
			for c, k := range p.takeKicked() {
				which[c] = which[c] || k
			}
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-p.wake: // a kick, or a lane ended (room, or work behind it)
			which = p.takeKicked()
		case <-ticker.C:
			which = allClasses
		}
	}
}

// Drain claims due deliveries once — up to Batch of each class, as far as MaxLanes leaves room —
// and starts them; it returns how many it claimed. Without Run it waits until they are carried
// out (tests, a sweep in a process that does not run Run). While Run runs it does not wait: Run
// waits for them when it stops, and the sweep that calls Drain is never held by a slow receiver.
func (p *Dispatcher) Drain(ctx context.Context) (int, error) {
	p.init()
	n, started, _, err := p.claim(ctx, allClasses)
	p.mu.Lock()
	wait := p.runs == 0
	p.mu.Unlock()
	if wait {
		for _, l := range started {
			<-l.done
		}
	}
	return n, err
}

// claim claims what due work there is room for, one claim per class in which, and starts each
// class's work before it claims the next: work claimed becomes visible to the lanes that finish
// it (a lane that ends looks for its next delivery) only once it has been handed to its lanes, so
// a claim made for one class never meets a lane of its own work still in flight (on SQLite, where
// a claim is its own statement, claiming every class first left that window open). It returns how
// many it claimed, the lanes that carry them out, and the classes that took all they asked for
// (there may be more).
func (p *Dispatcher) claim(ctx context.Context, which [classes]bool) (n int, lanes []*lane, more [classes]bool, err error) {
	p.claiming.Lock()
	defer p.claiming.Unlock()
	for c := range classes {
		if !which[c] {
			continue
		}
		p.mu.Lock()
		room := min(p.Batch, p.MaxLanes-p.running[c])
		p.mu.Unlock()
		if room <= 0 {
			continue // a lane that ends kicks the dispatcher
		}
		// This claim sees every lane that ended before it, unless it fails or fills up: then the
		// claim those lanes asked for is still to come.
		ended := p.laneEnd[c].Swap(false)
		claimed := p.now()
		got, cerr := p.Store.ClaimDeliveriesEach(ctx, claimed, p.Lease, []inquiry.DeliveryClaim{{Limit: room, Kinds: classKinds[c]}})
		if ended && (cerr != nil || len(got[0]) == room) {
			p.laneEnded(c)
		}
		if cerr != nil {
			err = cerr
			continue
		}
		ds := got[0]
		n += len(ds)
		more[c] = len(ds) == room
		lanes = append(lanes, p.start(ctx, c, ds, claimed.Add(p.Lease))...)
	}
	return n, lanes, more, err
}

// start carries out ds, claimed until until: each lane in a goroutine of its own, or, when the lane
// runs here already, behind what it is doing. It returns the lanes ds went to.
//
// The store's lease keeps a lane's later deliveries from being claimed while one of it is held,
// so a lane already running is handed work only in two narrow cases: just as it finishes its
// last delivery, and when an attempt outlasts its lease.
func (p *Dispatcher) start(ctx context.Context, c class, ds []inquiry.Delivery, until time.Time) []*lane {
	p.mu.Lock()
	defer p.mu.Unlock()
	var to []*lane
	for _, d := range ds {
		key := laneKey(d)
		l := p.lanes[key]
		if l == nil {
			lctx, stop := context.WithCancel(ctx)
			l = &lane{key: key, class: c, stop: stop, done: make(chan struct{})}
			p.lanes[key] = l
			p.running[c]++
			p.live++
			go p.runLane(lctx, l) // it takes its first delivery once p.mu is released
		}
		l.add(leased{d: d, until: until})
		if !slices.Contains(to, l) {
			to = append(to, l)
		}
	}
	return to
}

// next takes the lane's next delivery; when there is none, the lane leaves (ok false).
func (p *Dispatcher) next(l *lane) (x leased, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(l.queue) == 0 {
		p.leaveLocked(l)
		return leased{}, false
	}
	x, l.queue = l.queue[0], l.queue[1:]
	l.inFlight = x.d.ID
	return x, true
}

// leave takes the lane out of the running ones and returns what was queued behind it: a claim
// after this starts the lane anew.
func (p *Dispatcher) leave(l *lane) []leased {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.leaveLocked(l)
}

func (p *Dispatcher) leaveLocked(l *lane) []leased {
	rest := l.queue
	l.queue, l.inFlight = nil, 0
	if p.lanes[l.key] == l {
		delete(p.lanes, l.key)
		p.running[l.class]--
	}
	return rest
}

// runLane carries out one lane's deliveries in order. When one must wait (rate limit, retry),
// the ones after it are put back behind it, so order holds.
//
// A lane can take longer than the lease it was claimed under (a burst of questions for one
// channel goes out at about one a second; a slow Slack takes seconds a message). So that no other
// claim — the sweeper's, another replica's — takes what is left of it while this one works
// through it, the rest of the lane is claimed again for a whole lease before the next delivery
// starts once half of the lease is gone. Past three quarters of the lease it is too late to renew
// safely: the rest is left to the next claim, a delay but never a second attempt. So an attempt
// that ends within a quarter of the lease keeps its lane going, and one that ends within half of
// it is never repeated by another claim while it runs.
func (p *Dispatcher) runLane(ctx context.Context, l *lane) {
	defer func() {
		l.stop()
		close(l.done)
		p.mu.Lock()
		if p.live--; p.live == 0 {
			p.ended.Broadcast()
		}
		p.mu.Unlock()
		p.laneEnded(l.class) // room again, and maybe work of its class that waited behind it
	}()
	for {
		x, ok := p.next(l)
		if !ok {
			return
		}
		d, now := x.d, p.now()
		if !now.Before(x.until.Add(-p.Lease / 4)) {
			rest := p.leave(l)
			p.Log.Warn("the lease of a lane runs out before it is done; the next claim takes the rest",
				"lane", d.Lane, "left", 1+len(rest), "lease", p.Lease)
			return
		}
		if now.After(x.until.Add(-p.Lease/2)) && !p.renew(ctx, l, d, now) {
			p.leave(l)
			return
		}
		next, held := p.deliver(ctx, d)
		if !held {
			continue
		}
		// Hold the rest of the lane until just after the one that must wait.
		for j, rest := range p.leave(l) {
			at := next.Add(time.Duration(j+1) * time.Microsecond)
			if err := p.Store.RetryDelivery(context.WithoutCancel(ctx), rest.d.ID, at, "", p.now()); err != nil {
				p.Log.Warn("hold delivery", "id", rest.d.ID, "err", err)
			}
		}
		return
	}
}

// renew claims d, about to start, and what is queued behind it again for a whole lease from now;
// false when it could not (the next claim takes the rest).
//
// What is queued is under a lease at least as long as d's (claimed with it or after it, or
// renewed with it), which has over a quarter of the lease to run: no claim can take it meanwhile,
// so the new ends recorded here are the ones the store holds.
func (p *Dispatcher) renew(ctx context.Context, l *lane, d inquiry.Delivery, now time.Time) bool {
	p.mu.Lock()
	rest := slices.Clone(l.queue)
	p.mu.Unlock()
	until := now.Add(p.Lease)
	ids := map[int64]bool{}
	for j, r := range append([]leased{{d: d}}, rest...) {
		at := until.Add(time.Duration(j) * time.Microsecond)
		if err := p.Store.RetryDelivery(context.WithoutCancel(ctx), r.d.ID, at, r.d.LastError, now); err != nil {
			p.Log.Warn("renew the lease of a lane; the next claim takes the rest", "id", r.d.ID, "err", err)
			return false
		}
		ids[r.d.ID] = true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range l.queue {
		if ids[l.queue[i].d.ID] {
			l.queue[i].until = until
		}
	}
	return true
}

// deliver carries out one delivery and records the outcome; held reports whether the lane must
// wait until next.
func (p *Dispatcher) deliver(ctx context.Context, d inquiry.Delivery) (next time.Time, held bool) {
	h := p.Handlers[d.Kind]
	var err error
	if h == nil {
		err = inquiry.Unavailable("no handler for %s deliveries on this server", d.Kind)
	} else if ctx.Err() != nil {
		err = ctx.Err()
	} else {
		err = h(inquiry.WithAttempt(ctx, d.Attempts), d)
	}
	// Record outcomes even while shutting down: the work was done (or not) either way.
	rctx := context.WithoutCancel(ctx)
	now := p.now()
	var ra *inquiry.RetryAfterError
	switch {
	case err == nil:
		p.observe(d, "done", nil)
		p.Log.Info("delivery done", "id", d.ID, "kind", d.Kind, "key", d.InquiryKey, "attempts", d.Attempts)
		if e := p.Store.CompleteDelivery(rctx, d.ID, now); e != nil {
			p.Log.Warn("complete delivery", "id", d.ID, "err", e)
		}
		return time.Time{}, false
	case inquiry.Fatal(err) || d.Attempts >= p.MaxAttempts:
		p.observe(d, "failed", err)
		p.Log.Warn("delivery given up", "id", d.ID, "kind", d.Kind, "key", d.InquiryKey, "attempts", d.Attempts, "err", err)
		if e := p.Store.FailDelivery(rctx, d.ID, err.Error(), now); e != nil {
			p.Log.Warn("fail delivery", "id", d.ID, "err", e)
		}
		if d.Kind == inquiry.DeliverCallback || d.Kind == inquiry.DeliverResume {
			// The asker reads the inquiry, not the deliveries: say there why nobody was told.
			f := inquiry.Failure{Code: inquiry.CodeCallbackFailed, Message: fmt.Sprintf("the %s was given up after %d attempt(s): %s", d.Kind, d.Attempts, err.Error())}
			if e := p.Store.NoteFailure(rctx, d.InquiryKey, f); e != nil {
				p.Log.Warn("note the failure of a delivery", "id", d.ID, "err", e)
			}
		}
		return time.Time{}, false
	case errors.As(err, &ra):
		p.observe(d, "rate_limited", err)
		next = now.Add(ra.After)
	default:
		p.observe(d, "retry", err)
		next = now.Add(inquiry.Backoff(d.Attempts))
	}
	p.Log.Info("delivery retry", "id", d.ID, "kind", d.Kind, "key", d.InquiryKey, "attempts", d.Attempts, "next", next, "err", err)
	if e := p.Store.RetryDelivery(rctx, d.ID, next, err.Error(), now); e != nil {
		p.Log.Warn("retry delivery", "id", d.ID, "err", e)
	}
	return next, true
}

func (p *Dispatcher) observe(d inquiry.Delivery, outcome string, err error) {
	if p.Observe != nil {
		p.Observe(d, outcome, err)
	}
}
