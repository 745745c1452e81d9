package slackapp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// marks is text of the asker's (a label, a question) or of whoever answered (their words) that
// would format the bot's own words if it reached mrkdwn: bold, italic, strike and code. mrkdwn
// has no escape for them, so such text must only ever be in plain_text objects.
const marks = "*APPROVED* _by_ ~security~ `x`"

// marked finds any of marks' spans.
var marked = regexp.MustCompile("\\*APPROVED\\*|_by_|~security~|`x`")

// literalOnly requires of an ephemeral's blocks that each of want is shown, in a plain_text
// object with emoji codes off, and that no mrkdwn object holds any of want or a span of marks.
func literalOnly(t *testing.T, blocks json.RawMessage, want ...string) {
	t.Helper()
	require.NotEmpty(t, blocks, "the ephemeral has no blocks: its text is mrkdwn, where the asker's * _ ~ ` format the bot's words")
	var v any
	require.NoError(t, json.Unmarshal(blocks, &v))
	seen := map[string]bool{}
	walkText(v, "blocks", func(path, typ, text string, obj map[string]any) {
		switch typ {
		case "mrkdwn":
			if marked.MatchString(text) {
				t.Errorf("%s: text of the asker's or a person's formats in mrkdwn: %q", path, text)
			}
			for _, w := range want {
				if strings.Contains(text, w) {
					t.Errorf("%s: %q is in a mrkdwn object: %q", path, w, text)
				}
			}
		case "plain_text":
			for _, w := range want {
				if strings.Contains(text, w) {
					seen[w] = true
					if obj["emoji"] != false {
						t.Errorf("%s: %q with emoji codes on: %v", path, w, obj)
					}
				}
			}
		}
	})
	for _, w := range want {
		if !seen[w] {
			t.Errorf("%q is shown in no plain_text object of %s", w, blocks)
		}
	}
}

// walkText calls fn on every text object (an object with a type and a string text) under v.
func walkText(v any, path string, fn func(path, typ, text string, obj map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		typ, _ := x["type"].(string)
		if text, ok := x["text"].(string); ok && (typ == "mrkdwn" || typ == "plain_text") {
			fn(path, typ, text, x)
		}
		for k, e := range x {
			walkText(e, path+"."+k, fn)
		}
	case []any:
		for i, e := range x {
			walkText(e, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	}
}

// markedChoice is a choice whose first label holds marks.
func markedChoice(id string) inquiry.Inquiry {
	in := mergeQuestion(id)
	in.Options[0].Label = "Merge " + marks
	return in
}

// A vote's ephemerals quote the label voted for, and the one that decides quotes the decision:
// literal text, never mrkdwn. Before: "Your vote for Merge *APPROVED* _by_ … is in" was one
// mrkdwn text, so the label's marks made bold, italic and struck words of the bot's sentence.
func TestVoteEphemeralsQuoteLabelsLiterally(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		rec := b.ask(approvalOf(2, markedChoice("vote")), inquiry.SlackRef{})
		label := rec.Options[0].Label

		b.click("U0ALICE01", rec, label)
		e := b.ephemeral("U0ALICE01", 1)
		literalOnly(t, e.Blocks, label)
		require.Equal(t, "Your vote for “"+label+"” is in: 1 of 2 so far.", e.Text, "the notification text")

		b.click("U0BOB0001", rec, label)
		require.Equal(t, inquiry.StatusAnswered, b.resolved(rec.Key).Status)
		e = b.ephemeral("U0BOB0001", 1)
		literalOnly(t, e.Blocks, label)
		require.Equal(t, "Your vote is in, and it decided the question: "+label+".", e.Text)
	})
}

// A late click hears who answered and what: a name that is no Slack id (a token's), the label and
// the answer's words are all literal. Before: "already answered by ops_bot_x: Merge *APPROVED* …
// — “because *APPROVED* …”" was mrkdwn, the name's underscores and the label's and the words'
// marks formatting it.
func TestLateClickQuotesNameLabelAndWordsLiterally(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		in := markedChoice("late")
		in.AllowText = true
		rec := b.ask(in, inquiry.SlackRef{})
		label := rec.Options[0].Label
		late := b.clickPayload("U0ALICE01", rec, label) // the message as Alice saw it, buttons and all

		words := "because " + marks
		ops := inquiry.TokenHolder(&inquiry.Token{Name: "ops_bot_x", Scopes: []inquiry.Scope{inquiry.ScopeAnswer}})
		_, err := b.svc.Answer(b.ctx, rec.Key, inquiry.Reply{Value: inquiry.One("merge"), Text: words}, ops)
		require.NoError(t, err)
		require.Equal(t, "ops_bot_x", b.resolved(rec.Key).Answer.AnsweredBy)

		b.ok(b.fake.SendInteraction(late))
		e := b.ephemeral("U0ALICE01", 1)
		literalOnly(t, e.Blocks, "ops_bot_x", label, words)
		require.Equal(t, "already answered by “ops_bot_x”: "+label+" — “"+words+"”", e.Text)
	})
}

// A thread reply that is none of the offered answers hears the offered answers, each quoted
// literally. Before: the labels were listed in mrkdwn.
func TestNoneOfTheOfferedQuotesLabelsLiterally(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		rec := b.ask(markedChoice("none"), inquiry.SlackRef{})
		label := rec.Options[0].Label

		b.ok(b.fake.ReplyInThread("U0ALICE01", rec.Slack.Channel, rec.Slack.TS, "ship it _now_"))
		e := b.ephemeral("U0ALICE01", 1)
		literalOnly(t, e.Blocks, label)
		require.True(t, strings.HasPrefix(e.Text, "that is none of the offered answers: “"+label+"”, “Hold”."), e.Text)
		b.noAnswer(rec.Key)
	})
}

// The slash command lists the channel's questions with each question literal, and Slack takes
// its blocks. Before: each question was the text of a mrkdwn link.
func TestSlashCommandQuotesQuestionsLiterally(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		in := mergeQuestion("listed")
		in.Question = "Deploy? " + marks
		rec := b.ask(in, inquiry.SlackRef{})

		r := b.ok(b.fake.Command("U0ALICE01", rec.Slack.Channel, "/questions", ""))
		var got struct {
			ResponseType string          `json:"response_type"`
			Text         string          `json:"text"`
			Blocks       json.RawMessage `json:"blocks"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &got), "%s", r.Body)
		require.Equal(t, "ephemeral", got.ResponseType)
		literalOnly(t, got.Blocks, in.Question)
		require.Contains(t, string(got.Blocks), rec.Slack.Permalink, "each question links to its message")
		require.Contains(t, got.Text, "One question waits")
	})
}

// A saying's blocks stay what Slack takes whatever is quoted: more quotes than a context block
// has elements, text past a text object's limit, a blank quote; and text stored before the rule
// (or a person's words) shows its disguise as codes, in the blocks and the notification text.
func TestSayingStaysValidAndPrinted(t *testing.T) {
	b := setup(t)
	at := where{channel: "C0FAKE0001"}

	var many saying
	many.ours("only ")
	for i := range 12 {
		many.ours(", ")
		many.theirs(fmt.Sprintf("“name %d %s”", i, marks))
	}
	many.ours(" may answer.")
	b.app.tell(at, "U1", many)
	e := b.ephemeral("U1", 1) // the fake refuses blocks Slack refuses: then none would come
	literalOnly(t, e.Blocks, "name 0 "+marks, "name 11 "+marks)

	long := say("already answered by <@U0ALICE01>: ")
	long.theirs(strings.Repeat("w", 5000))
	long.theirs("  ")
	b.app.tell(at, "U1", long)
	e = b.ephemeral("U1", 2)
	var v any
	require.NoError(t, json.Unmarshal(e.Blocks, &v))
	var ours []string
	walkText(v, "blocks", func(_, typ, text string, _ map[string]any) {
		if typ == "mrkdwn" {
			ours = append(ours, text)
		}
	})
	require.Equal(t, []string{"already answered by <@U0ALICE01>:"}, ours, "the bot's words, the mention live")

	disguised := say("already answered by <@U0ALICE01>: ")
	disguised.theirs("Merge\u202e evil \u200b")
	b.app.tell(at, "U1", disguised)
	e = b.ephemeral("U1", 3)
	literalOnly(t, e.Blocks, "Merge⟨U+202E⟩ evil ⟨U+200B⟩")
	require.NotContains(t, string(e.Blocks)+e.Text, "\u202e")
	require.Equal(t, "already answered by <@U0ALICE01>: Merge⟨U+202E⟩ evil ⟨U+200B⟩", e.Text)
}

// A refusal names who may answer: Slack ids as mentions, and a name that is no Slack id quoted
// literally. Before: the name was escaped into the mrkdwn sentence, its marks formatting it.
func TestRefusalQuotesNamesLiterally(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		named := "ops_bot_*APPROVED*_~security~`x`" // a blank is refused in an answerer
		rec := b.ask(mergeQuestion("named"), inquiry.SlackRef{Answerers: []string{"U0ALICE01", named}})

		b.click("U0BOB0001", rec, "Merge")
		e := b.ephemeral("U0BOB0001", 1)
		literalOnly(t, e.Blocks, named)
		require.Equal(t, "only <@U0ALICE01>, “"+named+"” may answer this question; nothing was recorded.", e.Text)
		b.noAnswer(rec.Key)
	})
}
