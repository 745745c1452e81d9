package inquiry_test

import (
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

func TestNamedDefault(t *testing.T) {
	t.Parallel()
	choice := &inquiry.Inquiry{Kind: inquiry.KindChoice, Options: []inquiry.Option{{Value: "merge", Label: "Merge it"}, {Value: "hold", Label: "Hold"}}}
	multi := &inquiry.Inquiry{Kind: inquiry.KindChoice, Multiple: true, Options: choice.Options}
	confirm := &inquiry.Inquiry{Kind: inquiry.KindConfirm}
	text := &inquiry.Inquiry{Kind: inquiry.KindText}
	for _, tc := range []struct {
		name  string
		in    *inquiry.Inquiry
		given inquiry.Value
		want  inquiry.Value
	}{
		{"none", choice, inquiry.Value{}, inquiry.Value{}},
		{"a label names its value", choice, inquiry.One(" merge IT "), inquiry.One("merge")},
		{"a value in another case", choice, inquiry.One("HOLD"), inquiry.One("hold")},
		{"none of the answers goes as given", choice, inquiry.One("later"), inquiry.One("later")},
		{"a list stays a list", multi, inquiry.Many("Merge it", "hold", "later"), inquiry.Many("merge", "hold", "later")},
		{"one of a list", multi, inquiry.Many("Hold"), inquiry.Many("hold")},
		{"a confirm's label", confirm, inquiry.One("No"), inquiry.One("no")},
		{"a text's words are the words", text, inquiry.One(" Hold "), inquiry.One(" Hold ")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := inquiry.NamedDefault(tc.in, tc.given)
			if !got.Equal(tc.want) { // Equal tells a list of one from one
				t.Errorf("NamedDefault(%v) = %#v, want %#v", tc.given, got, tc.want)
			}
		})
	}
}
