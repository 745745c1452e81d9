package blockkit_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/slack-go/slack"
)

// sectionText joins the mrkdwn of the sections whose block_id part starts with prefix, in order.
func sectionText(t *testing.T, blocks []slack.Block, prefix string) string {
	t.Helper()
	var b strings.Builder
	for _, bl := range blocks {
		s, ok := bl.(*slack.SectionBlock)
		if !ok || !strings.Contains(s.BlockID, "|"+prefix) {
			continue
		}
		b.WriteString(s.Text.Text)
	}
	return b.String()
}

// TestLongestInquiry renders inquiries at every limit of §3 — a 2,000-character question and
// context made of characters that escaping grows fivefold, 12 options with 150-character values,
// 75-character labels and descriptions — and checks that every rendering passes the validator
// and that the question and context read back whole.
func TestLongestInquiry(t *testing.T) {
	t.Parallel()
	questions := map[string]string{
		"ampersands": long("&", inquiry.MaxQuestionChars),
		"angles":     long("<>", inquiry.MaxQuestionChars/2),
		"multibyte":  long("🦀", inquiry.MaxQuestionChars),
		"words":      long("Should we merge & deploy <now>? ", inquiry.MaxQuestionChars/32) + "ok",
		"lines":      long("line & <b>\n", inquiry.MaxQuestionChars/11),
	}
	var ids []string
	for i := range 600 {
		ids = append(ids, fmt.Sprintf("U%08d", i))
	}
	for qname, q := range questions {
		for _, n := range []int{2, 5, 6, 10, 11, 12} {
			for _, multiple := range []bool{false, true} {
				name := fmt.Sprintf("%s/%d/multiple=%v", qname, n, multiple)
				rec := record(inquiry.KindChoice)
				rec.Question = q
				rec.Context = long("&", inquiry.MaxContextChars)
				rec.RunID = long("r", inquiry.MaxIDChars)
				rec.Options = longOptions(n)
				rec.Multiple = multiple
				rec.AllowText = true
				rec.Default = inquiry.One(rec.Options[n-1].Value)
				rec.ExpiresAt = at(48 * time.Hour)
				rec.Slack.Answerers = ids
				if err := inquiry.Validate(&rec.Inquiry, validateAt); err != nil {
					t.Fatalf("%s: fixture: %v", name, err)
				}
				checkAll(t, name, rec)
			}
		}
		for _, kind := range []inquiry.Kind{inquiry.KindText, inquiry.KindConfirm} {
			rec := record(kind)
			rec.Question = q
			rec.Context = long("<", inquiry.MaxContextChars)
			rec.AllowText = kind == inquiry.KindConfirm
			if kind == inquiry.KindText {
				rec.Default = inquiry.One(long("&", inquiry.DefaultAnswerChars))
			}
			rec.ExpiresAt = at(time.Minute)
			if err := inquiry.Validate(&rec.Inquiry, validateAt); err != nil {
				t.Fatalf("%s: fixture: %v", kind, err)
			}
			checkAll(t, qname+"/"+string(kind), rec)
		}
	}
}

// checkAll validates everything that can be rendered of rec, pending and in every resolution.
func checkAll(t *testing.T, name string, rec *inquiry.Record) {
	t.Helper()
	_, blocks := blockkit.Message(rec, now)
	if err := blockkit.Validate(blocks); err != nil {
		t.Errorf("%s: message: %v", name, err)
	}
	if got, want := sectionText(t, blocks, "q-q"), blockkit.Escape(rec.Question); got != want {
		t.Errorf("%s: the question does not read back whole (%d characters, want %d)", name, len([]rune(got)), len([]rune(want)))
	}
	if got, want := sectionText(t, blocks, "q-c"), "*Context*\n"+blockkit.Escape(rec.Context); got != want {
		t.Errorf("%s: the context does not read back whole", name)
	}
	if _, err := blockkit.Render(rec, now); err != nil {
		t.Errorf("%s: Render: %v", name, err)
	}
	checkModals(t, rec)
	_, blocks = blockkit.Notice(rec)
	if err := blockkit.Validate(blocks); err != nil {
		t.Errorf("%s: notice: %v", name, err)
	}
	var all []string
	for _, o := range inquiry.Offered(&rec.Inquiry) {
		all = append(all, o.Value)
	}
	for i, a := range []*inquiry.Answer{
		{Text: long("&", inquiry.DefaultAnswerChars), AnsweredBy: "U024BE7LH", Source: inquiry.SourcePerson},
		{Value: inquiry.Many(all...), Text: long("<", inquiry.DefaultAnswerChars), AnsweredBy: long("n", 200), Source: inquiry.SourcePerson},
		{Declined: true, Text: long(">", inquiry.DefaultAnswerChars), Source: inquiry.SourcePerson},
	} {
		r := *rec
		r.Status, r.Answer = inquiry.StatusAnswered, a
		r.ResolvedAt = at(0)
		text, blocks := blockkit.Resolved(&r, now)
		if err := blockkit.Validate(blocks); err != nil {
			t.Errorf("%s: resolved %d: %v", name, i, err)
		}
		if !strings.Contains(sectionText(t, blocks, "r-o"), blockkit.Escape(a.Text)) {
			t.Errorf("%s: resolved %d: the answer's text does not read back whole", name, i)
		}
		if n := len([]rune(text)); n > 1000 {
			t.Errorf("%s: resolved %d: notification text of %d characters", name, i, n)
		}
	}
	r := *rec
	r.Status, r.Failure = inquiry.StatusFailed, &inquiry.Failure{Message: long("&", 5000)}
	if _, blocks := blockkit.Resolved(&r, now); blockkit.Validate(blocks) != nil {
		t.Errorf("%s: failed: %v", name, blockkit.Validate(blocks))
	}
}
