package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// loopbackDial refuses every address but the loopback: the benchmark loads nothing else.
func loopbackDial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("benchmark: refusing to connect to %s: load goes to 127.0.0.1 only", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// newClient is an HTTP client that keeps up to conns connections to the bot alive.
func newClient(conns int) *http.Client {
	return &http.Client{
		Timeout: 90 * time.Second,
		Transport: &http.Transport{
			DialContext:         loopbackDial,
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			IdleConnTimeout:     time.Minute,
			DisableCompression:  true,
		},
	}
}

// api calls the bot: it returns the status and the body.
func api(ctx context.Context, c *http.Client, method, url, token string, body []byte) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// createBody is one inquiry as the create load asks it: a two-option Choice, policy ask, through
// the inbox (nothing to post: the create is the one insert), under the asker's unique id.
func createBody(id string, transport, channel string) []byte {
	body := map[string]any{
		"id": id, "kind": "choice", "question": "Merge PR #" + id + " into main now?",
		"context": "CI is green and the PR has two approvals.",
		"options": []map[string]string{{"value": "merge", "label": "Merge"}, {"value": "hold", "label": "Hold"}},
		"default": "hold",
		"config":  map[string]string{"policy": "ask", "transport": transport},
	}
	if channel != "" {
		body["slack"] = map[string]any{"channel": channel}
	}
	b, _ := json.Marshal(body)
	return b
}

// loadBody is createBody(prefix-n, "inbox", "") built without encoding/json: the load client
// should cost as little CPU as it can, as pgbench does.
func loadBody(prefix string, n int64) []byte {
	id := prefix + "-" + strconv.FormatInt(n, 10)
	return []byte(`{"id":"` + id + `","kind":"choice","question":"Merge PR #` + id + ` into main now?",` +
		`"context":"CI is green and the PR has two approvals.",` +
		`"options":[{"value":"merge","label":"Merge"},{"value":"hold","label":"Hold"}],` +
		`"default":"hold","config":{"policy":"ask","transport":"inbox"}}`)
}

// create asks one inquiry and returns its key.
func create(ctx context.Context, c *http.Client, bot *botProc, token string, body []byte) (string, error) {
	st, b, err := api(ctx, c, http.MethodPost, bot.URL()+"/v1/inquiries", token, body)
	if err != nil {
		return "", err
	}
	if st != http.StatusCreated {
		return "", fmt.Errorf("create: %d %s", st, bytes.TrimSpace(b))
	}
	var out struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Key == "" {
		return "", fmt.Errorf("create: no key in %s", b)
	}
	return out.Key, nil
}

// loadResult is what a closed-loop load did.
type loadResult struct {
	ok, failed int64
	elapsed    time.Duration
	cpu        cpuUse
	firstErr   string
	latencies  []time.Duration
}

func (r loadResult) rate() float64 { return float64(r.ok) / r.elapsed.Seconds() }

// createLoad runs clients closed-loop creators against the bot for d (after warm, which is not
// counted), each on one keep-alive connection of its own; bounded by d and by maxOps creates.
// The creators speak HTTP/1.1 on their connection directly (see rawConn): the load client should
// cost as little CPU as it can on a machine it shares with the bot and PostgreSQL, as pgbench
// does on its side.
func createLoad(ctx context.Context, bot *botProc, token string, clients int, warm, d time.Duration, prefix string) loadResult {
	head := "POST /v1/inquiries HTTP/1.1\r\nHost: " + bot.addr + "\r\nAuthorization: Bearer " + token +
		"\r\nContent-Type: application/json\r\nContent-Length: "
	return closedLoop(ctx, bot, clients, warm, d, head, func(n int64) []byte { return loadBody(prefix, n) }, http.StatusCreated)
}

// closedLoop is createLoad's loop for any request: each client sends head, the length of
// body(n) and the body, on its own kept-alive connection, and the next when the answer (want)
// has come.
func closedLoop(ctx context.Context, bot *botProc, clients int, warm, d time.Duration, head string, body func(n int64) []byte, want int) loadResult {
	var seq, ok, failed atomic.Int64
	var firstErr atomic.Value
	const maxOps = 5_000_000
	var measuring atomic.Bool
	lats := make([][]time.Duration, clients)
	run := func(ctx context.Context, i int) {
		var rc *rawConn
		defer func() {
			if rc != nil {
				rc.close()
			}
		}()
		for ctx.Err() == nil {
			n := seq.Add(1)
			if n > maxOps {
				return
			}
			start := time.Now()
			var err error
			if rc == nil {
				rc, err = dialRaw(ctx, bot.addr)
			}
			if err == nil {
				var st int
				st, err = rc.do(head, body(n))
				if err == nil && st != want {
					err = fmt.Errorf("status %d, not %d", st, want)
				}
				if err != nil {
					rc.close()
					rc = nil
				}
			}
			if !measuring.Load() {
				continue
			}
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
				continue
			}
			ok.Add(1)
			lats[i] = append(lats[i], time.Since(start))
		}
	}
	lctx, cancel := context.WithTimeout(ctx, warm+d)
	defer cancel()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() { defer wg.Done(); run(lctx, i) }()
	}
	time.Sleep(warm)
	measuring.Store(true)
	start := time.Now()
	before := snapCPU(bot.cmd.Process.Pid)
	wg.Wait()
	res := loadResult{ok: ok.Load(), failed: failed.Load(), elapsed: time.Since(start)}
	res.cpu = before.until(snapCPU(bot.cmd.Process.Pid))
	if e, _ := firstErr.Load().(string); e != "" {
		res.firstErr = e
	}
	for _, l := range lats {
		res.latencies = append(res.latencies, l...)
	}
	return res
}

// rawConn is one keep-alive HTTP/1.1 connection driven by hand: write a request, read the
// response with net/http's parser. No transport, no goroutines per connection.
type rawConn struct {
	conn net.Conn
	r    *bufio.Reader
	buf  []byte
}

func dialRaw(ctx context.Context, addr string) (*rawConn, error) {
	c, err := loopbackDial(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &rawConn{conn: c, r: bufio.NewReaderSize(c, 4096)}, nil
}

// do sends head + the body's length + CRLF CRLF + body, and reads the response to its end.
func (rc *rawConn) do(head string, body []byte) (int, error) {
	rc.buf = append(rc.buf[:0], head...)
	rc.buf = strconv.AppendInt(rc.buf, int64(len(body)), 10)
	rc.buf = append(rc.buf, "\r\n\r\n"...)
	rc.buf = append(rc.buf, body...)
	_ = rc.conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := rc.conn.Write(rc.buf); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(rc.r, nil)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.Close {
		err = errors.Join(err, errors.New("the server closed the connection"))
	}
	return resp.StatusCode, err
}

func (rc *rawConn) close() { rc.conn.Close() }

// createMany creates n pending inquiries with clients concurrent creators and returns their
// keys (in no order).
func createMany(ctx context.Context, bot *botProc, token string, n, clients int, prefix, transport string, channel func(i int) string) ([]string, error) {
	c := newClient(clients)
	defer c.CloseIdleConnections()
	keys := make([]string, n)
	var firstErr error
	var once sync.Once
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	eachIndex(cctx, clients, n, func(i int) {
		ch := ""
		if channel != nil {
			ch = channel(i)
		}
		key, err := create(cctx, c, bot, token, createBody(fmt.Sprintf("%s-%d", prefix, i), transport, ch))
		if err != nil {
			once.Do(func() { firstErr = err; cancel() }) // the other creators stop too
			return
		}
		keys[i] = key
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return keys, ctx.Err()
}

// wakeSamples measures answer-to-waiter latency n times, one inquiry after another: a waiter
// long-polls the inquiry on waitOn; once it waits, the answer is posted to answerOn; the sample
// is the time from the answer's response to the waiter's response (both read by this process,
// so negative when the waiter hears first).
func wakeSamples(ctx context.Context, waitOn, answerOn *botProc, token string, n int, prefix string) ([]time.Duration, error) {
	waitC, answerC, createC := newClient(2), newClient(2), newClient(2)
	defer waitC.CloseIdleConnections()
	defer answerC.CloseIdleConnections()
	defer createC.CloseIdleConnections()
	answer := []byte(`{"value":"merge"}`)
	var out []time.Duration
	deadline := time.Now().Add(3 * time.Minute) // bound, whatever n is
	for i := 0; i < n && time.Now().Before(deadline); i++ {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		key, err := create(ctx, createC, waitOn, token, createBody(fmt.Sprintf("%s-%d", prefix, i), "inbox", ""))
		if err != nil {
			return out, err
		}
		type waited struct {
			at   time.Time
			body []byte
			err  error
		}
		done := make(chan waited, 1)
		go func() {
			st, b, err := api(ctx, waitC, http.MethodGet, waitOn.URL()+"/v1/inquiries/"+key+"?wait=30", token, nil)
			at := time.Now()
			if err == nil && st != http.StatusOK {
				err = fmt.Errorf("long-poll: %d %s", st, b)
			}
			done <- waited{at, b, err}
		}()
		// The waiter's request is on an idle keep-alive connection: it is subscribed well within
		// this pause (a wait that misses it would show as an early answer below).
		time.Sleep(15 * time.Millisecond)
		sent := time.Now()
		st, b, err := api(ctx, answerC, http.MethodPost, answerOn.URL()+"/v1/inquiries/"+key+"/answer", token, answer)
		answered := time.Now()
		if err != nil || st != http.StatusOK {
			return out, fmt.Errorf("answer: %d %s %v", st, b, err)
		}
		var w waited
		select {
		case w = <-done:
		case <-time.After(35 * time.Second):
			return out, errors.New("the waiter was not woken within 35s")
		}
		if w.err != nil {
			return out, w.err
		}
		if w.at.Before(sent) {
			return out, fmt.Errorf("the waiter returned before the answer was sent: %s", w.body)
		}
		if !bytes.Contains(w.body, []byte(`"status":"answered"`)) {
			return out, fmt.Errorf("the waiter returned without the answer: %s", w.body)
		}
		out = append(out, w.at.Sub(answered))
	}
	return out, nil
}

// waiterConns opens n raw keep-alive connections, each long-polling one of keys with
// wait=55 s; they hold until closed. Raw connections keep this side's memory small.
type waiterConns struct {
	mu       sync.Mutex
	conns    []net.Conn
	answered atomic.Int64
	errs     atomic.Int64
	firstErr atomic.Value
}

// openWaiters opens one long-poll per key on dialers goroutines: as fast as they can with rate
// 0, else waiter i at start + i/rate.
func openWaiters(ctx context.Context, bot *botProc, token string, keys []string, dialers, rate int) *waiterConns {
	w := &waiterConns{}
	start := time.Now()
	eachIndex(ctx, dialers, len(keys), func(i int) {
		if rate > 0 {
			time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))))
		}
		conn, err := loopbackDial(ctx, "tcp", bot.addr)
		if err != nil {
			w.errs.Add(1)
			w.firstErr.CompareAndSwap(nil, err.Error())
			return
		}
		req := "GET /v1/inquiries/" + keys[i] + "?wait=55 HTTP/1.1\r\nHost: " + bot.addr +
			"\r\nAuthorization: Bearer " + token + "\r\n\r\n"
		if _, err := io.WriteString(conn, req); err != nil {
			conn.Close()
			w.errs.Add(1)
			w.firstErr.CompareAndSwap(nil, err.Error())
			return
		}
		w.mu.Lock()
		w.conns = append(w.conns, conn)
		w.mu.Unlock()
		go func() {
			// A response before the wait ends is an early answer (or an error).
			r := bufio.NewReaderSize(conn, 512)
			line, err := r.ReadString('\n')
			if err == nil && strings.Contains(line, " 200 ") {
				w.answered.Add(1)
			}
		}()
	})
	return w
}

// eachIndex calls do(i) for every i from 0 to n-1 on workers goroutines, each taking the next
// index when it is done with one, until ctx ends; it returns when every call has returned.
func eachIndex(ctx context.Context, workers, n int, do func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				do(i)
			}
		})
	}
	wg.Wait()
}

func (w *waiterConns) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.conns {
		c.Close()
	}
	w.conns = nil
}
