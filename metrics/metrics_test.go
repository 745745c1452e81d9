package metrics_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/metrics"
)

func TestSlackCallsByMethodAndResult(t *testing.T) {
	m := metrics.New(metrics.Gauges{})
	slack := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/chat.postMessage":
			io.WriteString(w, `{"ok":true,"ts":"1"}`)
		case "/api/chat.update":
			io.WriteString(w, `{"ok":false,"error":"channel_not_found"}`)
		case "/api/views.open":
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	defer slack.Close()
	client := &http.Client{Transport: m.SlackTransport(nil)}
	for _, method := range []string{"chat.postMessage", "chat.update", "views.open", "auth.test"} {
		resp, err := client.Post(slack.URL+"/api/"+method, "application/x-www-form-urlencoded", strings.NewReader("token=x"))
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if method == "chat.update" {
			require.Contains(t, string(body), "channel_not_found", "the body stays readable for the Slack client")
		}
	}
	want := `
# HELP inquiry_slack_api_calls_total Slack Web API calls, by method and result (ok, the Slack error, ratelimited, http_5xx, network).
# TYPE inquiry_slack_api_calls_total counter
inquiry_slack_api_calls_total{method="auth.test",result="http_5xx"} 1
inquiry_slack_api_calls_total{method="chat.postMessage",result="ok"} 1
inquiry_slack_api_calls_total{method="chat.update",result="channel_not_found"} 1
inquiry_slack_api_calls_total{method="views.open",result="ratelimited"} 1
`
	require.NoError(t, testutil.GatherAndCompare(m.Registry, strings.NewReader(want), "inquiry_slack_api_calls_total"))
}

func TestFamiliesAndGauges(t *testing.T) {
	m := metrics.New(metrics.Gauges{
		Pending:    func(context.Context) (int, error) { return 7, nil },
		QueueDepth: func(context.Context) (int, error) { return 0, context.DeadlineExceeded },
		Waiters:    func() int { return 3 },
	})
	created := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	resolved := created.Add(90 * time.Second)
	rec := &inquiry.Record{Inquiry: inquiry.Inquiry{Kind: inquiry.KindConfirm},
		Config: inquiry.Config{Policy: inquiry.PolicyAsk, Transport: "slack"}, Status: inquiry.StatusAnswered,
		Answer: &inquiry.Answer{Source: inquiry.SourcePerson}, CreatedAt: created, ResolvedAt: &resolved}
	m.Created(rec)
	m.Resolved(rec)
	m.Delivery(inquiry.Delivery{Kind: inquiry.DeliverCallback}, "retry", nil)
	m.Sweep("expire", 4, 3*time.Millisecond, nil)
	m.Request("/v1/inquiries", "POST", 201, 2*time.Millisecond)

	rr := httptest.NewRecorder()
	m.Handler().ServeHTTP(rr, httptest.NewRequest("GET", "/metrics", nil))
	body := rr.Body.String()
	for _, line := range []string{
		`inquiry_created_total{kind="confirm",policy="ask",transport="slack"} 1`,
		`inquiry_resolved_total{source="person",status="answered"} 1`,
		`inquiry_answer_latency_seconds_bucket{source="person",le="60"} 0`,
		`inquiry_answer_latency_seconds_bucket{source="person",le="300"} 1`,
		`inquiry_deliveries_total{kind="callback",outcome="retry"} 1`,
		`inquiry_deliveries_total{kind="post",outcome="failed"} 0`,
		`inquiry_sweep_items_total{job="expire"} 4`,
		`inquiry_sweep_duration_seconds_count{job="expire"} 1`,
		`inquiry_http_request_duration_seconds_count{method="POST",route="/v1/inquiries",status="201"} 1`,
		`inquiry_pending 7`,
		`inquiry_delivery_queue_depth -1`,
		`inquiry_long_poll_waiters 3`,
		`go_goroutines`,
		`process_resident_memory_bytes`,
	} {
		require.Contains(t, body, line)
	}
}

// TestRequestMethodsFolded: the method label holds the standard methods as sent and folds any
// other (a made-up verb, a lower-case one, 300 characters of one) into "other", so requests
// nobody authenticated cannot mint series.
func TestRequestMethodsFolded(t *testing.T) {
	m := metrics.New(metrics.Gauges{})
	standard := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"}
	for _, method := range standard {
		m.Request("unmatched", method, 404, time.Millisecond)
	}
	long := strings.Repeat("X", 300)
	for i, method := range []string{long, "BREW", "get", "PROPFIND", "GET ", long + "1"} {
		for range i + 1 {
			m.Request("unmatched", method, 404, time.Millisecond)
		}
	}
	families, err := m.Registry.Gather()
	require.NoError(t, err)
	counts := map[string]uint64{} // by method label
	for _, f := range families {
		if f.GetName() != "inquiry_http_request_duration_seconds" {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "method" {
					counts[l.GetValue()] += s.GetHistogram().GetSampleCount()
				}
			}
		}
	}
	want := map[string]uint64{"other": 21}
	for _, method := range standard {
		want[method] = 1
	}
	require.Equal(t, want, counts, "one series per standard method, and other")
}
