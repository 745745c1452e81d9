package blockkit_test

import (
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

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
