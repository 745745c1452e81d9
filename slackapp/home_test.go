package slackapp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/slackapp/slackfake"
)

const (
	alice = "U0ALICE01"
	bob   = "U0BOB0001"
	carol = "U0CAROL01"
)

// home waits until user's Home tab has been published at least n times and returns the last.
func (b *bundle) home(user string, n int) slackfake.Home {
	b.t.Helper()
	hs := atLeast(b, n, 15*time.Second, func() []slackfake.Home { return b.fake.Homes(user) },
		"the Home tab of %s was not published %d times", user, n)
	return hs[len(hs)-1]
}

// questionOf is an inquiry of its own with the given question, answerers and requesters.
func questionOf(id, question string, answerers []string, requestedBy ...string) (inquiry.Inquiry, inquiry.SlackRef) {
	in := mergeQuestion(id)
	in.Question = question
	in.RequestedBy = requestedBy
	return in, inquiry.SlackRef{Answerers: answerers}
}

// Opening the Home tab, over HTTP and over Socket Mode, publishes the questions waiting for the
// person who opened it — named among the answerers, themselves or through a user group of
// theirs — newest first, each with a link to its message; a question for someone else, one that
// names nobody, and one the person asked for are not in it. The Messages tab publishes nothing.
func TestHomeListsWhatWaitsForThePerson(t *testing.T) {
	eachStoreAndMode(t, func(t *testing.T, b *bundle) {
		b.fake.AddUserGroup("S0OPS0001", alice, carol)
		mine := b.ask(questionOf("mine", "Alice's own question?", []string{alice}))
		b.ask(questionOf("bobs", "Bob's question?", []string{bob}))
		b.ask(questionOf("anyone", "Anyone's question?", nil))
		b.ask(questionOf("asked", "Alice's own request?", []string{alice, bob}, alice))
		b.ask(questionOf("group", "The ops group's question?", []string{"S0OPS0001"}))

		b.ok(b.fake.OpenMessagesTab(alice))
		b.ok(b.fake.OpenHome(alice))
		h := b.home(alice, 1)
		text := h.Text()
		require.Contains(t, text, "Alice's own question?")
		require.Contains(t, text, "The ops group's question?")
		require.Less(t, strings.Index(text, "The ops group's question?"), strings.Index(text, "Alice's own question?"), "newest first")
		require.Contains(t, text, mine.Slack.Permalink)
		for _, not := range []string{"Bob's question?", "Anyone's question?", "Alice's own request?"} {
			require.NotContains(t, text, not)
		}
		require.Contains(t, h.ActionIDs(), "inq:choose:0", "each with its controls")
		require.Contains(t, text, "Nothing yet: your answers show up here.")

		b.ok(b.fake.OpenHome(carol))
		text = b.home(carol, 1).Text()
		require.Contains(t, text, "The ops group's question?")
		require.NotContains(t, text, "Alice's own question?", "a person not among the answerers does not see it")
		require.Len(t, b.fake.Homes(alice), 1, "the Messages tab published nothing")
	})
}

// A click in the Home tab answers through the same path as a click in the message (who, via
// slack), and the Home tab is published again without the question and with the answer.
func TestHomeClickAnswersAndResolutionRefreshes(t *testing.T) {
	b := setup(t)
	merge := b.ask(questionOf("merge", "Merge the release branch?", []string{alice, bob}))
	deploy := b.ask(questionOf("deploy", "Deploy it now?", []string{alice}))
	b.ok(b.fake.OpenHome(alice))
	first := b.home(alice, 1)
	require.Contains(t, first.Text(), "Merge the release branch?")

	b.ok(b.fake.ClickHome(alice, merge.Key, "Merge"))
	got := b.resolved(merge.Key)
	require.Equal(t, "merge", got.Answer.Value.First())
	require.Equal(t, alice, got.Answer.AnsweredBy)
	require.Equal(t, inquiry.StatusAnswered, got.Status)
	m := b.updated(merge)
	require.Contains(t, m.Text, "Answered", "the message shows the answer as for a click in it")

	var h slackfake.Home
	require.Eventually(t, func() bool {
		h, _ = b.fake.HomeOf(alice)
		text := h.Text()
		return !strings.Contains(text, "<"+merge.Slack.Permalink+"|Open its message>") &&
			strings.Contains(text, "What you answered lately") && strings.Contains(text, "“Merge the release branch?”\n(<"+merge.Slack.Permalink+"|its message>) — ")
	}, 15*time.Second, 10*time.Millisecond, "the Home tab was not refreshed after the answer:\n%s", h.Text())
	require.Contains(t, h.Text(), "Deploy it now?", "what still waits stays")

	// Bob never opened his Home tab: nothing is published for him (Alice's refresh above came
	// from the same resolution).
	require.Empty(t, b.fake.Homes(bob))

	// Answered elsewhere (a reply in the question's thread), the Home tab drops it too.
	n := len(b.fake.Homes(alice))
	b.ok(b.fake.ReplyInThread(alice, deploy.Slack.Channel, deploy.Slack.TS, "hold"))
	b.resolved(deploy.Key)
	h = b.home(alice, n+1)
	require.Eventually(t, func() bool {
		h, _ = b.fake.HomeOf(alice)
		return !strings.Contains(h.Text(), "<"+deploy.Slack.Permalink+"|Open its message>") && strings.Contains(h.Text(), "Nothing waits for you right now.")
	}, 15*time.Second, 10*time.Millisecond, "the Home tab still lists the question answered in its thread:\n%s", h.Text())
}

// A refusal in the Home tab is the message's: someone not among the answerers who clicks a
// button of a tab published before the answerers changed — here, a payload built for Carol from
// Alice's tab — records nothing and is told why in the question's channel.
func TestHomeClickByOthersIsRefused(t *testing.T) {
	b := setup(t)
	rec := b.ask(questionOf("only-alice", "Only Alice may?", []string{alice}))
	b.ok(b.fake.OpenHome(alice))
	b.home(alice, 1)
	_, err := b.fake.ClickHome(carol, rec.Key, "Merge")
	require.Error(t, err, "Carol has no Home tab with that button")

	// The same action as Carol's click in the message: refused with the message's sentence.
	b.click(carol, rec, "Merge")
	b.noAnswer(rec.Key)
	require.Contains(t, b.ephemeral(carol, 1).Text, "may answer this question")
}

// The Home tab of a team approval shows the vote at once, without waiting for the resolution.
func TestHomeShowsAVoteAtOnce(t *testing.T) {
	b := setup(t)
	two := 2
	in := inquiry.Inquiry{ID: "rotate", Kind: inquiry.KindConfirm, Question: "Rotate the key?",
		Approval: inquiry.Approval{Approvals: &two}}
	rec := b.ask(in, inquiry.SlackRef{Answerers: []string{alice, bob}})
	b.ok(b.fake.OpenHome(alice))
	b.home(alice, 1)
	b.ok(b.fake.ClickHome(alice, rec.Key, "Yes"))
	var h slackfake.Home
	require.Eventually(t, func() bool {
		h, _ = b.fake.HomeOf(alice)
		return strings.Contains(h.Text(), "your vote:\nYes\n; waiting for more votes")
	}, 15*time.Second, 10*time.Millisecond, "the vote is not on the Home tab:\n%s", h.Text())
	require.Equal(t, inquiry.StatusPending, b.get(rec.Key).Status)
	require.Contains(t, h.Text(), "1 of 2 approvals", "still waiting, with its tally")
}

// Who gets refreshed is bounded: the least recent opener is forgotten past homeRecentMax, and
// anyone who has not opened the tab for a day.
func TestHomesRememberedAreBounded(t *testing.T) {
	h := newHomes()
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for i := range homeRecentMax + 5 {
		h.opened(fmt.Sprintf("U%07d", i), t0.Add(time.Duration(i)*time.Second))
	}
	got := h.recent(t0.Add(time.Hour))
	require.Len(t, got, homeRecentMax)
	require.NotContains(t, got, "U0000000", "the least recent is forgotten first")
	require.Contains(t, got, fmt.Sprintf("U%07d", homeRecentMax+4))
	h.opened(alice, t0.Add(2*homeRecentTTL))
	require.Equal(t, []string{alice}, h.recent(t0.Add(2*homeRecentTTL+time.Minute)), "a day later only the new opener is left")

	// A refresh asked for while one runs runs once more after it, not twice at once.
	require.True(t, h.begin(bob))
	require.False(t, h.begin(bob))
	require.False(t, h.begin(bob))
	require.True(t, h.again(bob), "asked again while running: once more")
	require.False(t, h.again(bob), "then it ends")
	require.True(t, h.begin(bob))
}

// A multiple choice answered from the Home tab: the ticks travel in view.state, and Submit reads
// them there as it reads a message's state.
func TestHomeMultipleChoiceSubmit(t *testing.T) {
	b := setup(t)
	in := inquiry.Inquiry{ID: "checks", Kind: inquiry.KindChoice, Multiple: true, Question: "Which checks?",
		Options: []inquiry.Option{{Value: "lint", Label: "Lint"}, {Value: "unit", Label: "Unit"}, {Value: "e2e", Label: "End to end"}}}
	rec := b.ask(in, inquiry.SlackRef{Answerers: []string{alice}})
	b.ok(b.fake.OpenHome(alice))
	b.home(alice, 1)
	b.ok(b.fake.CheckAndSubmitHome(alice, rec.Key, "Lint", "End to end"))
	got := b.resolved(rec.Key)
	require.Equal(t, []string{"lint", "e2e"}, got.Answer.Value.Strings())
	require.Equal(t, alice, got.Answer.AnsweredBy)
}

// A button of the Home tab that opens a modal opens it (the click's trigger_id), and the
// submitted modal answers.
func TestHomeOpensTheAnswerModal(t *testing.T) {
	b := setup(t)
	rec := b.ask(inquiry.Inquiry{ID: "notes", Kind: inquiry.KindText, Question: "Release notes?"}, inquiry.SlackRef{Answerers: []string{alice}})
	b.ok(b.fake.OpenHome(alice))
	b.home(alice, 1)
	b.ok(b.fake.ClickHome(alice, rec.Key, "Write an answer"))
	_, open := b.fake.OpenView(alice)
	require.True(t, open, "the text modal is open")
	b.ok(b.fake.SubmitView(alice, "", "Fixes the login loop"))
	got := b.resolved(rec.Key)
	require.Equal(t, "Fixes the login loop", got.Answer.Text)
	require.Equal(t, alice, got.Answer.AnsweredBy)
}

// A question's proposal shows in the Home tab as in its message: its first 50 lines, the
// sentence saying how much is shown, and "Edit and approve", whose modal records the edit as a
// click in the message would.
func TestHomeShowsTheProposal(t *testing.T) {
	b := setup(t)
	lines := make([]string, 51)
	for i := range lines {
		lines[i] = fmt.Sprintf("+ replicas: %d # eu-west <!here>", i+1)
	}
	proposed := strings.Join(lines, "\n")
	in, ref := questionOf("proposal", "Apply this change?", []string{alice})
	in.Proposal = &inquiry.Proposal{Format: inquiry.FormatDiff, Content: proposed, Title: "eu-west", Editable: true}
	rec := b.ask(in, ref)

	b.ok(b.fake.OpenHome(alice))
	text := b.home(alice, 1).Text()
	require.Contains(t, text, strings.Join(lines[:50], "\n"), "the first 50 lines, as written")
	require.NotContains(t, text, lines[50])
	require.Contains(t, text, "Shortened: the first 50 of 51 lines are shown.")

	b.ok(b.fake.ClickHome(alice, rec.Key, "Edit and approve"))
	view, ok := b.fake.OpenView(alice)
	require.True(t, ok, "Edit and approve in the Home tab opens the edit modal")
	edited := strings.Replace(proposed, "replicas: 1 ", "replicas: 2 ", 1)
	b.ok(b.fake.SubmitView(alice, view.ID, "Merge", edited))
	got := b.resolved(rec.Key)
	require.Equal(t, "merge", got.Answer.Value.First())
	require.Equal(t, edited, got.Answer.Content)
	require.True(t, got.Answer.Edited)
	require.Equal(t, alice, got.Answer.AnsweredBy)
}
