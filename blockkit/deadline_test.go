package blockkit_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// deadlined is a pending choice that expires in 2h, is reminded of 30m and 10m before, escalates
// to #oncall after 1h, and may be extended.
func deadlined() *inquiry.Record {
	rec := choice(3, false)
	rec.Default = inquiry.One("hold")
	rec.ExpiresAt = at(2 * time.Hour)
	rec.Slack.Answerers = []string{"U024BE7LH", "S0DEPLOYERS1"}
	rec.Slack.TS = "1700000000.000100"
	rec.Slack.Permalink = "https://example.slack.com/archives/C0DEPLOYS/p1700000000000100"
	rec.Remind = []inquiry.Duration{inquiry.Duration(30 * time.Minute), inquiry.Duration(10 * time.Minute)}
	rec.Escalate = []inquiry.Step{{After: inquiry.Duration(time.Hour), Channel: "C0ONCALL1", Answerers: []string{"S0ONCALL01"}, Mention: true}}
	rec.Extend = &inquiry.Extension{By: inquiry.Duration(time.Hour), Max: inquiry.Duration(4 * time.Hour)}
	return rec
}

// TestGoldenDeadlines renders the reminder, the escalated question and the extended message
// and compares them with their golden files; the fake Slack's own checker judges every golden
// file too (slackfake's TestGoldenFilesPassTheChecker).
func TestGoldenDeadlines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		rec    func() *inquiry.Record
		render func(rec *inquiry.Record) (string, []slack.Block)
	}{
		{"deadline_reminder", deadlined, func(rec *inquiry.Record) (string, []slack.Block) {
			rec.ExpiresAt = at(30 * time.Minute)
			return blockkit.Reminder(rec, 1, now)
		}},
		{"deadline_reminder_here", func() *inquiry.Record {
			rec := deadlined()
			rec.Slack.Answerers, rec.Escalate, rec.RemindHere = nil, nil, true
			rec.ExpiresAt = at(10 * time.Minute)
			return rec
		}, func(rec *inquiry.Record) (string, []slack.Block) { return blockkit.Reminder(rec, 2, now) }},
		{"deadline_escalated", deadlined, func(rec *inquiry.Record) (string, []slack.Block) {
			rec.Escalation = 1
			return blockkit.Escalated(rec, 1, now)
		}},
		{"deadline_escalated_thread", func() *inquiry.Record {
			rec := deadlined()
			rec.Escalate = append(rec.Escalate, inquiry.Step{After: inquiry.Duration(90 * time.Minute), Answerers: []string{"U0LEAD0001"}, Mention: true})
			rec.Escalation = 2
			return rec
		}, func(rec *inquiry.Record) (string, []slack.Block) { return blockkit.EscalatedInThread(rec, 2, now) }},
		{"deadline_extended", deadlined, func(rec *inquiry.Record) (string, []slack.Block) {
			rec.ExtendedBy = inquiry.Duration(time.Hour)
			return blockkit.Message(rec, now)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := tc.rec()
			if err := inquiry.Validate(&rec.Inquiry, validateAt); err != nil {
				t.Fatalf("fixture is not a valid inquiry: %v", err)
			}
			text, blocks := tc.render(rec)
			if err := blockkit.Validate(blocks); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			checkGolden(t, tc.name, encode(t, map[string]any{"text": text, "blocks": blocks}))
		})
	}
}

func TestReminderSaysWhatMatters(t *testing.T) {
	t.Parallel()
	rec := deadlined()
	rec.ExpiresAt = at(30 * time.Minute)
	text, _ := blockkit.Reminder(rec, 1, now)
	for _, want := range []string{"<@U024BE7LH>", "<!subteam^S0DEPLOYERS1>", "30m left", "if nobody answers: Hold",
		"<https://example.slack.com/archives/C0DEPLOYS/p1700000000000100|Open the question>"} {
		if !strings.Contains(text, want) {
			t.Errorf("reminder %q lacks %q", text, want)
		}
	}
	if strings.Contains(text, "<!here>") {
		t.Errorf("@here without the opt-in: %q", text)
	}
	rec.Escalation = 1
	if text, _ = blockkit.Reminder(rec, 2, now); !strings.Contains(text, "<!subteam^S0ONCALL01>") {
		t.Errorf("a reminder after an escalation step calls on its answerers too: %q", text)
	}
	rec.Slack.Permalink = "javascript:alert(1)|x"
	if text, _ = blockkit.Reminder(rec, 2, now); strings.Contains(text, "javascript") {
		t.Errorf("a link that is no Slack permalink is left out: %q", text)
	}
	rec.Default = inquiry.Value{}
	rec.Options[0].Label = "<!channel> & co"
	rec.Default = inquiry.One(rec.Options[0].Value)
	if text, _ = blockkit.Reminder(rec, 2, now); strings.Contains(text, "<!channel>") {
		t.Errorf("the assumption is escaped: %q", text)
	}

	_, blocks := blockkit.Message(rec, now)
	found := false
	for _, b := range blocks {
		if a, ok := b.(*slack.ActionBlock); ok {
			for _, e := range a.Elements.ElementSet {
				if btn, ok := e.(*slack.ButtonBlockElement); ok && btn.ActionID == blockkit.ActionExtend {
					found = true
					if btn.Text.Text != "Extend by 1h" || btn.Value != rec.Key {
						t.Errorf("extend button %q %q", btn.Text.Text, btn.Value)
					}
				}
			}
		}
	}
	if !found {
		t.Error("no Extend button on a question that may be extended")
	}
	rec.ExtendedBy = rec.Extend.Max
	_, blocks = blockkit.Message(rec, now)
	for _, b := range blocks {
		if b.ID() == "inq|"+rec.Key+"|q-ext" {
			t.Error("an Extend button once the most time was given")
		}
	}
}

// TestEscalatedEscapesUserText: a question, run id and labels holding mentions ping nobody in
// the channel a step posts to, in the notification text or the blocks; only the step's own
// answerers are mentioned.
func TestEscalatedEscapesUserText(t *testing.T) {
	t.Parallel()
	rec := deadlined()
	rec.Question = "Deploy? <!channel> <@U0EVIL001> <!subteam^S0EVIL001>"
	rec.RunID = "<!here>"
	rec.Options[0].Label = "<!everyone>"
	rec.Escalation = 1
	text, blocks := blockkit.Escalated(rec, 1, now)
	raw := text
	for _, b := range blocks {
		raw += " " + string(mustJSON(t, b))
	}
	for _, ping := range []string{"<!channel>", "<@U0EVIL001>", "<!subteam^S0EVIL001>", "<!here>", "<!everyone>"} {
		if strings.Contains(raw, ping) {
			t.Errorf("the escalated message pings %s:\n%s", ping, raw)
		}
	}
	if !strings.Contains(text, "<!subteam^S0ONCALL01>") {
		t.Errorf("the step's answerers are not mentioned: %s", text)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
