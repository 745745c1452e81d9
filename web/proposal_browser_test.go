package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// bigDiff is a unified diff of exactly n bytes whose lines are of every kind, one of them a
// <script> element that must show as text.
func bigDiff(n int) string {
	var b strings.Builder
	b.WriteString("diff --git a/page.html b/page.html\n--- a/page.html\n+++ b/page.html\n")
	b.WriteString("@@ -1,3 +1,3 @@\n-<p>old</p>\n+<script>document.title=\"pwned\"</script>\n <p>same</p>\n")
	for i := 0; b.Len() < n; i++ {
		line := fmt.Sprintf("@@ -%d,2 +%d,2 @@\n-removed line %d\n+added line %d\n context line %d\n", i, i, i, i, i)
		if b.Len()+len(line) > n {
			line = " " + strings.Repeat("x", n-b.Len()-2) + "\n"
		}
		b.WriteString(line)
	}
	return b.String()
}

// viewport saves a screenshot of what the tab's viewport shows as name.png among the artefacts.
func viewport(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv(ArtefactsEnv)
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	path := filepath.Join(dir, name+".png")
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot %s", path)
}

// TestBrowserProposal drives the proposal in Chromium: a 256 KiB diff shown whole, coloured by
// line and escaped; an edit larger than Slack's input limit, with a line added, made in the
// textarea and approved through the confirmation, recorded as edited with the content byte for
// byte.
func TestBrowserProposal(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		bctx := browser(t)
		axe := axeScript(t)
		db := "sqlite"
		if strings.HasPrefix(dbURL, "postgres") {
			db = "postgres"
		}

		t.Run("a 256 KiB diff shown whole", func(t *testing.T) {
			diff := bigDiff(inquiry.MaxProposalBytes)
			require.Len(t, diff, inquiry.MaxProposalBytes)
			q := b.askWith(map[string]any{"kind": "confirm", "question": "Merge pull request #7?",
				"proposal": map[string]any{"format": "diff", "title": "<b>PR #7</b>", "content": diff}})
			// axe-core checks every one of the diff's 33,000 lines (their contrast above all): a
			// tab of its own with room for that on a slow machine.
			ctx, cancel := chromedp.NewContext(bctx)
			ctx, cancelTime := context.WithTimeout(ctx, 5*time.Minute)
			t.Cleanup(func() { cancelTime(); cancel() })
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.abs(q.Links.Answer)), chromedp.WaitVisible(chromedp.CSS("#proposal"))))
			shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("proposal").textContent`))
			require.NoError(t, err)
			require.Equal(t, diff, shown, "the diff whole, byte for byte, as text")
			require.Equal(t, "<b>PR #7</b>", text(t, ctx, "#proposal-title"))
			title, err := chromedp.Run(ctx, chromedp.Title())
			require.NoError(t, err)
			require.NotEqual(t, "pwned", title)
			elems, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.scripts.length + document.querySelectorAll("#proposal b, #proposal-title b, #proposal p").length`))
			require.NoError(t, err)
			require.Zero(t, elems, "no element came from the diff or its title")
			classes, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#proposal span")].slice(0, 8).map(s => s.className)`))
			require.NoError(t, err)
			require.Equal(t, []string{"meta", "file", "file", "hunk", "del", "add", "ctx", "hunk"}, classes)
			// The colours are the stylesheet's, applied under the page's CSP.
			bg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("#proposal .add")).backgroundColor + " " + getComputedStyle(document.querySelector("#proposal .del")).backgroundColor`))
			require.NoError(t, err)
			require.Equal(t, "rgb(218, 251, 225) rgb(255, 235, 233)", bg)
			editable, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#content").length`))
			require.NoError(t, err)
			require.Zero(t, editable, "no textarea for a proposal that is not editable")
			// The page is the same whatever the database: checked once, on the first.
			if db == "sqlite" {
				began := time.Now()
				requireAxeClean(t, ctx, axe)
				t.Logf("axe-core checked the page in %s", time.Since(began).Round(time.Second))
			}
			// The page is past what a full screenshot takes: the viewport at the diff's start.
			require.NoError(t, chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS("#proposal-title"))))
			viewport(t, ctx, db+"-9-proposal-diff")
		})

		t.Run("an edit larger than Slack's input approved on the page", func(t *testing.T) {
			// Slack's plain-text input takes 3,000 characters; this one is past it, in several
			// scripts, with a blank first line the textarea must keep.
			var doc strings.Builder
			doc.WriteString("\n")
			for i := 0; doc.Len() < 5000; i++ {
				fmt.Fprintf(&doc, "Line %d: déploiement — 配置 <tag> & \"quotes\"\n", i)
			}
			proposed := doc.String()
			q := b.askWith(map[string]any{"kind": "confirm", "question": "Send this announcement?",
				"proposal": map[string]any{"format": "markdown", "title": "Announcement", "content": proposed, "editable": true}})
			ctx := tab(t, bctx)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.abs(q.Links.Answer)), chromedp.WaitVisible(chromedp.CSS("#content"))))
			prefilled, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#content")))
			require.NoError(t, err)
			require.Equal(t, proposed, prefilled, "the textarea holds the proposal whole")
			requireAxeClean(t, ctx, axe)

			// The person types at the end of the text, as a person does.
			want := proposed + "Signed: the release team.\n"
			require.Greater(t, len([]rune(want)), 3000)
			_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(t => { t.focus(); t.setSelectionRange(t.value.length, t.value.length); return true })(document.getElementById("content"))`))
			require.NoError(t, err)
			require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("Signed: the release team.\n")))
			typed, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#content")))
			require.NoError(t, err)
			require.Equal(t, want, typed)
			shot(t, ctx, db+"-10-proposal-edit")

			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#option-0")), chromedp.WaitVisible(chromedp.CSS("#send-what"))))
			require.Equal(t, "Send: Yes, with your edited version below?", text(t, ctx, "#send-what"))
			onConfirm, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("proposal").textContent`))
			require.NoError(t, err)
			require.Equal(t, want, onConfirm, "the confirmation shows the edit")
			require.Equal(t, "pending", b.get(q.Key).Status, "the confirmation sends nothing")
			requireAxeClean(t, ctx, axe)
			shot(t, ctx, db+"-11-proposal-confirm")

			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#send")), chromedp.WaitVisible(chromedp.CSS("#heading"))))
			require.Equal(t, "Sent", text(t, ctx, "#heading"))
			got := b.get(q.Key)
			require.Equal(t, "answered", got.Status)
			require.Equal(t, "yes", got.Answer.Value.First())
			require.True(t, got.Answer.Edited)
			require.Equal(t, want, got.Answer.Content, "the edit byte for byte: LF line endings as proposed, though the browser posts CRLF")
		})

		t.Run("a typed edit survives Take back; the settled page shows both versions", func(t *testing.T) {
			proposed := "--- a/deploy.yaml\n+++ b/deploy.yaml\n@@ -1,2 +1,2 @@\n-replicas: 2\n+replicas: 3\n image: web:1.4\n"
			q := b.askWith(map[string]any{"kind": "confirm", "question": "Apply this change?",
				"proposal": map[string]any{"format": "diff", "title": "deploy.yaml", "content": proposed, "editable": true}})
			ctx := tab(t, bctx)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.abs(q.Links.Answer)), chromedp.WaitVisible(chromedp.CSS("#content"))))
			// The person types a line at the end, reviews, and takes the answer back.
			const added = "+timeout: 30s <b>&amp;</b>\n"
			_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(t => { t.focus(); t.setSelectionRange(t.value.length, t.value.length); return true })(document.getElementById("content"))`))
			require.NoError(t, err)
			require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(added)))
			want := proposed + added
			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#option-0")), chromedp.WaitVisible(chromedp.CSS("#take-back"))))
			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#take-back")), chromedp.WaitVisible(chromedp.CSS("#content"))))
			back, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#content")))
			require.NoError(t, err)
			require.Equal(t, want, back, "the textarea holds the edit typed before Take back")
			where, err := chromedp.Run(ctx, chromedp.Location())
			require.NoError(t, err)
			require.Equal(t, b.abs(q.Links.Answer), where, "the edit went in the form, not the URL")
			require.Equal(t, "pending", b.get(q.Key).Status, "Take back sends nothing")
			requireAxeClean(t, ctx, axe)
			shot(t, ctx, db+"-12-proposal-taken-back")

			// Sent this time: the link then shows the outcome, what was proposed and the version
			// approved, each whole.
			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#option-0")), chromedp.WaitVisible(chromedp.CSS("#send")),
				chromedp.Click(chromedp.CSS("#send")), chromedp.WaitVisible(chromedp.CSS("#heading"))))
			got := b.get(q.Key)
			require.True(t, got.Answer.Edited)
			require.Equal(t, want, got.Answer.Content)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.abs(q.Links.Answer)), chromedp.WaitVisible(chromedp.CSS("#approved"))))
			require.Equal(t, "Already answered", text(t, ctx, "#heading"))
			for id, content := range map[string]string{"proposal": proposed, "approved": want} {
				shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("`+id+`").textContent`))
				require.NoError(t, err)
				require.Equal(t, content, shown, "#%s whole, as text", id)
			}
			require.Contains(t, text(t, ctx, "#approved-from"), "Approved with an edit")
			elems, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("form, textarea, #approved b").length`))
			require.NoError(t, err)
			require.Zero(t, elems, "nothing left to fill in, and the edit's markup shown as text")
			requireAxeClean(t, ctx, axe)
			shot(t, ctx, db+"-13-proposal-settled")
		})
	})
}
