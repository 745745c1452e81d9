package blockkit_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/slack-go/slack"
)

// keyed gives rec a key of its own and a permalink, as a posted inquiry has.
func keyed(rec *inquiry.Record, n int) *inquiry.Record {
	rec.Key = fmt.Sprintf("inq_home%012d", n)
	rec.Slack.TS = fmt.Sprintf("1764590400.%06d", n)
	rec.Slack.Permalink = fmt.Sprintf("https://fake.slack.com/archives/%s/p1764590400%06d", rec.Slack.Channel, n)
	rec.CreatedAt = now.Add(-time.Duration(n) * time.Minute)
	return rec
}

func homeCases() map[string]blockkit.Home {
	waiting := func() []*inquiry.Record {
		merge := keyed(choice(3, false), 1)
		merge.ExpiresAt, merge.Default = at(2*time.Hour), inquiry.One("hold")
		deploy := keyed(record(inquiry.KindConfirm), 2)
		deploy.Question = "Deploy 4.2 to production?"
		team := keyed(approval(record(inquiry.KindConfirm), 2), 3)
		team.Question, team.Votes = "Rotate the signing key?", []inquiry.Vote{vote("U0BOB0001", "yes", "")}
		checks := keyed(choice(4, true), 4)
		notes := keyed(record(inquiry.KindText), 5)
		notes.Question, notes.Slack.Channel = "What should the release note say?", "G0PRIVATE1"
		return []*inquiry.Record{merge, deploy, team, checks, notes}
	}
	answered := func() []*inquiry.Record {
		merged := keyed(resolved(choice(3, false), inquiry.StatusAnswered,
			&inquiry.Answer{Value: inquiry.One("merge"), AnsweredBy: "U0ALICE01", Source: inquiry.SourcePerson}), 11)
		declined := keyed(resolved(record(inquiry.KindConfirm), inquiry.StatusAnswered,
			&inquiry.Answer{Declined: true, Text: "not my call", AnsweredBy: "U0ALICE01", Source: inquiry.SourcePerson}), 12)
		pendingVote := keyed(approval(record(inquiry.KindConfirm), 3), 13)
		pendingVote.Question, pendingVote.Votes = "Ship the hotfix?", []inquiry.Vote{vote("U0ALICE01", "yes", "")}
		expired := keyed(resolved(choice(2, false), inquiry.StatusExpired,
			&inquiry.Answer{Value: inquiry.One("hold"), Source: inquiry.SourceExpired}), 14)
		expired.ExpiresAt = expired.ResolvedAt
		return []*inquiry.Record{pendingVote, merged, declined, expired}
	}
	var many []*inquiry.Record
	for i := range 40 {
		rec := keyed(choice(2, false), 100+i)
		rec.Question = fmt.Sprintf("Question number %d?", i+1)
		many = append(many, rec)
	}
	escaped := keyed(hostile(record(inquiry.KindChoice)), 21)
	escaped.Slack.Permalink = "https://evil.example/x|<!channel>"
	return map[string]blockkit.Home{
		"home_empty":    {User: "U0ALICE01"},
		"home_unread":   {User: "U0ALICE01", Unread: true},
		"home_waiting":  {User: "U0ALICE01", Waiting: waiting(), Answered: answered()},
		"home_many":     {User: "U0ALICE01", Waiting: many, Unread: true},
		"home_escaping": {User: "U0ALICE01", Waiting: []*inquiry.Record{escaped}},
	}
}

// TestGoldenHome renders the Home tab in each state and compares it with testdata/<name>.golden
// ({"home": view}); every one is within Slack's limits for a Home tab (and the fake's checker
// reads the same files: slackfake's TestGoldenFilesPass).
func TestGoldenHome(t *testing.T) {
	for name, h := range homeCases() {
		t.Run(name, func(t *testing.T) {
			for _, rec := range h.Waiting {
				if err := inquiry.Validate(&rec.Inquiry, validateAt); err != nil {
					t.Fatalf("fixture %s is not a valid inquiry: %v", rec.Key, err)
				}
			}
			view := blockkit.HomeView(h, now)
			raw, err := json.Marshal(view)
			if err != nil {
				t.Fatal(err)
			}
			if err := blockkit.ValidateViewJSON(raw); err != nil {
				t.Fatalf("ValidateViewJSON: %v", err)
			}
			checkGolden(t, name, encode(t, struct {
				Home slack.HomeTabViewRequest `json:"home"`
			}{view}))
		})
	}
}

// The bound: a Home tab of 40 waiting questions stays within 100 blocks, says how many more
// wait, and still lists what was answered.
func TestHomeBound(t *testing.T) {
	h := homeCases()["home_many"]
	h.Answered = homeCases()["home_waiting"].Answered
	view := blockkit.HomeView(h, now)
	if n := len(view.Blocks.BlockSet); n > 100 {
		t.Fatalf("%d blocks, Slack's limit for a Home tab is 100", n)
	}
	all := allText(t, view.Blocks.BlockSet)
	shown := strings.Count(all, "|Question number") // the links to their messages
	if shown == 0 || shown == 40 {
		t.Fatalf("%d of 40 questions shown", shown)
	}
	if want := fmt.Sprintf("…and %d more waiting for you", 40-shown); !strings.Contains(all, want) {
		t.Errorf("no %q line:\n%s", want, all)
	}
	if !strings.Contains(all, "Ship the hotfix?") {
		t.Errorf("the answered list was crowded out:\n%s", all)
	}
}

// Every control of a waiting question carries its key in the block_id, as in its message, with
// the same action_ids: a click on the Home tab answers through the same path.
func TestHomeControlsRouteLikeTheMessage(t *testing.T) {
	rec := keyed(choice(3, false), 1)
	_, msg := blockkit.Message(rec, now)
	view := blockkit.HomeView(blockkit.Home{Waiting: []*inquiry.Record{rec}}, now)
	ids := func(blocks []slack.Block) (out []string) {
		for _, b := range blocks {
			if a, ok := b.(*slack.ActionBlock); ok {
				if key, ok := blockkit.ParseBlockID(a.BlockID); !ok || key != rec.Key {
					t.Errorf("actions block %q does not carry key %s", a.BlockID, rec.Key)
				}
				for _, e := range a.Elements.ElementSet {
					if btn, ok := e.(*slack.ButtonBlockElement); ok {
						out = append(out, btn.ActionID+"="+btn.Value)
					}
				}
			}
		}
		return out
	}
	got, want := ids(view.Blocks.BlockSet), ids(msg)
	if strings.Join(got, ",") != strings.Join(want, ",") || len(got) == 0 {
		t.Fatalf("Home tab buttons %v, message buttons %v", got, want)
	}
}

func allText(t *testing.T, blocks []slack.Block) string {
	t.Helper()
	raw, err := json.Marshal(blocks)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if s, ok := x["text"].(string); ok {
				b.WriteString(s + "\n")
			}
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	var v any
	_ = json.Unmarshal(raw, &v)
	walk(v)
	return b.String()
}

// BenchmarkHomeView renders the Home tab of someone 200 questions wait for (homeWaiting, the
// most slackapp keeps), with 10 answered: the work of one app_home_opened past the store.
func BenchmarkHomeView(b *testing.B) {
	var h blockkit.Home
	for i := range 200 {
		h.Waiting = append(h.Waiting, keyed(choice(3, false), i))
	}
	h.Answered = homeCases()["home_waiting"].Answered
	for b.Loop() {
		v := blockkit.HomeView(h, now)
		if _, err := json.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}

// The Home tab of the longest questions Validate lets through — every limit at its maximum,
// text that escaping grows fivefold, 12 options at their limits — stays within every Home tab
// limit, 250 kB included.
func TestHomeOfTheLongestQuestions(t *testing.T) {
	for _, n := range []int{5, 12} {
		for _, multiple := range []bool{false, true} {
			var h blockkit.Home
			for i := range 60 {
				rec := keyed(record(inquiry.KindChoice), i)
				rec.Question = strings.Repeat("&<", inquiry.MaxQuestionChars/2)
				rec.Context = strings.Repeat("&", inquiry.MaxContextChars)
				rec.RunID = strings.Repeat("r", inquiry.MaxIDChars)
				rec.Options, rec.Multiple, rec.AllowText = longOptions(n), multiple, true
				rec.ExpiresAt = at(48 * time.Hour)
				if err := inquiry.Validate(&rec.Inquiry, validateAt); err != nil {
					t.Fatalf("fixture: %v", err)
				}
				h.Waiting = append(h.Waiting, rec)
			}
			for i := range blockkit.HomeAnswered {
				rec := keyed(resolved(record(inquiry.KindText), inquiry.StatusAnswered,
					&inquiry.Answer{Text: strings.Repeat("<&>", 600), AnsweredBy: "U0ALICE01", Source: inquiry.SourcePerson}), 100+i)
				rec.Question = strings.Repeat("&", inquiry.MaxQuestionChars)
				h.Answered = append(h.Answered, rec)
			}
			raw, err := json.Marshal(blockkit.HomeView(h, now))
			if err != nil {
				t.Fatal(err)
			}
			if err := blockkit.ValidateViewJSON(raw); err != nil {
				t.Errorf("%d options, multiple %v: %v", n, multiple, err)
			}
		}
	}
}
