// Package metrics owns the bot's Prometheus metrics: what was asked and how it ended, how long
// people took to answer, what is pending, every Slack API call by method and result, the
// delivery queue, the sweeps, and the HTTP requests. Other packages never import it: cmd/bot
// wires its Observe functions into the hooks the service, dispatcher, scheduler and gateway
// offer, so the domain stays free of a metrics dependency.
package metrics

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/inquiry-bot/bot/inquiry"
)

// Metrics is one registry of the bot's families.
type Metrics struct {
	Registry *prometheus.Registry

	created       *prometheus.CounterVec
	resolved      *prometheus.CounterVec
	answerSeconds *prometheus.HistogramVec
	slackCalls    *prometheus.CounterVec
	slackSeconds  *prometheus.HistogramVec
	deliveries    *prometheus.CounterVec
	sweepSeconds  *prometheus.HistogramVec
	sweepItems    *prometheus.CounterVec
	httpSeconds   *prometheus.HistogramVec
}

// Gauges are read at scrape time from the store and the hub.
type Gauges struct {
	Pending    func(ctx context.Context) (int, error)
	QueueDepth func(ctx context.Context) (int, error)
	Waiters    func() int
}

// counter is a family of counters with the labels.
func counter(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// histogram is a family of histograms with the buckets and the labels.
func histogram(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
}

// New registers every family, plus the Go and process collectors.
func New(g Gauges) *Metrics {
	r := prometheus.NewRegistry()
	m := &Metrics{
		Registry: r,
		created: counter("inquiry_created_total", "Inquiries created, by kind, policy and transport.",
			"kind", "policy", "transport"),
		resolved: counter("inquiry_resolved_total", "Inquiries resolved, by outcome (status) and answer source.",
			"status", "source"),
		answerSeconds: histogram("inquiry_answer_latency_seconds", "Time from an inquiry's creation to its resolution, by source.",
			[]float64{0.1, 1, 5, 15, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 24 * 3600}, "source"),
		slackCalls: counter("inquiry_slack_api_calls_total", "Slack Web API calls, by method and result (ok, the Slack error, ratelimited, http_5xx, network).",
			"method", "result"),
		slackSeconds: histogram("inquiry_slack_api_call_seconds", "Slack Web API call durations, by method.",
			prometheus.DefBuckets, "method"),
		deliveries: counter("inquiry_deliveries_total", "Delivery attempts, by kind and outcome (done, retry, rate_limited, failed).",
			"kind", "outcome"),
		sweepSeconds: histogram("inquiry_sweep_duration_seconds", "Sweep job durations, by job.",
			[]float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30}, "job"),
		sweepItems: counter("inquiry_sweep_items_total", "What sweep jobs did (expired, abandoned, delivered, deleted), by job.",
			"job"),
		httpSeconds: histogram("inquiry_http_request_duration_seconds", "HTTP request durations, by route, method and status.",
			[]float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 60}, "route", "method", "status"),
	}
	r.MustRegister(m.created, m.resolved, m.answerSeconds, m.slackCalls, m.slackSeconds, m.deliveries,
		m.sweepSeconds, m.sweepItems, m.httpSeconds,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	gauge := func(name, help string, read func(ctx context.Context) (int, error)) {
		if read == nil {
			return
		}
		r.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			n, err := read(ctx)
			if err != nil {
				return -1 // the database cannot be read right now; -1 is visibly not a count
			}
			return float64(n)
		}))
	}
	gauge("inquiry_pending", "Inquiries pending now.", g.Pending)
	gauge("inquiry_delivery_queue_depth", "Deliveries waiting to be carried out.", g.QueueDepth)
	if g.Waiters != nil {
		r.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "inquiry_long_poll_waiters", Help: "Long-poll waiters in this process.",
		}, func() float64 { return float64(g.Waiters()) }))
	}
	// Families with labels appear on /metrics only once observed; start the ones an operator
	// alerts on at zero so a dashboard shows 0, not "no data".
	for _, o := range []string{"done", "retry", "rate_limited", "failed"} {
		m.deliveries.WithLabelValues("post", o)
	}
	return m
}

// Handler serves /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// Created counts a new inquiry.
func (m *Metrics) Created(rec *inquiry.Record) {
	m.created.WithLabelValues(string(rec.Kind), string(rec.Config.Policy), rec.Config.Transport).Inc()
}

// Resolved counts a resolution and its latency.
func (m *Metrics) Resolved(rec *inquiry.Record) {
	source := "none"
	if rec.Answer != nil {
		source = string(rec.Answer.Source)
	}
	m.resolved.WithLabelValues(string(rec.Status), source).Inc()
	if rec.ResolvedAt != nil {
		m.answerSeconds.WithLabelValues(source).Observe(rec.ResolvedAt.Sub(rec.CreatedAt).Seconds())
	}
}

// Delivery counts a delivery outcome.
func (m *Metrics) Delivery(d inquiry.Delivery, outcome string, _ error) {
	m.deliveries.WithLabelValues(string(d.Kind), outcome).Inc()
}

// Sweep records a sweep job's duration and count.
func (m *Metrics) Sweep(job string, n int, d time.Duration, _ error) {
	m.sweepSeconds.WithLabelValues(job).Observe(d.Seconds())
	m.sweepItems.WithLabelValues(job).Add(float64(n))
}

// Request records an HTTP request. A method outside the standard set is counted as "other":
// the method is whatever the client sent, before any authentication, and each new string would
// otherwise be a new series for as long as the process lives.
func (m *Metrics) Request(route, method string, status int, d time.Duration) {
	if !standardMethods[method] {
		method = "other"
	}
	m.httpSeconds.WithLabelValues(route, method, strconv.Itoa(status)).Observe(d.Seconds())
}

// standardMethods are the methods of RFC 9110 and PATCH, as the label keeps them.
var standardMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
	http.MethodConnect: true, http.MethodTrace: true,
}

// SlackTransport wraps the RoundTripper of the Slack client to count every Web API call by
// method (the last path element, e.g. chat.postMessage) and result: "ok", Slack's own error
// ("channel_not_found"), "ratelimited", "http_5xx" or "network".
func (m *Metrics) SlackTransport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		method := req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:]
		start := time.Now()
		resp, err := next.RoundTrip(req)
		m.slackSeconds.WithLabelValues(method).Observe(time.Since(start).Seconds())
		result := "ok"
		switch {
		case err != nil:
			result = "network"
		case resp.StatusCode == http.StatusTooManyRequests:
			result = "ratelimited"
		case resp.StatusCode >= 500:
			result = "http_5xx"
		case resp.StatusCode >= 400:
			result = "http_" + strconv.Itoa(resp.StatusCode)
		default:
			result = slackResult(resp)
		}
		m.slackCalls.WithLabelValues(method, result).Inc()
		return resp, err
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// slackResult reads {"ok": false, "error": "…"} from a Slack response, leaving the body
// readable for the client.
func slackResult(resp *http.Response) string {
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return "network"
	}
	var r struct {
		OK    *bool  `json:"ok"`
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &r) != nil || r.OK == nil || *r.OK {
		return "ok"
	}
	if r.Error == "" {
		return "error"
	}
	return r.Error
}
