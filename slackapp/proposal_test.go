package slackapp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// editableQuestion is a confirm whose JSON proposal the person may edit before approving it.
func editableQuestion(id, content string) inquiry.Inquiry {
	return inquiry.Inquiry{ID: id, Kind: inquiry.KindConfirm, Question: "Apply this config?",
		Proposal: &inquiry.Proposal{Format: inquiry.FormatJSON, Content: content, Title: "eu-west", Editable: true}}
}

// An edit through the modal is recorded as the answer's content, byte for byte, and as edited;
// the proposal is kept beside it.
func TestProposalEditedThroughModal(t *testing.T) {
	b := setup(t)
	proposed := "{\n\t\"replicas\": 3,\n\t\"note\": \"<!here> *bold* & `code` é\"\n}"
	rec := b.ask(editableQuestion("cfg-edit", proposed), inquiry.SlackRef{})
	posted, ok := b.fake.Message(rec.Slack.Channel, rec.Slack.TS)
	require.True(t, ok)
	require.Contains(t, posted.AllText(), proposed, "the question message shows the proposal as it is")

	b.click("U0ALICE01", rec, blockkit.ActionOpenEdit)
	view, ok := b.fake.OpenView("U0ALICE01")
	require.True(t, ok, "Edit and approve opens a modal")
	require.Equal(t, blockkit.CallbackEdit, view.CallbackID)
	require.Equal(t, rec.Key, view.PrivateMetadata)

	edited := strings.Replace(proposed, "3", "4", 1) + "\n"
	r := b.ok(b.fake.SubmitView("U0ALICE01", view.ID, edited))
	require.Nil(t, r.ViewErrors())
	got := b.resolved(rec.Key)
	require.Equal(t, "yes", got.Answer.Value.First())
	require.Equal(t, edited, got.Answer.Content, "the content is recorded byte for byte")
	require.True(t, got.Answer.Edited)
	require.Equal(t, proposed, got.Proposal.Content, "the proposal is kept as it was")
	require.Equal(t, "U0ALICE01", got.Answer.AnsweredBy)
	after := b.updated(got)
	require.False(t, after.HasControls())
	require.Contains(t, after.AllText(), strings.TrimSuffix(edited, "\n"), "the resolved message shows the approved edit")
}

// Approved unchanged through the modal: the content is the proposal's and not edited.
func TestProposalApprovedUnchangedThroughModal(t *testing.T) {
	b := setup(t)
	proposed := `{"replicas": 3}`
	rec := b.ask(editableQuestion("cfg-same", proposed), inquiry.SlackRef{})
	b.click("U0ALICE01", rec, blockkit.ActionOpenEdit)
	b.ok(b.fake.SubmitView("U0ALICE01", "", "")) // left as it opened
	got := b.resolved(rec.Key)
	require.Equal(t, proposed, got.Answer.Content)
	require.False(t, got.Answer.Edited)
}

// An edit that breaks the JSON is refused on the content input with the service's sentence,
// and the modal stays open to fix it.
func TestProposalEditRefusedOnItsInput(t *testing.T) {
	b := setup(t)
	rec := b.ask(editableQuestion("cfg-bad", `{"replicas": 3}`), inquiry.SlackRef{})
	b.click("U0ALICE01", rec, blockkit.ActionOpenEdit)
	r := b.ok(b.fake.SubmitView("U0ALICE01", "", `{"replicas": 4`))
	errs := r.ViewErrors()
	require.Contains(t, errs, blockkit.BlockContent)
	require.Contains(t, errs[blockkit.BlockContent], "not JSON")
	b.noAnswer(rec.Key)
	_, stillOpen := b.fake.OpenView("U0ALICE01")
	require.True(t, stillOpen)
}

// A choice's edit modal asks for the option too, and records it with the content.
func TestProposalEditedWithChoice(t *testing.T) {
	b := setup(t)
	in := mergeQuestion("merge-edit")
	in.Proposal = &inquiry.Proposal{Format: inquiry.FormatDiff, Content: "-a\n+b", Editable: true}
	rec := b.ask(in, inquiry.SlackRef{})
	b.click("U0ALICE01", rec, blockkit.ActionOpenEdit)
	b.ok(b.fake.SubmitView("U0ALICE01", "", "Merge", "-a\n+c"))
	got := b.resolved(rec.Key)
	require.Equal(t, "merge", got.Answer.Value.First())
	require.Equal(t, "-a\n+c", got.Answer.Content)
	require.True(t, got.Answer.Edited)
}

// A proposal whose lines end in CRLF keeps them through the modal, byte for byte, whether
// Slack's submitted value ends lines with LF or CRLF (its docs do not say): approved as it
// opened, the content is the proposal and not edited; edited, the edit's lines end in CRLF.
func TestProposalCRLFThroughModal(t *testing.T) {
	proposed := "[core]\r\n\tfilemode = true\r\n\tbare = false\r\n"
	edit := "[core]\n\tfilemode = false\n\tbare = false\n"
	cases := map[string]struct {
		submitted, want string
		edited          bool
	}{
		"left as it opened":             {"", proposed, false},
		"the same, lines ended by LF":   {strings.ReplaceAll(proposed, "\r\n", "\n"), proposed, false},
		"the same, lines ended by CRLF": {proposed, proposed, false},
		"edited, lines ended by LF":     {edit, strings.ReplaceAll(edit, "\n", "\r\n"), true},
		"edited, lines ended by CRLF":   {strings.ReplaceAll(edit, "\n", "\r\n"), strings.ReplaceAll(edit, "\n", "\r\n"), true},
	}
	b := setup(t)
	i := 0
	for name, tc := range cases {
		i++
		in := editableQuestion(fmt.Sprintf("crlf-%d", i), proposed)
		in.Proposal.Format = inquiry.FormatText
		rec := b.ask(in, inquiry.SlackRef{})
		b.click("U0ALICE01", rec, blockkit.ActionOpenEdit)
		view, ok := b.fake.OpenView("U0ALICE01")
		require.True(t, ok, name)
		b.ok(b.fake.SubmitView("U0ALICE01", view.ID, tc.submitted))
		got := b.resolved(rec.Key)
		require.Equal(t, tc.want, got.Answer.Content, name)
		require.Equal(t, tc.edited, got.Answer.Edited, name)
		require.Equal(t, proposed, got.Proposal.Content, name)
	}
}
