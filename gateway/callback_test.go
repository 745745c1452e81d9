package gateway_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

func TestCallbackURL(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		rcv := newReceiver(t)
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withCallbackHosts(rcv.host()))
		key := str(b.ask(b.askA, choice("merge", "callback_url", rcv.URL+"/hook"), http.StatusCreated)["key"])
		require.Equal(t, 200, b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "merge"}).status)

		cb := rcv.next(t)
		require.NoError(t, client.Verify(b.secret, cb.header.Get(client.HeaderSignature), cb.header.Get(client.HeaderTimestamp), cb.body, time.Now(), client.DefaultSignatureWindow))
		require.Equal(t, "callback", cb.header.Get(client.HeaderEvent))
		checkSchema(t, "Inquiry", cb.body)
		var rec inquiry.Record
		require.NoError(t, json.Unmarshal(cb.body, &rec))
		require.Equal(t, key, rec.Key)
		require.Equal(t, inquiry.StatusAnswered, rec.Status)
		require.Equal(t, "merge", rec.Answer.Value.First())
		require.Equal(t, "done", b.waitOutcome(inquiry.DeliverCallback).outcome)

		// Policy default resolves at once, and the callback hears of it too.
		b.ask(b.askA, choice("hold", "callback_url", rcv.URL+"/hook", "config", askPolicy("default")), http.StatusOK)
		cb = rcv.next(t)
		require.NoError(t, json.Unmarshal(cb.body, &rec))
		require.Equal(t, inquiry.SourceDefault, rec.Answer.Source)
	})
}

func TestCallbackRetries(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		rcv := newReceiver(t, 500, 200)
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withCallbackHosts(rcv.host()))
		key := str(b.ask(b.askA, confirm("deploy", "callback_url", rcv.URL), http.StatusCreated)["key"])
		require.Equal(t, 200, b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "yes"}).status)

		first := rcv.next(t)
		require.Equal(t, "retry", b.waitOutcome(inquiry.DeliverCallback).outcome)
		// The outcome is observed before the retry is written: advance once the store holds it,
		// or the kick may find the delivery still leased and only the poll would take it.
		require.Eventually(t, func() bool {
			ds, err := b.store.ListDeliveries(context.Background(), key)
			return err == nil && len(ds) == 1 && ds[0].Status == inquiry.DeliveryPending && ds[0].LastError != ""
		}, 20*time.Second, 10*time.Millisecond, "the retry is recorded")
		b.advance(5 * time.Second) // past the first backoff
		second := rcv.next(t)
		require.Equal(t, "done", b.waitOutcome(inquiry.DeliverCallback).outcome)
		require.Equal(t, first.header.Get(client.HeaderDelivery), second.header.Get(client.HeaderDelivery), "a retry is the same delivery")
		require.NoError(t, client.Verify(b.secret, second.header.Get(client.HeaderSignature), second.header.Get(client.HeaderTimestamp), second.body, time.Now(), time.Minute))

		// Delivered once: no more attempts come.
		b.advance(time.Hour)
		b.requireOneCallback(t, key)
		require.Equal(t, 2, rcv.count())
	})
}

func TestCallbackOutcomes(t *testing.T) {
	t.Parallel()
	tooMany := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer tooMany.Close()
	redirected := newReceiver(t)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, redirected.URL, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	gone := newReceiver(t, 410)
	slow := newReceiver(t, 503)
	hosts := []string{strings.TrimPrefix(tooMany.URL, "http://"), strings.TrimPrefix(redirect.URL, "http://"),
		redirected.host(), gone.host(), slow.host()}

	for _, c := range []struct {
		name string
		url  string
		want string
	}{
		{"429 waits its Retry-After", tooMany.URL, "rate_limited"},
		{"a redirect is not followed and gives up", redirect.URL, "failed"},
		{"410 gives up", gone.URL, "failed"},
		{"503 retries", slow.URL, "retry"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := setup(t, withPolicy(inquiry.PolicyAsk), withCallbackHosts(hosts...))
			key := str(b.ask(b.askA, confirm("deploy", "callback_url", c.url), http.StatusCreated)["key"])
			require.Equal(t, 200, b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "no"}).status)
			o := b.waitOutcome(inquiry.DeliverCallback)
			require.Equal(t, c.want, o.outcome, "err: %v", o.err)
			// The outcome is observed before it is recorded.
			status := func() inquiry.DeliveryStatus {
				ds, err := b.store.ListDeliveries(context.Background(), key)
				require.NoError(t, err)
				require.Len(t, ds, 1)
				return ds[0].Status
			}
			switch c.want {
			case "failed":
				require.Eventually(t, func() bool { return status() == inquiry.DeliveryFailed }, 5*time.Second, 10*time.Millisecond)
				require.True(t, inquiry.Fatal(o.err))
				// The inquiry says why its callback was given up (it was failure: null).
				var f map[string]any
				require.Eventually(t, func() bool {
					f, _ = b.do("GET", "/v1/inquiries/"+key, b.askA, nil).json(t)["failure"].(map[string]any)
					return f != nil
				}, 5*time.Second, 10*time.Millisecond)
				require.Equal(t, "callback_failed", f["code"])
				require.Equal(t, false, f["fatal"])
				require.Contains(t, f["message"], "receiver answered")
				require.Equal(t, "answered", b.do("GET", "/v1/inquiries/"+key, b.askA, nil).json(t)["status"], "the answer stands")
			case "rate_limited":
				var ra *inquiry.RetryAfterError
				require.ErrorAs(t, o.err, &ra)
				require.Equal(t, 120*time.Second, ra.After)
				require.Equal(t, inquiry.DeliveryPending, status())
			default:
				require.False(t, inquiry.Fatal(o.err))
				require.Equal(t, inquiry.DeliveryPending, status())
			}
		})
	}
	require.Zero(t, redirected.count(), "a redirect target is never reached")
}

func TestCallbackWithoutSecretFailsClosed(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t)
	b := setup(t, withPolicy(inquiry.PolicyAsk), withCallbackHosts(rcv.host()))
	b.secret = nil
	key := str(b.ask(b.askA, confirm("deploy", "callback_url", rcv.URL), http.StatusCreated)["key"])
	require.Equal(t, 200, b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "no"}).status)
	o := b.waitOutcome(inquiry.DeliverCallback)
	require.Equal(t, "retry", o.outcome, "kept for when a secret is configured")
	require.Contains(t, o.err.Error(), "BOT_CALLBACK_SECRET")
	require.Zero(t, rcv.count(), "nothing unsigned is sent")
}

// TestSSRF refuses callback and resume URLs that reach the server's own network, unless the
// operator allow-listed them, when they are given and again when they are dialled.
func TestSSRF(t *testing.T) {
	t.Parallel()
	b := setup(t, withPolicy(inquiry.PolicyAsk), withCallbackHosts("127.0.0.1:4567", "internal.example", "[fd00::1]:80"))
	for _, u := range []string{
		"http://127.0.0.1/x", "http://127.0.0.1:8080/x", "https://10.0.0.1/x", "http://10.0.0.1:4567/x",
		"http://169.254.169.254/latest/meta-data/", "http://[::1]:8080/x", "http://[fe80::1%25eth0]/x",
		"http://localhost:4567/x", "http://100.64.0.1/x", "http://192.168.1.1/x", "http://172.16.0.1/x",
		"http://[fd00::1]:81/x", "http://0.0.0.0/x", "http://[::ffff:127.0.0.1]/x", "http://[64:ff9b::a9fe:a9fe]/x",
		"http://2130706433/x", // 127.0.0.1 as one decimal number
	} {
		r := b.do("POST", "/v1/inquiries", b.askA, confirm("a", "callback_url", u))
		e := r.errorOf(t, 422, inquiry.CodeInvalidInquiry)
		require.Equal(t, "callback_url", e["field"], u)
		if !strings.Contains(u, "2130706433") {
			require.Contains(t, e["message"], "BOT_CALLBACK_HOSTS", u)
		}
		r = b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "r", "resume_url": u})
		require.Equal(t, "resume_url", r.errorOf(t, 422, inquiry.CodeInvalidInquiry)["field"], u)
	}
	b.requireNothingStored()

	// Allow-listed: host:port exactly, or a host on every port.
	for _, u := range []string{"http://127.0.0.1:4567/x", "https://internal.example/x", "http://[fd00::1]/x"} {
		r := b.do("POST", "/v1/inquiries", b.askA, confirm("ok-"+u, "callback_url", u))
		require.Equal(t, http.StatusCreated, r.status, "%s: %s", u, r.body)
	}
}

// fakeResolver answers every lookup with one address, as a rebinding DNS server would when it
// is asked at create time.
type fakeResolver struct{ ip string }

func (f fakeResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	if host == "nxdomain.test" {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []net.IPAddr{{IP: net.ParseIP(f.ip)}}, nil
}

func TestSSRFAtDialTime(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t)
	_, port, err := net.SplitHostPort(rcv.host())
	require.NoError(t, err)

	// At create time "localhost" resolves (so says the rebinding DNS) to a public address; at
	// dial time it is loopback. The dial-time check refuses it, and the delivery gives up.
	b := setup(t, withPolicy(inquiry.PolicyAsk), withResolver(fakeResolver{"93.184.216.34"}))
	key := str(b.ask(b.askA, confirm("deploy", "callback_url", "http://localhost:"+port+"/x"), http.StatusCreated)["key"])
	require.Equal(t, 200, b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "yes"}).status)
	o := b.waitOutcome(inquiry.DeliverCallback)
	require.Equal(t, "failed", o.outcome)
	var refused *gateway.RefusedAddrError
	require.ErrorAs(t, o.err, &refused)
	require.True(t, inquiry.Fatal(o.err))
	require.Zero(t, rcv.count())

	b.do("POST", "/v1/inquiries", b.askA, confirm("nx", "callback_url", "https://nxdomain.test/x")).errorOf(t, 422, inquiry.CodeInvalidInquiry)

	// The guard's client on its own.
	client := gateway.NewGuard(nil, nil).Client(5 * time.Second)
	_, err = client.Get(rcv.URL)
	require.ErrorAs(t, err, &refused)
	client = gateway.NewGuard([]string{rcv.host()}, nil).Client(5 * time.Second)
	res, err := client.Get(rcv.URL)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 1, rcv.count())
}

func TestRefused(t *testing.T) {
	t.Parallel()
	for ip, refused := range map[string]bool{
		"127.0.0.1": true, "127.1.2.3": true, "10.1.2.3": true, "172.16.0.1": true, "172.31.255.255": true,
		"172.32.0.1": false, "192.168.0.1": true, "169.254.169.254": true, "100.64.0.1": true,
		"100.128.0.1": false, "0.0.0.0": true, "224.0.0.1": true, "255.255.255.255": true,
		"::1": true, "::": true, "fe80::1": true, "fd12:3456::1": true, "fc00::1": true,
		"::ffff:10.0.0.1": true, "64:ff9b::7f00:1": true, "2002:7f00:1::": true, "ff02::1": true,
		"8.8.8.8": false, "93.184.216.34": false, "2606:4700::1111": false, "2002:808:808::": false,
	} {
		got := gateway.Refused(netip.MustParseAddr(ip)) != ""
		require.Equal(t, refused, got, ip)
	}
}

func TestSignAndVerify(t *testing.T) {
	t.Parallel()
	secret := []byte("s3cret")
	body := []byte(`{"key":"inq_1"}`)
	const ts = int64(1764590400)

	// The signature is exactly the documented one.
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("v1:1764590400:" + string(body)))
	want := "v1=" + hex.EncodeToString(mac.Sum(nil))
	require.Equal(t, want, client.Sign(secret, ts, body))

	now := time.Unix(ts, 0).Add(time.Minute)
	require.NoError(t, client.Verify(secret, want, "1764590400", body, now, 5*time.Minute))
	// Several signatures (a secret being rotated): any one that matches will do.
	require.NoError(t, client.Verify(secret, "v1=00ff, "+want, "1764590400", body, now, 5*time.Minute))

	for name, c := range map[string]struct {
		secret []byte
		sig    string
		ts     string
		body   string
		now    time.Time
		err    error
	}{
		"tampered body":   {secret, want, "1764590400", `{"key":"inq_2"}`, now, client.ErrBadSignature},
		"other secret":    {[]byte("other"), want, "1764590400", string(body), now, client.ErrBadSignature},
		"moved timestamp": {secret, want, "1764590401", string(body), now, client.ErrBadSignature},
		"stale":           {secret, want, "1764590400", string(body), now.Add(time.Hour), client.ErrStaleTimestamp},
		"from the future": {secret, want, "1764590400", string(body), now.Add(-time.Hour), client.ErrStaleTimestamp},
		"no timestamp":    {secret, want, "", string(body), now, client.ErrBadTimestamp},
		"no signature":    {secret, "", "1764590400", string(body), now, client.ErrNoSignatureSent},
		"no secret":       {nil, want, "1764590400", string(body), now, client.ErrNoSecret},
	} {
		err := client.Verify(c.secret, c.sig, c.ts, []byte(c.body), c.now, 5*time.Minute)
		require.True(t, errors.Is(err, c.err), "%s: %v", name, err)
	}
}

// requireOneCallback requires that key has one delivery, its callback, and that it is done, and
// that no delivery is due by the dispatcher's clock: no further attempt can come, which the
// caller's count of what its receiver got may then check without waiting. A duplicate would be
// a second delivery, or the one left pending.
func (b *bundle) requireOneCallback(t *testing.T, key string) {
	t.Helper()
	ctx := context.Background()
	require.Eventually(t, func() bool {
		ds, err := b.store.ListDeliveries(ctx, key)
		return err == nil && len(ds) == 1 && ds[0].Status != inquiry.DeliveryPending
	}, 20*time.Second, 10*time.Millisecond, "the callback's delivery is carried out")
	ds, err := b.store.ListDeliveries(ctx, key)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	require.Equal(t, inquiry.DeliverCallback, ds[0].Kind)
	require.Equal(t, inquiry.DeliveryDone, ds[0].Status)
	n, err := b.disp.Drain(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "no delivery is due")
}
