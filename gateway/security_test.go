package gateway_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// Security: who may read and answer, tokens at rest, callbacks kept off the server's network,
// secrets kept out of logs and error bodies, and SQL that takes user text only as parameters.
// docs/RELIABILITY.md ("Security") lists these.

// namespaceView is what a namespace owns, as the admin token lists it.
func (b *bundle) namespaceView(ns string) string {
	b.t.Helper()
	var out []string
	for _, it := range b.listAll() {
		if m := it.(map[string]any); m["namespace"] == ns {
			raw := fmt.Sprint(m)
			out = append(out, raw)
		}
	}
	r := b.do("GET", "/v1/runs?limit=500&namespace="+ns, b.admin, nil)
	require.Equal(b.t, 200, r.status, "body: %s", r.body)
	return strings.Join(out, "\n") + "\n" + string(r.body)
}

// TestAskTokenStaysInItsNamespace: an ask token of team-b can neither answer nor read, cancel or
// touch team-a's inquiries and runs, through any endpoint; team-a's things stay as they were.
func TestAskTokenStaysInItsNamespace(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		w := populate(t, b)
		before := b.namespaceView("team-a")

		for _, key := range []string{w.choice, w.text, w.waiting} {
			for _, c := range []struct {
				method, path string
				body         any
				status       int
				code         inquiry.Code
			}{
				{"GET", "/v1/inquiries/" + key, nil, 403, inquiry.CodeForbidden},
				{"GET", "/v1/inquiries/" + key + "?wait=0.1", nil, 403, inquiry.CodeForbidden},
				{"POST", "/v1/inquiries/" + key + "/cancel", nil, 403, inquiry.CodeForbidden},
				{"POST", "/v1/inquiries/" + key + "/answer", map[string]any{"value": "merge"}, 403, inquiry.CodeForbidden},
				{"POST", "/v1/inquiries/" + key + "/answer", map[string]any{"declined": true}, 403, inquiry.CodeForbidden},
			} {
				r := b.do(c.method, c.path, b.askB, c.body)
				e := r.errorOf(t, c.status, c.code)
				require.NotContains(t, string(r.body), "Merge now?", "a refusal shows nothing of the inquiry")
				requireOneSentence(t, c.path, str(e["message"]))
			}
		}
		// An ask token cannot answer even its own namespace's question: an agent never answers
		// itself.
		b.do("POST", "/v1/inquiries/"+w.choice+"/answer", b.askA, map[string]any{"value": "merge"}).errorOf(t, 403, inquiry.CodeForbidden)

		// Lists show only team-b's own, whatever the filters say.
		for _, path := range []string{"/v1/inquiries", "/v1/inquiries?run_id=deploy-42", "/v1/inquiries?status=pending", "/v1/inquiries?limit=500"} {
			r := b.do("GET", path, b.askB, nil)
			require.Equal(t, 200, r.status, "body: %s", r.body)
			for _, it := range r.json(t)["inquiries"].([]any) {
				require.Equal(t, "team-b", it.(map[string]any)["namespace"], path)
			}
		}
		// A cursor made up from a team-a key pages nothing of team-a.
		cursor := base64.RawURLEncoding.EncodeToString([]byte("99999999999999999|" + w.choice))
		r := b.do("GET", "/v1/inquiries?cursor="+cursor, b.askB, nil)
		require.Equal(t, 200, r.status, "body: %s", r.body)
		for _, it := range r.json(t)["inquiries"].([]any) {
			require.Equal(t, "team-b", it.(map[string]any)["namespace"])
		}

		// Runs are per namespace: team-a's run "nightly" does not exist for team-b.
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/v1/runs/nightly", nil},
			{"POST", "/v1/runs/nightly/heartbeat", nil},
			{"POST", "/v1/runs/nightly/resume", map[string]any{"answers": map[string]any{"nightly:go": map[string]any{"value": "yes"}}}},
			{"POST", "/v1/runs/nightly/finish", map[string]any{"status": "failed"}},
		} {
			b.do(c.method, c.path, b.askB, c.body).errorOf(t, 404, inquiry.CodeNotFound)
		}
		for _, path := range []string{"/v1/runs", "/v1/runs?namespace=team-a", "/v1/runs?status=waiting"} {
			r := b.do("GET", path, b.askB, nil)
			require.Equal(t, 200, r.status, "body: %s", r.body)
			require.Empty(t, r.json(t)["runs"], "%s: an ask token lists only its own runs", path)
		}
		// Asking in a run of the same id, or with the same inquiry id, makes team-b's own.
		r = b.do("POST", "/v1/runs/nightly/ask", b.askB, confirm("nightly:go"))
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		require.NotEqual(t, w.waiting, r.json(t)["inquiry"].(map[string]any)["key"])
		got := b.ask(b.askB, choice("deploy-42:merge", "run_id", "deploy-42"), http.StatusCreated)
		require.NotEqual(t, w.choice, got["key"])
		require.Equal(t, "team-b", got["namespace"])

		require.Equal(t, before, b.namespaceView("team-a"), "team-b's token changed something of team-a")
	})
}

// rawDB opens the test's database directly, as an attacker with a copy of it would read it.
func rawDB(t *testing.T, dbURL string) *sqlx.DB {
	t.Helper()
	driver, dsn := "postgres", dbURL
	if path, ok := strings.CutPrefix(dbURL, "sqlite:"); ok {
		driver, dsn = "sqlite", path
	}
	db, err := sqlx.Open(driver, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// dumpTable returns every value of every row of table as text.
func dumpTable(t *testing.T, db *sqlx.DB, table string) []string {
	t.Helper()
	rows, err := db.Queryx("SELECT * FROM " + table)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.SliceScan()
		require.NoError(t, err)
		for _, v := range vals {
			switch v := v.(type) {
			case []byte:
				out = append(out, string(v), fmt.Sprintf("%x", v))
			default:
				out = append(out, fmt.Sprint(v))
			}
		}
	}
	require.NoError(t, rows.Err())
	return out
}

// TestTokensStoredHashed reads the database directly: no table holds a token or its secret,
// only the SHA-256 of the secret.
func TestTokensStoredHashed(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		populate(t, b) // something in every table
		raw := rawDB(t, b.dbURL)
		tokens := map[string]string{"agent-a": b.askA, "agent-b": b.askB, "alice": b.answerer, "root": b.admin, "gone": b.revoked}

		type row struct {
			ID         string `db:"id"`
			Name       string `db:"name"`
			SecretHash []byte `db:"secret_hash"`
		}
		var rows []row
		require.NoError(t, raw.Select(&rows, "SELECT id, name, secret_hash FROM tokens"))
		require.Len(t, rows, len(tokens))
		for _, r := range rows {
			plain := tokens[r.Name]
			id, secret, ok := inquiry.ParseToken(plain)
			require.True(t, ok)
			require.Equal(t, id, r.ID)
			sum := sha256.Sum256([]byte(secret))
			require.Equal(t, sum[:], r.SecretHash, "the secret is stored as its SHA-256")
		}
		for _, table := range []string{"tokens", "inquiries", "runs", "deliveries", "settings"} {
			for _, v := range dumpTable(t, raw, table) {
				for name, plain := range tokens {
					_, secret, _ := inquiry.ParseToken(plain)
					require.NotContains(t, v, secret, "table %s holds the secret of token %s", table, name)
					require.NotContains(t, strings.ToLower(v), strings.ToLower(plain), "table %s holds token %s", table, name)
				}
			}
		}
	})
}

// TestWrongSecretWithTheRightID: a token whose id is right and whose secret is not — one
// character off, cut, extended, another token's, in other case — is refused like an unknown
// one. inquiry.TestAuthenticateComparesInConstantTime checks the comparison itself.
func TestWrongSecretWithTheRightID(t *testing.T) {
	t.Parallel()
	b := setup(t, withPolicy(inquiry.PolicyAsk))
	key := str(b.ask(b.askA, choice("mine"), http.StatusCreated)["key"])
	id, secret, ok := inquiry.ParseToken(b.admin)
	require.True(t, ok)
	_, other, _ := inquiry.ParseToken(b.askA)
	flip := func(s string, i int) string {
		c := byte('a')
		if s[i] == 'a' {
			c = 'b'
		}
		return s[:i] + string(c) + s[i+1:]
	}
	var refusedMsg string
	for name, tok := range map[string]string{
		"first character off":  "bot_" + id + "_" + flip(secret, 0),
		"last character off":   "bot_" + id + "_" + flip(secret, len(secret)-1),
		"cut by one":           "bot_" + id + "_" + secret[:len(secret)-1],
		"one more":             "bot_" + id + "_" + secret + "a",
		"half":                 "bot_" + id + "_" + secret[:len(secret)/2],
		"another token's":      "bot_" + id + "_" + other,
		"upper case":           "bot_" + id + "_" + strings.ToUpper(secret),
		"the hash itself":      "bot_" + id + "_" + fmt.Sprintf("%x", sha256.Sum256([]byte(secret))),
		"empty secret":         "bot_" + id + "_",
		"id alone":             "bot_" + id,
		"secret alone":         secret,
		"no prefix":            id + "_" + secret,
		"revoked, right":       b.revoked,
		"twice":                b.admin + " " + b.admin,
		"with a NUL":           b.admin + "\x00",
		"another id, right ok": "bot_" + flip(id, 0) + "_" + secret,
	} {
		req, err := http.NewRequest("GET", b.url+"/v1/inquiries/"+key, nil)
		require.NoError(t, err)
		req.Header["Authorization"] = []string{"Bearer " + tok}
		res, err := b.http.Do(req)
		if err != nil { // net/http refuses to send some header values at all
			continue
		}
		var e struct {
			Error struct{ Code, Message string }
		}
		require.NoError(t, jsonDecode(res, &e), name)
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, name)
		require.Equal(t, "unauthenticated", e.Error.Code, name)
		if refusedMsg == "" {
			refusedMsg = e.Error.Message
		}
		require.Equal(t, refusedMsg, e.Error.Message, "%s: every refusal says the same, so none tells which part was right", name)
	}
	// The token is taken from the Authorization header only.
	for _, path := range []string{"/v1/inquiries/" + key + "?token=" + url.QueryEscape(b.admin), "/v1/inquiries/" + key + "?access_token=" + url.QueryEscape(b.admin)} {
		b.do("GET", path, "", nil).errorOf(t, 401, inquiry.CodeUnauthenticated)
	}
	require.Equal(t, 200, b.do("GET", "/v1/inquiries/"+key, b.admin, nil).status, "the right token still works")
}

// mapResolver answers lookups from a table, as a DNS server under an attacker's control would.
type mapResolver map[string][]string

func (m mapResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ips, ok := m[strings.ToLower(strings.TrimSuffix(host, "."))]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []net.IPAddr
	for _, ip := range ips {
		out = append(out, net.IPAddr{IP: net.ParseIP(ip)})
	}
	return out, nil
}

// TestCallbackURLsOffTheServersNetwork: callback and resume URLs that reach loopback, private,
// link-local, metadata or unspecified addresses — written plainly, in the other forms C
// resolvers read, through IPv6 forms that carry IPv4, or behind a DNS name — are refused when
// given. TestSSRFAtDialTime covers the dial-time check, TestCallbackOutcomes the redirect of a
// callback.
func TestCallbackURLsOffTheServersNetwork(t *testing.T) {
	t.Parallel()
	dns := mapResolver{
		"public.example":     {"93.184.216.34"},
		"loopback.example":   {"127.0.0.1"},
		"metadata.example":   {"169.254.169.254"},
		"private.example":    {"10.1.2.3"},
		"v6loop.example":     {"::1"},
		"mixed.example":      {"93.184.216.34", "192.168.1.10"}, // one bad address is enough
		"mapped.example":     {"::ffff:127.0.0.1"},
		"linklocal6.example": {"fe80::1"},
	}
	b := setup(t, withPolicy(inquiry.PolicyAsk), withResolver(dns))
	for _, c := range []struct{ url, why string }{
		{"http://127.0.0.1/x", "loopback"},
		{"http://127.0.0.2:8080/x", "loopback"},
		{"http://10.0.0.1/x", "private"},
		{"http://172.16.0.1/x", "private"},
		{"http://172.31.255.254/x", "private"},
		{"http://192.168.0.1/x", "private"},
		{"http://169.254.169.254/latest/meta-data/iam/security-credentials/", "link-local"},
		{"http://[::1]/x", "loopback"},
		{"http://[fe80::1]/x", "link-local"},
		{"http://[fe80::1%25eth0]/x", "link-local"},
		{"http://0.0.0.0/x", "unspecified"},
		{"http://[::]/x", "unspecified"},
		{"http://[::ffff:127.0.0.1]/x", "loopback"},
		{"http://[::ffff:a9fe:a9fe]/x", "link-local"},
		{"http://[::ffff:10.0.0.1]/x", "private"},
		{"http://[64:ff9b::7f00:1]/x", "loopback"},
		{"http://[2002:a9fe:a9fe::]/x", "link-local"},
		{"http://[fd00::1]/x", "private"},
		{"http://100.64.0.1/x", "carrier-grade NAT"},
		{"http://2130706433/x", "loopback"},            // 127.0.0.1 as one number
		{"http://0177.0.0.1/x", "loopback"},            // octal
		{"http://0x7f.0.0.1/x", "loopback"},            // hex
		{"http://0x7f000001/x", "loopback"},            // hex, one number
		{"http://017700000001/x", "loopback"},          // octal, one number
		{"http://127.1/x", "loopback"},                 // two parts
		{"http://127.0.1/x", "loopback"},               // three parts
		{"http://0/x", "unspecified"},                  // 0.0.0.0
		{"http://2852039166/x", "link-local"},          // 169.254.169.254
		{"http://0xa9.0xfe.0xa9.0xfe/x", "link-local"}, // hex parts
		{"http://167772161/x", "private"},              // 10.0.0.1
		{"http://127.0.0.1./x", "loopback"},            // a trailing dot
		{"http://loopback.example/x", "loopback"},
		{"http://LOOPBACK.example./x", "loopback"},
		{"http://metadata.example/x", "link-local"},
		{"http://private.example:8443/x", "private"},
		{"http://v6loop.example/x", "loopback"},
		{"http://mixed.example/x", "private"},
		{"http://mapped.example/x", "loopback"},
		{"http://linklocal6.example/x", "link-local"},
		{"http://localhost/x", "does not exist"}, // unless the resolver says it is loopback, as the real one does
		{"http://nxdomain.example/x", "does not exist"},
	} {
		for _, target := range []struct{ path, field string }{{"/v1/inquiries", "callback_url"}, {"/v1/runs", "resume_url"}} {
			body := confirm("cb", "callback_url", c.url)
			if target.field == "resume_url" {
				body = map[string]any{"id": "r", "resume_url": c.url}
			}
			r := b.do("POST", target.path, b.askA, body)
			e := r.errorOf(t, 422, inquiry.CodeInvalidInquiry)
			require.Equal(t, target.field, e["field"], c.url)
			require.Contains(t, e["message"], c.why, c.url)
			requireOneSentence(t, c.url, str(e["message"]))
		}
	}
	// A public address in another form is refused too (nothing dials it), with the way to
	// write it; a public name is taken.
	e := b.do("POST", "/v1/inquiries", b.askA, confirm("cb", "callback_url", "http://1572395042/x")).errorOf(t, 422, inquiry.CodeInvalidInquiry)
	require.Contains(t, e["message"], "write it as 93.184.216.34")
	b.requireNothingStored()
	r := b.do("POST", "/v1/inquiries", b.askA, confirm("cb", "callback_url", "https://public.example/hooks"))
	require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
	r = b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "r", "resume_url": "https://public.example/resume"})
	require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
}

// TestResumeRedirectNotFollowed: a resume receiver (allow-listed) that redirects to the
// metadata address or to a loopback service that is not allow-listed sends the delivery
// nowhere else; the redirect target is never reached.
func TestResumeRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	inside := newReceiver(t) // a service on the server's own network, not allow-listed
	for _, target := range []string{inside.URL + "/admin", "http://169.254.169.254/latest/meta-data/"} {
		redirect := newRedirector(t, target)
		b := setup(t, withPolicy(inquiry.PolicyAsk), withCallbackHosts(strings.TrimPrefix(redirect.URL, "http://")))
		r := b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "r", "resume_url": redirect.URL + "/resume"})
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
		r = b.do("POST", "/v1/runs/r/ask", b.askA, confirm("go"))
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		key := str(r.json(t)["inquiry"].(map[string]any)["key"])
		require.Equal(t, 200, b.do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "yes"}).status)
		o := b.waitOutcome(inquiry.DeliverResume)
		require.Equal(t, "failed", o.outcome, "a redirect gives up: %v", o.err)
		require.Equal(t, 1, redirect.hits(), "the receiver was called once")
	}
	require.Zero(t, inside.count(), "the redirect target was never reached")
}

type redirector struct {
	URL string
	mu  sync.Mutex
	n   int
}

func newRedirector(t *testing.T, to string) *redirector {
	r := &redirector{}
	rcv := newReceiver(t)
	rcv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.n++
		r.mu.Unlock()
		http.Redirect(w, req, to, http.StatusTemporaryRedirect)
	})
	r.URL = rcv.URL
	return r
}

func (r *redirector) hits() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// jsonDecode reads a response body as JSON into v.
func jsonDecode(res *http.Response, v any) error {
	defer res.Body.Close()
	return json.NewDecoder(res.Body).Decode(v)
}

// TestNoSecretInLogsOrErrorBodies runs the server through tokens good, bad and revoked, signed
// callbacks that fail and are retried, a resume, and refusals of every kind, capturing every log
// line, answer and callback: none holds a token, a token's secret, or the callback secret.
// (slackapp.TestNoSlackSecretInLogs does the same for the Slack signing secret and bot token;
// cmd/bot's serve tests for the whole process.)
func TestNoSecretInLogsOrErrorBodies(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var logs strings.Builder
	rcv := newReceiver(t, 500, 503) // the first two attempts fail, then 200
	b := setup(t, withPolicy(inquiry.PolicyAsk), withCallbackHosts(rcv.host()), withLog(&lockedWriter{mu: &mu, w: &logs}))
	b.secret = []byte(inquiry.NewSecret())

	var seen []string // every answer: status line, headers and body
	do := func(method, path, token string, body any) resp {
		r := b.do(method, path, token, body)
		seen = append(seen, fmt.Sprint(r.status, r.header), string(r.body))
		return r
	}
	id, secret, _ := inquiry.ParseToken(b.admin)
	wrong := []string{
		"bot_" + id + "_" + strings.ToUpper(secret), // the right id, a wrong secret
		b.revoked, "bot_" + id, secret, "Basic " + secret,
	}
	tokens := []string{b.askA, b.askB, b.answerer, b.admin, b.revoked}

	for i, tok := range append(append([]string{}, tokens...), wrong...) {
		do("POST", "/v1/inquiries", tok, confirm(fmt.Sprintf("q%d", i)))
		do("GET", "/v1/inquiries", tok, nil)
		do("GET", "/v1/runs", tok, nil)
		do("POST", "/v1/inquiries", tok, `{"id": "broken`)
	}
	do("GET", "/v1/inquiries?token="+url.QueryEscape(b.admin), "", nil)
	do("POST", "/v1/inquiries", b.askA, confirm("loop", "callback_url", "http://127.0.0.1:1/x"))
	do("POST", "/v1/inquiries", b.askA, confirm("creds", "callback_url", "https://user:"+secret+"@example.com/x"))
	do("POST", "/v1/inquiries", b.askA, strings.Repeat(" ", MaxBody+1))

	// A callback that fails twice and then arrives; a resume.
	r := do("POST", "/v1/inquiries", b.askA, confirm("deploy", "callback_url", rcv.URL+"/cb"))
	require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
	key := str(r.json(t)["key"])
	require.Equal(t, 200, do("POST", "/v1/inquiries/"+key+"/answer", b.answerer, map[string]any{"value": "yes"}).status)
	for i := 0; i < 3; i++ {
		rcv.next(t)
		b.advance(time.Hour)
	}
	require.Equal(t, 201, do("POST", "/v1/runs", b.askA, map[string]any{"id": "run", "resume_url": rcv.URL + "/resume"}).status)
	r = do("POST", "/v1/runs/run/ask", b.askA, confirm("go"))
	require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
	require.Equal(t, 200, do("POST", "/v1/inquiries/"+str(r.json(t)["inquiry"].(map[string]any)["key"])+"/answer", b.answerer, map[string]any{"value": "no"}).status)
	got := rcv.next(t)
	require.NotEmpty(t, got.header.Get("X-Inquiry-Signature"))

	mu.Lock()
	logged := logs.String()
	mu.Unlock()
	require.Contains(t, logged, "http request", "the log was captured")
	rcv.mu.Lock()
	for _, c := range rcv.got {
		seen = append(seen, string(c.body))
	}
	rcv.mu.Unlock()
	everything := logged + "\n" + strings.Join(seen, "\n")
	for _, tok := range append(tokens, b.admin) {
		_, sec, _ := inquiry.ParseToken(tok)
		requireAbsent(t, everything, tok, "a token")
		requireAbsent(t, everything, sec, "a token's secret")
	}
	requireAbsent(t, everything, secret, "the secret of a token sent with a wrong id")
	requireAbsent(t, everything, strings.ToUpper(secret), "a wrong secret sent with the right id")
	requireAbsent(t, everything, string(b.secret), "the callback secret")
	requireAbsent(t, everything, fmt.Sprintf("%x", b.secret), "the callback secret, in hex")
	requireAbsent(t, everything, "Bearer bot_", "an Authorization header")
}

// requireAbsent fails when hay holds needle, showing where without dumping all of hay.
func requireAbsent(t *testing.T, hay, needle, what string) {
	t.Helper()
	if i := strings.Index(hay, needle); i >= 0 {
		from, to := max(0, i-200), min(len(hay), i+len(needle)+50)
		t.Fatalf("%s appears in the captured output: …%s…", what, hay[from:to])
	}
}

// TestSQLInjectionStoredVerbatim feeds texts built to break out of a query through every field
// and filter the API stores or looks up: each is stored and returned verbatim, finds exactly what
// it names, and changes nothing else (tables, tokens, other inquiries).
func TestSQLInjectionStoredVerbatim(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		// A slack.channel posts to Slack too (fan-out): Slack is seated, showing nothing.
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withTransport(inquiry.TransportSlack, inquiry.Inbox{}))
		w := populate(t, b)
		bystander := b.namespaceView("team-b")
		keys := map[string]string{}
		for i, p := range storagetest.Injections {
			noBlank := strings.ReplaceAll(p, " ", "")
			body := map[string]any{
				"id": fmt.Sprintf("%d:%s", i, p), "run_id": p, "kind": "choice",
				"question": "Is " + p + " safe?", "context": p,
				"options": []any{map[string]any{"value": p, "label": "L" + p, "description": p}, "other"},
				"default": p, "slack": map[string]any{"channel": "C" + noBlank, "answerers": []any{"U" + noBlank}},
			}
			got := b.ask(b.askA, body, http.StatusCreated)
			keys[p] = str(got["key"])
			require.Equal(t, body["id"], got["id"])
			require.Equal(t, p, got["run_id"])
			require.Equal(t, body["question"], got["question"])
			require.Equal(t, p, got["context"])
			require.Equal(t, p, got["default"])
			opt := got["options"].([]any)[0].(map[string]any)
			require.Equal(t, map[string]any{"value": p, "label": "L" + p, "description": p}, opt)
			require.Equal(t, "C"+noBlank, got["slack"].(map[string]any)["channel"])
			require.Equal(t, []any{"U" + noBlank}, got["slack"].(map[string]any)["answerers"])

			// Asked again, it is the same inquiry (the unique key matched the text exactly).
			again := b.ask(b.askA, body, http.StatusOK)
			require.Equal(t, keys[p], again["key"])

			// A filter by it finds exactly it: % and _ are no wildcards.
			r := b.do("GET", "/v1/inquiries?run_id="+url.QueryEscape(p), b.askA, nil)
			require.Equal(t, 200, r.status, "body: %s", r.body)
			list := r.json(t)["inquiries"].([]any)
			require.Len(t, list, 1, "run_id=%s", p)
			require.Equal(t, keys[p], list[0].(map[string]any)["key"])

			// As a key, a run id, a cursor: nothing found, nothing broken.
			if !strings.Contains(p, "/") {
				b.do("GET", "/v1/inquiries/"+url.PathEscape(p), b.askA, nil).errorOf(t, 404, inquiry.CodeNotFound)
				b.do("POST", "/v1/inquiries/"+url.PathEscape(p)+"/answer", b.answerer, map[string]any{"value": "x"}).errorOf(t, 404, inquiry.CodeNotFound)
				b.do("GET", "/v1/runs/"+url.PathEscape(p), b.askA, nil).errorOf(t, 404, inquiry.CodeNotFound)
				r = b.do("POST", "/v1/runs", b.askA, map[string]any{"id": p})
				require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
				r = b.do("GET", "/v1/runs/"+url.PathEscape(p), b.askA, nil)
				require.Equal(t, 200, r.status, "body: %s", r.body)
				require.Equal(t, p, r.json(t)["id"])
			}
			cursor := base64.RawURLEncoding.EncodeToString([]byte("1|" + p))
			r = b.do("GET", "/v1/inquiries?cursor="+cursor, b.askA, nil)
			require.Equal(t, 200, r.status, "body: %s", r.body)
			require.Empty(t, r.json(t)["inquiries"], "a cursor before every inquiry pages nothing")

			// Answered with it: recorded verbatim.
			r = b.do("POST", "/v1/inquiries/"+keys[p]+"/answer", b.answerer, map[string]any{"value": p})
			require.Equal(t, 200, r.status, "body: %s", r.body)
			require.Equal(t, p, r.json(t)["answer"].(map[string]any)["value"])
		}
		// Text answers and resumes take it verbatim too.
		for i, p := range storagetest.Injections {
			k := str(b.ask(b.askA, map[string]any{"id": fmt.Sprintf("why-%d", i), "kind": "text", "question": "Why?"}, http.StatusCreated)["key"])
			r := b.do("POST", "/v1/inquiries/"+k+"/answer", b.answerer, map[string]any{"text": p})
			require.Equal(t, 200, r.status, "body: %s", r.body)
			require.Equal(t, p, r.json(t)["answer"].(map[string]any)["text"])
		}
		answers := map[string]any{}
		for _, p := range storagetest.Injections {
			answers[p] = map[string]any{"text": p}
		}
		r := b.do("POST", "/v1/runs/nightly/resume", b.askA, map[string]any{"answers": answers})
		require.Equal(t, 200, r.status, "body: %s", r.body)
		state := r.json(t)["answers"].(map[string]any)
		for _, p := range storagetest.Injections {
			require.Equal(t, p, state[p].(map[string]any)["text"], p)
			require.Equal(t, "caller", state[p].(map[string]any)["source"], "a resume answer is the caller's")
		}

		// Nothing else changed: every table is there, every token still opens what it did,
		// team-b's inquiry is untouched, and team-a's first three are still pending.
		for _, tok := range []string{b.askA, b.askB, b.answerer, b.admin} {
			require.Equal(t, 200, b.do("GET", "/v1/inquiries?limit=1", tok, nil).status)
		}
		b.do("GET", "/v1/inquiries", b.revoked, nil).errorOf(t, 401, inquiry.CodeUnauthenticated)
		require.Equal(t, bystander, b.namespaceView("team-b"))
		for _, key := range []string{w.choice, w.text, w.waiting} {
			require.Equal(t, "pending", b.do("GET", "/v1/inquiries/"+key, b.admin, nil).json(t)["status"])
		}
		require.Len(t, b.listAll(), 4+2*len(storagetest.Injections))
		raw := rawDB(t, b.dbURL)
		for _, table := range []string{"inquiries", "runs", "deliveries", "tokens", "settings"} {
			var n int
			require.NoError(t, raw.Get(&n, "SELECT count(*) FROM "+table), table)
		}
		var n int
		require.NoError(t, raw.Get(&n, "SELECT count(*) FROM tokens"))
		require.Equal(t, 5, n)
	})
}

// embeddedIPv4 are IPv6 addresses that carry a refused IPv4 address, by the form that carries
// it, with what the refusal must name.
var embeddedIPv4 = []struct{ ip, why string }{
	{"::127.0.0.1", "loopback"}, // IPv4-compatible, ::/96
	{"::7f00:2", "loopback"},
	{"::169.254.169.254", "link-local"},
	{"::10.0.0.1", "private"},
	{"::ffff:0:127.0.0.1", "loopback"}, // IPv4-translated, ::ffff:0:0:0/96
	{"::ffff:0:a9fe:a9fe", "link-local"},
	{"::ffff:127.0.0.1", "loopback"},            // IPv4-mapped, ::ffff:0:0/96
	{"64:ff9b::7f00:1", "loopback"},             // NAT64 well-known prefix, 64:ff9b::/96
	{"64:ff9b::c0a8:101", "private"},            // 192.168.1.1
	{"64:ff9b:1::7f00:1", "NAT64"},              // NAT64 local-use, 64:ff9b:1::/48, as a /96 prefix
	{"64:ff9b:1::a00:1", "NAT64"},               // 10.0.0.1
	{"64:ff9b:1:7f00:0:100::", "NAT64"},         // 127.0.0.1 behind a /48 prefix
	{"64:ff9b:1:7f:0:1::", "NAT64"},             // … a /56 prefix
	{"64:ff9b:1:0:7f:0:100:0", "NAT64"},         // … a /64 prefix
	{"64:ff9b:1:abcd::808:808", "NAT64"},        // whatever the translator's prefix, it is inside
	{"2002:7f00:1::1", "loopback"},              // 6to4, 2002::/16, bits 16..48
	{"2002:a9fe:a9fe:1::", "link-local"},        // 169.254.169.254
	{"2002:c0a8:101::", "private"},              // 192.168.1.1
	{"2001:0:7f00:1::a247:27dd", "loopback"},    // Teredo server 127.0.0.1, client 93.184.216.34
	{"2001:0:5db8:d822::f5ff:fffe", "private"},  // Teredo client 10.0.0.1 (XOR-ed)
	{"2001:0:5db8:d822::80ff:fffe", "loopback"}, // Teredo client 127.0.0.1 (XOR-ed)
	{"2001:0:a9fe:a9fe::a247:27dd", "link-local"},
}

// TestRefusedIPv6CarryingIPv4: every IPv6 form that carries an IPv4 address is refused when the
// IPv4 address is, and the same forms carrying a public address are not (but for the local-use
// NAT64 prefix 64:ff9b:1::/48, refused whole: its prefix length, and so where the IPv4 address
// sits, is the local translator's choice, and a reading the guard did not make could reach the
// network behind it).
func TestRefusedIPv6CarryingIPv4(t *testing.T) {
	t.Parallel()
	for _, c := range embeddedIPv4 {
		why := gateway.Refused(netip.MustParseAddr(c.ip))
		require.Contains(t, why, c.why, c.ip)
	}
	for _, ip := range []string{
		"::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
		"2606:4700::7f00:1", "2a00:1450:4001::a00:1",
	} {
		require.Empty(t, gateway.Refused(netip.MustParseAddr(ip)), ip)
	}
	// Forms that are not global unicast are refused whatever public address they carry.
	for ip, in := range map[string]string{
		"::ffff:0:8.8.8.8":            "::ffff:0:0:0/96", // IPv4-translated
		"::8.8.8.8":                   "::/96",           // IPv4-compatible
		"2001:0:5db8:d822::f7f7:f7f7": "2001::/32",       // Teredo: server 93.184.216.34, client 8.8.8.8
		"2001:db8::7f00:1":            "2001:db8::/32",   // documentation prefix, not Teredo
	} {
		require.Contains(t, gateway.Refused(netip.MustParseAddr(ip)), "in "+in+",", ip)
	}
	// A plain IPv6 refusal keeps its own name: ::1 is loopback, though it is ::0.0.0.1 too.
	require.Equal(t, "in ::1/128, the loopback address (RFC 4291)", gateway.Refused(netip.MustParseAddr("::1")))
	require.Equal(t, "in ::/128, the unspecified address (RFC 4291)", gateway.Refused(netip.MustParseAddr("::")))
	require.Contains(t, gateway.Refused(netip.MustParseAddr("64:ff9b:1::808:808")), "NAT64")
}

// TestCallbackURLsInIPv6SpellingsRefused: a callback or resume URL whose host is an IPv6 spelling
// of a refused IPv4 address, written in the URL or behind a name, is refused when given, as is a
// port outside 1..65535; nothing is stored.
func TestCallbackURLsInIPv6SpellingsRefused(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		dns := mapResolver{
			"compat.example":     {"::127.0.0.1"},
			"translated.example": {"::ffff:0:169.254.169.254"},
			"teredo.example":     {"93.184.216.34", "2001:0:5db8:d822::f5ff:fffe"},
		}
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withResolver(dns))
		type refusal struct{ url, says string }
		var cases []refusal
		for _, c := range embeddedIPv4 {
			cases = append(cases, refusal{"http://[" + c.ip + "]:8080/x", c.why})
		}
		cases = append(cases,
			refusal{"http://compat.example/x", "loopback"},
			refusal{"https://translated.example/x", "link-local"},
			refusal{"http://teredo.example/x", "private"},
			refusal{"http://public.example:65536/x", "port 65536"},
			refusal{"http://[2606:4700::1111]:65536/x", "port 65536"},
			refusal{"http://93.184.216.34:0/x", "port 0"},
			refusal{"https://public.example:99999999999999999999/x", "port 99999999999999999999"},
		)
		for _, c := range cases {
			for _, target := range []struct{ path, field string }{{"/v1/inquiries", "callback_url"}, {"/v1/runs", "resume_url"}} {
				body := confirm("cb", "callback_url", c.url)
				if target.field == "resume_url" {
					body = map[string]any{"id": "r", "resume_url": c.url}
				}
				e := b.do("POST", target.path, b.askA, body).errorOf(t, 422, inquiry.CodeInvalidInquiry)
				require.Equal(t, target.field, e["field"], c.url)
				require.Contains(t, e["message"], c.says, c.url)
				require.Contains(t, e["message"], target.field, c.url)
				requireOneSentence(t, c.url, str(e["message"]))
			}
		}
		b.requireNothingStored()
		// The ports at the ends of the range are ports.
		for i, u := range []string{"https://[2606:4700::1111]:65535/x", "http://93.184.216.34:1/x"} {
			r := b.do("POST", "/v1/inquiries", b.askA, confirm(fmt.Sprint("ok", i), "callback_url", u))
			require.Equal(t, http.StatusCreated, r.status, "%s: %s", u, r.body)
		}
	})
}

// TestDialRefusesIPv6CarryingIPv4: the dial-time check (what DNS rebinding or a stored URL
// reaches) refuses the same forms, before any connection, and refuses a port outside 1..65535
// as it does a refused address, so that the delivery gives up instead of being retried.
func TestDialRefusesIPv6CarryingIPv4(t *testing.T) {
	t.Parallel()
	g := gateway.NewGuard(nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range embeddedIPv4 {
		addr := "[" + c.ip + "]:8080"
		conn, err := g.DialContext(ctx, "tcp", addr)
		if conn != nil {
			conn.Close()
		}
		var refused *gateway.RefusedAddrError
		require.ErrorAs(t, err, &refused, addr)
		require.Contains(t, refused.Why, c.why, addr)
	}
	// Through the guard's client too, as a callback is sent.
	client := g.Client(5 * time.Second)
	for _, u := range []string{"http://[::127.0.0.1]:1/x", "http://[::ffff:0:127.0.0.1]:1/x", "http://[64:ff9b:1::7f00:1]:1/x"} {
		_, err := client.Get(u)
		var refused *gateway.RefusedAddrError
		require.ErrorAs(t, err, &refused, u)
	}
	// A port outside the range is refused for an allow-listed host as well: no address has it.
	allowing := gateway.NewGuard([]string{"127.0.0.1", "public.example"}, nil)
	for _, addr := range []string{"127.0.0.1:65536", "public.example:65536", "[2606:4700::1111]:0", "127.0.0.1:-1"} {
		for _, guard := range []*gateway.Guard{g, allowing} {
			_, err := guard.DialContext(ctx, "tcp", addr)
			var refused *gateway.RefusedAddrError
			require.ErrorAs(t, err, &refused, addr)
			require.Contains(t, refused.Why, "port", addr)
		}
	}
}

// TestTokensThroughTheAPI makes, lists and revokes tokens with the admin token: the plain token
// is shown once, at create, and works at once; the list never holds a token or its secret; a
// revoked token is refused at once.
func TestTokensThroughTheAPI(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db))

		r := b.do("POST", "/v1/tokens", b.admin, map[string]any{"name": "ci-agent", "scopes": []string{"ask"}, "namespace": "team-x"})
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
		made := r.json(t)
		plain := str(made["token"])
		require.True(t, strings.HasPrefix(plain, "bot_"), "body: %s", r.body)
		require.Equal(t, "ci-agent", made["name"])
		require.Equal(t, "team-x", made["namespace"])
		require.Equal(t, true, made["namespace_bound"])
		require.Equal(t, []any{"ask"}, made["scopes"])
		require.Nil(t, made["revoked_at"])

		// It works at once, in its namespace.
		r = b.do("POST", "/v1/inquiries", plain, confirm("made-by-api"))
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body) // policy default: answered at once
		require.Equal(t, "team-x", r.json(t)["namespace"])

		// Without a namespace it is the name's, and binds nothing; scopes are kept once each.
		r = b.do("POST", "/v1/tokens", b.admin, map[string]any{"name": "bob", "scopes": []string{"answer", "ANSWER", "ask"}})
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
		require.Equal(t, "bob", r.json(t)["namespace"])
		require.Equal(t, false, r.json(t)["namespace_bound"])
		require.Equal(t, []any{"answer", "ask"}, r.json(t)["scopes"])
		bob := str(r.json(t)["token"])

		// The list: every token, never a token nor its secret; the callback secret for the admin.
		r = b.do("GET", "/v1/tokens", b.admin, nil)
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		names := map[string]map[string]any{}
		for _, v := range r.json(t)["tokens"].([]any) {
			tok := v.(map[string]any)
			require.NotContains(t, tok, "token")
			names[str(tok["name"])] = tok
		}
		for _, name := range []string{"agent-a", "agent-b", "alice", "root", "gone", "ci-agent", "bob"} {
			require.Contains(t, names, name)
		}
		require.NotNil(t, names["gone"]["revoked_at"], "the revoked token is listed as revoked")
		for _, tok := range []string{plain, bob, b.admin, b.askA} {
			_, secret, _ := inquiry.ParseToken(tok)
			require.NotContains(t, string(r.body), secret, "the list holds a token's secret")
		}
		require.Equal(t, string(b.secret), r.json(t)["callback_secret"])

		// Revoke: refused at once; again is the same revocation; an unknown name is not found.
		r = b.do("POST", "/v1/tokens/ci-agent/revoke", b.admin, nil)
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		revokedAt := r.json(t)["revoked_at"]
		require.NotNil(t, revokedAt)
		require.Equal(t, "ci-agent", r.json(t)["name"])
		require.NotContains(t, r.json(t), "token")
		b.do("GET", "/v1/inquiries", plain, nil).errorOf(t, 401, inquiry.CodeUnauthenticated)
		r = b.do("POST", "/v1/tokens/ci-agent/revoke", b.admin, map[string]any{})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Equal(t, revokedAt, r.json(t)["revoked_at"], "revoking again keeps the first time")
		e := b.do("POST", "/v1/tokens/nobody/revoke", b.admin, nil).errorOf(t, 404, inquiry.CodeNotFound)
		require.Contains(t, e["message"], `no token named "nobody"`)

		// A name in use, revoked or not, is a conflict.
		for _, name := range []string{"bob", "gone", "ci-agent"} {
			e := b.do("POST", "/v1/tokens", b.admin, map[string]any{"name": name, "scopes": []string{"ask"}}).errorOf(t, 409, inquiry.CodeIDConflict)
			require.Contains(t, e["message"], `"`+name+`" exists already`)
		}
	})
}

// TestTokensRefused: only an admin token manages tokens (and sees the callback secret), and a
// new token's name, scopes and namespace follow the rules, each refused with its field.
func TestTokensRefused(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db))
		before := b.do("GET", "/v1/tokens", b.admin, nil)
		require.Equal(t, http.StatusOK, before.status, "body: %s", before.body)

		for _, tok := range []string{b.askA, b.answerer} {
			for _, req := range []struct {
				method, path string
				body         any
			}{
				{"POST", "/v1/tokens", map[string]any{"name": "sneaky", "scopes": []string{"admin"}}},
				{"GET", "/v1/tokens", nil},
				{"POST", "/v1/tokens/root/revoke", nil},
			} {
				r := b.do(req.method, req.path, tok, req.body)
				e := r.errorOf(t, 403, inquiry.CodeForbidden)
				require.Contains(t, e["message"], "admin scope")
				require.NotContains(t, string(r.body), string(b.secret))
			}
		}
		b.do("GET", "/v1/tokens", "", nil).errorOf(t, 401, inquiry.CodeUnauthenticated)
		b.do("GET", "/v1/tokens", b.revoked, nil).errorOf(t, 401, inquiry.CodeUnauthenticated)

		for _, c := range []struct {
			name  string
			body  any
			field string
			says  string
		}{
			{"no name", map[string]any{"scopes": []string{"ask"}}, "name", "name is required"},
			{"blank name", map[string]any{"name": "  ", "scopes": []string{"ask"}}, "name", "name is required"},
			{"name with a blank", map[string]any{"name": "ci agent", "scopes": []string{"ask"}}, "name", "letters, digits"},
			{"name with a slash", map[string]any{"name": "ci/agent", "scopes": []string{"ask"}}, "name", "letters, digits"},
			{"name with ESC", map[string]any{"name": "ci\x1b[2J", "scopes": []string{"ask"}}, "name", "letters, digits"},
			{"name 101 characters", map[string]any{"name": strings.Repeat("n", 101), "scopes": []string{"ask"}}, "name", "at most 100"},
			{"no scopes", map[string]any{"name": "ci"}, "scopes", "no scope"},
			{"empty scopes", map[string]any{"name": "ci", "scopes": []string{}}, "scopes", "no scope"},
			{"unknown scope", map[string]any{"name": "ci", "scopes": []string{"ask", "root"}}, "scopes", `"root" is not one of ask, answer or admin`},
			{"namespace with a newline", map[string]any{"name": "ci", "scopes": []string{"ask"}, "namespace": "team\n"}, "namespace", "letters, digits"},
			{"scopes a string", map[string]any{"name": "ci", "scopes": "ask"}, "scopes", "list"},
			{"unknown field", map[string]any{"name": "ci", "scopes": []string{"ask"}, "secret": "mine"}, "", "secret"},
		} {
			e := b.do("POST", "/v1/tokens", b.admin, c.body).errorOf(t, 400, inquiry.CodeBadRequest)
			require.Contains(t, e["message"], c.says, c.name)
			if c.field != "" {
				require.Equal(t, c.field, e["field"], c.name)
			}
		}
		after := b.do("GET", "/v1/tokens", b.admin, nil)
		require.Equal(t, string(before.body), string(after.body), "a refused request made a token")
	})
}
