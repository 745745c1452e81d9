package inquiry_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/inquiry"
)

// proposed is a confirm that proposes p.
func proposed(p *inquiry.Proposal) *inquiry.Inquiry {
	return &inquiry.Inquiry{ID: "deploy-42:merge", Kind: inquiry.KindConfirm, Question: "Merge this?", Proposal: p}
}

func TestValidateProposal(t *testing.T) {
	for _, f := range []inquiry.ProposalFormat{"", inquiry.FormatText, inquiry.FormatMarkdown, inquiry.FormatDiff, inquiry.FormatJSON} {
		in := proposed(&inquiry.Proposal{Format: f, Content: `{"a": [1, 2]}`, Title: "PR #42", Editable: true})
		if err := inquiry.Validate(in, pureNow); err != nil {
			t.Fatalf("format %q: %v", f, err)
		}
	}
	whole := strings.Repeat("x", inquiry.MaxProposalBytes)
	if err := inquiry.Validate(proposed(&inquiry.Proposal{Content: whole}), pureNow); err != nil {
		t.Fatalf("a proposal of exactly 256 KiB: %v", err)
	}
	two := 2
	for name, c := range map[string]struct {
		in          *inquiry.Inquiry
		field, says string
	}{
		"over 256 KiB":    {proposed(&inquiry.Proposal{Content: whole + "y"}), "proposal.content", "is 262145 bytes but may have at most 262144 (256 KiB)"},
		"unknown format":  {proposed(&inquiry.Proposal{Format: "html", Content: "x"}), "proposal.format", `"html" is not one of text, markdown, diff or json`},
		"invalid UTF-8":   {proposed(&inquiry.Proposal{Content: "a\xffb"}), "proposal.content", "not valid UTF-8"},
		"NUL":             {proposed(&inquiry.Proposal{Content: "a\nb\x00"}), "proposal.content", "NUL character at line 2, column 2"},
		"empty content":   {proposed(&inquiry.Proposal{Content: " \n"}), "proposal.content", "is empty"},
		"json not parsed": {proposed(&inquiry.Proposal{Format: inquiry.FormatJSON, Content: "{\n  \"a\": 1,\n}"}), "proposal.content", "at line 3, column 1"},
		"json trailing":   {proposed(&inquiry.Proposal{Format: inquiry.FormatJSON, Content: "{} {}"}), "proposal.content", "more follows the document at line 1, column 4"},
		"json cut short":  {proposed(&inquiry.Proposal{Format: inquiry.FormatJSON, Content: `{"a": `}), "proposal.content", "ends before the document does"},
		"title too long":  {proposed(&inquiry.Proposal{Content: "x", Title: strings.Repeat("é", inquiry.MaxProposalTitleChars+1)}), "proposal.title", "201 characters long but may have at most 200"},
		"title two lines": {proposed(&inquiry.Proposal{Content: "x", Title: "a\nb"}), "proposal.title", "line break"},
		"editable text": {&inquiry.Inquiry{ID: "q", Kind: inquiry.KindText, Question: "Q?",
			Proposal: &inquiry.Proposal{Content: "x", Editable: true}}, "proposal.editable", "not a text question"},
		"editable quorum": {&inquiry.Inquiry{ID: "q", Kind: inquiry.KindConfirm, Question: "Q?", Approval: inquiry.Approval{Approvals: &two},
			Proposal: &inquiry.Proposal{Content: "x", Editable: true}}, "proposal.editable", "approvals asks for 2"},
	} {
		err := inquiry.Validate(c.in, pureNow)
		var e *inquiry.Error
		if !asError(err, &e) || e.Code != inquiry.CodeInvalidInquiry || e.Field != c.field || !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: got %v, want %s saying %q", name, err, c.field, c.says)
		}
	}
}

// TestProposalInID: two different proposals are two questions, and a proposal without a format
// is the text one.
func TestProposalInID(t *testing.T) {
	id := func(p *inquiry.Proposal) string {
		in := proposed(p)
		in.ID = ""
		inquiry.DeriveID(in)
		return in.ID
	}
	bare, a, b := id(nil), id(&inquiry.Proposal{Content: "a"}), id(&inquiry.Proposal{Content: "b"})
	if a == b || a == bare || b == bare {
		t.Fatalf("ids %q (none), %q (a), %q (b): want three", bare, a, b)
	}
	if got := id(&inquiry.Proposal{Format: inquiry.FormatText, Content: "a"}); got != a {
		t.Fatalf("format text spelt out: %q, want %q", got, a)
	}
	if got := id(&inquiry.Proposal{Format: inquiry.FormatDiff, Content: "a"}); got == a {
		t.Fatalf("a diff and a text of the same content share the id %q", got)
	}
}

func TestCheckAnswerEdit(t *testing.T) {
	in := proposed(&inquiry.Proposal{Format: inquiry.FormatJSON, Content: `{"n": 1}`, Editable: true})
	in.Reason = inquiry.ReasonOnNo
	a, err := inquiry.CheckAnswer(in, inquiry.Reply{Value: inquiry.One("yes"), Content: `{"n": 2}`})
	if err != nil || !a.Edited || a.Content != `{"n": 2}` || a.Value.First() != "yes" {
		t.Fatalf("an edit approved: %+v, %v", a, err)
	}
	a, err = inquiry.CheckAnswer(in, inquiry.Reply{Value: inquiry.One("yes"), Content: `{"n": 1}`})
	if err != nil || a.Edited || a.Content != `{"n": 1}` {
		t.Fatalf("the proposal sent back unchanged: %+v, %v (want content kept, not edited)", a, err)
	}
	a, err = inquiry.CheckAnswer(in, inquiry.Reply{Value: inquiry.One("no"), Text: "not now"})
	if err != nil || a.Edited || a.Content != "" || a.Text != "not now" {
		t.Fatalf("a no with a reason: %+v, %v", a, err)
	}
	choice := &inquiry.Inquiry{ID: "c", Kind: inquiry.KindChoice, Question: "How?", Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "squash", Label: "Squash"}},
		Proposal: &inquiry.Proposal{Content: "msg", Editable: true}}
	if a, err := inquiry.CheckAnswer(choice, inquiry.Reply{Value: inquiry.One("squash"), Content: "better msg"}); err != nil || !a.Edited {
		t.Fatalf("a choice with an edit: %+v, %v", a, err)
	}
	fixed := proposed(&inquiry.Proposal{Content: "x"})
	for name, c := range map[string]struct {
		in   *inquiry.Inquiry
		r    inquiry.Reply
		says string
	}{
		"not editable": {fixed, inquiry.Reply{Value: inquiry.One("yes"), Content: "y"}, "not editable"},
		"no proposal":  {proposed(nil), inquiry.Reply{Value: inquiry.One("yes"), Content: "y"}, "has no proposal"},
		"with no":      {in, inquiry.Reply{Value: inquiry.One("no"), Content: "{}"}, `approved with "yes"`},
		"declined":     {in, inquiry.Reply{Declined: true, Content: "{}"}, "declined answer"},
		"bad json":     {in, inquiry.Reply{Value: inquiry.One("yes"), Content: "{"}, "content is not JSON (it ends before the document does): send the edited content as one JSON document"},
		"over 256 KiB": {in, inquiry.Reply{Value: inquiry.One("yes"), Content: `"` + strings.Repeat("x", inquiry.MaxProposalBytes) + `"`}, "may have at most 262144"},
		"bad UTF-8":    {in, inquiry.Reply{Value: inquiry.One("yes"), Content: "\xff"}, "not valid UTF-8"},
	} {
		_, err := inquiry.CheckAnswer(c.in, c.r)
		var e *inquiry.Error
		if !asError(err, &e) || e.Code != inquiry.CodeInvalidAnswer || e.Field != "content" || !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: got %v, want content saying %q", name, err, c.says)
		}
	}
}

// asError is errors.As for an *inquiry.Error.
func asError(err error, e **inquiry.Error) bool { return errors.As(err, e) }

// TestProposalEdit: an edit gets the proposal's line endings whichever a surface sends (a
// browser's textarea CRLF, a Slack input LF or CRLF): unchanged but for them, the proposal byte
// for byte and no change; edited, CRLF where every line of the proposal is, else LF.
func TestProposalEdit(t *testing.T) {
	crlf := "a = 1\r\nb = 2\r\n"
	lf := "a = 1\nb = 2\n"
	mixed := "a = 1\r\nb = 2\n"
	for _, tc := range []struct {
		name     string
		proposal *inquiry.Proposal
		posted   string
		want     string
		changed  bool
	}{
		{"CRLF unchanged, sent with LF", &inquiry.Proposal{Content: crlf}, lf, crlf, false},
		{"CRLF unchanged, sent with CRLF", &inquiry.Proposal{Content: crlf}, crlf, crlf, false},
		{"CRLF edited, sent with LF", &inquiry.Proposal{Content: crlf}, "a = 1\nb = 3\n", "a = 1\r\nb = 3\r\n", true},
		{"CRLF edited, sent with CRLF", &inquiry.Proposal{Content: crlf}, "a = 1\r\nb = 3\r\n", "a = 1\r\nb = 3\r\n", true},
		{"CRLF, a line added", &inquiry.Proposal{Content: "a\r\nb\r\n"}, "a\nb\nc\n", "a\r\nb\r\nc\r\n", true},
		{"LF unchanged, sent with CRLF", &inquiry.Proposal{Content: lf}, crlf, lf, false},
		{"LF unchanged, sent with LF", &inquiry.Proposal{Content: lf}, lf, lf, false},
		{"LF edited, sent with CRLF", &inquiry.Proposal{Content: lf}, "a = 1\r\nb = 3\r\n", "a = 1\nb = 3\n", true},
		{"mixed unchanged", &inquiry.Proposal{Content: mixed}, lf, mixed, false},
		{"mixed edited", &inquiry.Proposal{Content: mixed}, "a = 1\r\nb = 3\r\n", "a = 1\nb = 3\n", true},
		{"no line break, edited", &inquiry.Proposal{Content: "a = 1"}, "a = 2", "a = 2", true},
		{"no line break, unchanged", &inquiry.Proposal{Content: "a = 1"}, "a = 1", "a = 1", false},
		{"no line break, one added", &inquiry.Proposal{Content: "a = 1"}, "a = 1\r\nb = 2", "a = 1\nb = 2", true},
		{"edited to no line break", &inquiry.Proposal{Content: crlf}, "a = 1", "a = 1", true},
		{"only the last line break differs", &inquiry.Proposal{Content: lf}, "a = 1\r\nb = 2", "a = 1\nb = 2", true},
		// A browser's textarea and a Slack input show a lone CR as a line break and send it back as one.
		{"lone CR unchanged", &inquiry.Proposal{Content: "a\rb"}, "a\r\nb", "a\rb", false},
		{"lone CR edited", &inquiry.Proposal{Content: "a\rb"}, "a\r\nc", "a\nc", true},
		{"no proposal", nil, "a\r\nb\r\n", "a\nb\n", true},
		{"no proposal, nothing posted", nil, "", "", false},
	} {
		got, changed := tc.proposal.Edit(tc.posted)
		if got != tc.want || changed != tc.changed {
			t.Errorf("%s: %q, %v; want %q, %v", tc.name, got, changed, tc.want, tc.changed)
			continue
		}
		// The web's confirmation posts an edit once more, with CRLF: it reads the same.
		if again, _ := tc.proposal.Edit(strings.ReplaceAll(inquiry.NormalizeNewlines(got), "\n", "\r\n")); again != got {
			t.Errorf("%s: read again %q, want %q", tc.name, again, got)
		}
	}
}

// TestDiffLineKind: each kind of a unified diff's line, the file headers before the added and
// removed lines they start like.
func TestDiffLineKind(t *testing.T) {
	for _, tc := range []struct {
		line string
		want inquiry.DiffKind
	}{
		{"diff --git a/page.html b/page.html", inquiry.DiffMeta},
		{"index 3b18e51..a8c5e2f 100644", inquiry.DiffMeta},
		{`\ No newline at end of file`, inquiry.DiffMeta},
		{"--- a/page.html", inquiry.DiffFile},
		{"+++ b/page.html", inquiry.DiffFile},
		{"@@ -1,3 +1,3 @@", inquiry.DiffHunk},
		{"@@ -0,0 +1,41 @@ func main() {", inquiry.DiffHunk},
		{"-<p>old</p>", inquiry.DiffRemoved},
		{"---", inquiry.DiffRemoved}, // a removed "--" line, no file header without its space
		{"+<script>alert(1)</script>", inquiry.DiffAdded},
		{"+++", inquiry.DiffAdded},
		{"-", inquiry.DiffRemoved},
		{"+", inquiry.DiffAdded},
		{" <main>", inquiry.DiffContext},
		{"", inquiry.DiffContext},
		{"differs", inquiry.DiffContext},
	} {
		if got := inquiry.DiffLineKind(tc.line); got != tc.want {
			t.Errorf("DiffLineKind(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
	// The kinds are the names the surfaces' styles use.
	for k, name := range map[inquiry.DiffKind]string{inquiry.DiffFile: "file", inquiry.DiffHunk: "hunk", inquiry.DiffAdded: "add",
		inquiry.DiffRemoved: "del", inquiry.DiffMeta: "meta", inquiry.DiffContext: "ctx"} {
		if string(k) != name {
			t.Errorf("kind %q, want %q", k, name)
		}
	}
}
