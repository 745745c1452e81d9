package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// 8. Following many questions: N pending inquiries, one GET /v1/events connection following
// them from now on, then answers to a sample spread over the N at a steady rate, open loop. It
// reads the bot's resident memory with the follower attached, and the delay from each answer's
// 200 to its answered event on the stream, against the time of the answer request itself.
func (b *bench) follow() {
	const n = "8"
	what := fmt.Sprintf("following many questions: %s pending inquiries, one GET /v1/events connection (admin token, from now on) following them; PostgreSQL", thousands(b.p.follow))
	progress("8. %s", what)
	bot, idle, ok := b.idleBot(n, what, "follow")
	if !ok {
		return
	}
	defer bot.stop()
	began := time.Now()
	keys, err := createMany(b.ctx, bot, bot.token, b.p.follow, b.p.clients, "follow", "inbox", nil)
	if err != nil {
		b.fail(n, what, err)
		return
	}
	took := time.Since(began)
	time.Sleep(time.Second)
	before, _, err := bot.memory()
	if err != nil {
		b.fail(n, what, err)
		return
	}
	progress("  %s inquiries created by %d clients in %s (%.0f/s); RSS idle %s, after the creates %s; following",
		thousands(len(keys)), b.p.clients, took.Round(time.Millisecond), float64(len(keys))/took.Seconds(), mb(idle), mb(before))

	fctx, cancel := context.WithTimeout(b.ctx, 5*time.Minute) // bound
	defer cancel()
	f, err := followEvents(fctx, bot)
	if err != nil {
		b.fail(n, what, err)
		return
	}
	defer f.close()
	time.Sleep(time.Second)
	attached, _, err := bot.memory()
	if err != nil {
		b.fail(n, what, err)
		return
	}

	// The sample: answers spread evenly over the N (in creation order), at a steady rate.
	sample := make([]string, min(b.p.followAnswers, len(keys)))
	for i := range sample {
		sample[i] = keys[i*len(keys)/len(sample)]
	}
	progress("  answering %d of them at %.0f/s, open-loop", len(sample), b.p.followRate)
	c := newClient(32)
	defer c.CloseIdleConnections()
	answeredAt := make([]time.Time, len(sample))
	answerBody := []byte(`{"value":"merge"}`)
	ol := openLoop(fctx, len(sample), time.Duration(float64(time.Second)/b.p.followRate), func(ctx context.Context, i int) error {
		st, body, err := api(ctx, c, http.MethodPost, bot.URL()+"/v1/inquiries/"+sample[i]+"/answer", bot.token, answerBody)
		answeredAt[i] = time.Now()
		if err == nil && st != http.StatusOK {
			err = fmt.Errorf("answer: %d %s", st, strings.TrimSpace(string(body)))
		}
		return err
	})
	if ol.firstErr != "" {
		b.note("row 8: %d of %d answers failed (first error: %s)", ol.sent-ol.ok, ol.sent, ol.firstErr)
	}
	// Every answered event should come; wait for the last ones, bounded.
	deadline := time.Now().Add(30 * time.Second)
	for f.count(sample) < ol.ok && time.Now().Before(deadline) && fctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	after, hwm, err := bot.memory()
	if err != nil {
		b.fail(n, what, err)
		return
	}
	var delays []time.Duration
	missing := 0
	for i, key := range sample {
		if ol.latencies[i] < 0 {
			continue
		}
		at, ok := f.seen(key)
		if !ok {
			missing++
			continue
		}
		delays = append(delays, at.Sub(answeredAt[i]))
	}
	if err := f.error(); err != nil {
		b.note("row 8: the stream ended early: %v", err)
	}
	answers := ol.good(nil) // the answer requests' own times, from their scheduled send
	d50, d99, dmax := percentile(delays, 50), percentile(delays, 99), percentile(delays, 100)
	a50, a99 := percentile(answers, 50), percentile(answers, 99)
	progress("  RSS with the follower %s (after the answers %s, peak %s); answer→event p50 %s p99 %s max %s (%d missing); answer request p50 %s p99 %s; stream events %d",
		mb(attached), mb(after), mb(hwm), ms(d50), ms(d99), ms(dmax), missing, ms(a50), ms(a99), f.total())
	b.add(row{n: n + "a", what: what + ": resident memory (VmRSS) of the bot with the follower attached",
		figure: fmt.Sprintf("%s (after the %s answers: %s; VmHWM %s)", mb(attached), thousands(len(sample)), mb(after), mb(hwm)),
		bound:  fmt.Sprintf("the same process before the follower (after creating the %s): %s; idle at start: %s", thousands(len(keys)), mb(before), mb(idle)),
		ratio:  ratio(float64(attached), float64(before)), target: "— (figure only)", met: "—"})
	b.add(row{n: n + "b", what: fmt.Sprintf("the same: delay from each answer's 200 to its answered event on the stream (%s answers spread over the %s at %.0f/s, open-loop)", thousands(len(sample)), thousands(len(keys)), b.p.followRate),
		figure: fmt.Sprintf("p50 %s, p99 %s, max %s (%s of %s events received; %s events on the stream in all)", ms(d50), ms(d99), ms(dmax), thousands(len(delays)), thousands(ol.ok), thousands(f.total())),
		bound:  fmt.Sprintf("the answer request itself (from its scheduled send to its 200): p50 %s, p99 %s", ms(a50), ms(a99)),
		ratio:  ratio(float64(d99), float64(a99)), target: "— (figure only)", met: "—"})
	b.note("row 8: the %s inquiries were created by %d concurrent clients in %s (%.0f/s); the delay is read by this process on both sides (the answer's response, the event's line), so it is negative when the event comes first (p1 %s)",
		thousands(len(keys)), b.p.clients, took.Round(time.Millisecond), float64(len(keys))/took.Seconds(), ms(percentile(delays, 1)))
}

// follower is one GET /v1/events connection read in the background: the time each answered
// event arrived, by inquiry key.
type follower struct {
	resp   *http.Response
	done   chan struct{}
	mu     sync.Mutex
	at     map[string]time.Time
	events int
	err    error
}

// followEvents opens the stream from now on (no after, no Last-Event-ID) and returns once the
// bot sent its headers, so that every event recorded from then on is on it.
func followEvents(ctx context.Context, bot *botProc) (*follower, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, bot.URL()+"/v1/events", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+bot.token)
	req.Header.Set("Accept", "text/event-stream")
	c := &http.Client{Transport: &http.Transport{DialContext: loopbackDial, DisableCompression: true}} // no timeout: the stream is long
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET /v1/events: %d", resp.StatusCode)
	}
	f := &follower{resp: resp, done: make(chan struct{}), at: map[string]time.Time{}}
	go f.read()
	return f, nil
}

// read parses the stream: an event's lines end with a blank line; only its type and data matter.
func (f *follower) read() {
	defer close(f.done)
	sc := bufio.NewScanner(f.resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	typ := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			now := time.Now()
			var e struct {
				Key string `json:"inquiry_key"`
			}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &e); err != nil {
				f.fail(fmt.Errorf("event data: %w", err))
				return
			}
			f.mu.Lock()
			f.events++
			if _, dup := f.at[e.Key]; typ == "answered" && !dup {
				f.at[e.Key] = now
			}
			f.mu.Unlock()
		case line == "":
			typ = ""
		}
	}
	f.fail(sc.Err())
}

func (f *follower) fail(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

func (f *follower) error() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// seen is when key's answered event arrived.
func (f *follower) seen(key string) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.at[key]
	return t, ok
}

// count is how many of keys have had their answered event.
func (f *follower) count(keys []string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, k := range keys {
		if _, ok := f.at[k]; ok {
			n++
		}
	}
	return n
}

// total is the number of events read from the stream.
func (f *follower) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.events
}

func (f *follower) close() {
	f.resp.Body.Close()
	<-f.done
}
