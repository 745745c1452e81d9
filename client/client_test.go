package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// fake serves one handler and records the last request.
type fake struct {
	srv     *httptest.Server
	lastReq *http.Request
	body    []byte
}

func newFake(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) (*fake, *client.Client) {
	t.Helper()
	f := &fake{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.lastReq = r
		f.body, _ = io.ReadAll(r.Body)
		h(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f, client.New(f.srv.URL+"/", "bot_abc_secret")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func errBody(code, msg string, fatal bool, field string) map[string]any {
	e := map[string]any{"code": code, "message": msg, "fatal": fatal}
	if field != "" {
		e["field"] = field
	}
	return map[string]any{"error": e}
}

func TestErrorDecoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		wantCode   inquiry.Code
		wantMsg    string
		wantField  string
		fatal      bool
		unavail    bool
		temporary  bool
		transport  bool
		inquiryErr bool
	}{
		{
			name: "invalid inquiry names the field", status: 422,
			body:     `{"error":{"code":"invalid_inquiry","message":"options[2].label is empty: give it a label","fatal":false,"field":"options[2].label"}}`,
			wantCode: inquiry.CodeInvalidInquiry, wantMsg: "options[2].label is empty: give it a label", wantField: "options[2].label",
			inquiryErr: true,
		},
		{
			name: "unavailable is fatal", status: 503,
			body:     `{"error":{"code":"inquiry_unavailable","message":"Slack is not configured on this server: ask through inbox","fatal":true}}`,
			wantCode: inquiry.CodeUnavailable, wantMsg: "Slack is not configured on this server: ask through inbox",
			fatal: true, unavail: true, inquiryErr: true,
		},
		{
			name: "storage unavailable is a passing fault", status: 503, header: map[string]string{"Retry-After": "3"},
			body:     `{"error":{"code":"storage_unavailable","message":"the database cannot be reached right now; retry in a few seconds","fatal":false}}`,
			wantCode: inquiry.CodeStorageUnavailable, wantMsg: "the database cannot be reached right now; retry in a few seconds",
			temporary: true, inquiryErr: true,
		},
		{
			name: "a rate limit is a passing fault", status: 429, header: map[string]string{"Retry-After": "2"},
			body:     `{"error":{"code":"rate_limited","message":"token \"agent\" is over its limit of creates and answers (10 a second, in bursts of up to 100): retry in 2 s","fatal":false}}`,
			wantCode: inquiry.CodeRateLimited, wantMsg: `token "agent" is over its limit of creates and answers (10 a second, in bursts of up to 100): retry in 2 s`,
			temporary: true, inquiryErr: true,
		},
		{
			name: "a fatal flag makes any code fatal", status: 409,
			body:     `{"error":{"code":"bad_request","message":"this will never work","fatal":true}}`,
			wantCode: inquiry.CodeBadRequest, wantMsg: "this will never work", fatal: true, unavail: true, inquiryErr: true,
		},
		{
			name: "already resolved", status: 409,
			body:     `{"error":{"code":"already_resolved","message":"already answered by U1","fatal":false}}`,
			wantCode: inquiry.CodeAlreadyResolved, wantMsg: "already answered by U1", inquiryErr: true,
		},
		{
			name: "a proxy's error page is a transport error", status: 502, body: "<html>bad gateway</html>",
			wantCode: inquiry.CodeInternal, temporary: true, transport: true,
		},
		{
			name: "a bare 404 reads as not found", status: 404, body: "404 page not found",
			wantCode: inquiry.CodeNotFound, inquiryErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, c := newFake(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			_, err := c.Get(context.Background(), "inq_x", 0)
			if err == nil {
				t.Fatal("got no error")
			}
			if got := inquiry.ErrorCode(err); got != tt.wantCode {
				t.Errorf("ErrorCode = %q, want %q", got, tt.wantCode)
			}
			if tt.wantMsg != "" {
				if got := inquiry.ErrorMessage(err); got != tt.wantMsg {
					t.Errorf("ErrorMessage = %q, want %q", got, tt.wantMsg)
				}
				if got := err.Error(); got != tt.wantMsg {
					t.Errorf("Error() = %q, want %q", got, tt.wantMsg)
				}
			}
			if got := inquiry.ErrorField(err); got != tt.wantField {
				t.Errorf("ErrorField = %q, want %q", got, tt.wantField)
			}
			if got := inquiry.Fatal(err); got != tt.fatal {
				t.Errorf("Fatal = %v, want %v", got, tt.fatal)
			}
			if got := errors.Is(err, inquiry.ErrUnavailable); got != tt.unavail {
				t.Errorf("errors.Is(ErrUnavailable) = %v, want %v", got, tt.unavail)
			}
			if got := client.Temporary(err); got != tt.temporary {
				t.Errorf("Temporary = %v, want %v", got, tt.temporary)
			}
			var te *client.TransportError
			if got := errors.As(err, &te); got != tt.transport {
				t.Errorf("TransportError = %v, want %v", got, tt.transport)
			}
			var ie *inquiry.Error
			if got := errors.As(err, &ie); got != tt.inquiryErr {
				t.Errorf("*inquiry.Error = %v, want %v", got, tt.inquiryErr)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error shows the token: %q", err)
			}
		})
	}
}

func TestUnreachableGateway(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c := client.New(url, "bot_abc_secret")
	_, err := c.Get(context.Background(), "inq_x", 0)
	var te *client.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a *TransportError", err)
	}
	if !client.Temporary(err) || inquiry.Fatal(err) {
		t.Errorf("Temporary = %v, Fatal = %v; want true, false", client.Temporary(err), inquiry.Fatal(err))
	}
	if !strings.Contains(err.Error(), "cannot reach the gateway at "+url) || strings.Contains(err.Error(), "secret") {
		t.Errorf("message = %q", err)
	}
}

func TestAskSendsTheAPIBody(t *testing.T) {
	t.Parallel()
	f, c := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"key": "inq_1", "id": "deploy:merge", "kind": "choice", "status": "pending"})
	})
	rec, created, err := c.Ask(context.Background(), client.AskRequest{
		Inquiry: inquiry.Inquiry{ID: "deploy:merge", Kind: inquiry.KindChoice, Question: "Merge now?",
			Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}},
			Default: inquiry.One("hold")},
		ExpiresIn: "2h",
		Config:    &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: "inbox"},
		Slack:     &client.SlackTarget{Channel: "C1", Answerers: []string{"U1"}},
		Wait:      inquiry.Seconds(1500 * time.Millisecond),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !created || rec.Key != "inq_1" || rec.Status != inquiry.StatusPending {
		t.Errorf("got %+v created=%v", rec, created)
	}
	if f.lastReq.Method != http.MethodPost || f.lastReq.URL.Path != "/v1/inquiries" {
		t.Errorf("request %s %s", f.lastReq.Method, f.lastReq.URL.Path)
	}
	if got := f.lastReq.Header.Get("Authorization"); got != "Bearer bot_abc_secret" {
		t.Errorf("Authorization = %q", got)
	}
	var body map[string]any
	if err := json.Unmarshal(f.body, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"id": "deploy:merge", "kind": "choice", "question": "Merge now?",
		"options":    []any{map[string]any{"value": "merge", "label": "Merge"}, map[string]any{"value": "hold", "label": "Hold"}},
		"default":    "hold",
		"expires_in": "2h",
		"config":     map[string]any{"policy": "ask", "transport": "inbox"},
		"slack":      map[string]any{"channel": "C1", "answerers": []any{"U1"}},
		"wait":       float64(2), // rounded up to whole seconds
	}
	gotJSON, _ := json.Marshal(body)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("body\n got %s\nwant %s", gotJSON, wantJSON)
	}
}

// TestAskSendsTheApproval: a team approval goes as set, a veto turned off included (its false
// says something, unlike the other members' falses the client leaves out).
func TestAskSendsTheApproval(t *testing.T) {
	t.Parallel()
	f, c := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"key": "inq_1", "status": "pending"})
	})
	two, off := 2, false
	_, _, err := c.Ask(context.Background(), client.AskRequest{Inquiry: inquiry.Inquiry{ID: "merge-42", Kind: inquiry.KindConfirm, Question: "Merge #42?",
		Approval: inquiry.Approval{Approvals: &two, Veto: &off, RequestedBy: []string{"U0AUTHOR"}, Reason: inquiry.ReasonOnNo}}})
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(f.body, &body); err != nil {
		t.Fatal(err)
	}
	if body["approvals"] != float64(2) || body["veto"] != false || body["reason"] != "on_no" || len(body["requested_by"].([]any)) != 1 {
		t.Errorf("body %s: want approvals 2, veto false, requested_by and reason", f.body)
	}
	if _, ok := body["allow_text"]; ok {
		t.Errorf("body %s: a false that says nothing is left out", f.body)
	}
}

func TestAskAgainIsNotCreated(t *testing.T) {
	t.Parallel()
	_, c := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"key": "inq_1", "status": "answered",
			"answer": map[string]any{"value": "yes", "source": "person", "answered_by": "admin"}})
	})
	rec, created, err := c.Ask(context.Background(), client.AskRequest{Inquiry: inquiry.Inquiry{ID: "x", Kind: inquiry.KindConfirm, Question: "Deploy?"}})
	if err != nil {
		t.Fatal(err)
	}
	if created || rec.Answer == nil || rec.Answer.Value.First() != "yes" {
		t.Errorf("got %+v created=%v", rec, created)
	}
}

func TestGetEscapesTheKeyAndSendsWait(t *testing.T) {
	t.Parallel()
	f, c := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"key": "a/b", "status": "pending"})
	})
	if _, err := c.Get(context.Background(), "a/b", 90*time.Second); err != nil {
		t.Fatal(err)
	}
	if got, want := f.lastReq.URL.EscapedPath(), "/v1/inquiries/a%2Fb"; got != want {
		t.Errorf("path = %q, want %q", got, want)
	}
	if got := f.lastReq.URL.Query().Get("wait"); got != "55" {
		t.Errorf("wait = %q, want 55 (bounded by MaxWait)", got)
	}
}

func TestListAllFollowsTheCursor(t *testing.T) {
	t.Parallel()
	_, c := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("status") != "pending" {
			t.Errorf("status = %q", r.URL.Query().Get("status"))
		}
		switch r.URL.Query().Get("cursor") {
		case "":
			writeJSON(w, 200, map[string]any{"inquiries": []any{map[string]any{"key": "inq_3"}, map[string]any{"key": "inq_2"}}, "next_cursor": "c2"})
		case "c2":
			writeJSON(w, 200, map[string]any{"inquiries": []any{map[string]any{"key": "inq_1"}}, "next_cursor": ""})
		}
	})
	all, err := c.ListAll(context.Background(), client.ListOptions{Status: inquiry.StatusPending, Limit: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range all {
		keys = append(keys, r.Key)
	}
	if got := strings.Join(keys, ","); got != "inq_3,inq_2,inq_1" {
		t.Errorf("keys = %s", got)
	}
}

func TestAnswerBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reply client.Reply
		want  string
	}{
		{client.Reply{Value: inquiry.One("hold")}, `{"value":"hold"}`},
		{client.Reply{Value: inquiry.Many("a", "b")}, `{"value":["a","b"]}`},
		{client.Reply{Text: "after lunch"}, `{"text":"after lunch"}`},
		{client.Reply{Declined: true}, `{"declined":true}`},
		{client.Reply{Value: inquiry.One("yes"), Content: "--- a\n+++ b\n"}, `{"value":"yes","content":"--- a\n+++ b\n"}`},
		// Sent as written, not as \u003c: a proposal of 256 KiB of markup must fit the body limit.
		{client.Reply{Value: inquiry.One("yes"), Content: "<a href=\"x\">&</a>"}, `{"value":"yes","content":"<a href=\"x\">&</a>"}`},
	}
	for _, tt := range tests {
		f, c := newFake(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, map[string]any{"key": "inq_1", "status": "answered"})
		})
		if _, err := c.Answer(context.Background(), "inq_1", tt.reply); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(f.body)); got != tt.want {
			t.Errorf("body = %s, want %s", got, tt.want)
		}
		if f.lastReq.URL.Path != "/v1/inquiries/inq_1/answer" {
			t.Errorf("path = %s", f.lastReq.URL.Path)
		}
	}
}

func TestWaitAnswerPollsUntilResolved(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	_, c := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("wait") == "" {
			t.Errorf("a wait slice without wait: %s", r.URL)
		}
		switch calls.Add(1) {
		case 1:
			writeJSON(w, 200, map[string]any{"key": "inq_1", "status": "pending"})
		case 2:
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 503, errBody("storage_unavailable", "the database cannot be reached right now", false, ""))
		case 3:
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, errBody("rate_limited", "token \"agent\" holds 1000 long-polls at once, its limit: retry in 1 s", false, ""))
		default:
			writeJSON(w, 200, map[string]any{"key": "inq_1", "status": "answered", "answer": map[string]any{"value": "yes"}})
		}
	})
	rec, err := c.WaitAnswer(context.Background(), "inq_1", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != inquiry.StatusAnswered || calls.Load() != 4 {
		t.Errorf("status %s after %d calls", rec.Status, calls.Load())
	}
}

func TestWaitAnswerStopsAtAFatalError(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	_, c := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeJSON(w, 503, errBody("inquiry_unavailable", "slack is not configured", true, ""))
	})
	_, err := c.WaitAnswer(context.Background(), "inq_1", time.Minute)
	if !inquiry.Fatal(err) || calls.Load() != 1 {
		t.Errorf("err %v after %d calls; want a fatal error at once", err, calls.Load())
	}
}

func TestWaitAnswerReturnsPendingAtTimeout(t *testing.T) {
	t.Parallel()
	_, c := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		if w := r.URL.Query().Get("wait"); w != "1" && w != "" {
			t.Errorf("wait = %q, want 1 (or none for the last look)", w)
		}
		writeJSON(w, 200, map[string]any{"key": "inq_1", "status": "pending"})
	})
	rec, err := c.WaitAnswer(context.Background(), "inq_1", 200*time.Millisecond)
	if err != nil || rec.Status != inquiry.StatusPending {
		t.Errorf("got %v, %v; want the pending inquiry and no error", rec, err)
	}
}

func TestRuns(t *testing.T) {
	t.Parallel()
	f, c := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/runs":
			writeJSON(w, 200, map[string]any{"runs": []any{map[string]any{
				"id": "deploy-42", "status": "waiting",
				"waiting_on": map[string]any{"key": "inq_1", "question": "Merge now?"}}}})
		case "/v1/runs/deploy-42/ask":
			writeJSON(w, 202, map[string]any{"status": "waiting", "inquiry": map[string]any{"key": "inq_1", "status": "pending"}})
		case "/v1/runs/deploy-42/finish":
			writeJSON(w, 200, map[string]any{"id": "deploy-42", "status": "completed"})
		default:
			writeJSON(w, 404, errBody("not_found", "no such run", false, ""))
		}
	})
	ctx := context.Background()
	runs, err := c.ListRuns(ctx, client.RunListOptions{Status: inquiry.RunWaiting})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].WaitingOn == nil || runs[0].WaitingOn.Question != "Merge now?" || runs[0].Status != inquiry.RunWaiting {
		t.Errorf("runs = %+v", runs)
	}
	if got := f.lastReq.URL.Query().Get("status"); got != "waiting" {
		t.Errorf("status = %q", got)
	}
	ra, err := c.AskInRun(ctx, "deploy-42", client.AskRequest{Inquiry: inquiry.Inquiry{ID: "merge", Kind: inquiry.KindConfirm, Question: "Merge?"}})
	if err != nil {
		t.Fatal(err)
	}
	if ra.Answered() || ra.Inquiry.Key != "inq_1" {
		t.Errorf("ask = %+v", ra)
	}
	run, err := c.FinishRun(ctx, "deploy-42", inquiry.RunCompleted)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != inquiry.RunCompleted || strings.TrimSpace(string(f.body)) != `{"status":"completed"}` {
		t.Errorf("run = %+v, body %s", run, f.body)
	}
	if _, err := c.GetRun(ctx, "nope"); !errors.Is(err, inquiry.ErrNotFound) {
		t.Errorf("GetRun(nope) = %v, want not found", err)
	}
}

// TestAskSendsMarkupAsWritten: a proposal's markup is sent as written, not as \u003c (six bytes
// for one), so a proposal of 256 KiB of markup fits the API's body limit.
func TestAskSendsMarkupAsWritten(t *testing.T) {
	t.Parallel()
	f, c := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"key": "inq_1", "status": "pending"})
	})
	markup := strings.Repeat("<b>&</b>", 32<<10) // 256 KiB
	_, _, err := c.Ask(context.Background(), client.AskRequest{Inquiry: inquiry.Inquiry{ID: "page", Kind: inquiry.KindConfirm, Question: "Publish <b>?",
		Proposal: &inquiry.Proposal{Format: "text", Content: markup}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(f.body), markup) || !strings.Contains(string(f.body), "Publish <b>?") {
		t.Errorf("the body escapes markup: %d bytes for a %d-byte proposal", len(f.body), len(markup))
	}
}
