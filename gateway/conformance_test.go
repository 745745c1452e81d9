package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

// The OpenAPI document, loaded once and made strict: every object schema that does not say
// otherwise takes no property it does not declare. The published document leaves objects open
// (fields may be added); the tests hold the server to exactly what it documents.
var (
	specDoc    *openapi3.T
	specRouter routers.Router
)

func TestMain(m *testing.M) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(gateway.OpenAPI)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load openapi.yaml:", err)
		os.Exit(2)
	}
	if err := doc.Validate(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "openapi.yaml is not a valid OpenAPI 3 document:", err)
		os.Exit(2)
	}
	strict(doc)
	specDoc = doc
	if specRouter, err = gorillamux.NewRouter(doc); err != nil {
		fmt.Fprintln(os.Stderr, "route openapi.yaml:", err)
		os.Exit(2)
	}
	code := m.Run()
	if code == 0 {
		code = reportCoverage()
	}
	os.Exit(code)
}

// strict closes every object schema that leaves additionalProperties open.
func strict(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(ref *openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if s.Type.Is("object") && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			no := false
			s.AdditionalProperties.Has = &no
		}
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
		for _, group := range [][]*openapi3.SchemaRef{s.OneOf, s.AnyOf, s.AllOf} {
			for _, sub := range group {
				walk(sub)
			}
		}
	}
	for _, ref := range doc.Components.Schemas {
		walk(ref)
	}
}

// conformance checks every answer of the server against the document: its status must be one
// the operation documents, and its body must match that response's schema exactly.
type conformance struct {
	t    testing.TB
	next http.RoundTripper
}

func (c *conformance) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	res, err := c.next.RoundTrip(req)
	if err != nil {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	if msg := checkResponse(req, reqBody, res, body); msg != "" {
		c.t.Errorf("%s %s answered %d, which openapi.yaml does not allow: %s\nbody: %s", req.Method, req.URL.Path, res.StatusCode, msg, truncate(body))
	}
	return res, nil
}

func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

var (
	coverMu sync.Mutex
	covered = map[string]bool{}      // "METHOD /path status"
	codes   = map[inquiry.Code]int{} // error codes seen, with their status
)

// checkResponse returns why a response does not conform ("" when it does).
func checkResponse(req *http.Request, reqBody []byte, res *http.Response, body []byte) string {
	// Every error, routed or not, is the one error shape with the code's status.
	if res.StatusCode >= 400 {
		var e gateway.ErrorBody
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
			return fmt.Sprintf("not the error shape (%v)", err)
		}
		if want := gateway.StatusOf(e.Error.Code); want != res.StatusCode && res.StatusCode != http.StatusMethodNotAllowed {
			return fmt.Sprintf("code %s must have status %d", e.Error.Code, want)
		}
		if e.Error.Fatal != (e.Error.Code == inquiry.CodeUnavailable) {
			return fmt.Sprintf("code %s with fatal %v", e.Error.Code, e.Error.Fatal)
		}
		if e.Error.Code == inquiry.CodeStorageUnavailable && res.Header.Get("Retry-After") == "" {
			return "storage_unavailable without Retry-After"
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			return "error with Content-Type " + ct
		}
		coverMu.Lock()
		codes[e.Error.Code] = res.StatusCode
		coverMu.Unlock()
	}
	vreq := req.Clone(req.Context())
	vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := specRouter.FindRoute(vreq)
	if err != nil {
		if res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed {
			return "" // an unknown route, answered as such
		}
		if strings.HasPrefix(req.URL.Path, "/v1/") || req.URL.Path == "/healthz" || req.URL.Path == "/readyz" {
			return "the route is not in the document"
		}
		return "" // routes mounted by others
	}
	coverMu.Lock()
	covered[fmt.Sprintf("%s %s %d", req.Method, route.Path, res.StatusCode)] = true
	coverMu.Unlock()
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route},
		Status:                 res.StatusCode,
		Header:                 res.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(req.Context(), in); err != nil {
		return err.Error()
	}
	return ""
}

// checkSchema checks a JSON body (a callback's) against a component schema of the document.
func checkSchema(t *testing.T, name string, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("callback body is not JSON: %v", err)
	}
	ref := specDoc.Components.Schemas[name]
	if ref == nil {
		t.Fatalf("no schema %s", name)
	}
	if err := ref.Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
		t.Errorf("callback body does not match schema %s: %v\nbody: %s", name, err, truncate(body))
	}
}

// reportCoverage fails the run when an error code of the table never answered, and lists the
// documented responses no test saw.
func reportCoverage() int {
	if testing.Short() || !fullRun() {
		return 0
	}
	coverMu.Lock()
	defer coverMu.Unlock()
	var missingCodes []string
	for code := range gatewayCodes() {
		if _, ok := codes[code]; !ok {
			missingCodes = append(missingCodes, string(code))
		}
	}
	var missing []string
	for path, item := range specDoc.Paths.Map() {
		for method, op := range item.Operations() {
			for status := range op.Responses.Map() {
				key := fmt.Sprintf("%s %s %s", method, path, status)
				if !covered[key] {
					missing = append(missing, key)
				}
			}
		}
	}
	sort.Strings(missing)
	if testing.Verbose() && len(missing) > 0 {
		fmt.Printf("documented responses no test saw (%d):\n  %s\n", len(missing), strings.Join(missing, "\n  "))
	}
	if len(missingCodes) > 0 {
		sort.Strings(missingCodes)
		fmt.Printf("FAIL: error codes no test saw answered: %s\n", strings.Join(missingCodes, ", "))
		return 1
	}
	return 0
}

// fullRun reports whether the whole suite ran (no -run filter), so coverage means something.
func fullRun() bool {
	for _, a := range os.Args {
		if strings.HasPrefix(a, "-test.run") {
			return false
		}
	}
	return true
}

func gatewayCodes() map[inquiry.Code]bool {
	return map[inquiry.Code]bool{
		inquiry.CodeBadRequest: true, inquiry.CodeUnauthenticated: true, inquiry.CodeForbidden: true,
		inquiry.CodeNotFound: true, inquiry.CodeIDConflict: true, inquiry.CodeAlreadyResolved: true,
		inquiry.CodeDeclined: true, inquiry.CodeTooLarge: true, inquiry.CodeInvalidInquiry: true,
		inquiry.CodeInvalidAnswer: true, inquiry.CodeUnavailable: true, inquiry.CodeStorageUnavailable: true,
		inquiry.CodeInternal: true, inquiry.CodeRateLimited: true, inquiry.CodeUnsupportedMediaType: true,
	}
}

// TestOpenAPINullableHasType holds the document to OpenAPI 3.0.3's reading of nullable: it adds
// null to the type of its own schema only, so a nullable schema without a type allows no null at
// all to a strict reader (Redocly's nullable-type-sibling error; Ajv refuses to compile it) while
// the server sends null there. A null beside a reference is a oneOf with #/components/schemas/JSONNull.
// kin-openapi reads nullable loosely and would not notice; .ci/openapi-lint.sh runs Redocly and
// Ajv themselves on the served document.
func TestOpenAPINullableHasType(t *testing.T) {
	var bad []string
	// A reference is not followed: every component schema is walked under its own name.
	var walk func(where string, ref *openapi3.SchemaRef)
	walk = func(where string, ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || ref.Ref != "" {
			return
		}
		s := ref.Value
		if s.Nullable && (s.Type == nil || len(*s.Type) == 0) {
			bad = append(bad, where)
		}
		for name, p := range s.Properties {
			walk(where+"/properties/"+name, p)
		}
		walk(where+"/items", s.Items)
		walk(where+"/additionalProperties", s.AdditionalProperties.Schema)
		walk(where+"/not", s.Not)
		for kw, group := range map[string][]*openapi3.SchemaRef{"oneOf": s.OneOf, "anyOf": s.AnyOf, "allOf": s.AllOf} {
			for i, sub := range group {
				walk(where+"/"+kw+"/"+strconv.Itoa(i), sub)
			}
		}
	}
	for name, ref := range specDoc.Components.Schemas {
		walk("#/components/schemas/"+name, &openapi3.SchemaRef{Value: ref.Value})
	}
	for name, p := range specDoc.Components.Parameters {
		walk("#/components/parameters/"+name, p.Value.Schema)
	}
	for path, item := range specDoc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, p := range op.Parameters {
				walk(path+" "+method+" parameter "+p.Value.Name, p.Value.Schema)
			}
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("nullable without a type beside it (give it its type, or make it oneOf [{$ref: ...}, {$ref: \"#/components/schemas/JSONNull\"}]):\n%s", strings.Join(bad, "\n"))
	}
}

// TestOpenAPILinkTokenBound: the document bounds a link token as the service does, so that a
// client checking against it accepts every link the bot mints.
func TestOpenAPILinkTokenBound(t *testing.T) {
	p := specDoc.Paths.Find("/a/{token}").Parameters.GetByInAndName("path", "token")
	if p == nil || p.Schema.Value.MaxLength == nil {
		t.Fatal("/a/{token} has no token parameter with a maxLength")
	}
	if got := *p.Schema.Value.MaxLength; got != uint64(inquiry.MaxLinkTokenChars) {
		t.Fatalf("openapi.yaml bounds a link token at %d characters, the service at %d", got, inquiry.MaxLinkTokenChars)
	}
}
