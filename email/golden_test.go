package email_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/email"
	"github.com/inquiry-bot/bot/email/emailtest"
	"github.com/inquiry-bot/bot/inquiry"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current rendering")

// diff is a unified diff with every kind of line, and markup that must arrive as text.
const diff = `diff --git a/page.html b/page.html
index 3b18e51..a8c5e2f 100644
--- a/page.html
+++ b/page.html
@@ -1,3 +1,3 @@
 <main>
-<p>old</p>
+<script>alert("x")</script>
 </main>
`

// numbered is a diff of n added lines: past 40 a message shortens it.
func numbered(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/list\n+++ b/list\n@@ -0,0 +1,%d @@\n", n)
	for i := 1; i <= n-3; i++ {
		fmt.Fprintf(&b, "+line %d\n", i)
	}
	return b.String()
}

// answered is rec approved by Alice on the page with content as the approved version.
func answered(rec *inquiry.Record, content string) *inquiry.Record {
	rec.Status = inquiry.StatusAnswered
	rec.Answer = &inquiry.Answer{Value: inquiry.One("yes"), AnsweredBy: "link:alice@example.com", Source: inquiry.SourcePerson,
		AnsweredAt: now, Via: inquiry.ViaWeb, Content: content, Edited: content != rec.Proposal.Content}
	return rec
}

// outcomeMailed mails the outcome of rec through a new transport and returns the one message.
func outcomeMailed(t *testing.T, rec *inquiry.Record) emailtest.Message {
	t.Helper()
	ms := start(t, false)
	tr := email.New(config(t, ms, emailtest.Password), &links{}, quiet, func() time.Time { return now })
	require.NoError(t, tr.Update(context.Background(), rec))
	got := ms.Messages()
	require.Len(t, got, 1)
	return got[0]
}

// TestGolden: the plain and the HTML part of the question and the outcome mails with a
// proposal, byte for byte. The HTML part colours a diff by line with inline styles (mail clients
// drop a <style> block) and escapes it; the plain part quotes it as it is. The outcome of an
// approved edit shows the version approved, and past the excerpt's bounds says so and links to
// the page. Run with -update to rewrite testdata after a deliberate change, and read the diff.
func TestGolden(t *testing.T) {
	editable := func(content string) *inquiry.Record {
		return withProposal(inquiry.Proposal{Format: inquiry.FormatDiff, Title: "PR <42>", Content: content, Editable: true})
	}
	for _, c := range []struct {
		name string
		mail func(t *testing.T) emailtest.Message
	}{
		{"question_diff", func(t *testing.T) emailtest.Message { return mailed(t, editable(diff)) }},
		{"question_diff_41_lines", func(t *testing.T) emailtest.Message { return mailed(t, editable(numbered(41))) }},
		{"question_text", func(t *testing.T) emailtest.Message {
			return mailed(t, withProposal(inquiry.Proposal{Content: "+not a diff\n-<b>kept as text</b>\n"}))
		}},
		{"outcome_edited", func(t *testing.T) emailtest.Message {
			return outcomeMailed(t, answered(editable(diff), strings.Replace(diff, `<script>alert("x")</script>`, "<p>new</p>", 1)))
		}},
		{"outcome_edited_40_lines", func(t *testing.T) emailtest.Message {
			return outcomeMailed(t, answered(editable(diff), numbered(40)))
		}},
		{"outcome_edited_41_lines", func(t *testing.T) emailtest.Message {
			return outcomeMailed(t, answered(editable(diff), numbered(41)))
		}},
		{"outcome_not_edited", func(t *testing.T) emailtest.Message { return outcomeMailed(t, answered(editable(diff), diff)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := c.mail(t)
			golden(t, c.name+".txt", m.Text)
			golden(t, c.name+".html", m.HTML)
		})
	}
}

// golden compares got with testdata/name.golden, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./email -run TestGolden -update to write it")
	require.Equal(t, string(want), got, "%s differs from what is rendered now", path)
}
