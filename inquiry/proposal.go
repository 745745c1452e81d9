package inquiry

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Proposal is what a person approves, shown whole rather than described: a diff, a document, a
// tool's input. With Editable the person may approve an edited version, which the answer records
// as its Content beside the proposal, so both versions are kept.
type Proposal struct {
	Format   ProposalFormat `json:"format"`
	Content  string         `json:"content"`
	Title    string         `json:"title,omitempty"`
	Editable bool           `json:"editable,omitempty"`
}

// ProposalFormat says how a proposal's content is read and shown.
type ProposalFormat string

// The formats of a proposal.
const (
	FormatText     ProposalFormat = "text"
	FormatMarkdown ProposalFormat = "markdown"
	FormatDiff     ProposalFormat = "diff"
	FormatJSON     ProposalFormat = "json"
)

// proposalFormats are the formats, in the order sentences name them.
var proposalFormats = []ProposalFormat{FormatText, FormatMarkdown, FormatDiff, FormatJSON}

// Bounds of a proposal: its content (and an edited one) in bytes, since that is what is stored
// and sent; its title in characters, since it is read as one line.
const (
	MaxProposalBytes      = 256 << 10
	MaxProposalTitleChars = 200
)

// FormatOrText is p's format, text when none is given (as every surface names it).
func (p *Proposal) FormatOrText() ProposalFormat {
	if p.Format == "" {
		return FormatText
	}
	return p.Format
}

// canonProposal is p with its format spelt out: none given is text, so that a proposal sent
// with and without "format": "text" is one question.
func canonProposal(p *Proposal) *Proposal {
	if p == nil || p.Format != "" {
		return p
	}
	c := *p
	c.Format = p.FormatOrText()
	return &c
}

// checkProposal enforces a proposal's rules: a known format, a title of one line within its
// bound, and content that checkProposalContent accepts; an editable proposal needs a question
// whose answer approves (a confirm or a choice).
func checkProposal(in *Inquiry) error {
	p := in.Proposal
	if p == nil {
		return nil
	}
	if !isProposalFormat(p.Format) {
		return invalid("proposal.format", "proposal.format %q is not one of text, markdown, diff or json: use one of them, or leave it out for text", string(p.Format))
	}
	if !utf8.ValidString(p.Title) {
		return invalid("proposal.title", "proposal.title is not valid UTF-8: send it as UTF-8 text")
	}
	if n := utf8.RuneCountInString(p.Title); n > MaxProposalTitleChars {
		return invalid("proposal.title", "proposal.title is %d characters long but may have at most %d: name the proposal in a few words and put the rest in its content", n, MaxProposalTitleChars)
	}
	if strings.ContainsAny(p.Title, "\r\n") {
		return invalid("proposal.title", "proposal.title holds a line break: write it on one line")
	}
	if r, bad := ControlChar(p.Title, ""); bad {
		return invalid("proposal.title", "proposal.title contains the control character %U: remove it", r)
	}
	if err := checkProposalContent(invalid, "proposal.content", p.Format, p.Content); err != nil {
		return err
	}
	switch {
	case p.Editable && in.Kind == KindText:
		return invalid("proposal.editable", "an editable proposal is approved with a confirm or a choice, not a text question: make it kind \"confirm\", or leave editable out")
	case p.Editable && in.Quorum() > 1:
		// Several people's votes would approve different edits: one person approves an edit.
		return invalid("proposal.editable", "an editable proposal is approved by one person, but approvals asks for %d: leave editable out, or approvals out", in.Quorum())
	}
	return nil
}

// checkProposalContent is the one rule of a proposal's content, proposed or edited: not empty,
// valid UTF-8 without NUL, at most MaxProposalBytes, and for json a document that parses. refuse
// makes the error (invalid for an inquiry, answerErr for an answer), field names it.
func checkProposalContent(refuse func(field, format string, args ...any) *Error, field string, format ProposalFormat, s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return refuse(field, "%s is empty: put in it what the person approves", field)
	case len(s) > MaxProposalBytes:
		return refuse(field, "%s is %d bytes but may have at most %d (256 KiB): shorten it, or link to the whole and propose a summary", field, len(s), MaxProposalBytes)
	case !utf8.ValidString(s):
		return refuse(field, "%s is not valid UTF-8: send it as UTF-8 text", field)
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		line, col := lineCol(s, i)
		return refuse(field, "%s holds a NUL character at line %d, column %d: remove it", field, line, col)
	}
	if format == FormatJSON {
		if err := jsonSyntax(s); err != nil {
			fix := "send the edited content as one JSON document"
			if field == "proposal.content" {
				fix = "send one JSON document, or make proposal.format \"text\""
			}
			return refuse(field, "%s is not JSON (%s): %s", field, err, fix)
		}
	}
	return nil
}

// jsonSyntax returns where s stops being one JSON document, as a short phrase, or nil.
func jsonSyntax(s string) error {
	d := json.NewDecoder(strings.NewReader(s))
	var v any
	err := d.Decode(&v)
	if err == nil {
		off := int(d.InputOffset())
		rest := s[off:]
		if more := strings.TrimLeft(rest, " \t\r\n"); more != "" {
			line, col := lineCol(s, off+len(rest)-len(more))
			return errors.New("more follows the document at line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col))
		}
		return nil
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := lineCol(s, int(syn.Offset)-1) // Offset counts the byte that broke it
		return errors.New(strings.TrimPrefix(syn.Error(), "json: ") + " at line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col))
	}
	return errors.New("it ends before the document does")
}

// lineCol is the 1-based line and column (in characters) of byte offset off in s.
func lineCol(s string, off int) (int, int) {
	off = min(max(off, 0), len(s))
	before := s[:off]
	line := 1 + strings.Count(before, "\n")
	last := strings.LastIndexByte(before, '\n')
	return line, 1 + utf8.RuneCountInString(before[last+1:])
}

func isProposalFormat(f ProposalFormat) bool { return slices.Contains(proposalFormats, f) }

// checkEdit accepts the edited content of reply r, as answer a of in, or refuses it: only a
// proposal marked editable may be edited, and only by an answer that approves it (a confirm's
// "yes", or a choice's option); a rejection says why in its words, not with content. The
// answer keeps the content whole, and Edited when it differs from what was proposed.
func checkEdit(in *Inquiry, r Reply, a *Answer) error {
	if r.Content == "" {
		return nil
	}
	p := in.Proposal
	switch {
	case p == nil:
		return answerErr("content", "content is an edited proposal but this question has no proposal: leave content out")
	case !p.Editable:
		return answerErr("content", "this question's proposal is not editable: leave content out, or answer \"no\" with your reason")
	case a.Declined:
		return answerErr("content", "a declined answer carries no edited content: decline without content, or approve the edit")
	case in.Kind == KindConfirm && a.Value.First() != "yes":
		return answerErr("content", "an edited proposal is approved with \"yes\": answer \"yes\" with the content, or \"no\" with your reason and no content")
	case a.Value.IsZero():
		return answerErr("content", "an edited proposal goes with the answer that approves it: choose a value with the content")
	}
	if err := checkProposalContent(answerErr, "content", canonProposal(p).Format, r.Content); err != nil {
		return err
	}
	a.Content, a.Edited = r.Content, r.Content != p.Content
	return nil
}

// Edit is the content that a person's edit of p approves, posted being the edited content as a
// surface received it, and whether it changes p. A browser posts a textarea's lines ended by
// CRLF whatever they were, and a Slack input holds them ended by LF, so line endings are not
// what a person edits: an edit that differs from p only in them is no edit (p's content, byte
// for byte, and false), and an edit has its lines ended as p's are, by CRLF when every line of p
// is, else by LF. Reading an edit again gives it back unchanged. With no proposal, the posted
// content is all there is (its lines ended by LF); the answer refuses it.
func (p *Proposal) Edit(posted string) (content string, changed bool) {
	lf := NormalizeNewlines(posted)
	if p == nil {
		return lf, lf != ""
	}
	if lf == NormalizeNewlines(p.Content) {
		return p.Content, false
	}
	if crlfLines(p.Content) {
		return strings.ReplaceAll(lf, "\n", "\r\n"), true
	}
	return lf, true
}

// crlfLines reports whether s has line breaks and every one is CRLF.
func crlfLines(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}

// DiffKind is the kind of a unified diff's line, which every surface shows in a colour of its
// own; its value is the name the surfaces' styles use.
type DiffKind string

// The kinds of a unified diff's line.
const (
	DiffFile    DiffKind = "file" // a file's header: "--- a/x" or "+++ b/x"
	DiffHunk    DiffKind = "hunk" // a hunk's header: "@@ -1,2 +1,3 @@"
	DiffAdded   DiffKind = "add"
	DiffRemoved DiffKind = "del"
	DiffMeta    DiffKind = "meta" // git's other headers ("diff --git", "index") and "\ No newline at end of file"
	DiffContext DiffKind = "ctx"
)

// DiffLineKind is the kind of line, one line of a unified diff without its line ending. The
// file headers are tested before an added or removed line, which they would otherwise read as.
func DiffLineKind(line string) DiffKind {
	switch {
	case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "):
		return DiffFile
	case strings.HasPrefix(line, "@@"):
		return DiffHunk
	case strings.HasPrefix(line, "+"):
		return DiffAdded
	case strings.HasPrefix(line, "-"):
		return DiffRemoved
	case strings.HasPrefix(line, "diff "), strings.HasPrefix(line, "index "), strings.HasPrefix(line, `\`):
		return DiffMeta
	}
	return DiffContext
}
