package storage

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
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

// jsonText encodes v as JSON text. Text, not bytes: lib/pq would send bytes as bytea.
func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// jsonOrNull encodes v, or gives SQL NULL when present is false.
func jsonOrNull(v any, present bool) (any, error) {
	if !present {
		return nil, nil
	}
	return jsonText(v)
}

// fromJSON decodes b into v; NULL (nil) leaves v as it is.
func fromJSON(b []byte, v any, what string) error {
	if b == nil {
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read stored %s: %w", what, err)
	}
	return nil
}
