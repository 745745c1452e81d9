package blockkit_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// formatting is asker text that would format the bot's own lines in mrkdwn: bold, italic,
// strike, code, and a quote.
const formatting = "*bold* _it_ ~gone~ `code`"

// formatted finds any of formatting's spans in a text.
var formatted = regexp.MustCompile("\\*bold\\*|_it_|~gone~|`code`")

// prose is the path of a section's text or a context block's element.
var prose = regexp.MustCompile(`^\d+(\[\d+\]|\.blocks\[\d+\])\.text$|\.elements\[\d+\]$`)

// disguised is asker text stored before the rule: a right-to-left override and a zero-width
// space, which would reorder or hide what a person reads.
const disguised = "Merge\u202e evil \u200b"

// everywhere renders rec on every Slack surface: the message, its modals, the notice, a
// reminder, an escalation, the Home tab, and the resolved message of every kind of outcome. It
// returns the notification texts and every text object as generic JSON.
func everywhere(t *testing.T, rec *inquiry.Record, answer string) (texts []string, objs []any) {
	t.Helper()
	add := func(text string, v any) {
		texts = append(texts, text)
		objs = append(objs, generic(t, v))
	}
	add(blockkit.Message(rec, now))
	for _, m := range []slack.ModalViewRequest{blockkit.TextModal(rec), blockkit.ConfirmModal(rec), blockkit.OwnWordsModal(rec)} {
		add("", m)
	}
	add(blockkit.Reminder(rec, 1, now))
	add(blockkit.Escalated(rec, 1, now))
	add("", blockkit.HomeView(blockkit.Home{User: "U024BE7LH", Waiting: []*inquiry.Record{rec}}, now))
	for _, a := range []*inquiry.Answer{
		{Value: inquiry.One(rec.Options[0].Value), Text: answer, AnsweredBy: "U024BE7LH", Source: inquiry.SourcePerson},
		{Declined: true, Text: answer, AnsweredBy: "U024BE7LH", Source: inquiry.SourcePerson},
		{Value: inquiry.One(rec.Options[0].Value), Source: inquiry.SourceDefault},
	} {
		r := *rec
		r.Status, r.Answer, r.ResolvedAt = inquiry.StatusAnswered, a, at(0)
		add(blockkit.Resolved(&r, now))
		add(blockkit.Notice(&r))
		add("", blockkit.HomeView(blockkit.Home{User: "U024BE7LH", Answered: []*inquiry.Record{&r}}, now))
	}
	vote := *rec
	vote.Approvals = new(int)
	*vote.Approvals = 2
	vote.Votes = []inquiry.Vote{{By: "U024BE7LH", Value: inquiry.One(rec.Options[0].Value), Text: answer, At: now}}
	add(blockkit.Message(&vote, now))
	r := vote
	r.Status, r.ResolvedAt = inquiry.StatusAnswered, at(0)
	r.Answer = &inquiry.Answer{Value: inquiry.One(rec.Options[0].Value), Text: answer, AnsweredBy: "U024BE7LH", Source: inquiry.SourcePerson,
		Votes: append(vote.Votes, inquiry.Vote{By: "W0123ABCD", Value: inquiry.One(rec.Options[0].Value), Text: answer, At: now})}
	add(blockkit.Resolved(&r, now))
	failed := *rec
	failed.Status, failed.Failure = inquiry.StatusFailed, &inquiry.Failure{Code: inquiry.CodeUnavailable, Message: "no: " + answer}
	add(blockkit.Resolved(&failed, now))
	return texts, objs
}

// askerRecord is a choice whose every piece of asker text holds s.
func askerRecord(s string) *inquiry.Record {
	rec := deadlined()
	rec.Question = "Deploy? " + s
	rec.Context = "Background " + s
	rec.RunID = "run " + s
	rec.Options[0].Label = "Merge " + s
	rec.Options[0].Description = "what " + s
	rec.Default = inquiry.One(rec.Options[0].Value)
	rec.RequestedBy = []string{"req " + s}
	rec.Slack.Answerers = append(rec.Slack.Answerers, "named "+s)
	rec.Escalation = 1
	return rec
}

// Text of the asker's (question, context, labels, run id, requested_by, answerers that are no
// Slack id) and of whoever answered never goes into a mrkdwn object, where *, _, ~ and `
// would format the bot's own lines: it is in plain_text objects, shown as it is.
func TestAskerTextNeverFormats(t *testing.T) {
	t.Parallel()
	rec := askerRecord(formatting)
	_, objs := everywhere(t, rec, "because "+formatting)
	plainSeen := 0
	for i, v := range objs {
		walk(v, fmt.Sprint(i), func(path string, obj map[string]any) {
			text, _ := obj["text"].(string)
			switch obj["type"] {
			case "mrkdwn":
				if formatted.MatchString(text) {
					t.Errorf("%s: asker text formats in mrkdwn: %q", path, text)
				}
			case "plain_text":
				if strings.Contains(text, formatting) {
					plainSeen++
					// Prose (a section's text, a context element) never turns emoji codes into
					// the bot's own; a button's label may show the asker's emoji.
					if prose.MatchString(path) && obj["emoji"] != false {
						t.Errorf("%s: asker text with emoji codes on: %q", path, text)
					}
				}
			}
		})
	}
	if plainSeen == 0 {
		t.Fatal("the asker's text is shown nowhere")
	}
}

// Stored text and answers can hold characters that rewrite a line or show as nothing (stored
// before the rule, or in a person's answer): every Slack surface shows them as visible codes
// (inquiry.Printed), in blocks and in the notification text.
func TestEveryTextIsPrinted(t *testing.T) {
	t.Parallel()
	rec := askerRecord(disguised)
	texts, objs := everywhere(t, rec, "ok "+disguised)
	seen := false
	check := func(where, s string) {
		if strings.ContainsAny(s, "\u202e\u200b") {
			t.Errorf("%s: obeys a disguising character: %q", where, s)
		}
		seen = seen || strings.Contains(s, "⟨U+202E⟩")
	}
	for i, s := range texts {
		check(fmt.Sprintf("notification text %d", i), s)
	}
	for i, v := range objs {
		walk(v, fmt.Sprint(i), func(path string, obj map[string]any) {
			for _, k := range []string{"text", "value", "placeholder"} {
				if s, ok := obj[k].(string); ok && k == "text" {
					check(path, s)
				}
			}
		})
	}
	if !seen {
		t.Error("the override is shown nowhere as ⟨U+202E⟩")
	}
}

// One ask named 2,000 people and two groups: the notification text, which phones notify with,
// mentions ten of them and counts the rest without a mention.
func TestNotificationTextNamesAtMostTen(t *testing.T) {
	t.Parallel()
	rec := choice(2, false)
	for i := range 2000 {
		rec.Slack.Answerers = append(rec.Slack.Answerers, fmt.Sprintf("U%08d", i))
	}
	rec.Slack.Answerers = append(rec.Slack.Answerers, "S0TEAM0001", "S0TEAM0002")
	text, _ := blockkit.Message(rec, now)
	if n := strings.Count(text, "<@") + strings.Count(text, "<!subteam^"); n != 10 {
		t.Errorf("the notification text mentions %d, want 10: %.300s", n, text)
	}
	if !strings.Contains(text, "and 1,992 more") {
		t.Errorf("the notification text does not count the rest: %.300s", text)
	}
	if !strings.Contains(text, "Question: Merge PR #1234 into main now?") {
		t.Errorf("the notification text lost the question: %.300s", text)
	}
	rec.Slack.Answerers = rec.Slack.Answerers[:3]
	if text, _ = blockkit.Message(rec, now); strings.Count(text, "<@") != 3 || strings.Contains(text, "more") {
		t.Errorf("three answerers: %q", text)
	}
}

// A reminder, like every message, never broadcasts from asker text: <!here>, <!channel> and
// <!everyone> in the run id, a label or the default form no live token; only remind_here does.
func TestReminderNeverBroadcastsFromAskerText(t *testing.T) {
	t.Parallel()
	rec := deadlined()
	rec.RunID = "<!here> <!channel>"
	rec.Options[1].Label = "<!everyone> @here"
	rec.Default = inquiry.One(rec.Options[1].Value)
	rec.ExpiresAt = at(30 * time.Minute)
	text, blocks := blockkit.Reminder(rec, 1, now)
	for _, ping := range []string{"<!here>", "<!channel>", "<!everyone>"} {
		if strings.Contains(text, ping) {
			t.Errorf("the reminder's text broadcasts %s: %q", ping, text)
		}
		eachMrkdwn(t, "reminder", generic(t, blocks), func(where, s string) {
			if strings.Contains(s, ping) {
				t.Errorf("%s broadcasts %s: %q", where, ping, s)
			}
		})
	}
	if all := allText(t, blocks); !strings.Contains(all, "“<!everyone> @here”") {
		t.Errorf("the label is not shown as written (plain_text):\n%s", all)
	}
}

// The Home tab shows a waiting question whole beside its live buttons (it showed 300
// characters), and its context whole.
func TestHomeShowsTheQuestionWhole(t *testing.T) {
	t.Parallel()
	rec := keyed(choice(3, false), 1)
	rec.Question = strings.Repeat("Should we ship it? ", 110)[:inquiry.MaxQuestionChars-4] + " END"
	rec.Context = strings.Repeat("Background. ", 180)[:inquiry.MaxContextChars-4] + " FIN"
	if err := inquiry.Validate(&rec.Inquiry, validateAt); err != nil {
		t.Fatal(err)
	}
	view := blockkit.HomeView(blockkit.Home{Waiting: []*inquiry.Record{rec}}, now)
	var q, c strings.Builder
	for _, b := range view.Blocks.BlockSet {
		if s, ok := b.(*slack.SectionBlock); ok && s.Text.Type == slack.PlainTextType {
			switch {
			case strings.Contains(s.BlockID, "|h-q"):
				q.WriteString(s.Text.Text)
			case strings.Contains(s.BlockID, "|h-c"):
				c.WriteString(s.Text.Text)
			}
		}
	}
	if q.String() != rec.Question {
		t.Errorf("the Home tab shows %d of the question's %d characters", len([]rune(q.String())), len([]rune(rec.Question)))
	}
	if c.String() != rec.Context {
		t.Errorf("the Home tab shows %d of the context's %d characters", len([]rune(c.String())), len([]rune(rec.Context)))
	}
	if !strings.Contains(allText(t, view.Blocks.BlockSet), "<"+rec.Slack.Permalink+"|Open its message>") {
		t.Error("no link to the question's message")
	}
}

// TestNamesNeverFormat: who answered, when it is no Slack id (a token's name, a link's
// recipient), cannot format the bot's line: it sits in a code span, which mrkdwn does not read.
func TestNamesNeverFormat(t *testing.T) {
	for _, name := range []string{"ops_bot_x", "link:a_b*c~d@example.com", "tick`tock"} {
		got := blockkit.Who(name)
		if !strings.HasPrefix(got, "`") || !strings.HasSuffix(got, "`") || strings.Count(got, "`") != 2 {
			t.Errorf("Who(%q) = %q, want one code span", name, got)
		}
	}
}
