package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// TestAskProposalFromFlags: --proposal reads the file whole, its format from --format or the
// file's extension, and the proposal is part of the derived id; a file past 256 KiB, a missing
// file, and the proposal's flags without --proposal are usage errors that say so.
func TestAskProposalFromFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	parse := func(args ...string) (client.AskRequest, error) {
		var f askFlags
		fs := flag.NewFlagSet("ask", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.register(fs)
		if err := fs.Parse(append([]string{"--confirm", "--question", "Merge #42?", "--id", "merge-42"}, args...)); err != nil {
			t.Fatal(err)
		}
		return f.request()
	}
	diff := "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n"
	pr := write("pr.diff", diff)
	req, err := parse("--proposal", pr, "--editable")
	if err != nil {
		t.Fatal(err)
	}
	if p := req.Proposal; p == nil || p.Content != diff || p.Format != inquiry.FormatDiff || p.Title != "pr.diff" || !p.Editable {
		t.Fatalf("proposal = %+v", req.Proposal)
	}
	req, err = parse("--proposal", pr, "--format", "text", "--proposal-title", "PR #42")
	if err != nil || req.Proposal.Format != inquiry.FormatText || req.Proposal.Title != "PR #42" || req.Proposal.Editable {
		t.Fatalf("--format text --proposal-title: %+v, %v", req.Proposal, err)
	}
	for name, want := range map[string]inquiry.ProposalFormat{"a.json": inquiry.FormatJSON, "b.md": inquiry.FormatMarkdown, "c.patch": inquiry.FormatDiff, "d.sql": inquiry.FormatText} {
		if req, err := parse("--proposal", write(name, "{}")); err != nil || req.Proposal.Format != want {
			t.Errorf("%s: %+v, %v; want format %s", name, req.Proposal, err, want)
		}
	}

	// Without --id, two proposals are two questions.
	idOf := func(path string) string {
		var f askFlags
		fs := flag.NewFlagSet("ask", flag.ContinueOnError)
		f.register(fs)
		if err := fs.Parse([]string{"--confirm", "--question", "Merge?", "--proposal", path}); err != nil {
			t.Fatal(err)
		}
		req, err := f.request()
		if err != nil {
			t.Fatal(err)
		}
		return req.ID[:strings.LastIndex(req.ID, ":")]
	}
	if a, b := idOf(write("a.txt", "one")), idOf(write("b.txt", "two")); a == b {
		t.Errorf("two proposals share the derived id %s", a)
	}

	for name, c := range map[string]struct {
		args []string
		says string
	}{
		"too large":   {[]string{"--proposal", write("big.diff", strings.Repeat("x", inquiry.MaxProposalBytes+1))}, "larger than 262144 bytes (256 KiB)"},
		"no file":     {[]string{"--proposal", filepath.Join(dir, "nothere.diff")}, "cannot be read"},
		"no proposal": {[]string{"--editable"}, "give its file with --proposal FILE"},
	} {
		if _, err := parse(c.args...); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want it to say %q", name, err, c.says)
		}
	}
	if _, err := parse("--proposal", write("max.txt", strings.Repeat("x", inquiry.MaxProposalBytes))); err != nil {
		t.Errorf("a file of exactly 256 KiB: %v", err)
	}
}
