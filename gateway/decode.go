package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/inquiry-bot/bot/inquiry"
)

// MaxBodyBytes is the largest request body the API reads: 1 MiB.
const MaxBodyBytes = 1 << 20

// decode reads the JSON object in c's body into dst, a pointer to a struct whose fields carry
// json tags. It refuses, each with one sentence naming the fix: a body over MaxBodyBytes
// (too_large), a body that is not JSON or is cut short, anything but an object, a field the
// struct does not have (listing the ones it has), and a value of the wrong type (naming the
// field and the type it takes) — all bad_request. An empty body is an empty object when
// optional is true. dst must hold its zero value.
//
// A body that decodes cleanly is parsed once (decodeOnce); only one that does not is decoded
// again, field by field, to word the error (decodeFields).
func decode(c *gin.Context, dst any, optional bool) error {
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return inquiry.Errorf(inquiry.CodeTooLarge, "the request body is over %d bytes (1 MiB): send less, for instance a shorter context", MaxBodyBytes)
		}
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body could not be read: send it again")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return nil
		}
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is empty: send a JSON object with the fields %s", fieldList(dst))
	}
	if !utf8.Valid(body) {
		// encoding/json would quietly turn the bytes into U+FFFD, so that ids such as "a\xff"
		// and "a\xfe" became the same stored id: refuse them instead.
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is not valid UTF-8 (byte %d is no part of a character): send the JSON encoded as UTF-8", invalidUTF8(body))
	}
	if decodeOnce(body, dst) {
		return nil
	}
	// Something is wrong with the body: decode it again, field by field, to say what.
	reflect.ValueOf(dst).Elem().SetZero()
	return decodeFields(body, dst)
}

// decodeOnce decodes body into dst in one pass when that is sure to give what decodeFields
// gives: a JSON object whose top-level names are each one of dst's json names, spelt exactly
// (encoding/json would match "ID" to "id") and given once (it would merge the objects of a name
// given twice where decodeFields keeps the last), with no text a field refuses (see unstorable),
// and nothing after it. It reports false, leaving dst partly written, when any of that does not
// hold or the decoding fails; decodeFields then finds the error and words it.
func decodeOnce(body []byte, dst any) bool {
	names := jsonNames(reflect.TypeOf(dst).Elem())
	if names == nil || !exactNames(body, names) || unstorable(body) != "" {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return false
	}
	return len(bytes.TrimLeftFunc(body[dec.InputOffset():], isSpace)) == 0
}

// typeNames caches jsonNames by struct type.
var typeNames sync.Map // reflect.Type -> []string

// jsonNames lists the json names of the struct type t, or returns nil when t embeds a struct
// (whose fields encoding/json would promote) and so cannot take the one-pass decoding. A struct
// without fields gets an empty, non-nil list.
func jsonNames(t reflect.Type) []string {
	if names, ok := typeNames.Load(t); ok {
		return names.([]string)
	}
	names := []string{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			names = nil
			break
		}
		if name := jsonName(f); name != "" {
			names = append(names, name)
		}
	}
	typeNames.Store(t, names)
	return names
}

// exactNames reports whether body, after any white space, is an object each of whose top-level
// names is one of names, spelt exactly and without escapes, and none given twice. It reads
// only the bytes and does not check the JSON, which the decoder does; on valid JSON its answer
// is exact.
func exactNames(body []byte, names []string) bool {
	i := 0
	for i < len(body) && isSpace(rune(body[i])) {
		i++
	}
	if i == len(body) || body[i] != '{' {
		return false
	}
	var seen uint64 // bit k: names[k] was given
	if len(names) > 64 {
		return false
	}
	depth, expectName := 0, false
	for ; i < len(body); i++ {
		switch c := body[i]; c {
		case '{', '[':
			depth++
			expectName = depth == 1
		case '}', ']':
			depth--
		case ',':
			expectName = depth == 1
		case '"':
			end := i + 1
			for end < len(body) && body[end] != '"' {
				if body[end] == '\\' {
					if depth == 1 && expectName {
						return false // an escaped name: leave it to decodeFields
					}
					end++
				}
				end++
			}
			if depth == 1 && expectName {
				k := indexOf(names, body[i+1:min(end, len(body))])
				if k < 0 || seen&(1<<k) != 0 {
					return false
				}
				seen |= 1 << k
				expectName = false
			}
			i = end
		}
	}
	return true
}

func indexOf(names []string, name []byte) int {
	for k, n := range names {
		if n == string(name) {
			return k
		}
	}
	return -1
}

// decodeFields decodes the JSON object body (valid UTF-8) into dst one top-level field at a
// time, so that every error can name its field, including the errors of types that decode
// themselves (an option, a value, a time).
func decodeFields(body []byte, dst any) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return syntaxError(err, body, dst)
	}
	if fields == nil {
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is null: send a JSON object with the fields %s", fieldList(dst))
	}
	targets := fieldTargets(dst)
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names) // the first error is the same whichever order the caller sent
	for _, name := range names {
		target, ok := targets[name]
		if !ok && len(targets) == 0 {
			return inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "unknown field %q: this endpoint takes no fields; send {} or no body", name)
		}
		if !ok {
			return inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "unknown field %q: the allowed fields are %s", name, fieldList(dst))
		}
		if why := unstorable(fields[name]); why != "" {
			return inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "%s has %s: send text without it", name, why)
		}
		dec := json.NewDecoder(bytes.NewReader(fields[name]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(target.Addr().Interface()); err != nil {
			return fieldError(name, target.Type(), err)
		}
	}
	return nil
}

// invalidUTF8 returns the offset of the first byte of b that is no part of a UTF-8 character,
// or -1.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// unstorable says what a JSON value (valid JSON) holds in its strings that is no text a field
// takes, or "": a NUL character (\u0000: PostgreSQL cannot store it, and no rule allows it),
// or an escaped UTF-16 surrogate without its other half (no character at all: encoding/json
// would quietly turn it into U+FFFD).
func unstorable(raw []byte) string {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(raw):
			if raw[i+1] != 'u' {
				i++ // a one-letter escape, \" and \\ among them
				continue
			}
			u, ok := hex4(raw, i+2)
			if !ok {
				continue // not valid JSON; the decoder says so
			}
			switch {
			case u == 0:
				return "a NUL character (\\u0000), which no field takes"
			case u >= 0xD800 && u <= 0xDBFF:
				if lo, ok := hex4(raw, i+8); ok && raw[i+6] == '\\' && raw[i+7] == 'u' && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 11 // a whole surrogate pair: one character
					continue
				}
				return fmt.Sprintf("the escape \\u%04x, half of a UTF-16 surrogate pair without its other half, which is no character", u)
			case u >= 0xDC00 && u <= 0xDFFF:
				return fmt.Sprintf("the escape \\u%04x, half of a UTF-16 surrogate pair without its other half, which is no character", u)
			}
			i += 5
		}
	}
	return ""
}

// hex4 reads the four hex digits at raw[i:i+4].
func hex4(raw []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(raw) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(raw[i:i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}

// syntaxError explains why a body is not one JSON object.
func syntaxError(err error, body []byte, dst any) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimRightFunc(body, isSpace))) && strings.Contains(syn.Error(), "end of JSON input"):
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is cut short: it ends before its JSON is complete; send the whole JSON object")
	case errors.As(err, &syn):
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is not valid JSON (%s at byte %d): send one JSON object such as {\"kind\": \"confirm\", ...}", strings.TrimPrefix(syn.Error(), "json: "), syn.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is cut short: it ends before its JSON is complete; send the whole JSON object")
	case errors.As(err, &typ):
		return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is %s, not a JSON object: send an object with the fields %s", jsonKind(typ.Value), fieldList(dst))
	}
	return inquiry.Errorf(inquiry.CodeBadRequest, "the request body is not a JSON object: send an object with the fields %s", fieldList(dst))
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\n' }

// fieldError names the field and what it takes.
func fieldError(name string, t reflect.Type, err error) error {
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &typ) && typ.Field != "":
		field := name + "." + typ.Field
		if ft := nestedType(t, typ.Field); ft != nil && base(ft) != base(typ.Type) {
			// An item of a nested list (slack.answerers) has the wrong type.
			return inquiry.FieldErrorf(inquiry.CodeBadRequest, field, "%s must be %s, but an item of it is %s: send every item as %s", field, typeName(ft), jsonKind(typ.Value), typeName(typ.Type))
		}
		want := typeName(typ.Type)
		return inquiry.FieldErrorf(inquiry.CodeBadRequest, field, "%s must be %s, not %s: send it as %s", field, want, jsonKind(typ.Value), want)
	case errors.As(err, &typ) && base(typ.Type) != base(t):
		// An item of a list (or a value of a map) has the wrong type.
		return inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "%s must be %s, but an item of it is %s: send every item as %s", name, typeName(t), jsonKind(typ.Value), typeName(typ.Type))
	case errors.As(err, &typ) && strings.HasPrefix(typ.Value, "number "):
		// A number, but one the field cannot hold (1e400, or 1.5 for a whole number).
		want := typeName(t)
		return inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "%s is %s, which is out of range for it: send %s of ordinary size", name, numberText(typ.Value), want)
	case errors.As(err, &typ):
		want := typeName(t)
		return inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "%s must be %s, not %s: send it as %s", name, want, jsonKind(typ.Value), want)
	case errors.As(err, &syn):
		return inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "%s is not valid JSON: send it as %s", name, typeName(t))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		unknown := strings.TrimPrefix(err.Error(), "json: unknown field ")
		if k := base(t).Kind(); k == reflect.Slice || k == reflect.Map {
			return inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "an item of %s has the unknown field %s: each is %s", name, unknown, typeName(base(t).Elem()))
		}
		return inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "%s has the unknown field %s: send %s", name, unknown, typeName(t))
	}
	if base(t) == reflect.TypeOf(time.Time{}) {
		return inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "%s must be an RFC 3339 time such as \"2026-12-01T14:00:00Z\"", name)
	}
	// A type that decodes itself (inquiry.Value) says what it takes.
	return inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "%s %s", name, strings.TrimPrefix(err.Error(), "json: "))
}

// nestedType is the type of the field at a dotted path of json names below t (nil when there is
// none, as inside a list).
func nestedType(t reflect.Type, path string) reflect.Type {
	for _, name := range strings.Split(path, ".") {
		t = base(t)
		if t.Kind() != reflect.Struct {
			return nil
		}
		var found reflect.Type
		for i := 0; i < t.NumField(); i++ {
			if jsonName(t.Field(i)) == name {
				found = t.Field(i).Type
			}
		}
		if found == nil {
			return nil
		}
		t = found
	}
	return t
}

// fieldTargets maps each json name of dst's struct to the field to decode it into.
func fieldTargets(dst any) map[string]reflect.Value {
	v := reflect.ValueOf(dst).Elem()
	out := map[string]reflect.Value{}
	for i := 0; i < v.NumField(); i++ {
		if name := jsonName(v.Type().Field(i)); name != "" {
			out[name] = v.Field(i)
		}
	}
	return out
}

// fieldList lists the json names of dst's struct, in their order.
func fieldList(dst any) string {
	t := reflect.TypeOf(dst).Elem()
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if name := jsonName(t.Field(i)); name != "" {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

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
	case reflect.TypeOf(time.Time{}):
		return "an RFC 3339 time string"
	case reflect.TypeOf(inquiry.Value{}):
		return "a string or a list of strings"
	case reflect.TypeOf(inquiry.Option{}):
		return "an option: a string, or an object {value, label, description}"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list of " + plural(typeName(t.Elem()))
	case reflect.Map:
		return "an object of " + plural(typeName(t.Elem()))
	case reflect.Struct:
		var names []string
		for i := 0; i < t.NumField(); i++ {
			if name := jsonName(t.Field(i)); name != "" {
				names = append(names, name)
			}
		}
		return "an object {" + strings.Join(names, ", ") + "}"
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
	case strings.HasPrefix(s, "a "):
		return strings.TrimPrefix(s, "a ") + "s"
	case strings.HasPrefix(s, "an "):
		return strings.TrimPrefix(s, "an ") + "s"
	}
	return s
}

// jsonKind names what json.UnmarshalTypeError.Value says was sent.
func jsonKind(v string) string {
	switch {
	case v == "string":
		return "a string"
	case v == "bool":
		return "true or false"
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	case v == "null":
		return "null"
	case strings.HasPrefix(v, "number"):
		return "a number"
	}
	return v
}

// parseWait reads a wait in seconds (0..55) given as a number.
func parseWait(field string, seconds *float64) (time.Duration, error) {
	if seconds == nil {
		return 0, nil
	}
	max := inquiry.MaxWait.Seconds()
	if *seconds < 0 || *seconds > max {
		return 0, inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, field, "%s is %g seconds but must lie between 0 and %g: wait at most %g seconds, then ask again with GET /v1/inquiries/{key}?wait=%g", field, *seconds, max, max, max)
	}
	return time.Duration(*seconds * float64(time.Second)), nil
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
	d, err := parseWait("wait", &secs)
	if err != nil {
		// A query parameter breaks no rule of an inquiry: it is a bad request, like wait=abc.
		return 0, inquiry.FieldErrorf(inquiry.CodeBadRequest, "wait", "%s", inquiry.ErrorMessage(err))
	}
	return d, nil
}

// printable reports whether s is valid UTF-8 without control characters: what every key, id,
// status, namespace and cursor the server hands out is.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// saneParams answers path parameters and query values that cannot name anything — text that is
// not valid UTF-8 or holds a control character — before they reach the store (PostgreSQL
// refuses such text outright). No inquiry has such a key and no run such an id (404); a query
// value is a bad request naming its parameter (400). The run id of an ask is left to the ask,
// which refuses it with the rule for run ids.
func (s *Server) saneParams(c *gin.Context) {
	for _, p := range c.Params {
		if printable(p.Value) {
			continue
		}
		switch {
		case p.Key == "key":
			s.abort(c, inquiry.Errorf(inquiry.CodeNotFound, "no inquiry has the key %q (a key is printable text): use the key a create returned (it starts with inq_), not the inquiry's id", p.Value))
			return
		case p.Key == "id" && c.FullPath() != "/v1/runs/:id/ask":
			s.abort(c, inquiry.Errorf(inquiry.CodeNotFound, "no run has the id %q (a run id is printable text): use the id the run was registered with", p.Value))
			return
		}
	}
	query := c.Request.URL.Query()
	names := make([]string, 0, len(query))
	for name := range query {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range query[name] {
			if !printable(v) {
				s.abort(c, inquiry.FieldErrorf(inquiry.CodeBadRequest, name, "the query parameter %s is %q, which holds a control character or is not valid UTF-8: send printable text", name, v))
				return
			}
		}
	}
	c.Next()
}

// numberText is the literal of a JSON number an UnmarshalTypeError quotes ("number 1e400"),
// cut to a length fit for a sentence.
func numberText(v string) string {
	v = strings.TrimPrefix(v, "number ")
	if len(v) > 40 {
		v = v[:40] + "…"
	}
	return v
}
