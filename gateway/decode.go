package gateway

import (
	"bytes"
	"cmp"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"mime"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/inquiry-bot/bot/inquiry"
)

// MaxBodyBytes is the largest request body the API reads: 1 MiB.
const MaxBodyBytes = 1 << 20

// bind decodes c's body into dst as decode does; on a refusal it answers with it and returns
// false, and the handler has nothing more to do.
func (s *Server) bind(c *gin.Context, dst any, optional bool) bool {
	if err := decode(c, dst, optional); err != nil {
		s.abort(c, err)
		return false
	}
	return true
}

// decode reads the JSON object in c's body into dst, a pointer to a struct whose fields carry
// json tags. It refuses, each with one sentence naming the fix: a body over MaxBodyBytes
// (too_large); a body not sent as JSON (unsupported_media_type, see jsonMediaType); and, all
// bad_request, a body that is not UTF-8, not JSON or cut short, anything but an object, a name
// the struct does not have spelt exactly (encoding/json would match "ID" to "id"; the sentence
// lists the names it has) or given twice, a value of the wrong type (naming the field and the
// type it takes), and text no field takes (NUL, a lone UTF-16 surrogate). Text no field takes,
// and bytes that are not UTF-8 in a string value, are the field's to mend where the service
// validates the body's fields (an ask, an answer, a resume: 422, see unprocessable). An empty body (with
// any Content-Type or none) is an empty object when optional is true. dst must hold its zero
// value.
//
// encoding/json decodes the body (check), after a walk of its tokens against dst's type for
// what encoding/json cannot see: names given twice or not spelt exactly, and text no field takes.
func decode(c *gin.Context, dst any, optional bool) error {
	ct := c.GetHeader("Content-Type")
	if ct != "" && c.Request.ContentLength != 0 && !jsonMediaType(ct) {
		return notJSON(ct) // refused before a byte of it is read
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return inquiry.Errorf(inquiry.CodeTooLarge, "the request body is over %d bytes (1 MiB): send less, for instance a shorter context", MaxBodyBytes)
		}
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body could not be read: send it again")
	}
	if len(body) > 0 && !jsonMediaType(ct) { // no Content-Type, or a wrong one sent chunked
		return notJSON(ct)
	}
	t := reflect.TypeOf(dst).Elem()
	switch trimmed := bytes.TrimSpace(body); {
	case len(trimmed) == 0 && optional:
		return nil
	case len(trimmed) == 0:
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is empty: %s", wanted(t))
	case !utf8.Valid(body):
		// encoding/json would quietly turn the bytes into U+FFFD, so that ids such as "a\xff"
		// and "a\xfe" became the same stored id: refuse them instead, as the field's where the
		// service validates it.
		if err := invalidUTF8Field(body, t); err != nil {
			return err
		}
		at := bytes.IndexByte(bytes.ToValidUTF8(body, []byte{0xff}), 0xff) // no character has the byte 0xff
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is not valid UTF-8 (byte %d is no part of a character): send the JSON encoded as UTF-8", at)
	case !json.Valid(body):
		return syntaxError(body)
	case trimmed[0] == 'n':
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is null: %s", wanted(t))
	case trimmed[0] != '{':
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is %s, not a JSON object: %s", kindOf(trimmed[0]), wanted(t))
	}
	return check(body, dst, t)
}

// wanted says what body an endpoint of type t takes: its fields, or none at all.
func wanted(t reflect.Type) string {
	if len(fieldsOf(t).names) == 0 {
		return "send an empty JSON object {} or no body"
	}
	return "send a JSON object with the fields " + fieldList(t)
}

// jsonMediaType reports whether a Content-Type says JSON: application/json or
// application/*+json, in UTF-8 (the only charset JSON between systems may use, RFC 8259) or
// with no charset said. Anything else — a form, a multipart body, text/plain, which a browser
// may send across origins without asking — is not read as JSON.
func jsonMediaType(ct string) bool {
	if ct == "application/json" {
		return true // what nearly every client sends, read as mime would read it
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || !(mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8")
}

// notJSON is the refusal of a body whose Content-Type ct is not JSON. It names the media type
// as parsed (bounded), never the raw header.
func notJSON(ct string) error {
	const fix = "send the JSON object with Content-Type: application/json"
	mt, _, err := mime.ParseMediaType(ct)
	switch {
	case ct == "":
		return inquiry.Errorf(inquiry.CodeUnsupportedMediaType, "the request body has no Content-Type: %s", fix)
	case err != nil:
		return inquiry.Errorf(inquiry.CodeUnsupportedMediaType, "the request body's Content-Type is no media type: %s", fix)
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return inquiry.Errorf(inquiry.CodeUnsupportedMediaType, "the request body is JSON in a charset other than UTF-8: %s (in UTF-8)", fix)
	}
	if len(mt) > 100 {
		mt = mt[:100] + "…"
	}
	return inquiry.Errorf(inquiry.CodeUnsupportedMediaType, "the request body is sent as %q, which is not JSON: %s", mt, fix)
}

// syntaxError explains why a body (valid UTF-8) is not JSON: it stops short of a whole value,
// or the scanner names the byte it stumbled on.
func syntaxError(body []byte) error {
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(new(json.RawMessage)); errors.Is(err, io.ErrUnexpectedEOF) {
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is cut short: it ends before its JSON is complete; send the whole JSON object")
	}
	var syn *json.SyntaxError
	errors.As(json.Unmarshal(body, new(struct{})), &syn)
	return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is not valid JSON (%v at byte %d): send one JSON object such as {\"kind\": \"confirm\", ...}", syn, syn.Offset)
}

// member is one top-level member of a body: its name, and the first thing refused in it.
type member struct {
	name string
	err  error
}

// check lets encoding/json decode body into dst, a pointer to a value of struct type t, after
// a walk of its tokens (walker) for what encoding/json cannot see. A body refused is walked
// again, decoding each value, to say where the first thing refused lies. Of refusals in several
// top-level fields it gives the one of the first name in sort order, whatever order the caller
// sent them in.
func check(body []byte, dst any, t reflect.Type) error {
	if _, refused := walk(body, t, false); !refused && strict(body, dst) == nil {
		return nil
	}
	members, _ := walk(body, t, true)
	slices.SortStableFunc(members, func(a, b member) int { return strings.Compare(a.name, b.name) })
	for _, m := range members {
		if m.err != nil {
			return m.err
		}
	}
	return inquiry.Errorf(inquiry.CodeBadRequest, "the request body does not fit this endpoint: %s", wanted(t))
}

// strict decodes body into dst as the API does: encoding/json, refusing names dst does not have.
func strict(body []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

// typeError turns encoding/json's refusal of a value of type t at path, in a field of type
// field, into the API's sentence; nil stays nil.
func typeError(path string, t, field reflect.Type, err error) error {
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typ):
	case base(t) == reflect.TypeFor[time.Time]():
		return fieldError(path, "%s must be an RFC 3339 time such as \"2026-12-01T14:00:00Z\"", path)
	default: // the type says what it takes: "must be a string or a list of strings"
		return fieldError(path, "%s %v", path, err)
	}
	kind, number, _ := strings.Cut(typ.Value, " ")
	switch got := typeName(typ.Type); {
	case base(typ.Type) != base(field):
		return fieldError(path, "%s must be %s, but an item of it is %s: send every item as %s", path, typeName(field), valueKind(kind), got)
	case number != "":
		if len(number) > 40 {
			number = number[:40] + "…"
		}
		return fieldError(path, "%s is %s, which is out of range for it: send %s of ordinary size", path, number, got)
	default:
		return fieldError(path, "%s must be %s, not %s: send it as %s", path, got, valueKind(kind), got)
	}
}

// fieldError is a bad_request refusal of the value at path.
func fieldError(path, format string, args ...any) error {
	return inquiry.FieldErrorf(inquiry.CodeBadRequest, path, format, args...)
}

// walker reads a body's tokens against the type it decodes into, for what encoding/json cannot
// see: a name given twice, a name not spelt exactly as a field's (encoding/json matches "ID" to
// "id"), and text no field takes; with leaves, it decodes each value too, to place a refusal
// (encoding/json does not say where a type's own UnmarshalJSON refused). A value lies at a
// path, the json names that lead to it from the top (an item of a list or a map adds none:
// "options.value").
type walker struct {
	dec    *json.Decoder
	body   []byte
	leaves bool
	path   []string
	// textCode is the code of a text no field takes: the body type's 422 where the service
	// validates its fields (unprocessable), else bad_request.
	textCode inquiry.Code
	// The first refusals met in the top-level value being read: a text no field takes wins.
	text, shape error
}

// walk reads body (valid JSON, one object) against t: its top-level members, and whether any
// was refused.
func walk(body []byte, t reflect.Type, leaves bool) (members []member, refused bool) {
	w := &walker{dec: json.NewDecoder(bytes.NewReader(body)), body: body, leaves: leaves,
		textCode: cmp.Or(unprocessable[t], inquiry.CodeBadRequest)}
	w.dec.UseNumber() // a number is only skipped here: never parsed, never out of range
	fs := fieldsOf(t)
	seen := make([]bool, len(fs.names))
	w.dec.Token() // {
	for w.dec.More() {
		tok, _ := w.dec.Token()
		name := tok.(string)
		j, known := fs.index[name]
		w.path, w.text, w.shape = w.path[:0], nil, nil
		switch {
		case !known && len(fs.names) == 0:
			w.shape = inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "unknown field %q: this endpoint takes no fields; send {} or no body", name)
		case !known:
			w.shape = inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "unknown field %q: the allowed fields are %s", name, fieldList(t))
		case seen[j]:
			w.shape = inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "the field %q is given twice: send it once", name)
		}
		if w.shape != nil {
			w.skip(w.token()) // not read
		} else {
			seen[j], w.path = true, append(w.path, name)
			w.value(fs.types[j], fs.types[j], false)
		}
		err := cmp.Or(w.text, w.shape)
		members, refused = append(members, member{name, err}), refused || err != nil
	}
	return members, refused
}

// value reads the next value, of type t, in a struct field of type field, of which it is an
// item when it lies in a list or a map.
func (w *walker) value(t, field reflect.Type, item bool) {
	b := base(t)
	start := w.dec.InputOffset()
	tok := w.token()
	switch d, _ := tok.(json.Delim); {
	case d == '{' && b.Kind() == reflect.Struct && (len(fieldsOf(b).names) > 0 || !decodesItself(b)):
		w.fields(b, item)
	case d == '{' && b.Kind() == reflect.Map && !decodesItself(b):
		seen := map[string]bool{}
		for w.dec.More() {
			key := w.token().(string)
			if seen[key] {
				w.fail("%s has the key %q twice: send it once", w.at(), key)
			}
			seen[key] = true
			w.value(b.Elem(), field, true)
		}
		w.dec.Token() // }
	case d == '[' && b.Kind() == reflect.Slice && !decodesItself(b):
		for w.dec.More() {
			w.value(b.Elem(), field, true)
		}
		w.dec.Token() // ]
	default:
		w.skip(tok)
		if w.leaves {
			if err := typeError(w.at(), t, field, json.Unmarshal(w.since(start), reflect.New(t).Interface())); err != nil && w.shape == nil {
				w.shape = err
			}
		}
	}
}

// fields reads the members of an object that decodes into struct type t.
func (w *walker) fields(t reflect.Type, item bool) {
	fs := fieldsOf(t)
	seen := make([]bool, len(fs.names))
	for w.dec.More() {
		key := w.token().(string)
		j, known := fs.index[key]
		switch {
		case !known && item:
			w.fail("an item of %s has the unknown field %q: each is %s", w.at(), key, typeName(t))
		case !known:
			w.fail("%s has the unknown field %q: send %s", w.at(), key, typeName(t))
		case seen[j]:
			w.fail("%s has the field %q twice: send it once", w.at(), key)
		}
		if !known {
			w.skip(w.token())
			continue
		}
		seen[j], w.path = true, append(w.path, fs.names[j])
		w.value(fs.types[j], fs.types[j], false)
		w.path = w.path[:len(w.path)-1]
	}
	w.dec.Token() // }
}

// token reads the next token, refusing text no field takes in it.
func (w *walker) token() json.Token {
	before := w.dec.InputOffset()
	tok, _ := w.dec.Token()
	if s, ok := tok.(string); ok && w.text == nil && len(w.path) > 0 && strings.ContainsAny(s, "\x00\uFFFD") {
		lit := w.body[before:w.dec.InputOffset()]
		w.storable(s, lit[bytes.IndexByte(lit, '"'):])
	}
	return tok
}

// skip reads the rest of the value that starts with tok.
func (w *walker) skip(tok json.Token) {
	if d, _ := tok.(json.Delim); d == '{' || d == '[' {
		for depth := 1; depth > 0; {
			switch w.token() {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
		}
	}
}

// since is the value read since the offset start, which may precede the separator before it.
func (w *walker) since(start int64) []byte {
	return bytes.TrimLeft(w.body[start:w.dec.InputOffset()], " \t\r\n,:")
}

// at is the path of the value being read.
func (w *walker) at() string { return strings.Join(w.path, ".") }

func (w *walker) fail(format string, args ...any) {
	if w.shape == nil {
		w.shape = inquiry.FieldErrorf(inquiry.CodeBadRequest, w.at(), format, args...)
	}
}

// storable refuses a string s, read from its JSON literal lit, whose text the store cannot
// keep (see inquiry.Storable: it holds a NUL, \u0000), or that escapes a UTF-16 surrogate
// without its other half (no character at all: encoding/json would quietly turn it into U+FFFD).
func (w *walker) storable(s string, lit []byte) {
	why := ""
	if !inquiry.Storable(s) {
		why = "a NUL character (\\u0000), which no field takes"
	}
	for _, esc := range escape.FindAll(lit, -1) {
		if why == "" && len(esc) == len(`\ud800`) {
			why = fmt.Sprintf("the escape %s, half of a UTF-16 surrogate pair without its other half, which is no character", bytes.ToLower(esc))
		}
	}
	if why != "" {
		w.text = inquiry.FieldErrorf(w.textCode, w.path[0], "%s has %s: send text without it", w.path[0], why)
	}
}

// escape matches each escape of a JSON string: a UTF-16 surrogate pair whole, a half of one
// alone (6 bytes), or any other escape's backslash and letter.
var escape = regexp.MustCompile(`\\(?:u[dD][89abAB]..(?:\\u[dD][c-fC-F]..)?|u[dD][c-fC-F]..|.)`)

// fields is what decodes into a struct type: its json names in order, and the type of each.
type fields struct {
	names  []string
	types  []reflect.Type
	depths []int // of embedding
	index  map[string]int
}

var fieldCache sync.Map // reflect.Type -> *fields

// fieldsOf lists the json names of struct type t as encoding/json reads them, in their order:
// the exported fields not tagged "-", with those of an untagged embedded struct in its place as if
// they were t's, unless a field nearer t has the name.
func fieldsOf(t reflect.Type) *fields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*fields)
	}
	out := &fields{index: map[string]int{}}
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		for i := 0; i < t.NumField() && depth < 8; i++ { // 8: no endless embedding
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			name := cmp.Or(tag, f.Name)
			j, seen := out.index[name]
			switch {
			case f.Anonymous && tag == "" && base(f.Type).Kind() == reflect.Struct:
				walk(base(f.Type), depth+1)
			case tag == "-" || !f.IsExported():
			case !seen:
				out.index[name] = len(out.names)
				out.names, out.types, out.depths = append(out.names, name), append(out.types, f.Type), append(out.depths, depth)
			case depth < out.depths[j]:
				out.types[j], out.depths[j] = f.Type, depth
			}
		}
	}
	walk(t, 0)
	fieldCache.Store(t, out)
	return out
}

// decodesItself reports whether values of t are read by t's own UnmarshalJSON or UnmarshalText.
// The answer is kept per type: the walk asks it of every value of every body.
func decodesItself(t reflect.Type) bool {
	if d, ok := selfDecoding.Load(t); ok {
		return d.(bool)
	}
	p := reflect.PointerTo(t)
	d := p.Implements(reflect.TypeFor[json.Unmarshaler]()) || p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
	selfDecoding.Store(t, d)
	return d
}

var selfDecoding sync.Map // reflect.Type -> bool, decodesItself's answers

func number(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64 && k != reflect.Uintptr
}

// fieldList lists the json names of struct type t, in their order.
func fieldList(t reflect.Type) string { return strings.Join(fieldsOf(t).names, ", ") }

func base(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// typeName says in words what a Go type takes on the wire.
func typeName(t reflect.Type) string {
	t = base(t)
	switch t {
	case reflect.TypeFor[time.Time]():
		return "an RFC 3339 time string"
	case reflect.TypeFor[inquiry.Value]():
		return "a string or a list of strings"
	case reflect.TypeFor[inquiry.Option]():
		return "an option: a string, or an object {value, label, description}"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list of " + plural(typeName(t.Elem()))
	case reflect.Map:
		return "an object of " + plural(typeName(t.Elem()))
	case reflect.Struct:
		return "an object {" + fieldList(t) + "}"
	}
	if number(t.Kind()) {
		return "a whole number"
	}
	return "a " + t.Kind().String()
}

func plural(s string) string {
	switch {
	case strings.HasPrefix(s, "a string or"):
		return "values (strings or lists of strings)"
	case strings.HasPrefix(s, "an option"):
		return "options"
	case strings.HasPrefix(s, "an object {"):
		return "objects " + strings.TrimPrefix(s, "an object ")
	case strings.Contains(s, " of "): // a list of strings: lists of strings
		kind, of, _ := strings.Cut(s, " of ")
		return plural(kind) + " of " + of
	case strings.HasPrefix(s, "a "):
		return strings.TrimPrefix(s, "a ") + "s"
	case strings.HasPrefix(s, "an "):
		return strings.TrimPrefix(s, "an ") + "s"
	}
	return s
}

// valueKind names a kind of JSON value as encoding/json's UnmarshalTypeError names it.
func valueKind(kind string) string {
	return cmp.Or(map[string]string{"string": "a string", "bool": "true or false", "array": "a list", "object": "an object"}[kind], "a number")
}

// kindOf names the kind of JSON value that starts with c.
func kindOf(c byte) string {
	return cmp.Or(map[byte]string{'"': "a string", 't': "true or false", 'f': "true or false", '[': "a list", '{': "an object", 'n': "null"}[c], "a number")
}

// queryWait reads the wait query parameter of a long-poll.
func queryWait(c *gin.Context) (time.Duration, error) {
	raw, ok := c.GetQuery("wait")
	if !ok || raw == "" {
		return 0, nil
	}
	secs, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(secs) || math.IsInf(secs, 0) {
		return 0, inquiry.FieldErrorf(inquiry.CodeBadRequest, "wait", "wait %q is not a number of seconds: use a number from 0 to %g, such as wait=30", raw, inquiry.MaxWait.Seconds())
	}
	d, err := inquiry.WaitFrom("wait", &secs)
	if err != nil {
		// A query parameter breaks no rule of an inquiry: it is a bad request, like wait=abc.
		return 0, inquiry.FieldErrorf(inquiry.CodeBadRequest, "wait", "%s", inquiry.ErrorMessage(err))
	}
	return d, nil
}

// printable reports whether a path or query value could name anything: valid UTF-8 holding no
// control character (inquiry.ControlChar), which PostgreSQL would refuse or a log line garble.
func printable(s string) bool {
	_, control := inquiry.ControlChar(s, "")
	return !control && utf8.ValidString(s)
}

// saneParams answers path parameters and query values that cannot name anything — text that is
// not valid UTF-8 or holds a control character — before they reach the store (PostgreSQL
// refuses such text outright). No inquiry has such a key and no run such an id (404); a query
// value is a bad request naming its parameter (400). The run id of an ask is left to the ask,
// which refuses it with the rule for run ids.
func (s *Server) saneParams(c *gin.Context) {
	if s.paramsSane(c) {
		c.Next()
	}
}

// paramsSane is saneParams' check, kept out of its frame (see requestLog): false with c
// answered.
//
//go:noinline
func (s *Server) paramsSane(c *gin.Context) bool {
	for _, p := range c.Params {
		if printable(p.Value) {
			continue
		}
		switch {
		case p.Key == "key":
			s.abort(c, inquiry.Errorf(inquiry.CodeNotFound, "no inquiry has the key %q (a key is printable text): use the key a create returned (it starts with inq_), not the inquiry's id", p.Value))
			return false
		case p.Key == "id" && c.FullPath() != "/v1/runs/:id/ask":
			s.abort(c, inquiry.Errorf(inquiry.CodeNotFound, "no run has the id %q (a run id is printable text): use the id the run was registered with", p.Value))
			return false
		}
	}
	query := c.Request.URL.Query()
	for _, name := range slices.Sorted(maps.Keys(query)) {
		for _, v := range query[name] {
			if !printable(v) {
				s.abort(c, inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "the query parameter %s is %q, which holds a control character or is not valid UTF-8: send printable text", name, v))
				return false
			}
		}
	}
	return true
}
