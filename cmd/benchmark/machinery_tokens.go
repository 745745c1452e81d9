package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"time"

	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/tokencache"
	"github.com/inquiry-bot/bot/storage"
)

// Row t: the token cache on and off in one run, on both dialects. The figure is what every
// client of the HTTP API feels: authenticated reads a second (GET /v1/inquiries/{key} with a
// bearer token, b.p.clients clients in a closed loop through the real gateway). Off, every
// request reads its token from the store; on, a token is read once a TokenTTL. Rounds take the
// two in turn, each on a fresh database.

// tokenSwitches are the service's token cache as shipped and off (a TTL of zero keeps nothing).
var tokenSwitches = []struct {
	name  string
	cache func() inquiry.TokenCache
}{
	{"as shipped", func() inquiry.TokenCache {
		return tokencache.New[*inquiry.Token](inquiry.TokenTTL, inquiry.MaxCachedTokens)
	}},
	{"token cache off", func() inquiry.TokenCache { return tokencache.New[*inquiry.Token](0, 0) }},
}

// machineryTokens is row t.
func (b *bench) machineryTokens() {
	rounds, d := 4, 3*time.Second
	if b.quick {
		rounds, d = 2, 2*time.Second
	}
	for _, dialect := range []string{storage.DialectPostgres, storage.DialectSQLite} {
		reads := make([]machLoad, len(tokenSwitches))
		for r := range rounds {
			for j := range tokenSwitches {
				i := (r + j) % len(tokenSwitches)
				l, err := b.tokenLoad(dialect, i, d, fmt.Sprintf("t%d%d", r, i))
				if err != nil {
					b.fail("t", dialect+" "+tokenSwitches[i].name, err)
					return
				}
				progress("  %s, %s, round %d: reads %v", dialect, tokenSwitches[i].name, r+1, l)
				reads[i].add(l)
			}
		}
		on, off := reads[0], reads[1]
		b.add(row{n: "t", what: fmt.Sprintf("%s, %d clients, authenticated GET /v1/inquiries/{key}: with it / %s", dialect, b.p.clients, tokenSwitches[1].name),
			figure: on.String(), bound: off.String(), ratio: ratio(on.rate(), off.rate()),
			target: fmt.Sprintf("≥ %.1f to keep", keepRatio), met: yes(on.rate() >= keepRatio*off.rate())})
	}
}

// tokenLoad serves the gateway over a fresh database with token cache i and reads one inquiry
// through it with b.p.clients clients for d.
func (b *bench) tokenLoad(dialect string, i int, d time.Duration, purpose string) (machLoad, error) {
	dbURL := "sqlite:" + filepath.Join(b.work, purpose+".db")
	if dialect == storage.DialectPostgres {
		var err error
		if dbURL, err = b.pg.newDatabase(b.ctx, purpose); err != nil {
			return machLoad{}, err
		}
	}
	st, err := storage.Open(b.ctx, dbURL)
	if err != nil {
		return machLoad{}, err
	}
	defer st.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := inquiry.NewService(st, inquiry.NewRegistry())
	svc.Log, svc.DefaultPolicy, svc.Tokens = quiet, inquiry.PolicyAsk, tokenSwitches[i].cache()
	plain, asker := inquiry.NewToken("agent", "bench", []inquiry.Scope{inquiry.ScopeAsk}, svc.Clock())
	if err := st.CreateToken(b.ctx, asker); err != nil {
		return machLoad{}, err
	}
	rec, _, err := svc.Ask(inquiry.WithCaller(b.ctx, asker), inquiry.AskRequest{Inquiry: inquiry.Inquiry{
		ID: "q", Kind: inquiry.KindChoice, Question: "Ship the release?",
		Options: []inquiry.Option{{Value: "yes", Label: "Yes"}, {Value: "no", Label: "No"}},
	}})
	if err != nil {
		return machLoad{}, err
	}
	srv := gateway.New(gateway.Config{Service: svc, Logger: quiet,
		RateLimits: gateway.RateLimits{Rate: rate.Inf, MaxWaiters: -1, AddressRate: rate.Inf}})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: b.p.clients}}
	defer client.CloseIdleConnections()
	url := ts.URL + "/v1/inquiries/" + rec.Key
	return closedLoopCalls(b.ctx, b.p.clients, d, func() (bool, error) {
		req, err := http.NewRequestWithContext(b.ctx, http.MethodGet, url, nil)
		if err != nil {
			return true, err
		}
		req.Header.Set("Authorization", "Bearer "+plain)
		resp, err := client.Do(req)
		if err != nil {
			return true, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return true, fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		return true, nil
	})
}
