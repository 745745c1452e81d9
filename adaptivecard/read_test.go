package adaptivecard_test

import (
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
)

func TestReadReply(t *testing.T) {
	single, multi := choice(6, false), choice(4, true)
	for name, c := range map[string]struct {
		rec  *inquiry.Record
		data map[string]any
		want inquiry.Value
		text string
	}{
		"button":           {choice(3, false), map[string]any{"inquiry": "k", "value": "hold"}, inquiry.One("hold"), ""},
		"button with text": {choice(3, false), map[string]any{"inquiry": "k", "value": "merge", "text": "ok"}, inquiry.One("merge"), "ok"},
		"choice set":       {single, map[string]any{"inquiry": "k", "choice": "5"}, inquiry.One(single.Options[5].Value), ""},
		"several":          {multi, map[string]any{"inquiry": "k", "choice": "0,3"}, inquiry.Many(multi.Options[0].Value, multi.Options[3].Value), ""},
		"words alone":      {record(inquiry.KindText), map[string]any{"inquiry": "k", "text": "fine"}, inquiry.Value{}, "fine"},
	} {
		r, err := adaptivecard.ReadReply(c.rec, c.data)
		if err != nil || !r.Value.Equal(c.want) || r.Text != c.text {
			t.Errorf("%s: got %+v %v, want %v %q", name, r, err, c.want, c.text)
		}
	}
	for name, data := range map[string]map[string]any{
		"index past the options": {"choice": "6"},
		"not an index":           {"choice": "merge"},
		"two for one":            {"choice": "0,1"},
	} {
		if _, err := adaptivecard.ReadReply(single, data); err == nil || !strings.Contains(err.Error(), "choose") {
			t.Errorf("%s: want a refusal saying to choose again, got %v", name, err)
		}
	}
	if k := adaptivecard.Key(map[string]any{"inquiry": "inq_1"}); k != "inq_1" {
		t.Errorf("Key: got %q", k)
	}
	if k := adaptivecard.Key(map[string]any{"inquiry": 7}); k != "" {
		t.Errorf("Key of a number: got %q", k)
	}
}

// TestEveryActionCarriesTheKey: whichever button is clicked, its data names the inquiry.
func TestEveryActionCarriesTheKey(t *testing.T) {
	for _, c := range goldenCases() {
		raw := string(adaptivecard.Marshal(c.card()))
		if n, k := strings.Count(raw, `"verb":"`), strings.Count(raw, `"inquiry":"inq_01JTEAMS"`); k != 2*n { // answer and extend
			t.Errorf("%s: %d actions and %d keys (each action and its fallback carry it)", c.name, n, k)
		}
	}
}

func TestCheck(t *testing.T) {
	for name, c := range map[string]struct{ card, says string }{
		"version":      {`{"type":"AdaptiveCard","version":"1.6","body":[]}`, "version"},
		"too many":     {`{"type":"AdaptiveCard","version":"1.5","body":[{"type":"ActionSet","actions":[1,2,3,4,5,6]}]}`, "6 actions"},
		"no id":        {`{"type":"AdaptiveCard","version":"1.5","body":[{"type":"Input.Text"}]}`, "no id"},
		"duplicate id": {`{"type":"AdaptiveCard","version":"1.5","body":[{"type":"Container","items":[{"type":"Input.Text","id":"a"}]},{"type":"Input.Text","id":"a"}]}`, "twice"},
		"too large":    {`{"type":"AdaptiveCard","version":"1.5","body":[{"type":"TextBlock","text":"` + strings.Repeat("x", adaptivecard.MaxBytes) + `"}]}`, "bytes"},
	} {
		if err := adaptivecard.Check([]byte(c.card)); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: want a refusal saying %q, got %v", name, c.says, err)
		}
	}
}

// TestAskerTextIsNeverMarkdown: the asker's words appear only in TextRuns, which Teams does not
// read as markdown; the only TextBlocks are the bot's own words.
func TestAskerTextIsNeverMarkdown(t *testing.T) {
	rec := choice(2, false)
	rec.Question = "**bold** [link](https://evil.example)"
	card := adaptivecard.Question(rec, now)
	var walk func(els []adaptivecard.Element)
	walk = func(els []adaptivecard.Element) {
		for _, e := range els {
			if e["type"] == "TextBlock" && strings.Contains(e["text"].(string), "evil") {
				t.Errorf("the asker's text is in a TextBlock, read as markdown: %v", e)
			}
			if items, ok := e["items"].([]adaptivecard.Element); ok {
				walk(items)
			}
		}
	}
	walk(card.Body)
	if !strings.Contains(string(adaptivecard.Marshal(card)), `"type":"TextRun","text":"**bold** [link](https://evil.example)"`) &&
		!strings.Contains(string(adaptivecard.Marshal(card)), `"text":"**bold** [link](https://evil.example)","type":"TextRun"`) {
		t.Errorf("the question is not shown as it is in a TextRun: %s", adaptivecard.Marshal(card))
	}
}
