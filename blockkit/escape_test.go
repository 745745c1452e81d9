package blockkit_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// hostileText tries every way a user text could ping or link.
const hostileText = "<!channel> hi <@U123> <https://evil|click> & stuff @here <!subteam^S123|devs> @Everyone"

// hostile fills every user-controlled field of rec with hostileText. The only legitimate
// mention left is the answerer U024BE7LH.
func hostile(rec *inquiry.Record) *inquiry.Record {
	rec.Question = hostileText
	rec.Context = "see <https://evil.example/x|the docs> & <!here> " + hostileText
	rec.RunID = "<@U999>&<!channel>"
	rec.Slack.Answerers = []string{"<!channel>", "U024BE7LH", "<@U123>"}
	if rec.Kind == inquiry.KindChoice {
		rec.Options = []inquiry.Option{
			{Value: "<!channel>", Label: "<@U123> yes", Description: "&amp; <!here>"},
			{Value: "no", Label: "<https://evil|No>"},
		}
		rec.Default = inquiry.One("no")
		rec.AllowText = true
	}
	rec.ExpiresAt = at(2 * time.Hour)
	return rec
}

var (
	// Our own tokens: the date of an expiry, and the one valid answerer.
	allowedToken = regexp.MustCompile(`<!date\^\d+\^\{date_short_pretty\} at \{time\}\|[^<>|]*>|<@U024BE7LH>`)
	broadcast    = regexp.MustCompile(`(?i)@(channel|here|everyone)`)
)

// checkSafe fails when a mrkdwn text (or the notification text) could mention or link: any '<'
// or '>' left besides our own tokens, or a bare @channel/@here/@everyone. Every mrkdwn object
// must be verbatim, so Slack does not auto-link either.
func checkSafe(t *testing.T, where string, v any) {
	t.Helper()
	eachMrkdwn(t, where, v, func(where, text string) { checkSafeText(t, where, text) })
}

// eachMrkdwn calls f with the place (where, then its path) and the text of every mrkdwn object
// under v (a rendering as generic gives it), and fails where one is not verbatim.
func eachMrkdwn(t *testing.T, where string, v any, f func(where, text string)) {
	t.Helper()
	walk(v, "", func(path string, obj map[string]any) {
		if obj["type"] != "mrkdwn" {
			return
		}
		if obj["verbatim"] != true {
			t.Errorf("%s%s: mrkdwn is not verbatim", where, path)
		}
		text, _ := obj["text"].(string)
		f(where+path, text)
	})
}

func checkSafeText(t *testing.T, where, text string) {
	t.Helper()
	rest := allowedToken.ReplaceAllString(text, "")
	if strings.ContainsAny(rest, "<>") {
		t.Errorf("%s: live control sequence in %q", where, text)
	}
	if broadcast.MatchString(rest) {
		t.Errorf("%s: bare broadcast in %q", where, text)
	}
}

// walk calls f on every JSON object under v with its path.
func walk(v any, path string, f func(string, map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		f(path, t)
		for k, c := range t {
			walk(c, path+"."+k, f)
		}
	case []any:
		for i, c := range t {
			walk(c, fmt.Sprintf("%s[%d]", path, i), f)
		}
	}
}

func generic(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestNoLiveMentionOrLink(t *testing.T) {
	t.Parallel()
	for _, kind := range []inquiry.Kind{inquiry.KindChoice, inquiry.KindText, inquiry.KindConfirm} {
		rec := hostile(record(kind))
		if err := inquiry.Validate(&rec.Inquiry, validateAt); err != nil {
			t.Fatalf("fixture: %v", err)
		}
		text, blocks := blockkit.Message(rec, now)
		checkSafeText(t, string(kind)+" message text", text)
		checkSafe(t, string(kind)+" message", generic(t, blocks))
		if err := blockkit.Validate(blocks); err != nil {
			t.Errorf("%s message: %v", kind, err)
		}
		for _, m := range []any{blockkit.TextModal(rec), blockkit.ConfirmModal(rec), blockkit.OwnWordsModal(rec)} {
			checkSafe(t, string(kind)+" modal", generic(t, m))
		}
		text, blocks = blockkit.Notice(rec)
		checkSafeText(t, string(kind)+" notice text", text)
		checkSafe(t, string(kind)+" notice", generic(t, blocks))

		for _, res := range []struct {
			status  inquiry.Status
			answer  *inquiry.Answer
			failure string
		}{
			{inquiry.StatusAnswered, &inquiry.Answer{Text: hostileText, AnsweredBy: "<!channel>", Source: inquiry.SourcePerson}, ""},
			{inquiry.StatusAnswered, &inquiry.Answer{Value: inquiry.One(firstValue(rec)), Text: hostileText, AnsweredBy: "<@U123>", Source: inquiry.SourcePerson}, ""},
			{inquiry.StatusAnswered, &inquiry.Answer{Declined: true, Text: hostileText, AnsweredBy: "@here", Source: inquiry.SourcePerson}, ""},
			{inquiry.StatusExpired, &inquiry.Answer{Value: inquiry.One("no"), Source: inquiry.SourceExpired}, ""},
			{inquiry.StatusFailed, nil, hostileText},
		} {
			r := hostile(record(kind))
			r.Status, r.Answer = res.status, res.answer
			if res.failure != "" {
				r.Failure = &inquiry.Failure{Code: inquiry.CodeUnavailable, Message: res.failure}
			}
			text, blocks := blockkit.Resolved(r, now)
			checkSafeText(t, string(kind)+" resolved text", text)
			checkSafe(t, string(kind)+" resolved", generic(t, blocks))
			if err := blockkit.Validate(blocks); err != nil {
				t.Errorf("%s resolved: %v", kind, err)
			}
		}
	}
}

// TestEscapedTextSurvives checks that nothing is hidden: the question reads back whole, as the
// asker wrote it, in plain_text (which Slack never parses), not in mrkdwn.
func TestEscapedTextSurvives(t *testing.T) {
	t.Parallel()
	rec := hostile(record(inquiry.KindText))
	_, blocks := blockkit.Message(rec, now)
	if got := sectionText(t, blocks, "q-q"); got != hostileText {
		t.Errorf("question renders as %q, want %q", got, hostileText)
	}
	for _, b := range blocks {
		if s, ok := b.(*slack.SectionBlock); ok && strings.Contains(s.BlockID, "|q-q") && s.Text.Type != slack.PlainTextType {
			t.Errorf("the question is in %s, not plain_text", s.Text.Type)
		}
	}
}

// TestEscapeAndMention checks what Escape and Mention make of texts.
func TestEscapeAndMention(t *testing.T) {
	t.Parallel()
	type mapping struct{ in, want string }
	for _, fn := range []struct {
		name  string
		f     func(string) string
		cases []mapping
	}{{"Escape", blockkit.Escape, []mapping{
		{"plain", "plain"},
		{"a & b < c > d", "a &amp; b &lt; c &gt; d"},
		{"<!channel>", "&lt;!channel&gt;"},
		{"<@U123>", "&lt;@U123&gt;"},
		{"<https://evil|click>", "&lt;https://evil|click&gt;"},
		{"&amp;", "&amp;amp;"},
		{"@here and @channel and @EVERYONE", "@\u2060here and @\u2060channel and @\u2060EVERYONE"},
		{"mail bob@example.com", "mail bob@example.com"},
		{"héllo ✓ 日本", "héllo ✓ 日本"},
		{"bad \xff byte", "bad \uFFFD byte"},
	}}, {"Mention", blockkit.Mention, []mapping{
		{"U024BE7LH", "<@U024BE7LH>"},
		{"W0123ABCD", "<@W0123ABCD>"},
		{"U123", "<@U123>"},
		{"S0DEPLOYERS1", "<!subteam^S0DEPLOYERS1>"},
		{"UBUNTU", "UBUNTU"},       // no digit: a name, not an id
		{"u024be7lh", "u024be7lh"}, // ids are upper case
		{"<!channel>", "&lt;!channel&gt;"},
		{"ops-cli", "ops-cli"},
		{"C0DEPLOYS1", "C0DEPLOYS1"}, // a channel is nobody
	}}} {
		for _, tc := range fn.cases {
			if got := fn.f(tc.in); got != tc.want {
				t.Errorf("%s(%q) = %q, want %q", fn.name, tc.in, got, tc.want)
			}
		}
	}
}

// firstValue is the value of the first offered answer, or a text for a Text inquiry.
func firstValue(rec *inquiry.Record) string {
	if o := inquiry.Offered(&rec.Inquiry); len(o) > 0 {
		return o[0].Value
	}
	return hostileText
}

// FuzzRenderEscapes renders inquiries whose every piece of user text — question, context, run
// id, option value, label and description, default, answer text, who answered, a failure's
// message — is arbitrary, in every state: the question message, its modals, the notice and the
// resolved message of every status. In every mrkdwn text (and the notification text, which Slack
// parses too) no '<' or '>' is left but our own tokens (an expiry's date, the answerers, a Slack
// user id who answered), no bare @channel, @here or @everyone, every mrkdwn object is verbatim,
// and every message and modal passes blockkit's Block Kit validation. Only what the server
// stores is rendered: inquiries that pass inquiry.Validate, answers that pass
// inquiry.CheckAnswer.
func FuzzRenderEscapes(f *testing.F) {
	f.Add(uint8(0), "Merge <!channel>?", "see <https://evil|docs> & @here", "deploy-<@U1>", "<!here>", "<@U123> yes", "&amp;", "because <!everyone>", "U0ALICE01", false, true)
	f.Add(uint8(1), "Why?", "", "", "", "", "", "<https://x.example|click> &lt;!channel&gt;", "ops-cli", false, false)
	f.Add(uint8(2), "Deploy?", "@Channel", "r", "", "", "", "@everyone", "<@U999>", false, true)
	f.Add(uint8(0), strings.Repeat("&", 2000), strings.Repeat("<", 2000), strings.Repeat(">", 200), strings.Repeat("&", 150), strings.Repeat("<", 75), strings.Repeat(">", 75), strings.Repeat("&<>", 666), "S0TEAM001", true, true)
	f.Add(uint8(0), "Pick", "", "", "a|b", "A|B", "x", "a", "W0123ABCD", true, false)
	f.Add(uint8(1), "Q?\n\n> quote\n`code`", "*bold* _it_ ~s~", "", "", "", "", strings.Repeat("é", 2100), "", false, false)
	f.Add(uint8(2), "<!date^1^{date}|x>", "<#C123>", "<!subteam^S1|x>", "", "", "", "\u2060@here", "UBUNTU", false, true)

	f.Fuzz(func(t *testing.T, kind uint8, question, context, runID, value, label, description, answer, answeredBy string, multiple, allowText bool) {
		in := inquiry.Inquiry{
			ID: "fuzz", RunID: runID, Question: question, Context: context, Multiple: multiple, AllowText: allowText,
			ExpiresAt: at(2 * time.Hour),
		}
		switch kind % 3 {
		case 0:
			in.Kind = inquiry.KindChoice
			in.Options = []inquiry.Option{{Value: value, Label: label, Description: description}, {Value: "other", Label: "Other"}}
			in.Default = inquiry.One(value)
		case 1:
			in.Kind, in.AllowText, in.Multiple = inquiry.KindText, false, false
			in.Default = inquiry.One(answer)
		default:
			in.Kind, in.Multiple = inquiry.KindConfirm, false
			in.Default = inquiry.One("no")
		}
		if inquiry.Validate(&in, validateAt) != nil {
			in.Default = inquiry.Value{}
			if inquiry.Validate(&in, validateAt) != nil {
				return // never stored, never rendered
			}
		}
		rec := &inquiry.Record{
			Key: key, Inquiry: in, Namespace: "ci", Status: inquiry.StatusPending,
			Config:    inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportSlack},
			Slack:     inquiry.SlackRef{Channel: "C0DEPLOYS", Answerers: []string{"U024BE7LH", "S0TEAM001"}},
			CreatedAt: now.Add(-time.Minute),
		}
		safe := func(where, text string) {
			t.Helper()
			text = strings.ReplaceAll(text, "<!subteam^S0TEAM001>", "")
			if blockkit.IsUserID(answeredBy) {
				text = strings.ReplaceAll(text, "<@"+answeredBy+">", "") // who answered, by design
			}
			checkSafeText(t, where, text)
		}
		check := func(where, text string, v any) {
			t.Helper()
			safe(where+" text", text)
			eachMrkdwn(t, where, generic(t, v), safe)
		}
		render := func(where string, r *inquiry.Record) {
			t.Helper()
			if _, err := blockkit.Render(r, now); err != nil { // validates the message and its modal
				t.Fatalf("%s: %v", where, err)
			}
		}

		text, blocks := blockkit.Message(rec, now)
		check("message", text, blocks)
		render("message", rec)
		for _, m := range []slack.ModalViewRequest{blockkit.TextModal(rec), blockkit.ConfirmModal(rec), blockkit.OwnWordsModal(rec)} {
			check("modal "+m.CallbackID, "", m)
			if err := blockkit.ValidateView(m); err != nil {
				t.Fatalf("modal %s: %v", m.CallbackID, err)
			}
		}

		// The answers a person could have given, as the server records them.
		var answers []*inquiry.Answer
		for _, reply := range []inquiry.Reply{
			{Text: answer}, {Value: inquiry.One(value), Text: answer}, {Value: inquiry.One("other")},
			{Value: inquiry.Many(value, "other")}, {Value: inquiry.One("yes"), Text: answer}, {Declined: true, Text: answer},
		} {
			a, err := inquiry.CheckAnswer(&rec.Inquiry, reply)
			if err != nil {
				continue
			}
			a.AnsweredBy, a.Source, a.AnsweredAt = answeredBy, inquiry.SourcePerson, now
			answers = append(answers, &a)
		}
		def := inquiry.DefaultAnswerFor(&rec.Inquiry)
		def.Source = inquiry.SourceDefault
		expired := inquiry.DefaultAnswerFor(&rec.Inquiry)
		expired.Source = inquiry.SourceExpired
		answers = append(answers, &def, &expired)

		resolvedAt := now
		for _, a := range answers {
			r := *rec
			r.Status, r.Answer, r.ResolvedAt = inquiry.StatusAnswered, a, &resolvedAt
			if a.Source == inquiry.SourceExpired {
				r.Status = inquiry.StatusExpired
			}
			text, blocks := blockkit.Resolved(&r, now)
			check("resolved "+string(r.Status), text, blocks)
			render("resolved "+string(r.Status), &r)
			if a.Source == inquiry.SourceDefault {
				text, blocks := blockkit.Notice(&r)
				check("notice", text, blocks)
				if err := blockkit.Validate(blocks); err != nil {
					t.Fatalf("notice: %v", err)
				}
			}
		}
		for _, st := range []inquiry.Status{inquiry.StatusCancelled, inquiry.StatusFailed, inquiry.StatusExpired} {
			r := *rec
			r.Status, r.ResolvedAt = st, &resolvedAt
			if st == inquiry.StatusFailed {
				r.Failure = &inquiry.Failure{Code: inquiry.CodeUnavailable, Message: context + answer, Fatal: true}
			}
			text, blocks := blockkit.Resolved(&r, now)
			check("resolved "+string(st), text, blocks)
			render("resolved "+string(st), &r)
		}
	})
}
