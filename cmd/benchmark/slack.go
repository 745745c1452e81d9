package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

// clickResult is what the open-loop click run measured.
type clickResult struct {
	sent, acked int
	latencies   []time.Duration // from each click's scheduled time to the ack read
	answered    int             // inquiries answered after the run
	updates     int             // chat.update calls the fake saw (the answer shown in Slack)
	lateStart   time.Duration   // the worst lag of a send behind its schedule
	firstErr    string
}

// slackClicks measures Slack interaction acks: n inquiries are asked through the real bot with
// the Slack transport and posted to the fake (one channel each, so that Slack's per-channel
// pacing does not hold the posting up); then one signed button click per inquiry, built by the
// fake from the message the bot posted, is POSTed to /slack/interactions at a steady rate,
// open-loop: click i leaves at start + i/rate whether or not earlier ones were answered.
func slackClicks(ctx context.Context, bin, work, dbURL string, n int, perSecond float64) (clickResult, error) {
	var res clickResult
	fake := slackfake.New(slackfake.Options{
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	defer fake.Close()
	channels := make([]string, n)
	for i := range channels {
		channels[i] = fmt.Sprintf("C0BENCH%05d", i)
		fake.AddChannel(channels[i], fmt.Sprintf("bench-%d", i))
	}
	bot, err := startBot(ctx, bin, work, "slack", "DATABASE_URL="+dbURL,
		"SLACK_BOT_TOKEN="+slackfake.BotToken, "SLACK_SIGNING_SECRET="+slackfake.SigningSecret,
		"SLACK_API_URL="+fake.URL(), "SLACK_DEFAULT_CHANNEL="+slackfake.DefaultChannel)
	if err != nil {
		return res, err
	}
	defer bot.stop()
	fake.SetAppURL(bot.URL())

	progress("  asking %d inquiries through the Slack transport", n)
	if _, err := createMany(ctx, bot, bot.token, n, 16, "click", "slack", func(i int) string { return channels[i] }); err != nil {
		return res, err
	}
	// Wait until every question is posted and the bot recorded where (its ts).
	deadline := time.Now().Add(3 * time.Minute)
	c := newClient(64)
	defer c.CloseIdleConnections()
	for {
		posted, err := countPosted(ctx, c, bot)
		if err != nil {
			return res, err
		}
		if posted >= n {
			break
		}
		if time.Now().After(deadline) {
			return res, fmt.Errorf("only %d of %d questions were posted to the fake Slack within 3 minutes", posted, n)
		}
		time.Sleep(250 * time.Millisecond)
	}
	bodies := make([][]byte, n)
	for i, ch := range channels {
		msgs := fake.BotMessages(ch)
		if len(msgs) != 1 {
			return res, fmt.Errorf("channel %s has %d bot messages, want 1", ch, len(msgs))
		}
		payload, err := fake.ClickPayload("U0BENCHPERSON", ch, msgs[0].TS, "Merge")
		if err != nil {
			return res, err
		}
		bodies[i] = []byte(url.Values{"payload": {string(payload)}}.Encode())
	}

	progress("  clicking %d buttons at %.0f/s, open-loop", n, perSecond)
	interval := time.Duration(float64(time.Second) / perSecond)
	lats := make([]time.Duration, n)
	var acked atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now().Add(100 * time.Millisecond)
	stop := start.Add(time.Duration(n)*interval + 30*time.Second) // bound
	sctx, cancel := context.WithDeadline(ctx, stop)
	defer cancel()
	for i := range n {
		at := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(at))
		if sctx.Err() != nil {
			break
		}
		if lag := time.Since(at); lag > res.lateStart {
			res.lateStart = lag
		}
		res.sent++
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := sendSigned(sctx, c, bot.URL()+"/slack/interactions", bodies[i])
			lats[i] = time.Since(at)
			if err == nil && st != http.StatusOK {
				err = fmt.Errorf("interaction answered %d", st)
			}
			if err != nil {
				firstErr.CompareAndSwap(nil, err.Error())
				lats[i] = -1
				return
			}
			acked.Add(1)
		}()
	}
	wg.Wait()
	res.acked = int(acked.Load())
	for _, l := range lats[:res.sent] {
		if l >= 0 {
			res.latencies = append(res.latencies, l)
		}
	}
	if e, _ := firstErr.Load().(string); e != "" {
		res.firstErr = e
	}
	// The clicks must have answered: count the answered inquiries, and the messages updated.
	deadline = time.Now().Add(time.Minute)
	for {
		res.answered, err = countStatus(ctx, c, bot, "answered")
		if err != nil {
			return res, err
		}
		res.updates = len(fake.Calls("chat.update"))
		if (res.answered >= res.acked && res.updates >= res.answered) || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	return res, nil
}

// sendSigned POSTs a form body to the app signed as Slack signs it, now.
func sendSigned(ctx context.Context, c *http.Client, u string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(string(body)))
	if err != nil {
		return 0, err
	}
	now := time.Now()
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("X-Slack-Signature", slackfake.Sign(slackfake.SigningSecret, now, body))
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// listPage is one page of GET /v1/inquiries.
type listPage struct {
	Inquiries []struct {
		Status string `json:"status"`
		Slack  struct {
			TS string `json:"ts"`
		} `json:"slack"`
	} `json:"inquiries"`
	NextCursor string `json:"next_cursor"`
}

// eachInquiry pages through the bot's inquiries of a status ("" for all).
func eachInquiry(ctx context.Context, c *http.Client, bot *botProc, status string, f func(status, ts string)) error {
	cursor := ""
	for range 10_000 { // bound: 5 million inquiries
		q := url.Values{"limit": {"500"}}
		if status != "" {
			q.Set("status", status)
		}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		st, b, err := api(ctx, c, http.MethodGet, bot.URL()+"/v1/inquiries?"+q.Encode(), bot.token, nil)
		if err != nil {
			return err
		}
		if st != http.StatusOK {
			return fmt.Errorf("list inquiries: %d %s", st, b)
		}
		var p listPage
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		for _, in := range p.Inquiries {
			f(in.Status, in.Slack.TS)
		}
		if p.NextCursor == "" {
			return nil
		}
		cursor = p.NextCursor
	}
	return nil
}

func countPosted(ctx context.Context, c *http.Client, bot *botProc) (int, error) {
	n := 0
	err := eachInquiry(ctx, c, bot, "pending", func(_, ts string) {
		if ts != "" {
			n++
		}
	})
	return n, err
}

func countStatus(ctx context.Context, c *http.Client, bot *botProc, status string) (int, error) {
	n := 0
	err := eachInquiry(ctx, c, bot, status, func(string, string) { n++ })
	return n, err
}
