package blockkit_test

import (
	"fmt"
	"time"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/slack-go/slack"
)

func ExampleEscape() {
	fmt.Println(blockkit.Escape("<!channel> hi <@U123> <https://evil|click> & stuff"))
	// Output: &lt;!channel&gt; hi &lt;@U123&gt; &lt;https://evil|click&gt; &amp; stuff
}

func ExampleMention() {
	for _, who := range []string{"U024BE7LH", "S0DEPLOYERS1", "ops-cli", "<!here>"} {
		fmt.Println(blockkit.Mention(who))
	}
	// Output:
	// <@U024BE7LH>
	// <!subteam^S0DEPLOYERS1>
	// ops-cli
	// &lt;!here&gt;
}

func ExampleParseBlockID() {
	key, ok := blockkit.ParseBlockID("inq|inq_abcdefghijklmnop|q-act")
	fmt.Println(key, ok)
	_, ok = blockkit.ParseBlockID("x5guW") // a block of some other app
	fmt.Println(ok)
	// Output:
	// inq_abcdefghijklmnop true
	// false
}

func ExampleValidateJSON() {
	err := blockkit.ValidateJSON([]byte(`[{"type": "actions", "elements": [
		{"type": "button", "action_id": "go", "text": {"type": "plain_text", "text": "` +
		"A label far too long for a button, which Slack cuts at seventy-five characters" + `"}}]}]`))
	fmt.Println(err)
	// Output: blocks[0].elements[0].text: 78 characters, limit 75
}

func ExampleMessage() {
	expires := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)
	rec := &inquiry.Record{
		Key: "inq_abcdefghijklmnop",
		Inquiry: inquiry.Inquiry{
			ID: "deploy-42:merge", RunID: "deploy-42", Kind: inquiry.KindChoice,
			Question: "Merge now?",
			Options:  []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}},
			Default:  inquiry.One("hold"), ExpiresAt: &expires,
		},
		Status: inquiry.StatusPending,
	}
	text, blocks := blockkit.Message(rec, time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	fmt.Println(text)
	for _, b := range blocks {
		fmt.Println(b.BlockType(), b.ID())
	}
	// The asker's words (the run id, the default) are plain_text of their own, quoted; the bot's
	// are mrkdwn.
	meta := blocks[len(blocks)-1].(*slack.ContextBlock)
	for _, e := range meta.ContextElements.Elements {
		o := e.(*slack.TextBlockObject)
		fmt.Println(o.Type + ": " + o.Text)
	}
	// Output:
	// Question: Merge now?
	// section inq|inq_abcdefghijklmnop|q-q0
	// actions inq|inq_abcdefghijklmnop|q-act
	// context inq|inq_abcdefghijklmnop|q-meta
	// plain_text: run “deploy-42”
	// mrkdwn: · expires in 2h (<!date^1796133600^{date_short_pretty} at {time}|14:00 UTC>) · if nobody answers:
	// plain_text: “Hold”
	// mrkdwn: Anyone here may answer. You can also answer by replying in this thread.
}

func ExampleReadAction() {
	// What slack-go hands the handler for a click on the "Merge" button.
	ic := slack.InteractionCallback{Type: slack.InteractionTypeBlockActions}
	action := &slack.BlockAction{ActionID: "inq:choose:0", BlockID: "inq|inq_abcdefghijklmnop|q-act", Value: "merge"}
	key, reply, ok := blockkit.ReadAction(ic, action)
	fmt.Println(key, reply.Value, ok)
	// Output: inq_abcdefghijklmnop merge true
}

func ExampleWho() {
	fmt.Println(blockkit.Who("U024BE7LH"))
	fmt.Println(blockkit.Who("S0DEPLOYERS1")) // a group never answers: no group mention
	fmt.Println(blockkit.Who("ops-cli"))
	fmt.Println(blockkit.Who("link:a_b*c@example.com")) // no mrkdwn formats inside code
	// Output:
	// <@U024BE7LH>
	// `S0DEPLOYERS1`
	// `ops-cli`
	// `link:a_b*c@example.com`
}
