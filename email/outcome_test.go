package email_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/channeltest"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// TestOutcomeLinksToTheWholeApprovedEdit: on the real service, a person approves on the page an
// edit longer than a mail shows; the outcome mail says it is shortened and gives the recipient a
// link that opens the page of the settled question, which shows the approved version whole and
// answers nothing. An edit within the bounds is shown whole, and the mail carries no link.
func TestOutcomeLinksToTheWholeApprovedEdit(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		h := newMailHarness(t, databaseURL)
		proposed := "--- a/list\n+++ b/list\n@@ -1 +1 @@\n-one\n+two\n"
		for _, c := range []struct {
			name  string
			lines int
			cut   bool
		}{{"within", 40, false}, {"past", 60, true}} {
			t.Run(c.name, func(t *testing.T) {
				var b strings.Builder
				b.WriteString(proposed)
				for i := 6; i <= c.lines; i++ {
					b.WriteString("+<b>added</b> line " + strings.Repeat("x", i%7) + "\n")
				}
				edit := b.String()
				rec := h.Ask(t, inquiry.Inquiry{ID: "edited-" + c.name, Kind: inquiry.KindConfirm, Question: "Apply it?", Default: inquiry.One("no"),
					Proposal: &inquiry.Proposal{Format: inquiry.FormatDiff, Content: proposed, Editable: true}}, channeltest.Alice)
				link := h.link(rec.Key, mailPeople[channeltest.Alice])
				_, body := page(t, link)
				form := url.Values{"step": {"send"}, "value": {"yes"}, "content": {edit}}
				for _, m := range hiddenRe.FindAllStringSubmatch(body, -1) {
					form.Set(m[1], m[2])
				}
				status, sent := h.send(t, link, form.Encode())
				require.Equal(t, http.StatusOK, status, sent)

				testkit.Eventually(t, channeltest.Within, "the outcome mailed", func() bool { return len(h.mails(rec.Key, "outcome")) == 1 })
				m := h.mails(rec.Key, "outcome")[0]
				require.Contains(t, m.Text, "Approved with an edit")
				outcomeLink := linkRe.FindString(m.Text)
				if !c.cut {
					require.Empty(t, outcomeLink, "an edit shown whole needs no link")
					require.Contains(t, m.Text, "> +<b>added</b> line")
					require.NotContains(t, m.Text, "Shortened")
					return
				}
				require.Contains(t, m.Text, "(diff, the first 40 of its 60 lines)")
				require.NotEmpty(t, outcomeLink, "a shortened edit links to the page:\n%s", m.Text)
				require.Contains(t, m.HTML, `href="`+outcomeLink+`"`)
				status, shown := page(t, outcomeLink)
				require.Equal(t, http.StatusOK, status)
				require.Contains(t, shown, "Already answered")
				require.Contains(t, shown, `id="approved"`)
				require.Contains(t, html.UnescapeString(shown), "<b>added</b> line "+strings.Repeat("x", 60%7)+"\n</span></pre>", "the approved version whole, to its last line")
				require.NotContains(t, shown, "<form", "the page of a settled question answers nothing")

				// Only a recipient the question mailed is given a page link.
				settled, err := h.svc.Get(t.Context(), rec.Key)
				require.NoError(t, err)
				_, err = h.svc.PageLink(t.Context(), settled, mailPeople[channeltest.Carol])
				require.Equal(t, inquiry.CodeForbidden, inquiry.ErrorCode(err), "%v", err)
				require.Contains(t, inquiry.ErrorMessage(err), "not among the recipients")
			})
		}
	})
}
