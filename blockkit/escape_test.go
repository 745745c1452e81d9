package blockkit_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

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

// TestEscapedTextSurvives checks that escaping hides nothing: the question reads back whole.
func TestEscapedTextSurvives(t *testing.T) {
	t.Parallel()
	rec := hostile(record(inquiry.KindText))
	_, blocks := blockkit.Message(rec, now)
	got := sectionText(t, blocks, "q-q")
	if want := blockkit.Escape(hostileText); got != want {
		t.Errorf("question renders as %q, want %q", got, want)
	}
	if strings.Contains(got, "<") {
		t.Errorf("question has a raw '<': %q", got)
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
