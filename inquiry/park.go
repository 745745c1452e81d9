package inquiry

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// Park is Wait without a goroutine held while it waits: it reads the inquiry at once (on the
// caller's goroutine), and while it stays pending it is a callback in the hub and a timer at
// the end of the wait or the inquiry's expiry, whichever comes first. done is called exactly
// once, with what Wait would return: as soon as the inquiry leaves pending, as it stands after d
// (at most MaxWait), at its expiry (expired then), when the hub closes, or when ctx ends (read
// then without ctx, as it stands). A wake that finds it still pending (a vote, more time given
// by Extend) re-reads it in a short-lived goroutine and arms the timer again.
//
// done runs on the caller's goroutine when the first read settles it (before Park returns), and
// otherwise on a goroutine of its own; it may block (write a response). cancel ends the wait
// without a read: done is then called, at once, with no record and context.Canceled, unless it
// has been called already. cancel may be called more than once.
func (s *Service) Park(ctx context.Context, key string, d time.Duration, done func(*Record, error)) (cancel func()) {
	return s.park(ctx, key, nil, 0, d, done)
}

// WakeMark is the hub's count of wake-ups so far: read it before a Get whose pending record is
// handed to ParkRead.
func (s *Service) WakeMark() uint64 { return s.Hub.Mark() }

// ParkRead is Park for a caller that has just read the inquiry and found it pending: rec is that
// read, made after mark (WakeMark). When the hub woke nobody since mark, Park's own first read
// would find what rec holds, so it is skipped — a long-poll costs one read of the inquiry, not
// two; when anything was woken meanwhile, ParkRead reads as Park does.
func (s *Service) ParkRead(ctx context.Context, rec *Record, mark uint64, d time.Duration, done func(*Record, error)) (cancel func()) {
	return s.park(ctx, rec.Key, rec, mark, d, done)
}

// park is Park and ParkRead: first, when not nil, is a pending read of the inquiry made after
// mark.
func (s *Service) park(ctx context.Context, key string, first *Record, mark uint64, d time.Duration, done func(*Record, error)) (cancel func()) {
	p := &parking{s: s, ctx: ctx, key: key, d: min(d, MaxWait), done: done, reading: true}
	// A wait of nothing returns what the first read finds, as Wait always has.
	p.final = p.d <= 0
	// Subscribed before the first read, so that a wake between the read and the wait is not lost
	// (it makes the read run again).
	p.unsubscribe = s.Hub.SubscribeFunc(key, p.wake)
	p.stopCtx = noStop
	if ctx.Done() != nil { // a context that never ends costs nothing to watch
		p.stopCtx = context.AfterFunc(ctx, p.ctxDone)
	}
	if first != nil && first.Status == StatusPending && !p.final && s.Hub.Mark() == mark {
		p.arm(first) // nothing woken since that read: it is what a read now would find
	} else {
		p.read()
	}
	return p.cancel
}

func noStop() bool { return false }

// parking is one waiter of Park.
type parking struct {
	s    *Service
	ctx  context.Context
	key  string
	d    time.Duration
	done func(*Record, error)

	unsubscribe func()
	stopCtx     func() bool

	mu       sync.Mutex
	end      time.Time   // the end of the wait, set by the first read that finds it pending
	due      time.Time   // when the timer is armed to fire: a firing before it is a stale one
	timer    *time.Timer // nil until the first read that finds it pending
	reading  bool        // a read is under way: a kick meanwhile sets again instead of reading
	again    bool        // a kick came during the read: read once more
	final    bool        // the wait is over (its end, the expiry, Close, ctx): the next read is the answer
	detached bool        // ctx has ended: read without it
	finished bool        // done has been called or is being called
}

// wake is the hub's callback: a wake-up of the key, or Close (then Closing is closed).
func (p *parking) wake() { p.kick(false, false) }

// expire is the timer's: the end of the wait or the inquiry's expiry.
func (p *parking) expire() {
	p.mu.Lock()
	stale := time.Now().Before(p.due) // fired as a read re-armed it for later (Extend)
	p.mu.Unlock()
	if !stale {
		p.kick(true, false)
	}
}

// ctxDone is ctx's: the caller is gone or the server shuts down.
func (p *parking) ctxDone() { p.kick(true, true) }

// kick starts a read in a goroutine of its own, or, while one runs, has it read once more.
func (p *parking) kick(final, detached bool) {
	p.mu.Lock()
	if p.finished {
		p.mu.Unlock()
		return
	}
	p.final = p.final || final
	p.detached = p.detached || detached
	if p.reading {
		p.again = true
		p.mu.Unlock()
		return
	}
	p.reading = true
	p.mu.Unlock()
	go p.read()
}

// read reads the inquiry until it settles the wait (then done) or finds it still pending with
// nothing new to read for (then the timer is armed for the end of the wait or the expiry, and
// the goroutine ends).
func (p *parking) read() {
	for {
		p.mu.Lock()
		p.again = false
		final, ctx := p.final, p.ctx
		if p.detached {
			ctx = context.WithoutCancel(ctx)
		}
		p.mu.Unlock()
		select {
		case <-p.s.Hub.Closing():
			final = true // on shutdown the inquiry as it stands, at once
		default:
		}
		rec, err := p.get(ctx)
		p.mu.Lock()
		if p.finished { // cancelled meanwhile
			p.mu.Unlock()
			return
		}
		if final || err != nil || rec.Status != StatusPending {
			p.finish(rec, err)
			return
		}
		if p.again {
			p.mu.Unlock()
			continue
		}
		p.armLocked(rec)
		return
	}
}

// get reads the inquiry, a panic of the read made its error: the read runs on a goroutine of
// its own, where no handler's recovery would see it, and would take the process down where the
// request it answers would have been answered an internal error (as on its handler's goroutine).
func (p *parking) get(ctx context.Context) (rec *Record, err error) {
	defer func() {
		if v := recover(); v != nil {
			rec, err = nil, fmt.Errorf("read the inquiry: panic: %v\n%s", v, debug.Stack())
		}
	}()
	return p.s.Get(ctx, p.key)
}

// arm waits for rec, a pending read of the inquiry (ParkRead's), unless a wake came meanwhile:
// then it reads.
func (p *parking) arm(rec *Record) {
	p.mu.Lock()
	if p.finished {
		p.mu.Unlock()
		return
	}
	if p.again || p.final { // woken since it was subscribed, or the wait is over: read
		p.mu.Unlock()
		p.read()
		return
	}
	p.armLocked(rec)
}

// armLocked arms the timer for rec, still pending, and ends the read; p.mu is held, and released
// here.
func (p *parking) armLocked(rec *Record) {
	// Still pending (a vote, or more time given: Extend): the expiry may have moved.
	if p.end.IsZero() {
		p.end = time.Now().Add(p.d)
	}
	left := p.until(rec)
	p.due = time.Now().Add(left)
	if p.timer == nil {
		p.timer = time.AfterFunc(left, p.expire)
	} else {
		p.timer.Reset(left)
	}
	p.reading = false
	p.mu.Unlock()
}

// until is how long to wait for rec: to the end of the wait, or to the expiry when that comes
// first. A clock that is not the wall clock (a test's) moves on its own: the wait then still
// ends at d or at a wake-up, and reads it expired.
func (p *parking) until(rec *Record) time.Duration {
	left := time.Until(p.end)
	if rec.ExpiresAt != nil {
		left = min(left, rec.ExpiresAt.Sub(p.s.Clock()))
	}
	return max(left, time.Millisecond)
}

// finish ends the wait and calls done; p.mu is held, and released here.
func (p *parking) finish(rec *Record, err error) {
	p.finished = true
	timer := p.timer
	p.mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	p.unsubscribe()
	p.stopCtx()
	p.done(rec, err)
}

func (p *parking) cancel() {
	p.mu.Lock()
	if p.finished {
		p.mu.Unlock()
		return
	}
	p.finish(nil, context.Canceled)
}
