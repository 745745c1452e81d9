package faulttest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// Limits under abuse (issue 14; the README's Limits), against the real binary. Of connections
// (items 1 and 7): slow bodies, the connection cap, and a request framed two ways; the first two
// hold on the listener alone, so they run on SQLite only; the database plays no part in them. Of
// requests (item 5): the rate limits of a token and of an address.

// slowClients is how many slow clients TestSlowBodiesCut opens: a fifth of the 1,000,
// enough for a load, few enough for a test of seconds.
const slowClients = 200

// TestSlowBodiesCut: clients that send their headers to /slack/interactions (which must read a
// body before it can check the signature, so no credential is needed) and then their body a
// byte a second. /healthz answers while they hold their connections, and each is answered and
// closed once BOT_BODY_TIMEOUT has passed after its headers. Before, none was ever closed.
func TestSlowBodiesCut(t *testing.T) {
	t.Parallel()
	fake := slackfaketest.New(t)
	proxy := newSlackProxy(t, fake)
	// BOT_RATE_LIMIT=off: these clients stand for many addresses, not one a per-address limit
	// would turn away.
	b := startSlackBot(t, storagetest.SQLiteURL(t), fake, proxy, "BOT_BODY_TIMEOUT=2s", "BOT_RATE_LIMIT=off")
	addr := strings.TrimPrefix(b.url, "http://")

	type outcome struct {
		status int
		closed bool          // the server closed the connection after its answer
		after  time.Duration // from the headers to the close
		err    error
	}
	stop := make(chan struct{})
	defer close(stop)
	headersSent := make(chan struct{}, slowClients)
	outcomes := make(chan outcome, slowClients)
	for range slowClients {
		go func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				headersSent <- struct{}{}
				outcomes <- outcome{err: err}
				return
			}
			defer c.Close()
			_, err = io.WriteString(c, "POST /slack/interactions HTTP/1.1\r\nHost: bot\r\n"+
				"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\np")
			sent := time.Now()
			headersSent <- struct{}{}
			if err != nil {
				outcomes <- outcome{err: err}
				return
			}
			go func() { // a byte a second, until the connection is gone
				tick := time.NewTicker(time.Second)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if _, err := c.Write([]byte("a")); err != nil {
							return
						}
					}
				}
			}()
			_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				outcomes <- outcome{err: fmt.Errorf("no answer %s after the headers: %w", time.Since(sent).Round(time.Second), err)}
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_, err = io.Copy(io.Discard, br) // until the server closes
			var ne net.Error
			outcomes <- outcome{status: resp.StatusCode, closed: !(errors.As(err, &ne) && ne.Timeout()), after: time.Since(sent)}
		}()
	}
	for range slowClients {
		<-headersSent
	}

	// Every slow client is connected and has sent its headers: the bot still answers.
	h := call(context.Background(), b.url, "", http.MethodGet, "/healthz", nil)
	if h.err != nil || h.status != http.StatusOK {
		t.Errorf("/healthz while %d slow bodies are held: %s", slowClients, h)
	}

	var slowest time.Duration
	answered := 0
	for range slowClients {
		o := <-outcomes
		switch {
		case o.err != nil:
			t.Errorf("slow client: %v", o.err)
		case !o.closed:
			t.Errorf("slow client answered %d but its connection was not closed", o.status)
		case o.status != http.StatusBadRequest:
			t.Errorf("slow client answered %d, want 400", o.status)
		default:
			answered++
			slowest = max(slowest, o.after)
		}
	}
	if t.Failed() {
		return
	}
	t.Logf("figures: %d connections sending their body to /slack/interactions at a byte a second; /healthz answered in %s while they were held; "+
		"all %d answered 400 and closed by the server, the last %s after its headers (BOT_BODY_TIMEOUT=2s)",
		slowClients, h.elapsed.Round(time.Millisecond), answered, slowest.Round(100*time.Millisecond))
}

// TestConnectionCap: with BOT_MAX_CONNS connections in the middle of a request, the next one
// is not served until one of them closes; then it is. Connections that only idle between
// requests (keep-alive) give way to a new one instead of locking it out. Before, there was no
// cap; with the first cap, idle connections locked out every new client.
func TestConnectionCap(t *testing.T) {
	t.Parallel()
	const limit = 20
	b := startBot(t, storagetest.SQLiteURL(t), fmt.Sprintf("BOT_MAX_CONNS=%d", limit), "BOT_RATE_LIMIT=off")
	addr := strings.TrimPrefix(b.url, "http://")
	healthz := "GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n"
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	// Idle connections (each answered once, kept open) give way to a new client.
	idle := make([]net.Conn, limit+1)
	for i := range limit {
		idle[i] = dial()
		if status, err := exchangeOn(idle[i], healthz, 20*time.Second); err != nil || status != http.StatusOK {
			t.Fatalf("idle connection %d: %d %v", i, status, err)
		}
	}
	start := time.Now()
	idle[limit] = dial()
	if status, err := exchangeOn(idle[limit], healthz, 20*time.Second); err != nil || status != http.StatusOK {
		t.Fatalf("a new client beside %d idle connections: %d %v", limit, status, err)
	}
	gaveWay := time.Since(start)

	// Connections in the middle of a request (their heads not yet complete) hold their slots.
	held := make([]net.Conn, limit)
	for i := range held {
		held[i] = dial()
		if _, err := io.WriteString(held[i], "GET /healthz HTTP/1.1\r\nHost: bot\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	// Each was let in by closing an idle one: once all the idle ones are closed, all are in.
	for i, c := range idle {
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		if n, err := c.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("idle connection %d was not closed for the ones in a request: read %d, %v", i, n, err)
		}
	}
	extra := dial()
	if _, err := io.WriteString(extra, healthz); err != nil {
		t.Fatal(err)
	}
	_ = extra.SetReadDeadline(time.Now().Add(time.Second))
	br := bufio.NewReader(extra)
	if resp, err := http.ReadResponse(br, nil); err == nil {
		t.Fatalf("connection %d of a cap of %d was served (%d) while %d were in a request", limit+1, limit, resp.StatusCode, limit)
	}
	freed := time.Now()
	held[0].Close()
	_ = extra.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("connection %d, once one closed: %v %v", limit+1, resp, err)
	}
	t.Logf("figures: BOT_MAX_CONNS=%d: beside %d idle connections a new client served in %s; with %d in a request, connection %d not served within 1s, served %s after one closed",
		limit, limit, gaveWay.Round(time.Millisecond), limit, limit+1, time.Since(freed).Round(time.Millisecond))
}

// exchangeOn sends one request on c and reads its answer's status.
func exchangeOn(c net.Conn, raw string, within time.Duration) (int, error) {
	if _, err := io.WriteString(c, raw); err != nil {
		return 0, err
	}
	_ = c.SetReadDeadline(time.Now().Add(within))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// TestSmuggledRequestRefused: a create carrying both Content-Length and Transfer-Encoding, with a
// second create pipelined after it, is read by its Transfer-Encoding (RFC 9112 §6.1) and
// answered with Connection: close, the connection closed: the second inquiry does not exist
// after. Before the hand-made listener, both were created (and before net/http, the first was
// refused 400). A request line over 8 kB is answered 414.
func TestSmuggledRequestRefused(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := startBot(t, databaseURL)
		addr := strings.TrimPrefix(b.url, "http://")

		first, _ := json.Marshal(choice("smuggler", inbox))
		second, _ := json.Marshal(choice("smuggled", inbox))
		auth := "Authorization: Bearer " + b.admin + "\r\nContent-Type: application/json\r\n"
		raw := "POST /v1/inquiries HTTP/1.1\r\nHost: bot\r\n" + auth +
			fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(first), len(first), first) +
			"POST /v1/inquiries HTTP/1.1\r\nHost: bot\r\n" + auth + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(second), second)
		replies, closed := rawExchange(t, addr, raw)
		if len(replies) != 1 || !replies[0].close || !closed {
			t.Fatalf("want one answer with Connection: close and the connection closed; got %+v (closed %v)", replies, closed)
		}
		smuggler := replies[0].status
		list := b.call(context.Background(), http.MethodGet, "/v1/inquiries", nil)
		if list.err != nil || list.status != http.StatusOK {
			t.Fatalf("list inquiries: %s", list)
		}
		if strings.Contains(string(list.body), `"id":"smuggled"`) {
			t.Errorf("the pipelined inquiry was created")
		}

		long := "GET /" + strings.Repeat("a", 9000) + " HTTP/1.1\r\nHost: bot\r\n\r\n"
		replies, closed = rawExchange(t, addr, long)
		if len(replies) != 1 || replies[0].status != http.StatusRequestURITooLong || !closed {
			t.Fatalf("a 9000-byte path: want one 414 and the connection closed; got %+v (closed %v)", replies, closed)
		}
		if !strings.Contains(replies[0].body, "8192 bytes") {
			t.Errorf("the 414 does not say the limit: %s", replies[0].body)
		}
		t.Logf("figures: a create framed by both Content-Length and Transfer-Encoding with a create pipelined behind it: one answer (%d), the connection closed, the pipelined one not created; a 9000-byte path: 414",
			smuggler)
	})
}

// rawAnswer is one answer read off a raw connection.
type rawAnswer struct {
	status int
	close  bool
	body   string
}

// rawExchange sends raw on a new connection and reads answers until the server closes it (or 20
// seconds pass: closed is then false).
func rawExchange(t *testing.T, addr, raw string) (answers []rawAnswer, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = io.WriteString(c, raw)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			var ne net.Error
			return answers, !(errors.As(err, &ne) && ne.Timeout())
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answers = append(answers, rawAnswer{status: resp.StatusCode, close: resp.Close, body: string(body)})
	}
}

// TestLongPollOutlivesBodyTimeout: long-polls that wait past BOT_BODY_TIMEOUT — a create that
// waits for its answer (its body read first) and a GET that waits — wait their whole time: the
// body timeout bounds the reading of a body, not the request.
func TestLongPollOutlivesBodyTimeout(t *testing.T) {
	t.Parallel()
	b := startBot(t, storagetest.SQLiteURL(t), "BOT_BODY_TIMEOUT=1s", "BOT_RATE_LIMIT=off")
	const wait = 3 * time.Second
	pending := b.mustCall(http.MethodPost, "/v1/inquiries", choice("polled", inbox), http.StatusCreated)

	var wg sync.WaitGroup
	replies := make([]reply, 2)
	wg.Go(func() {
		body := choice("waiting", inbox)
		body["wait"] = wait.Seconds()
		replies[0] = b.call(context.Background(), http.MethodPost, "/v1/inquiries", body)
	})
	wg.Go(func() {
		replies[1] = b.call(context.Background(), http.MethodGet, fmt.Sprintf("/v1/inquiries/%s?wait=%g", pending.Key, wait.Seconds()), nil)
	})
	wg.Wait()
	for i, r := range replies {
		if r.err != nil || (r.status != http.StatusOK && r.status != http.StatusCreated) {
			t.Fatalf("long-poll %d: %s", i, r)
		}
		if rec := decode(t, r); rec.Status != "pending" {
			t.Errorf("long-poll %d: %s, want pending", i, rec.Status)
		}
		// The server cannot answer a pending long-poll before its wait unless it was cut short.
		if r.elapsed < wait {
			t.Errorf("long-poll %d answered after %s, before its wait of %s: cut short", i, r.elapsed.Round(time.Millisecond), wait)
		}
	}
	t.Logf("figures: with BOT_BODY_TIMEOUT=1s, a create waiting %s and a GET waiting %s answered pending after %s and %s",
		wait, wait, replies[0].elapsed.Round(10*time.Millisecond), replies[1].elapsed.Round(10*time.Millisecond))
}

// TestRateLimited is issue 14 item 5 against the real binary: one token firing creates, and one
// address firing requests without a token, each get their burst and then 429 rate_limited with
// Retry-After and a sentence, while what was accepted is stored and the probes still answer.
// (Before: 23,748 creates in 30 s from one token, 20,000 unauthenticated requests in 2.2 s.)
func TestRateLimited(t *testing.T) {
	const (
		rate    = 5 // a second
		burst   = 10
		creates = 50
		anon    = 300
		workers = 10
	)
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := startBot(t, databaseURL, fmt.Sprintf("BOT_RATE_LIMIT=%d/s", rate), fmt.Sprintf("BOT_RATE_BURST=%d", burst))
		ctx := context.Background()

		// fire sends n requests from workers goroutines and returns every reply, and how long
		// they took (what a token bucket may have refilled meanwhile).
		fire := func(n int, send func(i int) reply) ([]reply, time.Duration) {
			out := make([]reply, n)
			next := make(chan int)
			var wg sync.WaitGroup
			start := time.Now()
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range next {
						out[i] = send(i)
					}
				}()
			}
			for i := range n {
				next <- i
			}
			close(next)
			wg.Wait()
			return out, time.Since(start)
		}
		// most is how many a bucket of burst refilling at rate lets through in d.
		most := func(d time.Duration) int { return burst + int(math.Ceil(d.Seconds()*rate)) + 1 }
		// refused checks a 429 is rate_limited with whole seconds of Retry-After and a sentence
		// saying when to retry; it returns the Retry-After.
		refused := func(r reply) int {
			t.Helper()
			secs, err := strconv.Atoi(r.header.Get("Retry-After"))
			e := r.apiError().Error
			if err != nil || secs < 1 || e.Code != "rate_limited" || !strings.Contains(e.Message, fmt.Sprintf("retry in %d s", secs)) {
				t.Fatalf("a refusal without rate_limited, Retry-After and its sentence: Retry-After %q, %s", r.header.Get("Retry-After"), r)
			}
			return secs
		}

		// One token's creates.
		replies, took := fire(creates, func(i int) reply {
			return b.call(ctx, http.MethodPost, "/v1/inquiries", choice(fmt.Sprintf("rl-%d", i), inbox))
		})
		accepted := map[string]string{} // id -> key
		var refusals, maxRetry int
		for i, r := range replies {
			switch {
			case r.err == nil && r.status == http.StatusCreated:
				accepted[fmt.Sprintf("rl-%d", i)] = decode(t, r).Key
			case r.err == nil && r.status == http.StatusTooManyRequests:
				refusals++
				maxRetry = max(maxRetry, refused(r))
			default:
				t.Fatalf("create %d: want 201 or 429, got %s", i, r)
			}
		}
		if len(accepted) < burst || len(accepted) > most(took) {
			t.Fatalf("%d of %d creates in %s were accepted: want from %d (the burst) to %d (the burst and what %d/s refills)",
				len(accepted), creates, took, burst, most(took), rate)
		}
		if refusals != creates-len(accepted) || refusals == 0 {
			t.Fatalf("%d creates refused, want %d", refusals, creates-len(accepted))
		}
		// Every accepted create is stored, and none of the refused ones.
		list := b.call(ctx, http.MethodGet, "/v1/inquiries?limit=500", nil)
		var page struct{ Inquiries []record }
		if err := json.Unmarshal(list.body, &page); list.status != http.StatusOK || err != nil {
			t.Fatalf("list: %s", list)
		}
		stored := map[string]string{}
		for _, rec := range page.Inquiries {
			stored[rec.ID] = rec.Key
		}
		if fmt.Sprint(stored) != fmt.Sprint(accepted) {
			t.Fatalf("stored %v, want exactly the accepted %v", stored, accepted)
		}
		t.Logf("%d creates from one token (rate %d/s, burst %d) in %s: %d accepted and stored, %d refused 429 rate_limited (Retry-After up to %d s)",
			creates, rate, burst, took.Round(time.Millisecond), len(accepted), refusals, maxRetry)

		// One address's requests without a token, while probes keep asking.
		replies, took = fire(anon, func(i int) reply {
			if i%10 == 0 {
				path := []string{"/healthz", "/readyz"}[i/10%2]
				if r := call(ctx, b.url, "", http.MethodGet, path, nil); r.err != nil || r.status != http.StatusOK {
					return reply{status: -1, body: []byte(path + " during the flood: " + r.String())}
				}
			}
			return call(ctx, b.url, "", http.MethodGet, "/v1/inquiries", nil)
		})
		var unauthenticated, limited int
		for i, r := range replies {
			switch {
			case r.err == nil && r.status == http.StatusUnauthorized:
				unauthenticated++
			case r.err == nil && r.status == http.StatusTooManyRequests:
				limited++
				refused(r)
			default:
				t.Fatalf("request %d without a token: want 401 or 429, got %s", i, r)
			}
		}
		if unauthenticated < burst || unauthenticated > most(took) {
			t.Fatalf("%d of %d requests without a token in %s were served: want from %d to %d", unauthenticated, anon, took, burst, most(took))
		}
		t.Logf("%d requests without a token from one address in %s: %d answered 401, %d refused 429 rate_limited; /healthz and /readyz answered 200 throughout (%d probes)",
			anon, took.Round(time.Millisecond), unauthenticated, limited, anon/10)
		// The token's own requests are not the address's: the admin token still reads.
		if r := b.call(ctx, http.MethodGet, "/v1/inquiries", nil); r.status != http.StatusOK {
			t.Fatalf("a valid token after the flood: %s", r)
		}
	})
}
