package web_test

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestProposalEdits posts the answer page's form as a browser does (lines ended by CRLF) and
// checks what the answer records.
func TestProposalEdits(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		ask := func(content string) inquiryView {
			return b.askWith(map[string]any{"kind": "confirm", "question": "Apply?", "reason": "on_no",
				"proposal": map[string]any{"format": "text", "content": content, "editable": true}})
		}
		crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
		// answer confirms then sends value with content as the browser posts it, and returns the
		// inquiry.
		answer := func(q inquiryView, value, content string, extra ...string) inquiryView {
			t.Helper()
			form := formOf(t, b.open(q.Links.Answer))
			p := b.post(q.Links.Answer, with(form, append([]string{"step", "confirm", "value", value, "content", crlf(content)}, extra...)...))
			require.Equal(t, http.StatusOK, p.status, p.body)
			p = b.post(q.Links.Answer, with(form, append([]string{"step", "send", "value", value, "content", crlf(content)}, extra...)...))
			require.Equal(t, http.StatusOK, p.status, p.body)
			return b.get(q.Key)
		}

		t.Run("an edit ends its lines as the proposal does", func(t *testing.T) {
			got := answer(ask("a\nb\n"), "yes", "a\nB\n")
			require.True(t, got.Answer.Edited)
			require.Equal(t, "a\nB\n", got.Answer.Content)

			got = answer(ask("a\r\nb\r\n"), "yes", "a\nB\n")
			require.True(t, got.Answer.Edited)
			require.Equal(t, "a\r\nB\r\n", got.Answer.Content, "a proposal of CRLF lines keeps them")
		})

		t.Run("only line endings differ: no edit", func(t *testing.T) {
			got := answer(ask("a\nb\n"), "yes", "a\nb\n")
			require.Equal(t, "answered", got.Status)
			require.False(t, got.Answer.Edited)
			require.Empty(t, got.Answer.Content)
		})

		t.Run("a no with the textarea untouched", func(t *testing.T) {
			got := answer(ask("a\nb\n"), "no", "a\nb\n", "text", "not now")
			require.Equal(t, "no", got.Answer.Value.First())
			require.False(t, got.Answer.Edited)
		})

		t.Run("a no with an edit is refused and the edit kept", func(t *testing.T) {
			q := ask("a\nb\n")
			form := formOf(t, b.open(q.Links.Answer))
			p := b.post(q.Links.Answer, with(form, "step", "confirm", "value", "no", "text", "later", "content", crlf("a\n<b>edited</b>\n")))
			require.Equal(t, http.StatusUnprocessableEntity, p.status)
			require.Contains(t, html.UnescapeString(p.body), `an edited proposal is approved with "yes"`)
			require.Contains(t, p.body, ">\na\n&lt;b&gt;edited&lt;/b&gt;\n</textarea>", "the edit shown again, escaped")
			require.Equal(t, "pending", b.get(q.Key).Status)
		})

		t.Run("an edit over 256 KiB is refused with a sentence", func(t *testing.T) {
			q := ask("a\n")
			form := formOf(t, b.open(q.Links.Answer))
			p := b.post(q.Links.Answer, with(form, "step", "confirm", "value", "yes", "content", strings.Repeat("é", inquiry.MaxProposalBytes/2+1)))
			require.Equal(t, http.StatusUnprocessableEntity, p.status)
			require.Contains(t, p.body, "content is 262146 bytes but may have at most 262144 (256 KiB)")
		})

		t.Run("not editable: no textarea, json shown as given", func(t *testing.T) {
			doc := "{\n  \"replicas\": 3,\n  \"image\": \"<app>\"\n}"
			q := b.askWith(map[string]any{"kind": "confirm", "question": "Apply?",
				"proposal": map[string]any{"format": "json", "content": doc}})
			p := b.open(q.Links.Answer)
			require.NotContains(t, p.body, "<textarea id=\"content\"")
			require.Contains(t, p.body, `<pre id="proposal" class="json"><span>{
</span><span>  &#34;replicas&#34;: 3,
</span><span>  &#34;image&#34;: &#34;&lt;app&gt;&#34;
</span><span>}
</span></pre>`)
			require.Contains(t, p.body, "The proposal</h2>", "without a title, a heading of the page's")
		})
	})
}
