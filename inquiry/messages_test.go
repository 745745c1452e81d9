package inquiry_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

func TestNoneOfTheOfferedEchoesAShortExcerpt(t *testing.T) {
	in := &inquiry.Inquiry{ID: "q", Kind: inquiry.KindChoice, Question: "Merge?",
		Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}}}
	_, err := inquiry.CheckAnswer(in, inquiry.Reply{Value: inquiry.One(strings.Repeat("x", 3000))})
	require.Equal(t, inquiry.CodeInvalidAnswer, inquiry.ErrorCode(err))
	msg := inquiry.ErrorMessage(err)
	require.Less(t, len(msg), 400, "the sentence quotes an excerpt, not 3,000 characters: %q", msg)
	require.Contains(t, msg, `"merge" (Merge)`)
}

func TestOptionOfTheWrongTypeSaysWhatAnOptionIs(t *testing.T) {
	var in inquiry.Inquiry
	err := json.Unmarshal([]byte(`{"options": [1, 2]}`), &in)
	var te *json.UnmarshalTypeError
	require.ErrorAs(t, err, &te)
	require.Equal(t, "number", te.Value)
	require.Equal(t, "Option", te.Type.Name(), "the error names the option type, so the gateway says: a string, or an object")

	require.NoError(t, json.Unmarshal([]byte(`{"options": ["Merge", {"value": "hold", "label": "Hold"}, null]}`), &in))
	require.Equal(t, "Merge", in.Options[0].Value)
}
