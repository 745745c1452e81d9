package storage

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestFromJSONEmpty: [] and {} read without the decoder (emptyRead) leave every kind of column
// target exactly as json.Unmarshal leaves it, from its zero value and from one already set.
func TestFromJSONEmpty(t *testing.T) {
	two := 2
	targets := []func() any{
		func() any { return new([]string) },
		func() any { v := []string{"x"}; return &v },
		func() any { return new([]inquiry.Vote) },
		func() any { return new([]inquiry.Placement) },
		func() any { return new(inquiry.Approval) },
		func() any { return &inquiry.Approval{Approvals: &two} },
		func() any { return new(inquiry.Deadlines) },
		func() any { return new(inquiry.Value) }, // reads itself: [] is a list
		func() any { return new([]inquiry.Option) },
		func() any { return new(*inquiry.EmailTarget) }, // {} allocates one
		func() any { return new(map[string]int) },
		func() any { return new(any) },
	}
	for _, text := range []string{`[]`, `{}`} {
		for _, target := range targets {
			got, want := target(), target()
			gotErr := fromJSON([]byte(text), got, "x")
			wantErr := json.Unmarshal([]byte(text), want)
			if wantErr != nil {
				require.Error(t, gotErr, "%s into %T", text, want)
				continue
			}
			require.NoError(t, gotErr, "%s into %T", text, want)
			require.True(t, reflect.DeepEqual(want, got), "%s into %T: %#v, want %#v", text, want, got, want)
		}
	}
	require.True(t, emptyRead([]byte(`[]`), new([]string)), "a slice reads [] itself")
	require.True(t, emptyRead([]byte(`{}`), new(inquiry.Deadlines)), "a struct reads {} itself")
	require.False(t, emptyRead([]byte(`[]`), new(inquiry.Value)), "a type that reads JSON itself is the decoder's")
}

// TestJSONTextEmpty: empty values are encoded without the encoder (emptyText) exactly as
// json.Marshal encodes them, and everything else is the encoder's.
func TestJSONTextEmpty(t *testing.T) {
	for _, v := range []any{
		[]string{}, []string(nil), []inquiry.Vote{}, []inquiry.Vote(nil), []inquiry.Placement{},
		inquiry.Approval{}, inquiry.Deadlines{}, inquiry.Config{}, struct{}{}, inquiry.Answer{},
		[]byte{}, []byte(nil), inquiry.Value{}, inquiry.Many(), []inquiry.Option{},
		[]string{"x"}, inquiry.Config{Policy: inquiry.PolicyAsk}, map[string]int{}, 0, "", nil,
	} {
		want, err := json.Marshal(v)
		require.NoError(t, err)
		got, err := jsonText(v)
		require.NoError(t, err)
		require.Equal(t, string(want), got, "%#v", v)
		got, err = jsonText(v) // the second time from the cache
		require.NoError(t, err)
		require.Equal(t, string(want), got, "%#v", v)
	}
	_, ok := emptyText(inquiry.Value{})
	require.False(t, ok, "a type that encodes itself is the encoder's")
	text, ok := emptyText(inquiry.Deadlines{})
	require.True(t, ok)
	require.Equal(t, "{}", text)
}
