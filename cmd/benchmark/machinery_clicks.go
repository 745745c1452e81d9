package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/dispatch"
	"github.com/inquiry-bot/bot/internal/inflight"
	"github.com/inquiry-bot/bot/slackapp"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/storage"
)

// clickBurst is how many people press one message at once in row 9.
const clickBurst = 40

// countingStore is the store with its reads of one inquiry and its resolutions counted: the
// database transactions a click costs. Everything else passes through.
type countingStore struct {
	*storage.Store
	reads, resolves atomic.Int64
}

func (c *countingStore) Inquiry(ctx context.Context, key string) (*inquiry.Record, error) {
	c.reads.Add(1)
	return c.Store.Inquiry(ctx, key)
}

func (c *countingStore) Resolve(ctx context.Context, key string, r inquiry.Resolution) (*inquiry.Record, error) {
	c.resolves.Add(1)
	return c.Store.Resolve(ctx, key, r)
}

// burstResult is what one configuration of row 9 measured.
type burstResult struct {
	acks            []time.Duration // each click's POST to its ack
	reads, resolves int64           // store calls during the bursts
	answered        int             // messages answered (one per burst)
}

// clickBursts runs bursts of clickBurst simultaneous clicks by different people on one message
// each, against the Slack app and the service in this process over the store at dbURL, and
// returns the ack latencies and the store calls the clicks cost.
func clickBursts(ctx context.Context, dbURL string, bursts int, flights bool) (burstResult, error) {
	var res burstResult
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := storage.Open(cctx, dbURL)
	if err != nil {
		return res, err
	}
	defer st.Close()
	cs := &countingStore{Store: st}
	reg := inquiry.NewRegistry()
	svc := inquiry.NewService(cs, reg)
	svc.DefaultPolicy, svc.DefaultTransport, svc.Log = inquiry.PolicyAsk, inquiry.TransportSlack, quiet
	if flights {
		svc.Answering = inflight.New[*inquiry.Record]()
	}
	fake := slackfake.New(slackfake.Options{Logger: quiet})
	defer fake.Close()
	app, err := slackapp.New(slackapp.Config{
		BotToken: slackfake.BotToken, SigningSecret: slackfake.SigningSecret, APIURL: fake.URL(),
		DefaultChannel: slackfake.DefaultChannel, Service: svc, Finder: st, Answers: st, Logger: quiet,
		PostInterval: time.Millisecond, PostBurst: 100,
	})
	if err != nil {
		return res, err
	}
	defer app.Close()
	reg.Register(inquiry.TransportSlack, app)
	d := &dispatch.Dispatcher{Store: st, Handlers: svc.TransportHandlers(), Poll: 20 * time.Millisecond, Log: quiet}
	svc.Kick = d.Kick
	dispatched := make(chan struct{})
	go func() { d.Run(cctx); close(dispatched) }()
	defer func() { cancel(); <-dispatched }()
	srv := httptest.NewServer(app.Handler())
	defer srv.Close()
	fake.SetAppURL(srv.URL)
	c := newClient(clickBurst * 2)
	defer c.CloseIdleConnections()

	for b := range bursts {
		ch := fmt.Sprintf("C0BURST%04d", b)
		fake.AddChannel(ch, fmt.Sprintf("burst-%d", b))
		rec, _, err := svc.Ask(cctx, inquiry.AskRequest{
			Namespace: "bench", Inquiry: inquiry.Inquiry{
				ID: fmt.Sprintf("burst-%d", b), Kind: inquiry.KindChoice, Question: "Merge now?",
				Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}},
			},
			Slack:  &inquiry.SlackTarget{Channel: ch},
			Config: &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportSlack},
		})
		if err != nil {
			return res, err
		}
		var msgs []slackfake.Message
		for deadline := time.Now().Add(30 * time.Second); len(msgs) == 0; msgs = fake.BotMessages(ch) {
			if time.Now().After(deadline) {
				return res, fmt.Errorf("inquiry %s was not posted within 30 s", rec.Key)
			}
			time.Sleep(5 * time.Millisecond)
		}
		bodies := make([][]byte, clickBurst)
		for i := range bodies {
			payload, err := fake.ClickPayload(fmt.Sprintf("U0CLICK%03d", i), ch, msgs[0].TS, "Merge")
			if err != nil {
				return res, err
			}
			bodies[i] = []byte(url.Values{"payload": {string(payload)}}.Encode())
		}
		r0, w0 := cs.reads.Load(), cs.resolves.Load()
		start := make(chan struct{})
		acks := make([]time.Duration, clickBurst)
		errs := make([]error, clickBurst)
		var wg sync.WaitGroup
		for i := range clickBurst {
			wg.Go(func() {
				<-start
				t0 := time.Now()
				code, err := sendSigned(cctx, c, srv.URL+"/slack/interactions", bodies[i])
				acks[i] = time.Since(t0)
				if err == nil && code != http.StatusOK {
					err = fmt.Errorf("interaction answered %d", code)
				}
				errs[i] = err
			})
		}
		close(start)
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return res, err
			}
		}
		res.acks = append(res.acks, acks...)
		res.reads += cs.reads.Load() - r0
		res.resolves += cs.resolves.Load() - w0
		got, err := svc.Get(cctx, rec.Key)
		if err != nil {
			return res, err
		}
		if got.Status == inquiry.StatusAnswered {
			res.answered++
		}
	}
	return res, nil
}

// clickMachinery is row 9: the answers in flight (internal/inflight, Service.Answering) on and
// off, on SQLite and PostgreSQL. The Slack app's cache of settled inquiries, measured beside it in
// the same way, bought nothing on PostgreSQL and went (docs/ARCHITECTURE.md).
func (b *bench) clickMachinery() {
	bursts := 30
	if b.quick {
		bursts = 10
	}
	for _, dialect := range []string{"sqlite", "postgres"} {
		var p50, p99 [2]time.Duration
		for i, flights := range []bool{true, false} {
			name := map[bool]string{true: "answers in flight shared", false: "the store alone"}[flights]
			var dbURL string
			if dialect == "sqlite" {
				dbURL = "sqlite:" + filepath.Join(b.work, fmt.Sprintf("clicks-%t.db", flights))
			} else {
				u, err := b.pg.newDatabase(b.ctx, "clicks")
				if err != nil {
					b.fail("9", "click machinery", err)
					return
				}
				dbURL = u
			}
			progress("  %s, %s: %d bursts of %d simultaneous clicks on one message", dialect, name, bursts, clickBurst)
			res, err := clickBursts(b.ctx, dbURL, bursts, flights)
			if err != nil {
				b.fail("9", "click machinery "+dialect+" "+name, err)
				return
			}
			p50[i], p99[i] = median(res.acks), percentile(res.acks, 99)
			n := float64(bursts)
			r := row{n: "9", what: fmt.Sprintf("%d simultaneous clicks on one Slack message, %s, %s (%d bursts)", clickBurst, dialect, name, bursts),
				figure: fmt.Sprintf("ack p50 %s, p99 %s; per message %.1f reads + %.1f resolve transactions", ms(p50[i]), ms(p99[i]), float64(res.reads)/n, float64(res.resolves)/n),
				bound:  "—", ratio: "—", target: "—", met: yes(res.answered == bursts)}
			if !flights {
				r.bound = "shared: p50 " + ms(p50[0]) + ", p99 " + ms(p99[0])
				r.ratio = "p50 " + ratio(float64(p50[1]), float64(p50[0])) + ", p99 " + ratio(float64(p99[1]), float64(p99[0]))
				r.target = "≥ 1.5× to keep it"
				r.met = yes(res.answered == bursts && max(float64(p50[1])/float64(p50[0]), float64(p99[1])/float64(p99[0])) >= 1.5)
			}
			b.add(r)
		}
	}
}
