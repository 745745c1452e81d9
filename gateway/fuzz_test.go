package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

// The gateway's fuzz targets run against the real server over HTTP on SQLite, and on PostgreSQL
// too when TEST_DATABASE_URL is set. Their seeds (below and in testdata/fuzz) run as plain tests;
// `go test -run '^$' -fuzz FuzzCreateInquiry ./gateway/` explores. docs/RELIABILITY.md says how
// long they ran and what they found.

// publicResolver says every host is a public address, at once: the fuzzer's callback URLs never
// wait on DNS.
type publicResolver struct{}

func (publicResolver) LookupIPAddr(context.Context, string) ([]net.IPAddr, error) {
	return []net.IPAddr{{IP: net.ParseIP("93.184.216.34")}}, nil
}

// fuzzServers are the servers a fuzz target sends each input to.
func fuzzServers(f *testing.F) []*bundle {
	opts := []option{withPolicy(inquiry.PolicyAsk), withoutDispatcher(), withResolver(publicResolver{})}
	servers := []*bundle{setup(f, opts...)}
	if admin := adminURL(); admin != "" {
		servers = append(servers, setup(f, append(opts, withDB(admin))...))
	}
	return servers
}

var fuzzClient = &http.Client{Timeout: 30 * time.Second}

// send posts body to path with token and checks the answer against the contract: never a 500,
// an answer openapi.yaml documents, and every error in the one error shape.
func send(t *testing.T, method, u, token string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	if err != nil {
		t.Skip("not a request net/http can send")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := fuzzClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	if res.StatusCode >= 500 {
		var e gateway.ErrorBody
		_ = json.Unmarshal(raw, &e)
		switch e.Error.Code {
		case inquiry.CodeUnavailable: // a transport the server has not: by design
		case inquiry.CodeStorageUnavailable: // a passing fault of the database, not of the input
		default:
			t.Fatalf("%s %s answered %d: %s\nbody sent: %q", method, req.URL.Path, res.StatusCode, raw, body)
		}
	}
	if msg := checkResponse(req, body, res, raw); msg != "" {
		t.Fatalf("%s %s answered %d, which openapi.yaml does not allow: %s\nbody: %s\nbody sent: %q", method, req.URL.Path, res.StatusCode, msg, truncate(raw), body)
	}
	return res.StatusCode, raw
}

// waits reports whether a body asks to wait for an answer, which nobody gives here: the
// request would only hang for its wait.
func waits(body []byte) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return false
	}
	var w float64
	return json.Unmarshal(fields["wait"], &w) == nil && w > 0
}

// FuzzCreateInquiry posts arbitrary bodies to POST /v1/inquiries: never a 500 or a panic, every
// refusal in the error shape, and whatever is taken passes every rule of inquiry.Validate as
// stored.
func FuzzCreateInquiry(f *testing.F) {
	for _, s := range []string{
		`{"id": "deploy-42:merge", "run_id": "deploy-42", "kind": "choice", "question": "Merge now?", "options": [{"value": "merge", "label": "Merge"}, "hold"], "default": "hold", "expires_in": "2h"}`,
		`{"id": "a", "kind": "choice", "question": "Pick", "options": ["a", "b", "c"], "multiple": true, "default": ["a", "c"], "allow_text": true}`,
		`{"id": "t", "kind": "text", "question": "Why?", "context": "CI is red.", "default": "no idea", "expires_at": "2999-01-01T00:00:00Z"}`,
		`{"id": "c", "kind": "confirm", "question": "Deploy?", "default": "YES", "config": {"policy": "default"}, "callback_url": "https://ci.example.com/hook"}`,
		`{"id": "c", "kind": "confirm", "question": "Deploy?", "config": {"policy": "refuse"}}`,
		`{"id": "s", "kind": "confirm", "question": "Deploy?", "config": {"policy": "ask", "transport": "slack"}, "slack": {"channel": "C1", "thread_ts": "1700000000.000100", "answerers": ["U0ALICE01", "S0TEAM001"]}}`,
		`{"id": "x\ud83d\ude00", "kind": "text", "question": "\u00e9\u0301?"}`,
		`{"id": "a\ud800", "kind": "text", "question": "Q"}`,
		`{"id": "a", "kind": "text", "question": "Q", "context": "\u0000"}`,
		"{\"id\": \"a\xff\", \"kind\": \"text\", \"question\": \"Q\"}",
		`{"id": "a", "kind": "choice", "question": "Q", "options": [{"value": 1}]}`,
		`{"id": "a", "kind": "choice", "question": "Q", "options": [" A", "a "]}`,
		`{"id": "a", "kind": "text", "question": "Q", "wait": 0}`,
		`{"id": "a", "kind": "text", "question": "Q", "expires_in": "1ns"}`,
		`{"id": "a", "kind": "text", "question": "Q", "callback_url": "http://0x7f.1/"}`,
		`{"id": "a", "kind": "text", "question": "Q", "slack": null, "config": null, "options": null, "default": null}`,
		`{"id": "a"`,
		`[]`,
		``,
		`{"id": "a", "id": "b", "kind": "text", "question": "Q"}`,
	} {
		f.Add([]byte(s))
	}
	servers := fuzzServers(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		if waits(body) {
			t.Skip("asks to wait for an answer nobody gives")
		}
		for _, b := range servers {
			status, raw := send(t, "POST", b.url+"/v1/inquiries", b.askA, body)
			if status != http.StatusOK && status != http.StatusCreated {
				continue
			}
			var rec inquiry.Record
			if err := json.Unmarshal(raw, &rec); err != nil {
				t.Fatalf("a %d that is no inquiry: %v: %s", status, err, raw)
			}
			in := rec.Inquiry
			if err := inquiry.Validate(&in, rec.CreatedAt.Add(-time.Second)); err != nil {
				t.Fatalf("stored an inquiry that breaks a rule: %v\nbody sent: %q\nstored: %s", err, body, raw)
			}
			if err := inquiry.ValidateSlack(rec.Slack); err != nil {
				t.Fatalf("stored a Slack place that breaks a rule: %v\nbody sent: %q", err, body)
			}
			// Nothing was replaced on the way in: a U+FFFD stored is one that was sent.
			sentFFFD := bytes.Contains(body, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`))
			for _, s := range []string{rec.ID, rec.RunID, rec.Question, rec.Context, rec.CallbackURL, string(rec.Config.Transport)} {
				if !utf8.ValidString(s) || (strings.ContainsRune(s, utf8.RuneError) && !sentFFFD) {
					t.Fatalf("stored %q, which was not sent: %q", s, body)
				}
			}
		}
	})
}

// fuzzQuestions are the inquiries FuzzAnswerInquiry answers, by kind.
var fuzzQuestions = []map[string]any{
	{"kind": "choice", "question": "Merge now?", "options": []any{map[string]any{"value": "merge", "label": "Merge"}, "hold", map[string]any{"value": "close-pr", "label": "Close the PR"}}},
	{"kind": "choice", "question": "Which?", "options": []any{"a", "b", "c"}, "multiple": true, "allow_text": true},
	{"kind": "confirm", "question": "Deploy?"},
	{"kind": "confirm", "question": "Tag it?", "allow_text": true},
	{"kind": "text", "question": "Why?"},
}

// FuzzAnswerInquiry posts arbitrary answer bodies to one of five pending inquiries (every kind,
// with and without multiple and allow_text): never a 500, every refusal in the error shape, and
// an answer taken only when it is one CheckAnswer takes — a value among the options, words only
// where words are allowed, prose within the ceiling.
func FuzzAnswerInquiry(f *testing.F) {
	for _, s := range []struct {
		which uint8
		body  string
	}{
		{0, `{"value": "merge"}`}, {0, `{"value": "Close the PR"}`}, {0, `{"text": " HOLD "}`},
		{0, `{"value": ["merge", "hold"]}`}, {0, `{"value": "ship"}`}, {0, `{"text": "merge it"}`},
		{1, `{"value": ["a", "c", "a"]}`}, {1, `{"value": []}`}, {1, `{"text": "neither"}`}, {1, `{"value": "b", "text": "because"}`},
		{2, `{"value": "yes"}`}, {2, `{"value": "No"}`}, {2, `{"value": "maybe"}`}, {2, `{"declined": true, "text": "not mine"}`},
		{3, `{"text": "only after lunch"}`}, {3, `{"value": "yes", "text": "ok"}`},
		{4, `{"text": "because"}`}, {4, `{"value": "words"}`}, {4, `{"value": ["a"]}`}, {4, `{"text": "\u001b[2J"}`},
		{4, `{"declined": true, "value": "x"}`}, {4, `{"text": "` + strings.Repeat("é", 2100) + `"}`},
		{0, `{"value": null, "text": null, "declined": null}`}, {0, `{}`}, {0, `{"value": "merge"`},
	} {
		f.Add(s.which, []byte(s.body))
	}
	type target struct {
		b    *bundle
		keys []string
	}
	var seq atomic.Int64
	ask := func(b *bundle, which int) string {
		body := map[string]any{"id": fmt.Sprintf("q%d", seq.Add(1))}
		for k, v := range fuzzQuestions[which] {
			body[k] = v
		}
		raw, err := json.Marshal(body)
		if err != nil {
			panic(err)
		}
		req, _ := http.NewRequest("POST", b.url+"/v1/inquiries", bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+b.askA)
		req.Header.Set("Content-Type", "application/json")
		res, err := fuzzClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer res.Body.Close()
		var rec inquiry.Record
		if err := json.NewDecoder(res.Body).Decode(&rec); err != nil || res.StatusCode != http.StatusCreated {
			panic(fmt.Sprintf("ask: %d %v", res.StatusCode, err))
		}
		return rec.Key
	}
	var targets []*target
	for _, b := range fuzzServers(f) {
		tg := &target{b: b}
		for i := range fuzzQuestions {
			tg.keys = append(tg.keys, ask(b, i))
		}
		targets = append(targets, tg)
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		i := int(which) % len(fuzzQuestions)
		for _, tg := range targets {
			status, raw := send(t, "POST", tg.b.url+"/v1/inquiries/"+url.PathEscape(tg.keys[i])+"/answer", tg.b.answerer, body)
			if status != http.StatusOK {
				continue
			}
			var rec inquiry.Record
			if err := json.Unmarshal(raw, &rec); err != nil || rec.Answer == nil {
				t.Fatalf("a 200 without an answer: %v: %s", err, raw)
			}
			a := rec.Answer
			if a.AnsweredBy != "alice" || a.Source != inquiry.SourcePerson || rec.Status != inquiry.StatusAnswered {
				t.Fatalf("answer recorded as %q/%q/%s", a.AnsweredBy, a.Source, rec.Status)
			}
			if utf8.RuneCountInString(a.Text) > inquiry.DefaultAnswerChars || !utf8.ValidString(a.Text) {
				t.Fatalf("answer text of %d characters", utf8.RuneCountInString(a.Text))
			}
			offered := inquiry.Offered(&rec.Inquiry)
			for _, v := range a.Value.Strings() {
				found := false
				for _, o := range offered {
					found = found || o.Value == v
				}
				if !found {
					t.Fatalf("recorded the value %q, none of the offered %v, from %q", v, offered, body)
				}
			}
			if a.Value.IsList() != rec.Multiple && a.Value.Len() > 0 {
				t.Fatalf("recorded %v (list %v) for multiple=%v", a.Value.Strings(), a.Value.IsList(), rec.Multiple)
			}
			if !a.Declined && a.Value.Len() == 0 && (rec.Kind != inquiry.KindText && !rec.AllowText) {
				t.Fatalf("recorded words %q on a %s without allow_text", a.Text, rec.Kind)
			}
			if a.Declined && a.Value.Len() > 0 {
				t.Fatal("recorded a declined answer with a value")
			}
			tg.keys[i] = ask(tg.b, i) // answered: the next input gets a fresh one
		}
	})
}

// FuzzPathsAndQueries requests arbitrary keys, run ids and list filters: never a 500, every
// answer in the contract.
func FuzzPathsAndQueries(f *testing.F) {
	for _, s := range []struct{ key, run, status, runID, limit, wait, cursor string }{
		{"inq_aaaaaaaaaaaaaaaaaaaa", "deploy-42", "pending", "deploy-42", "10", "0", ""},
		{"\x00", "\xff", "pending\x00", "\x00", "0", "-1", ""},
		{"", "", "", "", "10", "0", "MTIzfAA"}, // a cursor whose key is a NUL
		{"'; DROP TABLE inquiries; --", "%", "answered", "_", "500", "55", "not base64!"},
		{"", "", "", "", "x", "NaN", "MTIzfA"},
		{"a/b", "../../etc/passwd", "expired", "r\n1", "501", "1e9", "OTk5OTk5OTk5OTk5OTk5OTk5OTl8aW5x"},
		{"inq_%2F", "%00", "cancelled", "\u202e", "1", "0.001", "LTF8aW5xXw"},
	} {
		f.Add(s.key, s.run, s.status, s.runID, s.limit, s.wait, s.cursor)
	}
	servers := fuzzServers(f)
	f.Fuzz(func(t *testing.T, key, run, status, runID, limit, wait, cursor string) {
		if w := strings.TrimSpace(wait); w != "" && w != "0" && !strings.HasPrefix(w, "-") {
			wait = "0" // a long-poll of a key nobody answers only hangs
		}
		for _, b := range servers {
			q := url.Values{"status": {status}, "run_id": {runID}, "limit": {limit}, "cursor": {cursor}}.Encode()
			send(t, "GET", b.url+"/v1/inquiries?"+q, b.askA, nil)
			send(t, "GET", b.url+"/v1/runs?"+url.Values{"status": {status}, "limit": {limit}, "namespace": {runID}}.Encode(), b.admin, nil)
			if key != "" {
				send(t, "GET", b.url+"/v1/inquiries/"+url.PathEscape(key)+"?wait="+url.QueryEscape(wait), b.askA, nil)
				send(t, "POST", b.url+"/v1/inquiries/"+url.PathEscape(key)+"/answer", b.answerer, []byte(`{"value": "merge"}`))
				send(t, "POST", b.url+"/v1/inquiries/"+url.PathEscape(key)+"/cancel", b.askA, nil)
			}
			if run != "" {
				send(t, "GET", b.url+"/v1/runs/"+url.PathEscape(run), b.askA, nil)
				send(t, "POST", b.url+"/v1/runs/"+url.PathEscape(run)+"/heartbeat", b.askA, nil)
				send(t, "POST", b.url+"/v1/runs/"+url.PathEscape(run)+"/finish", b.askA, []byte(`{"status": "completed"}`))
			}
		}
	})
}
