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
// type it takes), and text no field takes (NUL, a lone UTF-16 surrogate). An empty body (with
// any Content-Type or none) is an empty object when optional is true. dst must hold its zero
// value.
//
// The body is read once against dst's type (check), which refuses what the API does not take,
// then decoded by encoding/json, which check has made sure will take it.
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
		// and "a\xfe" became the same stored id: refuse them instead.
		at := bytes.IndexByte(bytes.ToValidUTF8(body, []byte{0xff}), 0xff) // no character has the byte 0xff
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is not valid UTF-8 (byte %d is no part of a character): send the JSON encoded as UTF-8", at)
	case !json.Valid(body):
		return syntaxError(body)
	case trimmed[0] == 'n':
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is null: %s", wanted(t))
	case trimmed[0] != '{':
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is %s, not a JSON object: %s", kindOf(trimmed[0]), wanted(t))
	}
	if err := check(body, t); err != nil {
		return err
	}
	if err := json.Unmarshal(body, dst); err != nil { // check takes nothing encoding/json refuses
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body does not fit this endpoint: %s", wanted(t))
	}
	return nil
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

// checker reads a body (valid JSON, one object) against the type it decodes into, and keeps the
// first refusal. A value lies at a path, the json names that lead to it from the top (an item of
// a list or a map adds none: "options.value", "answers.declined"), and belongs to field, the type
// of the struct field the path names, of which it is an item when it lies in a list or a map.
type checker struct {
	body []byte
	i    int      // the next byte to read
	path []string // of the value being read
	// The first refusals met in the top-level value being read: a text no field takes wins.
	text, shape error
}

// check refuses the first thing in body that dst's type t does not take, or returns nil when
// json.Unmarshal will decode body into it as sent. Of refusals in several top-level fields it
// gives the one of the first name in sort order, whatever order the caller sent them in.
func check(body []byte, t reflect.Type) error {
	k := &checker{body: body}
	fs := fieldsOf(t)
	seen := make([]bool, len(fs.names))
	var first error
	var firstName string
	k.members(func(key []byte) {
		j, known := fs.index[string(key)]
		k.path, k.text, k.shape = k.path[:0], nil, nil
		var err error
		switch {
		case !known && len(fs.names) == 0:
			err = inquiry.FieldErrorf(inquiry.CodeBadRequest, string(key), "unknown field %q: this endpoint takes no fields; send {} or no body", key)
		case !known:
			err = inquiry.FieldErrorf(inquiry.CodeBadRequest, string(key), "unknown field %q: the allowed fields are %s", key, fieldList(t))
		case seen[j]:
			err = inquiry.FieldErrorf(inquiry.CodeBadRequest, fs.names[j], "the field %q is given twice: send it once", key)
		default:
			seen[j], k.path = true, append(k.path, fs.names[j])
			k.value(fs.types[j], fs.types[j], false)
			err = cmp.Or(k.text, k.shape)
		}
		if len(k.path) == 0 {
			k.next() // not read: skipped whole
		}
		if err != nil && (first == nil || string(key) < firstName) {
			first, firstName = err, string(key)
		}
	})
	return first
}

// value checks the next value, of type t.
func (k *checker) value(t, field reflect.Type, item bool) {
	c, b := k.peek(), base(t)
	kind := b.Kind()
	walks := kind == reflect.String || kind == reflect.Bool || number(kind) || kind == reflect.Struct ||
		kind == reflect.Slice && b.Elem().Kind() != reflect.Uint8 || kind == reflect.Map && b.Key().Kind() == reflect.String
	switch {
	case !walks || decodesItself(b) && !(c == '{' && kind == reflect.Struct && len(fieldsOf(b).names) > 0):
		// A type that decodes itself (an option, a value, a time), or one only encoding/json reads.
		err := json.Unmarshal(k.next(), reflect.New(t).Interface())
		var typ *json.UnmarshalTypeError
		switch {
		case err == nil:
		case errors.As(err, &typ):
			k.wrong(c, t, field, item, "")
		case b == reflect.TypeFor[time.Time]():
			k.fail("%s must be an RFC 3339 time such as \"2026-12-01T14:00:00Z\"", k.at())
		default: // the type says what it takes: "must be a string or a list of strings"
			k.fail("%s %v", k.at(), err)
		}
	case c == 'n' || kind == reflect.String && c == '"' || kind == reflect.Bool && (c == 't' || c == 'f'):
		k.next() // null leaves any field as it is
	case number(kind) && (c == '-' || c >= '0' && c <= '9'):
		if n := k.next(); json.Unmarshal(n, reflect.New(b).Interface()) != nil { // too large, or not whole
			k.wrong(c, t, field, item, string(n))
		}
	case kind == reflect.Slice && c == '[':
		k.items(func() { k.value(b.Elem(), field, true) })
	case kind == reflect.Map && c == '{':
		seen := map[string]bool{}
		k.members(func(key []byte) {
			if seen[string(key)] {
				k.fail("%s has the key %q twice: send it once", k.at(), key)
			}
			seen[string(key)] = true
			k.value(b.Elem(), field, true)
		})
	case kind == reflect.Struct && c == '{':
		fs := fieldsOf(b)
		seen := make([]bool, len(fs.names))
		k.members(func(key []byte) {
			j, known := fs.index[string(key)]
			switch {
			case !known && item:
				k.fail("an item of %s has the unknown field %q: each is %s", k.at(), key, typeName(b))
			case !known:
				k.fail("%s has the unknown field %q: send %s", k.at(), key, typeName(b))
			case seen[j]:
				k.fail("%s has the field %q twice: send it once", k.at(), key)
			}
			if !known {
				k.next()
				return
			}
			seen[j], k.path = true, append(k.path, fs.names[j])
			k.value(fs.types[j], fs.types[j], false)
			k.path = k.path[:len(k.path)-1]
		})
	default:
		k.next()
		k.wrong(c, t, field, item, "")
	}
}

// wrong refuses the value just read, which starts with c, as the wrong type for t, or, for
// number, the literal of a number too large or too precise for t.
func (k *checker) wrong(c byte, t, field reflect.Type, item bool, number string) {
	switch {
	case item:
		k.fail("%s must be %s, but an item of it is %s: send every item as %s", k.at(), typeName(field), kindOf(c), typeName(t))
	case number != "":
		if len(number) > 40 {
			number = number[:40] + "…"
		}
		k.fail("%s is %s, which is out of range for it: send %s of ordinary size", k.at(), number, typeName(t))
	default:
		k.fail("%s must be %s, not %s: send it as %s", k.at(), typeName(t), kindOf(c), typeName(t))
	}
}

// at is the path of the value being read.
func (k *checker) at() string { return strings.Join(k.path, ".") }

func (k *checker) fail(format string, args ...any) {
	if k.shape == nil {
		k.shape = inquiry.FieldErrorf(inquiry.CodeBadRequest, k.at(), format, args...)
	}
}

// peek skips white space and returns the next byte.
func (k *checker) peek() byte {
	for k.i < len(k.body) && strings.IndexByte(" \t\r\n", k.body[k.i]) >= 0 {
		k.i++
	}
	if k.i == len(k.body) {
		return 0
	}
	return k.body[k.i]
}

// next reads the next value whole, refusing text no field takes in it, and returns it.
func (k *checker) next() []byte {
	c := k.peek()
	start, depth := k.i, 0
	for {
		switch c {
		case '"':
			lit, escaped := k.i, false
			for k.i++; k.body[k.i] != '"'; k.i++ {
				if k.body[k.i] == '\\' {
					k.i, escaped = k.i+1, true
				}
			}
			if escaped && k.text == nil && len(k.path) > 0 {
				k.storable(k.body[lit : k.i+1])
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ' ', '\t', '\r', '\n', ',', ':':
		default: // a number, true, false or null
			for k.i+1 < len(k.body) && strings.IndexByte(",]} \t\r\n", k.body[k.i+1]) < 0 {
				k.i++
			}
		}
		if k.i++; depth == 0 {
			break
		}
		c = k.body[k.i]
	}
	return k.body[start:k.i]
}

// members calls member with the name of each member of the next object, its value to read next.
func (k *checker) members(member func(name []byte)) {
	k.peek()
	k.i++ // {
	for k.peek() != '}' {
		raw := k.next()
		name := raw[1 : len(raw)-1]
		if bytes.IndexByte(raw, '\\') >= 0 {
			var s string
			json.Unmarshal(raw, &s)
			name = []byte(s)
		}
		k.peek()
		k.i++ // :
		member(name)
		if k.peek() == ',' {
			k.i++
		}
	}
	k.i++ // }
}

// items calls item for each item of the next list, to read it.
func (k *checker) items(item func()) {
	k.i++ // [
	for k.peek() != ']' {
		item()
		if k.peek() == ',' {
			k.i++
		}
	}
	k.i++ // ]
}

// storable refuses a string (JSON, with escapes) whose text the store cannot keep (see
// inquiry.Storable: it holds a NUL, \u0000), or that escapes a UTF-16 surrogate without its other
// half (no character at all: encoding/json would quietly turn it into U+FFFD).
func (k *checker) storable(lit []byte) {
	var s string
	json.Unmarshal(lit, &s)
	why := ""
	if !inquiry.Storable(s) {
		why = "a NUL character (\\u0000), which no field takes"
	}
	for i := 0; why == "" && i < len(lit) && strings.ContainsRune(s, utf8.RuneError); i++ {
		switch {
		case lit[i] != '\\':
			continue
		case lit[i+1] != 'u':
			i++ // a one-letter escape, \" and \\ among them
			continue
		}
		switch u, _ := strconv.ParseUint(string(lit[i+2:i+6]), 16, 32); {
		case u >= 0xD800 && u <= 0xDBFF && i+12 <= len(lit) && lit[i+6] == '\\' && lit[i+7] == 'u':
			if lo, _ := strconv.ParseUint(string(lit[i+8:i+12]), 16, 32); lo >= 0xDC00 && lo <= 0xDFFF {
				i += 6 // a whole surrogate pair: one character
				break
			}
			fallthrough
		case u >= 0xD800 && u <= 0xDFFF:
			why = fmt.Sprintf("the escape \\u%04x, half of a UTF-16 surrogate pair without its other half, which is no character", u)
		}
		i += 5
	}
	if why != "" {
		k.text = inquiry.FieldErrorf(inquiry.CodeBadRequest, k.path[0], "%s has %s: send text without it", k.path[0], why)
	}
}

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
// The answer is kept per type: the checker asks it of every value of every body.
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
