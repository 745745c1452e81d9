package storage

import (
	"database/sql/driver"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"
)

// timeLayout is the one form a time takes on its way into SQL: UTC, fixed width, microseconds.
// On SQLite, where times are TEXT, fixed width makes string order time order (for years 0001 to
// 9999), so comparisons and indexes work on the text. PostgreSQL reads the same text into
// timestamptz. Microseconds are PostgreSQL's precision: a time reads back as it was written on
// both dialects.
const timeLayout = "2006-01-02T15:04:05.000000Z"

// dbTime is a time as it crosses into and out of SQL. Every time argument goes through it, so
// SQLite never sees a time in another form (modernc's own encoding is not fixed width).
type dbTime struct{ time.Time }

// at wraps t for SQL.
func at(t time.Time) dbTime { return dbTime{norm(t)} }

// norm is a time as the store keeps it: UTC, cut to microseconds, no monotonic reading.
func norm(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// Value implements driver.Valuer.
func (t dbTime) Value() (driver.Value, error) { return norm(t.Time).Format(timeLayout), nil }

// Scan implements sql.Scanner for timestamptz (PostgreSQL) and fixed-width text (SQLite).
func (t *dbTime) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		t.Time = norm(v)
		return nil
	case string:
		return t.parse(v)
	case []byte:
		return t.parse(string(v))
	}
	return fmt.Errorf("cannot read a time from %T", src)
}

func (t *dbTime) parse(s string) error {
	p, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("cannot read a time from %q: %w", s, err)
	}
	t.Time = norm(p)
	return nil
}

// nullTime is a time that may be absent (NULL).
type nullTime struct {
	T     time.Time
	Valid bool
}

// atPtr wraps an optional time for SQL.
func atPtr(t *time.Time) nullTime {
	if t == nil {
		return nullTime{}
	}
	return nullTime{T: norm(*t), Valid: true}
}

// Ptr returns the time, or nil when absent.
func (n nullTime) Ptr() *time.Time {
	if !n.Valid {
		return nil
	}
	t := n.T
	return &t
}

// Value implements driver.Valuer.
func (n nullTime) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return at(n.T).Value()
}

// Scan implements sql.Scanner.
func (n *nullTime) Scan(src any) error {
	if src == nil {
		*n = nullTime{}
		return nil
	}
	var t dbTime
	if err := t.Scan(src); err != nil {
		return err
	}
	*n = nullTime{T: t.Time, Valid: true}
	return nil
}

// decode decodes the rows a select read, unless it failed.
func decode[R, T any](rows []R, err error, f func(*R) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	out := make([]T, len(rows))
	for i := range rows {
		if out[i], err = f(&rows[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// emptyRead reads b into v without the decoder when b is [] or {}, the value most rows hold in
// most JSON columns, and v a pointer to what json.Unmarshal would read it as plainly: a slice
// ([] makes it an empty slice) or a struct ({} leaves it as it is). It reports whether it read
// it; a type that reads JSON itself is left to the decoder.
func emptyRead(b []byte, v any) bool {
	if len(b) != 2 || !(b[0] == '[' && b[1] == ']' || b[0] == '{' && b[1] == '}') {
		return false
	}
	p := reflect.ValueOf(v)
	if p.Kind() != reflect.Pointer || p.IsNil() || p.Type().Implements(jsonUnmarshaler) || p.Type().Implements(textUnmarshaler) {
		return false
	}
	switch e := p.Elem(); {
	case b[0] == '[' && e.Kind() == reflect.Slice:
		e.Set(reflect.MakeSlice(e.Type(), 0, 0))
		return true
	case b[0] == '{' && e.Kind() == reflect.Struct:
		return true
	}
	return false
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
)

// emptyText is json.Marshal's text of v when v is empty, without the encoder: "[]" for an empty
// slice (most rows' votes, placements, answerers), "null" for a nil one, and for a struct's zero
// value (most rows' approval and deadlines) the text of that zero value, encoded once per type.
// ok is false for anything else, and for a type that encodes itself.
func emptyText(v any) (string, bool) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return "", false
	}
	t := rv.Type()
	if t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
		return "", false
	}
	switch {
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 && rv.Len() == 0:
		if rv.IsNil() {
			return "null", true
		}
		return "[]", true
	case t.Kind() == reflect.Struct && rv.IsZero():
		if text, ok := zeroTexts.Load(t); ok {
			return text.(string), true
		}
		b, err := json.Marshal(v)
		if err != nil {
			return "", false
		}
		zeroTexts.Store(t, string(b))
		return string(b), true
	}
	return "", false
}

var zeroTexts sync.Map // reflect.Type -> its zero value's JSON text

// jsonText encodes v as JSON text. Text, not bytes: lib/pq would send bytes as bytea.
func jsonText(v any) (string, error) {
	if text, ok := emptyText(v); ok {
		return text, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// jsonCol is a JSON column's value: text on its way into SQL (lib/pq would send bytes as
// bytea), and NULL when nil.
type jsonCol []byte

// jsonOrNull encodes v, or gives SQL NULL when present is false.
func jsonOrNull(v any, present bool) (jsonCol, error) {
	if !present {
		return nil, nil
	}
	text, err := jsonText(v)
	return jsonCol(text), err
}

// Value implements driver.Valuer.
func (j jsonCol) Value() (driver.Value, error) {
	if j == nil {
		return nil, nil
	}
	return string(j), nil
}

// Scan implements sql.Scanner for json (PostgreSQL) and text (SQLite).
func (j *jsonCol) Scan(src any) error {
	if s, ok := src.(string); ok {
		src = []byte(s)
	}
	b, ok := src.([]byte)
	if !ok && src != nil {
		return fmt.Errorf("cannot read JSON from %T", src)
	}
	*j = slices.Clone(b)
	return nil
}

// fromJSON decodes b into v; NULL (nil) leaves v as it is.
func fromJSON(b []byte, v any, what string) error {
	if b == nil || emptyRead(b, v) {
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read stored %s: %w", what, err)
	}
	return nil
}
