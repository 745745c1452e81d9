// Package gateway is the HTTP edge of the inquiry bot: the JSON API under /v1 (asking, reading,
// long-polling, answering and cancelling inquiries; registering, asking inside, resuming and
// finishing runs), bearer-token authentication with scopes and namespaces, the one table that
// maps inquiry error codes to HTTP statuses and the error body, strict JSON decoding, the
// health and readiness probes, the OpenAPI document served at /openapi.yaml, and the signed
// outbound callbacks (callback_url and a run's resume_url) with their SSRF guard.
//
// It holds no domain rules of its own: every decision is inquiry.Service's, every sentence an
// error carries comes from inquiry.ErrorMessage, and every status from the table in errors.go.
//
// # Wiring
//
//	srv := gateway.New(gateway.Config{Service: svc, CallbackSecret: secret, CallbackHosts: hosts,
//		Mount: slackApp.Mount, Metrics: promhttp.Handler()})
//	d := &dispatch.Dispatcher{Store: st, Handlers: gateway.Merge(svc.TransportHandlers(), srv.DeliveryHandlers())}
//	svc.Kick = d.Kick
//	go d.Run(ctx)
//	http.ListenAndServe(addr, srv.Handler())
//
// # Callbacks
//
// A callback is a POST of JSON with X-Inquiry-Timestamp (unix seconds) and
// X-Inquiry-Signature: v1=<hex HMAC-SHA256 of "v1:{timestamp}:{body}">, keyed by the callback
// secret; receivers check it with Verify. A 2xx answer is done; 408, 429 and 5xx answers and
// network errors are retried by the dispatcher (429 after its Retry-After); any other answer,
// a redirect (never followed), and a host the SSRF guard refuses give up at once.
package gateway
