package adaptivecard_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from the current rendering")

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) *time.Time { t := now.Add(d); return &t }

func record(kind inquiry.Kind) *inquiry.Record {
	return &inquiry.Record{
		Key:       "inq_01JTEAMS",
		Inquiry:   inquiry.Inquiry{ID: "deploy-77", RunID: "run-1", Kind: kind, Question: "Roll out build 77 to eu-west?", Context: "Canary error rate 0.1% over 30 minutes."},
		Namespace: "ops",
		Config:    inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportTeams},
		Status:    inquiry.StatusPending,
		Teams:     &inquiry.TeamsTarget{Conversation: "19:abc@thread.tacv2", ServiceURL: "https://smba.trafficmanager.net/teams/"},
		CreatedAt: now.Add(-time.Minute),
	}
}

var optionNames = []string{"merge", "rebase-first", "hold", "squash", "revert", "cherry-pick", "ship-it", "wait", "escalate", "split", "retry", "abandon"}

func choice(n int, multiple bool) *inquiry.Record {
	rec := record(inquiry.KindChoice)
	rec.Question = "How should PR 42 land?"
	for _, v := range optionNames[:n] {
		rec.Options = append(rec.Options, inquiry.Option{Value: v, Label: "Label " + v})
	}
	rec.Options[0].Description = "keeps history linear"
	rec.Multiple = multiple
	return rec
}

func answered(rec *inquiry.Record, a inquiry.Answer) *inquiry.Record {
	rec.Status = inquiry.StatusAnswered
	a.Source, a.AnsweredAt = inquiry.SourcePerson, now
	rec.Answer, rec.ResolvedAt = &a, &a.AnsweredAt
	return rec
}

type goldenCase struct {
	name string
	card func() *adaptivecard.Card
}

func goldenCases() []goldenCase {
	q := func(rec *inquiry.Record) func() *adaptivecard.Card {
		return func() *adaptivecard.Card { return adaptivecard.Question(rec, now) }
	}
	r := func(rec *inquiry.Record) func() *adaptivecard.Card {
		return func() *adaptivecard.Card { return adaptivecard.Resolved(rec) }
	}
	var cases []goldenCase
	for _, n := range []int{2, 5, 6, 12} {
		cases = append(cases, goldenCase{fmt.Sprintf("choice_single_%d", n), q(choice(n, false))})
	}
	for _, n := range []int{2, 12} {
		cases = append(cases, goldenCase{fmt.Sprintf("choice_multiple_%d", n), q(choice(n, true))})
	}
	allow := choice(3, false)
	allow.AllowText = true
	deadline := choice(3, false)
	deadline.Default, deadline.ExpiresAt = inquiry.One("hold"), at(2*time.Hour)
	deadline.Teams.Answerers = []string{"b15a9416-0ad3-4172-9210-7beb711d3f70"}
	text := record(inquiry.KindText)
	text.Question = "What should the release note say about the migration?"
	confirm := record(inquiry.KindConfirm)
	reasonNo := record(inquiry.KindConfirm)
	reasonNo.Reason = inquiry.ReasonOnNo
	two := 2
	reasonAlways := record(inquiry.KindConfirm)
	reasonAlways.Reason, reasonAlways.Approvals = inquiry.ReasonAlways, &two
	escaping := choice(2, false)
	escaping.Question = "**Approve?** [click here](https://evil.example) <at>Alice</at> _x_ \u202eevil"
	escaping.Context = "- not a list\n# not a heading\n```code```"
	escaping.Options[0].Label = "[Yes](https://evil.example)"
	cases = append(cases,
		goldenCase{"choice_allow_text", q(allow)},
		goldenCase{"choice_deadline_answerers", q(deadline)},
		goldenCase{"text", q(text)},
		goldenCase{"confirm", q(confirm)},
		goldenCase{"confirm_reason_on_no", q(reasonNo)},
		goldenCase{"confirm_reason_always_approvals", q(reasonAlways)},
		goldenCase{"escaping", q(escaping)},
		goldenCase{"resolved_chosen", r(answered(choice(3, false), inquiry.Answer{Value: inquiry.One("merge"), AnsweredBy: "b15a9416-0ad3-4172-9210-7beb711d3f70"}))},
		goldenCase{"resolved_text", r(answered(record(inquiry.KindText), inquiry.Answer{Text: "Say **nothing** [here](https://evil.example)", AnsweredBy: "b15a9416-0ad3-4172-9210-7beb711d3f70"}))},
		goldenCase{"resolved_declined", r(answered(record(inquiry.KindConfirm), inquiry.Answer{Value: inquiry.One("no"), Text: "not on a Friday", AnsweredBy: "c5e99701-2a32-49c1-a660-4629ceeb8c61"}))},
		goldenCase{"resolved_cancelled", func() *adaptivecard.Card {
			rec := record(inquiry.KindConfirm)
			rec.Status = inquiry.StatusCancelled
			return adaptivecard.Resolved(rec)
		}},
		goldenCase{"note_already_decided", func() *adaptivecard.Card {
			rec := answered(record(inquiry.KindConfirm), inquiry.Answer{Value: inquiry.One("yes"), AnsweredBy: "c5e99701-2a32-49c1-a660-4629ceeb8c61"})
			return adaptivecard.WithNote(adaptivecard.Resolved(rec), "This question was already decided; your click changed nothing.")
		}},
		goldenCase{"resolved_due_not_swept", func() *adaptivecard.Card {
			rec := choice(3, false)
			rec.Default, rec.ExpiresAt = inquiry.One("hold"), at(-time.Minute)
			return adaptivecard.Current(rec, now)
		}},
		goldenCase{"reminder_2", func() *adaptivecard.Card {
			rec := choice(3, false)
			rec.ExpiresAt = at(45 * time.Minute)
			return adaptivecard.Reminder(rec, 2, now)
		}},
		goldenCase{"note_unknown", func() *adaptivecard.Card {
			return adaptivecard.Note("This question is not known to the bot any more; nothing was recorded.")
		}},
	)
	return append(append(append(cases, proposalCases()...), deadlineCases()...), personalCases()...)
}

// TestGolden renders every case to testdata/NAME.json; -update rewrites them. The CI's oracle
// (.ci/adaptivecards.sh) parses and validates the same files with the adaptivecards library.
func TestGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			raw := adaptivecard.Marshal(c.card())
			if err := adaptivecard.Check(raw); err != nil {
				t.Fatalf("Check: %v", err)
			}
			var buf bytes.Buffer
			if err := json.Indent(&buf, raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			buf.WriteByte('\n')
			path := filepath.Join("testdata", c.name+".json")
			seen[filepath.Base(path)] = true
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./adaptivecard -update to write it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s differs from the rendering:\n%s", path, buf.String())
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("%s is no case's golden file: remove it", f)
		}
	}
}
