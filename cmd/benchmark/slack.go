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
	// firstLat and dupLat split latencies into first clicks on a message and duplicates.
	firstLat, dupLat []time.Duration
	// floor is the latency of the floor route at the same rate; floorLate its worst send lag.
	floor     []time.Duration
	floorLate time.Duration
	// clickCPU and floorCPU are the CPU spent during the clicks and during the floor's requests
	// (the client's includes the fake Slack, which runs in this process).
	clickCPU, floorCPU cpuUse
}

// clickTarget is the message click i of clicks presses, among n. With as many clicks as
// messages, click i presses message i. With more, they come in groups of k = clicks/n: the
// group's first click is the first press of its own message, and the k-1 that follow press the
// message of the group before, already answered or being answered (a person double-clicking,
// or others clicking the same message): firsts and duplicates interleave through the run, and a
// duplicate arrives a few milliseconds after the first.
func clickTarget(i, n, clicks int) int {
	k := max(1, clicks/n)
	g := i / k
	if i%k == 0 || g == 0 {
		return min(g, n-1)
	}
	return min(g-1, n-1)
}

// isFirstClick says whether click i is the first press of its message.
func isFirstClick(i, n, clicks int) bool {
	k := max(1, clicks/n)
	return i%k == 0 && i/k < n
}

// slackClicks measures Slack interaction acks: n inquiries are asked through the real bot with
// the Slack transport and posted to the fake (one channel each, so that Slack's per-channel
// pacing does not hold the posting up); then one signed button click per inquiry, built by the
// fake from the message the bot posted, is POSTed to /slack/interactions at a steady rate,
// open-loop: click i leaves at start + i/rate whether or not earlier ones were answered.
//
// With clicks > n, the clicks are a mix of first clicks and duplicates (see clickTarget); with
// floorPath set, that route of the bot is then requested at the same rate, as many times, open
// loop, on the same process: the floor of any ack.
func slackClicks(ctx context.Context, bin, work, dbURL string, n, clicks int, perSecond float64, floorPath string) (clickResult, error) {
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

	if clicks <= 0 {
		clicks = n
	}
	progress("  clicking %d buttons of %d messages at %.0f/s, open-loop", clicks, n, perSecond)
	interval := time.Duration(float64(time.Second) / perSecond)
	sctx, cancel := context.WithTimeout(ctx, time.Duration(clicks)*interval+30*time.Second) // bound
	defer cancel()
	c0 := snapCPU(bot.cmd.Process.Pid)
	ol := openLoop(sctx, clicks, interval, func(ctx context.Context, i int) error {
		st, err := sendSigned(ctx, c, bot.URL()+"/slack/interactions", bodies[clickTarget(i, n, clicks)])
		if err == nil && st != http.StatusOK {
			err = fmt.Errorf("interaction answered %d", st)
		}
		return err
	})
	res.clickCPU = c0.until(snapCPU(bot.cmd.Process.Pid))
	res.sent, res.acked, res.lateStart, res.firstErr = ol.sent, ol.ok, ol.lateStart, ol.firstErr
	res.latencies = ol.good(nil)
	res.firstLat = ol.good(func(i int) bool { return isFirstClick(i, n, clicks) })
	res.dupLat = ol.good(func(i int) bool { return !isFirstClick(i, n, clicks) })
	if floorPath != "" {
		// The floor: the bot's own no-op route at the same rate, for as long, on the same process.
		progress("  GET %s at %.0f/s, open-loop, %d requests (the floor)", floorPath, perSecond, clicks)
		f0 := snapCPU(bot.cmd.Process.Pid)
		fl := openLoop(sctx, clicks, interval, func(ctx context.Context, _ int) error {
			st, _, err := api(ctx, c, http.MethodGet, bot.URL()+floorPath, "", nil)
			if err == nil && st != http.StatusOK {
				err = fmt.Errorf("%s answered %d", floorPath, st)
			}
			return err
		})
		res.floorCPU = f0.until(snapCPU(bot.cmd.Process.Pid))
		res.floor, res.floorLate = fl.good(nil), fl.lateStart
		if fl.firstErr != "" && res.firstErr == "" {
			res.firstErr = "floor: " + fl.firstErr
		}
	}
	// The clicks must have answered: count the answered inquiries, and the messages updated.
	deadline = time.Now().Add(time.Minute)
	for {
		res.answered, err = countStatus(ctx, c, bot, "answered")
		if err != nil {
			return res, err
		}
		res.updates = len(fake.Calls("chat.update"))
		if (res.answered >= min(res.acked, n) && res.updates >= res.answered) || time.Now().After(deadline) {
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
