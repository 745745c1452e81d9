package slackapp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// TestThreadReplyChoosesSeveral: a thread reply to a multiple choice names its answers separated
// by commas, as bot answer does (inquiry.ReplyOf); a list with a part that is no answer chooses
// nothing.
func TestThreadReplyChoosesSeveral(t *testing.T) {
	b := setup(t)
	in := inquiry.Inquiry{ID: "envs-thread", Kind: inquiry.KindChoice, Multiple: true, Question: "Deploy where?",
		Options: []inquiry.Option{{Value: "staging", Label: "Staging"}, {Value: "prod-eu", Label: "Prod EU"}, {Value: "prod-us", Label: "Prod US"}}}
	rec := b.ask(in, inquiry.SlackRef{})
	ch, ts := rec.Slack.Channel, rec.Slack.TS

	b.ok(b.fake.ReplyInThread("U0ALICE01", ch, ts, "staging, prod moon"))
	b.ephemeral("U0ALICE01", 1)
	b.noAnswer(rec.Key)

	b.ok(b.fake.ReplyInThread("U0ALICE01", ch, ts, "Staging, prod-us"))
	got := b.resolved(rec.Key)
	require.Equal(t, []string{"staging", "prod-us"}, got.Answer.Value.Strings())
}

// TestOwnWordsModalReadsAsAThreadReply: words typed in the own-words modal are read the one way
// typed words are (inquiry.ReplyOf), so "Staging, prod-us" chooses both answers there too.
func TestOwnWordsModalReadsAsAThreadReply(t *testing.T) {
	b := setup(t)
	in := inquiry.Inquiry{ID: "envs-modal", Kind: inquiry.KindChoice, Multiple: true, AllowText: true, Question: "Deploy where?",
		Options: []inquiry.Option{{Value: "staging", Label: "Staging"}, {Value: "prod-eu", Label: "Prod EU"}, {Value: "prod-us", Label: "Prod US"}}}
	rec := b.ask(in, inquiry.SlackRef{})

	b.ok(b.fake.SendInteraction(submission("U0ALICE01", blockkit.CallbackOwnWords, rec.Key, textValue("Staging, prod-us"))))
	got := b.resolved(rec.Key)
	require.Equal(t, []string{"staging", "prod-us"}, got.Answer.Value.Strings())
}
