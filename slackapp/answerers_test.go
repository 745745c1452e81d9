package slackapp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// The Slack edge defers to the service's rule of who may answer (inquiry.MayAnswer): a
// requested_by entry spelled otherwise than Slack spells the user — blanks around it, another
// case, full-width letters, the channel's prefix — still names them (before: compared raw, each
// of these let the author approve their own request).
func TestRequesterSpelledOtherwiseRefused(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		for i, spelling := range []string{" u0author1 ", "Ｕ０ＡＵＴＨＯＲ１", "slack:U0AUTHOR1"} {
			in := approvalOf(2, deployConfirm("deploy-spelled-"+string(rune('a'+i))))
			in.RequestedBy = []string{spelling}
			rec := b.ask(in, inquiry.SlackRef{})
			const refused = "You asked for this approval: someone else must give it."
			b.click("U0AUTHOR1", rec, "Yes")
			require.Equal(t, refused, b.ephemeral("U0AUTHOR1", 2*i+1).Text, spelling)
			b.ok(b.fake.ReplyInThread("U0AUTHOR1", rec.Slack.Channel, rec.Slack.TS, "yes"))
			require.Equal(t, refused, b.ephemeral("U0AUTHOR1", 2*i+2).Text, spelling)
			got := b.get(rec.Key)
			require.Equal(t, inquiry.StatusPending, got.Status, spelling)
		}
	})
}
