package storage

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// table is a table's columns, read once at init from the db tags of its row struct R (and of the
// structs R embeds), in field order: the one list its SELECT and RETURNING lists, INSERT
// placeholders and arguments are made from, so a column is added by adding a tagged field.
type table[R any] struct {
	names  []string
	fields [][]int // the field of each column, by index path
	// cols is "a, b, c"; marks is "?, ?, ?"; typed is "?::text, ?::integer, …".
	cols, marks, typed string
}

// pgTypes are the PostgreSQL types of the Go types a column may have.
var pgTypes = map[reflect.Type]string{
	reflect.TypeFor[string](): "text", reflect.TypeFor[bool](): "boolean", reflect.TypeFor[int](): "integer",
	reflect.TypeFor[int64](): "bigint", reflect.TypeFor[[]byte](): "bytea", reflect.TypeFor[jsonCol](): "json",
	reflect.TypeFor[dbTime](): "timestamptz", reflect.TypeFor[nullTime](): "timestamptz",
}

// tableOf reads R's columns, leaving out those named in except.
func tableOf[R any](except ...string) table[R] {
	var t table[R]
	var casts []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[R]()) {
		name, ok := f.Tag.Lookup("db")
		if !ok || slices.Contains(except, name) {
			continue
		}
		pg, ok := pgTypes[f.Type]
		if !ok {
			panic(fmt.Sprintf("storage: column %s has Go type %v, which pgTypes does not name", name, f.Type))
		}
		t.names, t.fields, casts = append(t.names, name), append(t.fields, f.Index), append(casts, "?::"+pg)
	}
	t.cols, t.marks, t.typed = strings.Join(t.names, ", "), placeholders(len(t.names)), strings.Join(casts, ", ")
	return t
}

// args are row's values in column order.
func (t table[R]) args(row *R) []any {
	v := reflect.ValueOf(row).Elem()
	args := make([]any, len(t.fields))
	for i, f := range t.fields {
		args[i] = v.FieldByIndex(f).Interface()
	}
	return args
}

// prefixed is the column list with every column qualified by prefix ("d.").
func (t table[R]) prefixed(prefix string) string { return prefix + strings.Join(t.names, ", "+prefix) }

// values is the VALUES list of n rows. typed casts every placeholder to its column's type, for a
// list whose column types PostgreSQL cannot infer from an INSERT.
func (t table[R]) values(n int, typed bool) string {
	row := "(" + t.marks + ")"
	if typed {
		row = "(" + t.typed + ")"
	}
	return strings.Repeat(row+", ", n-1) + row
}
