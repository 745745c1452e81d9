package blockkit_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/slack-go/slack"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current rendering")

type goldenCase struct {
	name string
	rec  func() *inquiry.Record
}

func goldenCases() []goldenCase {
	var cases []goldenCase
	for n := inquiry.MinOptions; n <= inquiry.MaxOptions; n++ {
		cases = append(cases, goldenCase{fmt.Sprintf("choice_single_%d", n), func() *inquiry.Record { return choice(n, false) }})
	}
	for _, n := range []int{2, 10, 11, 12} {
		cases = append(cases, goldenCase{fmt.Sprintf("choice_multiple_%d", n), func() *inquiry.Record { return choice(n, true) }})
	}
	for _, c := range []struct {
		name     string
		n        int
		multiple bool
	}{{"choice_single_allow_text", 3, false}, {"choice_select_allow_text", 8, false}, {"choice_multiple_allow_text", 4, true}} {
		cases = append(cases, goldenCase{c.name, func() *inquiry.Record {
			rec := choice(c.n, c.multiple)
			rec.AllowText = true
			return rec
		}})
	}
	cases = append(cases, []goldenCase{
		{"choice_default_expiry", func() *inquiry.Record {
			rec := choice(3, false)
			rec.Default = inquiry.One("hold")
			rec.ExpiresAt = at(2 * time.Hour)
			return rec
		}},
		{"choice_multiple_default_expiry", func() *inquiry.Record {
			rec := choice(4, true)
			rec.Default = inquiry.Many("merge", "rebase-first")
			rec.ExpiresAt = at(26*time.Hour + 30*time.Minute)
			return rec
		}},
		{"choice_default_no_expiry", func() *inquiry.Record {
			rec := choice(3, false)
			rec.Default = inquiry.One("hold")
			return rec
		}},
		{"choice_expiry_no_default", func() *inquiry.Record {
			rec := choice(3, false)
			rec.ExpiresAt = at(45 * time.Minute)
			return rec
		}},
		{"choice_answerers", func() *inquiry.Record {
			rec := choice(2, false)
			rec.RunID = ""
			rec.Context = ""
			rec.Slack.Answerers = []string{"U024BE7LH", "W0123ABCD", "S0DEPLOYERS1", "not-an-id", "UBUNTU"}
			return rec
		}},
		{"text", func() *inquiry.Record {
			rec := record(inquiry.KindText)
			rec.Question = "What should the release note say about the migration?"
			return rec
		}},
		{"text_default_expiry", func() *inquiry.Record {
			rec := record(inquiry.KindText)
			rec.Question = "What should the release note say about the migration?"
			rec.Default = inquiry.One("Nothing user-visible changes; the migration runs online.")
			rec.ExpiresAt = at(90 * time.Minute)
			return rec
		}},
		{"confirm", func() *inquiry.Record { return record(inquiry.KindConfirm) }},
		{"choice_browser_link", func() *inquiry.Record {
			rec := choice(3, false)
			rec.Links = &inquiry.Links{Answer: "https://bot.example.com/a/aW5xX2V4YW1wbGUAAAAGYZKL.1UgL15Y6kq1lK9V0rZLys6HdZXc"}
			return rec
		}},
		{"confirm_browser_link", func() *inquiry.Record {
			rec := record(inquiry.KindConfirm)
			rec.Links = &inquiry.Links{Answer: "https://bot.example.com/a/aW5xX2V4YW1wbGUAAAAGYZKL.1UgL15Y6kq1lK9V0rZLys6HdZXc"}
			return rec
		}},
		{"text_relative_link_no_button", func() *inquiry.Record {
			rec := record(inquiry.KindText)
			rec.Links = &inquiry.Links{Answer: "/a/aW5xX2V4YW1wbGUAAAAGYZKL.1UgL15Y6kq1lK9V0rZLys6HdZXc"}
			return rec
		}},
		{"confirm_allow_text", func() *inquiry.Record {
			rec := record(inquiry.KindConfirm)
			rec.AllowText = true
			return rec
		}},
		{"confirm_default_expiry", func() *inquiry.Record {
			rec := record(inquiry.KindConfirm)
			rec.Default = inquiry.One("no")
			rec.ExpiresAt = at(2 * time.Hour)
			return rec
		}},
		{"escaping", func() *inquiry.Record { return hostile(record(inquiry.KindChoice)) }},

		{"resolved_answered_value", func() *inquiry.Record {
			return resolved(choice(3, false), inquiry.StatusAnswered,
				&inquiry.Answer{Value: inquiry.One("merge"), AnsweredBy: "U024BE7LH", Source: inquiry.SourcePerson})
		}},
		{"resolved_answered_multiple", func() *inquiry.Record {
			return resolved(choice(4, true), inquiry.StatusAnswered,
				&inquiry.Answer{Value: inquiry.Many("merge", "rebase-first"), AnsweredBy: "U024BE7LH", Source: inquiry.SourcePerson})
		}},
		{"resolved_answered_text", func() *inquiry.Record {
			return resolved(record(inquiry.KindText), inquiry.StatusAnswered, &inquiry.Answer{
				Text:       "Ship it after the 15:00 train.\nPing @oncall & <!here> if it breaks.",
				AnsweredBy: "U024BE7LH", Source: inquiry.SourcePerson})
		}},
		{"resolved_answered_own_words", func() *inquiry.Record {
			rec := choice(3, false)
			rec.AllowText = true
			return resolved(rec, inquiry.StatusAnswered,
				&inquiry.Answer{Text: "Neither: wait for Bob's review", AnsweredBy: "W0123ABCD", Source: inquiry.SourcePerson})
		}},
		{"resolved_answered_confirm_note", func() *inquiry.Record {
			rec := record(inquiry.KindConfirm)
			rec.AllowText = true
			return resolved(rec, inquiry.StatusAnswered,
				&inquiry.Answer{Value: inquiry.One("yes"), Text: "only after the backup finished", AnsweredBy: "U024BE7LH", Source: inquiry.SourcePerson})
		}},
		{"resolved_answered_by_token", func() *inquiry.Record {
			return resolved(choice(3, false), inquiry.StatusAnswered,
				&inquiry.Answer{Value: inquiry.One("hold"), AnsweredBy: "ops-cli", Source: inquiry.SourcePerson})
		}},
		{"resolved_answered_truncated", func() *inquiry.Record {
			return resolved(record(inquiry.KindText), inquiry.StatusAnswered,
				&inquiry.Answer{Text: "A long story, cut.", Truncated: true, AnsweredBy: "U024BE7LH", Source: inquiry.SourcePerson})
		}},
		{"resolved_expired_default", func() *inquiry.Record {
			rec := choice(3, false)
			rec.Default = inquiry.One("hold")
			rec.ExpiresAt = at(-2 * time.Hour)
			return resolved(rec, inquiry.StatusExpired, &inquiry.Answer{Value: inquiry.One("hold"), Source: inquiry.SourceExpired})
		}},
		{"resolved_expired_declined", func() *inquiry.Record {
			rec := choice(3, false)
			rec.ExpiresAt = at(-2 * time.Hour)
			return resolved(rec, inquiry.StatusExpired, &inquiry.Answer{Declined: true, Source: inquiry.SourceExpired})
		}},
		{"resolved_expired_text_default", func() *inquiry.Record {
			rec := record(inquiry.KindText)
			rec.Default = inquiry.One("Nothing user-visible changes.")
			rec.ExpiresAt = at(-20 * time.Hour)
			return resolved(rec, inquiry.StatusExpired, &inquiry.Answer{Text: "Nothing user-visible changes.", Source: inquiry.SourceExpired})
		}},
		{"resolved_declined", func() *inquiry.Record {
			return resolved(record(inquiry.KindConfirm), inquiry.StatusAnswered,
				&inquiry.Answer{Declined: true, Text: "not my call", AnsweredBy: "U024BE7LH", Source: inquiry.SourcePerson})
		}},
		{"resolved_cancelled", func() *inquiry.Record {
			return resolved(choice(3, false), inquiry.StatusCancelled, nil)
		}},
		{"resolved_failed", func() *inquiry.Record {
			rec := resolved(choice(3, false), inquiry.StatusFailed, nil)
			rec.Failure = &inquiry.Failure{Code: inquiry.CodeUnavailable, Fatal: true,
				Message: "Slack says channel_not_found for C0DEPLOYS: invite the bot to the channel, or name another one"}
			return rec
		}},
		{"resolved_policy_default", func() *inquiry.Record {
			rec := choice(3, false)
			rec.Default = inquiry.One("hold")
			return resolved(rec, inquiry.StatusAnswered, &inquiry.Answer{Value: inquiry.One("hold"), Source: inquiry.SourceDefault})
		}},
		{"approval_confirm_tally", func() *inquiry.Record {
			rec := approval(record(inquiry.KindConfirm), 2)
			rec.Reason = inquiry.ReasonOnNo
			rec.RequestedBy = []string{"U0AUTHOR1", "ci-bot"}
			rec.Votes = []inquiry.Vote{vote("U024BE7LH", "yes", "")}
			return rec // its No opens the reason modal: the "modal" of the golden file
		}},
		{"approval_confirm_no_votes_note", func() *inquiry.Record {
			rec := approval(record(inquiry.KindConfirm), 3)
			veto := false
			rec.Veto = &veto
			rec.AllowText = true
			return rec
		}},
		{"approval_choice_tally", func() *inquiry.Record {
			rec := approval(choice(3, false), 3)
			rec.Reason = inquiry.ReasonAlways
			rec.Votes = []inquiry.Vote{vote("U024BE7LH", "merge", "green"), vote("ops-cli <&>", "hold", "freeze"), vote("W0123ABCD", "merge", "ok")}
			return rec
		}},
		{"approval_select_tally", func() *inquiry.Record {
			rec := approval(choice(8, false), 2)
			rec.Votes = []inquiry.Vote{vote("U024BE7LH", "merge", "")}
			return rec
		}},
		{"choice_multiple_reason_always", func() *inquiry.Record {
			rec := choice(4, true)
			rec.Reason = inquiry.ReasonAlways
			return rec
		}},
		{"confirm_reason_always", func() *inquiry.Record {
			rec := record(inquiry.KindConfirm)
			rec.Reason = inquiry.ReasonAlways
			return rec
		}},
		{"confirm_reason_on_no", func() *inquiry.Record {
			rec := record(inquiry.KindConfirm)
			rec.Reason = inquiry.ReasonOnNo
			rec.AllowText = true
			return rec
		}},
		{"resolved_approved", func() *inquiry.Record {
			rec := approval(record(inquiry.KindConfirm), 2)
			votes := []inquiry.Vote{vote("U024BE7LH", "yes", ""), vote("W0123ABCD", "yes", "backup checked & <fine>")}
			return resolved(rec, inquiry.StatusAnswered, &inquiry.Answer{Value: inquiry.One("yes"), Text: "backup checked & <fine>",
				AnsweredBy: "W0123ABCD", Source: inquiry.SourcePerson, Votes: votes})
		}},
		{"resolved_vetoed", func() *inquiry.Record {
			rec := approval(record(inquiry.KindConfirm), 2)
			rec.Reason = inquiry.ReasonOnNo
			votes := []inquiry.Vote{vote("U024BE7LH", "yes", ""), vote("U0CAROL01", "no", "the migration is not reversible")}
			return resolved(rec, inquiry.StatusAnswered, &inquiry.Answer{Value: inquiry.One("no"), Text: "the migration is not reversible",
				AnsweredBy: "U0CAROL01", Source: inquiry.SourcePerson, Votes: votes})
		}},
		{"resolved_rejected_no_veto", func() *inquiry.Record {
			rec := approval(record(inquiry.KindConfirm), 2)
			veto := false
			rec.Veto = &veto
			votes := []inquiry.Vote{vote("U024BE7LH", "no", ""), vote("U0CAROL01", "yes", ""), vote("ops-cli", "no", "")}
			return resolved(rec, inquiry.StatusAnswered, &inquiry.Answer{Value: inquiry.One("no"),
				AnsweredBy: "ops-cli", Source: inquiry.SourcePerson, Votes: votes})
		}},
		{"resolved_chosen", func() *inquiry.Record {
			rec := approval(choice(3, false), 3)
			votes := []inquiry.Vote{vote("U024BE7LH", "merge", ""), vote("U0BOB0001", "merge", ""), vote("U0CAROL01", "hold", ""), vote("U0DAVE001", "merge", "")}
			return resolved(rec, inquiry.StatusAnswered, &inquiry.Answer{Value: inquiry.One("merge"),
				AnsweredBy: "U0DAVE001", Source: inquiry.SourcePerson, Votes: votes})
		}},
		{"resolved_expired_votes", func() *inquiry.Record {
			rec := approval(record(inquiry.KindConfirm), 2)
			rec.Default = inquiry.One("no")
			rec.ExpiresAt = at(-2 * time.Hour)
			votes := []inquiry.Vote{vote("U024BE7LH", "yes", "")}
			return resolved(rec, inquiry.StatusExpired, &inquiry.Answer{Value: inquiry.One("no"), Source: inquiry.SourceExpired, Votes: votes})
		}},
		{"resolved_escaping", func() *inquiry.Record {
			rec := hostile(record(inquiry.KindText))
			return resolved(rec, inquiry.StatusAnswered,
				&inquiry.Answer{Text: hostileText, AnsweredBy: "<!channel>", Source: inquiry.SourcePerson})
		}},
	}...)
	return cases
}

// TestGolden renders every kind and state, and a proposal of each format at the message's limit
// (50 lines; 3,000 characters in one line) and one past it, editable within Slack's input limit
// and one past it, with and without the answer page's link, and compares each with
// testdata/<name>.golden; Render validates the message and its modal, so every golden file is
// within Slack's limits (and, in CI, @slack/types checks them).
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range append(goldenCases(), proposalCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := tc.rec()
			mustValid(t, rec)
			got, err := blockkit.Render(rec, now)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			checkModals(t, rec)
			if strings.HasSuffix(tc.name, "_50_lines") && bytes.Contains(got, []byte("Shortened")) {
				t.Error("a proposal of 50 lines is shortened: its lines are too long to test the limit of 50")
			}
			checkGolden(t, tc.name, got)
		})
	}
}

// checkModals validates every modal a button of the record can open.
func checkModals(t *testing.T, rec *inquiry.Record) {
	t.Helper()
	modals := []slack.ModalViewRequest{blockkit.TextModal(rec), blockkit.ConfirmModal(rec), blockkit.OwnWordsModal(rec)}
	for _, o := range inquiry.Offered(&rec.Inquiry) {
		modals = append(modals, blockkit.ReasonModal(rec, inquiry.One(o.Value)))
	}
	for _, m := range modals {
		if err := blockkit.ValidateView(m); err != nil {
			t.Errorf("%s modal: %v", m.CallbackID, err)
		}
		if m.PrivateMetadata != rec.Key {
			t.Errorf("%s modal: private_metadata %q, want the key %q", m.CallbackID, m.PrivateMetadata, rec.Key)
		}
		if !slack.ValidateUniqueBlockID(m) {
			t.Errorf("%s modal: block_ids are not unique", m.CallbackID)
		}
	}
}

func TestGoldenNotice(t *testing.T) {
	t.Parallel()
	for _, tc := range []goldenCase{
		{"notice", func() *inquiry.Record {
			rec := choice(3, false)
			rec.Default = inquiry.One("hold")
			rec.Config.Policy = inquiry.PolicyDefault
			return resolved(rec, inquiry.StatusAnswered, &inquiry.Answer{Value: inquiry.One("hold"), Source: inquiry.SourceDefault})
		}},
		{"notice_declined", func() *inquiry.Record {
			rec := record(inquiry.KindConfirm)
			rec.Config.Policy = inquiry.PolicyDefault
			d := inquiry.DefaultAnswerFor(&rec.Inquiry)
			d.Source = inquiry.SourceDefault
			return resolved(rec, inquiry.StatusAnswered, &d)
		}},
		{"notice_no_answer_yet", func() *inquiry.Record {
			rec := record(inquiry.KindText)
			rec.RunID = ""
			rec.Default = inquiry.One("Nothing user-visible changes.")
			return rec
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkRendered(t, tc.name, tc.rec(), blockkit.Notice)
		})
	}
}

// mustValid fails the test when a fixture is not an inquiry the service would accept: a golden
// file of an impossible question proves nothing.
func mustValid(t *testing.T, rec *inquiry.Record) {
	t.Helper()
	if err := inquiry.Validate(&rec.Inquiry, validateAt); err != nil {
		t.Fatalf("fixture is not a valid inquiry: %v", err)
	}
}

// checkRendered runs one row of a golden table of messages: the fixture is valid, render's
// blocks pass Validate, and {"text", "blocks"} equals testdata/<name>.golden.
func checkRendered(t *testing.T, name string, rec *inquiry.Record, render func(*inquiry.Record) (string, []slack.Block)) {
	t.Helper()
	mustValid(t, rec)
	text, blocks := render(rec)
	if err := blockkit.Validate(blocks); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	checkGolden(t, name, encode(t, map[string]any{"text": text, "blocks": blocks}))
}

// encode writes v as Render does: indented, with & < > left readable.
func encode(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return blockkit.UnescapeHTML(b.Bytes())
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./blockkit -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d:\n got: %s\nwant: %s\n(run go test ./blockkit -update if the change is intended)", path, i+1, g, w)
			}
		}
	}
}

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
	if got, want := sectionText(t, blocks, "q-q"), inquiry.Printed(rec.Question); got != want {
		t.Errorf("%s: the question does not read back whole (%d characters, want %d)", name, len([]rune(got)), len([]rune(want)))
	}
	if got, want := sectionText(t, blocks, "q-c"), inquiry.Printed(rec.Context); got != want {
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
		if !strings.Contains(sectionText(t, blocks, "r-ow"), inquiry.Printed(strings.TrimSpace(a.Text))) {
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
			checkRendered(t, tc.name, tc.rec(), tc.render)
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
	// A proposal in the Home tab: a diff one line past the message's 50, editable in Slack's
	// modal, with the answer page to view it all; and one past the modal's 3,000 characters with
	// no answer page, as a question that names its answerers has none.
	diff := keyed(withProposal(&inquiry.Proposal{Format: inquiry.FormatDiff, Content: proposalOf(inquiry.FormatDiff, 51),
		Title: "Change for *build* 77 <!here>", Editable: true}), 31)
	diff.Question = "Merge this change?"
	long := keyed(withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: strings.Repeat("x", 3001), Editable: true}), 32)
	long.Question, long.Links = "Send this note?", nil
	// And the same where the server makes links: a question naming its answerers offers each of
	// them a link of their own.
	personal := keyed(withProposal(&inquiry.Proposal{Format: inquiry.FormatText, Content: strings.Repeat("y", 3001), Editable: true}), 33)
	personal.Question, personal.Slack.Answerers = "Send this other note?", []string{"U0ALICE01"}
	personal.Links = &inquiry.Links{Answer: blockkit.PersonalLinks}
	escaped := keyed(hostile(record(inquiry.KindChoice)), 21)
	escaped.Slack.Permalink = "https://evil.example/x|<!channel>"
	return map[string]blockkit.Home{
		"home_empty":    {User: "U0ALICE01"},
		"home_unread":   {User: "U0ALICE01", Unread: true},
		"home_waiting":  {User: "U0ALICE01", Waiting: waiting(), Answered: answered()},
		"home_many":     {User: "U0ALICE01", Waiting: many, Unread: true},
		"home_escaping": {User: "U0ALICE01", Waiting: []*inquiry.Record{escaped}},
		"home_proposal": {User: "U0ALICE01", Waiting: []*inquiry.Record{diff, long, personal}},
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
	shown := strings.Count(all, "|Open its message>") // the links to their messages
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
// text that escaping grows fivefold, 12 options at their limits, with and without a 256 KiB
// proposal whose first 50 lines fill the 3,000 characters shown — stays within every Home tab
// limit, 250 kB included.
func TestHomeOfTheLongestQuestions(t *testing.T) {
	line := strings.Repeat("&", 59) + "\n"
	for _, n := range []int{5, 12} {
		for _, multiple := range []bool{false, true} {
			for _, proposed := range []bool{false, true} {
				var h blockkit.Home
				for i := range 60 {
					rec := keyed(record(inquiry.KindChoice), i)
					rec.Question = strings.Repeat("&<", inquiry.MaxQuestionChars/2)
					rec.Context = strings.Repeat("&", inquiry.MaxContextChars)
					rec.RunID = strings.Repeat("r", inquiry.MaxIDChars)
					rec.Options, rec.Multiple, rec.AllowText = longOptions(n), multiple, true
					rec.ExpiresAt = at(48 * time.Hour)
					if proposed {
						rec.Proposal = &inquiry.Proposal{Format: inquiry.FormatText, Content: strings.Repeat(line, inquiry.MaxProposalBytes/len(line)),
							Title: strings.Repeat("&", inquiry.MaxProposalTitleChars), Editable: true}
						rec.Links = &inquiry.Links{Answer: answerPage}
					}
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
					t.Errorf("%d options, multiple %v, proposal %v: %v", n, multiple, proposed, err)
				}
				if proposed && !strings.Contains(string(raw), "Shortened: the first 50 of 4,369 lines are shown.") {
					t.Errorf("%d options, multiple %v: no proposal shown with its sentence", n, multiple)
				}
			}
		}
	}
}
