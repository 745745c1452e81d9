package storage

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// requireAgrees checks that tb's column list, placeholders, casts and arguments are one list:
// as long as each other, and each argument the field that carries the column's tag.
func requireAgrees[R any](t *testing.T, tb table[R]) {
	t.Helper()
	n := len(tb.names)
	require.NotZero(t, n)
	require.Equal(t, tb.names, strings.Split(tb.cols, ", "))
	require.Equal(t, n, strings.Count(tb.marks, "?"), "marks %q", tb.marks)
	require.Equal(t, n, strings.Count(tb.typed, "?::"), "typed %q", tb.typed)
	require.Equal(t, "("+tb.marks+"), ("+tb.marks+")", tb.values(2, false))
	require.Equal(t, "("+tb.typed+")", tb.values(1, true))
	require.Equal(t, "x."+strings.Join(tb.names, ", x."), tb.prefixed("x."))

	// Each column is the field that carries its tag.
	for i, f := range tb.fields {
		require.Equal(t, tb.names[i], reflect.TypeFor[R]().FieldByIndex(f).Tag.Get("db"))
	}

	// Give every field a value of its own, then find each argument under its column's tag.
	var row R
	v := reflect.ValueOf(&row).Elem()
	byTag := map[string]any{}
	for i, f := range reflect.VisibleFields(v.Type()) {
		tag, ok := f.Tag.Lookup("db")
		if !ok {
			continue
		}
		at := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)
		switch p := v.FieldByIndex(f.Index).Addr().Interface().(type) {
		case *string:
			*p = tag
		case *int:
			*p = i + 1
		case *int64:
			*p = int64(i + 1)
		case *bool:
			*p = i%2 == 0
		case *[]byte:
			*p = []byte(tag)
		case *jsonCol:
			*p = jsonCol(`"` + tag + `"`)
		case *dbTime:
			*p = dbTime{at}
		case *nullTime:
			*p = nullTime{T: at, Valid: true}
		default:
			t.Fatalf("column %s: no test value for %T", tag, p)
		}
		byTag[tag] = v.FieldByIndex(f.Index).Interface()
	}
	args := tb.args(&row)
	require.Len(t, args, n)
	for i, name := range tb.names {
		want, ok := byTag[name]
		require.True(t, ok, "column %s has a tagged field", name)
		require.Equal(t, want, args[i], "argument %d is column %s", i, name)
	}
}

func TestTablesAgree(t *testing.T) {
	t.Parallel()
	t.Run("inquiries", func(t *testing.T) { requireAgrees(t, inquiryTable) })
	t.Run("inquiries with parked_run", func(t *testing.T) { requireAgrees(t, resolvedTable) })
	t.Run("deliveries", func(t *testing.T) { requireAgrees(t, deliveryTable) })
	t.Run("new deliveries", func(t *testing.T) { requireAgrees(t, newDeliveryTable) })
	t.Run("runs", func(t *testing.T) { requireAgrees(t, runTable) })
	t.Run("tokens", func(t *testing.T) { requireAgrees(t, tokenTable) })

	require.Equal(t, append(append([]string(nil), inquiryTable.names...), "parked_run"), resolvedTable.names)
	require.Equal(t, deliveryTable.names[1:], newDeliveryTable.names, "a new delivery is written without its id")
	// The casts of the deliveries CreateInquiry inserts on PostgreSQL, as they were written by hand.
	require.Equal(t, "?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::integer, ?::timestamptz, "+
		"?::text, ?::timestamptz, ?::timestamptz, ?::integer", newDeliveryTable.typed)
}

// TestTableSeesNewField is what adding a column costs: a tagged field, nothing else. The field
// appears in the column list, the placeholders and the arguments, in field order, with the
// columns of embedded structs in place.
func TestTableSeesNewField(t *testing.T) {
	t.Parallel()
	type base struct {
		A string `db:"a"`
		B int    `db:"b"`
	}
	type before struct {
		base
		C jsonCol `db:"c"`
	}
	type after struct {
		base
		C        jsonCol  `db:"c"`
		New      nullTime `db:"new_column"`
		internal string   // no tag: no column
	}
	old, grown := tableOf[before](), tableOf[after]()
	require.Equal(t, "a, b, c", old.cols)
	require.Equal(t, "a, b, c, new_column", grown.cols)
	require.Equal(t, "?, ?, ?, ?", grown.marks)
	require.Equal(t, "?::text, ?::integer, ?::json, ?::timestamptz", grown.typed)
	row := after{base: base{A: "x", B: 2}, C: jsonCol(`{}`), internal: "kept out"}
	require.Equal(t, []any{"x", 2, jsonCol(`{}`), nullTime{}}, grown.args(&row))
	requireAgrees(t, grown)

	without := tableOf[after]("b", "new_column")
	require.Equal(t, "a, c", without.cols)
	require.Equal(t, []any{"x", jsonCol(`{}`)}, without.args(&row))

	type unknown struct {
		F float64 `db:"f"`
	}
	require.PanicsWithValue(t, "storage: column f has Go type float64, which pgTypes does not name",
		func() { tableOf[unknown]() })
}
