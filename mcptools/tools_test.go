package mcptools_test

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

var update = flag.Bool("update", false, "rewrite testdata/tools_list.golden from the tools as served")

func TestChoiceAnsweredWhileAskHumanWaits(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {

		type called struct {
			res mcptools.Result
			raw *mcp.CallToolResult
			at  time.Time
		}
		done := make(chan called, 1)
		go func() {
			res, raw := call(t, cs, mcptools.AskHuman, merge("wait_seconds", 30))
			done <- called{res, raw, time.Now()}
		}()

		// The person answers through the inbox API while the tool waits.
		key := b.pendingKey(t)
		answered := time.Now()
		_, err := b.api(b.answerer).Answer(context.Background(), key, client.Reply{Value: inquiry.One("merge")})
		require.NoError(t, err)

		var got called
		select {
		case got = <-done:
		case <-time.After(40 * time.Second):
			t.Fatal("ask_human did not return after the answer")
		}
		require.False(t, got.raw.IsError)
		require.Less(t, got.at.Sub(answered), 10*time.Second, "ask_human returns as soon as the answer exists, not when its wait is over")
		res := got.res
		require.Equal(t, mcptools.StatusAnswered, res.Status)
		require.Equal(t, "Merge — answered by alice.", res.Message)
		require.Equal(t, key, res.Key)
		require.Equal(t, "merge", res.Answer)
		require.Equal(t, []string{"merge"}, res.Values)
		require.Equal(t, "Merge", res.Label)
		require.Equal(t, "alice", res.AnsweredBy)
		require.Equal(t, inquiry.SourcePerson, res.Source)
		require.True(t, strings.HasPrefix(res.ID, "auto:"), "the id the server derived: %q", res.ID)
	})
}

func TestPendingThenGetAnswer(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {

		start := time.Now()
		res, raw := call(t, cs, mcptools.AskHuman, merge("wait_seconds", 1, "expires_in", "2h"))
		require.False(t, raw.IsError, res.Message)
		require.Less(t, time.Since(start), 15*time.Second)
		require.Equal(t, mcptools.StatusPending, res.Status)
		require.True(t, strings.HasPrefix(res.Key, "inq_"), "key %q", res.Key)
		require.Contains(t, res.Message, "Nobody has answered yet.")
		require.Contains(t, res.Message, `Call get_answer with key "`+res.Key+`" later`)
		require.Contains(t, res.Message, "if nobody answers by then, the default hold is assumed")
		require.NotEmpty(t, res.ExpiresAt)
		require.Empty(t, res.Answer)
		require.True(t, strings.HasPrefix(res.Link, "https://bot.example.com/a/"), "a page to hand to a person: %q", res.Link)

		// Still nobody: get_answer says pending again, at once with wait_seconds 0.
		again, _ := call(t, cs, mcptools.GetAnswer, map[string]any{"key": res.Key, "wait_seconds": 0})
		require.Equal(t, mcptools.StatusPending, again.Status)
		require.Equal(t, res.Key, again.Key)

		_, err := b.api(b.answerer).Answer(context.Background(), res.Key, client.Reply{Text: "Hold"})
		require.NoError(t, err)

		require.Equal(t, res.Link, again.Link, "the same link on every read")

		got, raw := call(t, cs, mcptools.GetAnswer, map[string]any{"key": res.Key, "wait_seconds": 5})
		require.False(t, raw.IsError)
		require.Equal(t, mcptools.StatusAnswered, got.Status)
		require.Equal(t, "hold", got.Answer)
		require.Equal(t, "hold — answered by alice.", got.Message)
		require.Equal(t, res.ID, got.ID)
		require.Empty(t, got.Link, "an answered question's page answers nothing")
	})
}

func TestGetAnswerWaitsForTheAnswer(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
		res, _ := call(t, cs, mcptools.AskHuman, map[string]any{"question": "Which region?", "wait_seconds": 0})
		require.Equal(t, mcptools.StatusPending, res.Status)
		require.Contains(t, res.Message, "The question stays open until somebody answers.")

		answered := make(chan error, 1)
		go func() {
			// Answered once get_answer waits for it (before, the answer would find no waiter).
			if err := b.awaitWaiters(1); err != nil {
				answered <- err
				return
			}
			_, err := b.api(b.answerer).Answer(context.Background(), res.Key, client.Reply{Text: "eu-west-1, \"the\" usual"})
			answered <- err
		}()
		got, _ := call(t, cs, mcptools.GetAnswer, map[string]any{"key": res.Key})
		require.NoError(t, <-answered)
		require.Equal(t, mcptools.StatusAnswered, got.Status)
		require.Equal(t, `"eu-west-1, \"the\" usual" — answered by alice.`, got.Message)
		require.Equal(t, "eu-west-1, \"the\" usual", got.Answer)
		require.Equal(t, "eu-west-1, \"the\" usual", got.Text)
		require.Empty(t, got.Values)
	})
}

func TestSameQuestionTwiceIsOneInquiry(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {

		first, _ := call(t, cs, mcptools.AskHuman, merge("wait_seconds", 0))
		// The same question, its default named by the option's label, and a later expiry:
		// still the same inquiry.
		second, _ := call(t, cs, mcptools.AskHuman, merge("wait_seconds", 0, "default", "Hold"))
		require.Equal(t, mcptools.StatusPending, first.Status)
		require.Equal(t, first.Key, second.Key)
		require.Equal(t, first.ID, second.ID)
		require.Len(t, b.all(t), 1, "asked once")

		_, err := b.api(b.answerer).Answer(context.Background(), first.Key, client.Reply{Value: inquiry.One("merge")})
		require.NoError(t, err)
		// Asked again after the answer: the answer, at once, and still one inquiry.
		start := time.Now()
		third, _ := call(t, cs, mcptools.AskHuman, merge())
		require.Less(t, time.Since(start), 10*time.Second)
		require.Equal(t, mcptools.StatusAnswered, third.Status)
		require.Equal(t, first.Key, third.Key)
		require.Len(t, b.all(t), 1, "answered once")

		// Other words are another question; an id of the agent's own is kept as given.
		other, _ := call(t, cs, mcptools.AskHuman, merge("wait_seconds", 0, "question", "Merge PR #43 now?"))
		require.NotEqual(t, first.Key, other.Key)
		own, _ := call(t, cs, mcptools.AskHuman, merge("wait_seconds", 0, "id", "deploy-42:merge"))
		require.Equal(t, "deploy-42:merge", own.ID)
		require.NotEqual(t, first.Key, own.Key)
		require.Len(t, b.all(t), 3)
	})
}

func TestAskedLongBeforeSaysSo(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
		b.offset.Store(int64(-3 * time.Hour))
		first, _ := call(t, cs, mcptools.AskHuman, merge("wait_seconds", 0))
		_, err := b.api(b.answerer).Answer(context.Background(), first.Key, client.Reply{Value: inquiry.One("merge")})
		require.NoError(t, err)
		b.offset.Store(0)

		// Days later the same words find that answer, and the result says whose time it was.
		again, _ := call(t, cs, mcptools.AskHuman, merge())
		require.Equal(t, mcptools.StatusAnswered, again.Status)
		require.Equal(t, first.Key, again.Key)
		require.True(t, strings.HasPrefix(again.Message, "Merge — answered by alice. (This question was asked before, at "), again.Message)
		require.True(t, strings.HasSuffix(again.Message, `with the same id "`+first.ID+`": this is where it stands. To ask afresh, give a new id.)`), again.Message)

		// A question asked minutes ago is the agent's own, picked up again: no note.
		fresh, _ := call(t, cs, mcptools.AskHuman, merge("wait_seconds", 0, "question", "Tag the release?"))
		again, _ = call(t, cs, mcptools.AskHuman, merge("wait_seconds", 0, "question", "Tag the release?"))
		require.Equal(t, fresh.Message, again.Message)
	})
}

func TestInvalidInquiryComesBackAsTheServersSentence(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {

		// Options that repeat whatever their case: a rule no JSON Schema states (the counts and
		// lengths it does state are TestAskHumanSchemaRefusesBeyondTheLimits').
		res, raw := call(t, cs, mcptools.AskHuman, map[string]any{"question": "Which one?", "options": []any{"Deploy", "deploy"}})
		require.True(t, raw.IsError)
		require.Equal(t, mcptools.StatusError, res.Status)
		require.Equal(t, string(inquiry.CodeInvalidInquiry), res.Code)
		require.Equal(t, "options[1].value", res.Field)
		require.Equal(t, `options[1].value "deploy" repeats options[0].value "Deploy" (values must differ whatever their case and surrounding blanks): change one`, res.Message)

		// A default that is none of the options, and an expiry that is no duration.
		res, raw = call(t, cs, mcptools.AskHuman, merge("default", "later"))
		require.True(t, raw.IsError)
		require.Equal(t, `default "later" is not one of the option values (merge, hold): use one of them exactly, or leave default out`, res.Message)
		res, raw = call(t, cs, mcptools.AskHuman, merge("expires_in", "tomorrow"))
		require.True(t, raw.IsError)
		require.Equal(t, "expires_in", res.Field)
		require.Equal(t, `expires_in "tomorrow" is not a duration: write it like "2h", "90m" or "1h30m"`, res.Message)

		// The schema refuses a field the tool does not take, before the server is asked.
		_, raw = call(t, cs, mcptools.AskHuman, map[string]any{"question": "Q?", "channel": "C1"})
		require.True(t, raw.IsError)
		require.Empty(t, b.all(t), "nothing was stored")
	})
}

func TestUnavailableWithoutSlackIsNotRetryable(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, connect func(*bundle, string) *mcp.ClientSession) {
		// The server asks through Slack by default, but Slack is not configured.
		b := setup(t, serverTransport(inquiry.TransportSlack))
		cs := connect(b, b.asker)

		start := time.Now()
		res, raw := call(t, cs, mcptools.AskHuman, merge())
		require.Less(t, time.Since(start), 10*time.Second, "unavailable fails at once; it does not wait")
		require.True(t, raw.IsError)
		require.Equal(t, mcptools.StatusUnavailable, res.Status)
		require.Equal(t, string(inquiry.CodeUnavailable), res.Code)
		require.True(t, strings.HasPrefix(res.Message, "No channel exists to ask a person, so do not retry: decide yourself, and say that nobody could be asked."), res.Message)
		require.Contains(t, res.Message, "the slack transport is not configured on this server")
		require.Empty(t, b.all(t), "nothing was stored")
	})
}

func TestFailedQuestionIsUnavailable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.clientSession(b.asker)
	res, _ := call(t, cs, mcptools.AskHuman, merge("wait_seconds", 0))
	// The transport gave up on it for good after it was asked (a Slack channel archived).
	_, err := b.svc.Fail(context.Background(), res.Key, inquiry.Unavailable("channel C1 is archived: unarchive it or name another channel"))
	require.NoError(t, err)

	got, raw := call(t, cs, mcptools.GetAnswer, map[string]any{"key": res.Key, "wait_seconds": 0})
	require.True(t, raw.IsError)
	require.Equal(t, mcptools.StatusUnavailable, got.Status)
	require.Contains(t, got.Message, "do not retry")
	require.True(t, strings.HasSuffix(got.Message, "The server said: channel C1 is archived: unarchive it or name another channel"), got.Message)
}

func TestPolicy(t *testing.T) {
	t.Parallel()
	t.Run("server default assumes the default", func(t *testing.T) {
		t.Parallel()
		// No configuration anywhere: the default policy. Nobody is asked.
		b := setup(t, serverPolicy(""))
		cs := b.clientSession(b.asker)
		res, raw := call(t, cs, mcptools.AskHuman, merge())
		require.False(t, raw.IsError)
		require.Equal(t, mcptools.StatusAssumed, res.Status)
		require.Equal(t, inquiry.SourceDefault, res.Source)
		require.Equal(t, "hold", res.Answer)
		require.Equal(t, "Nobody was asked: the server's policy answers every question by its default. The default hold was assumed — act on it, and say it was assumed, not decided by a person.", res.Message)

		res, _ = call(t, cs, mcptools.AskHuman, map[string]any{"question": "Ship it?", "kind": "confirm"})
		require.Equal(t, mcptools.StatusDeclined, res.Status)
		require.Contains(t, res.Message, "decide yourself and say so")
	})
	t.Run("the tools' policy ask overrides it", func(t *testing.T) {
		t.Parallel()
		b := setup(t, serverPolicy(""), toolPolicy(inquiry.PolicyAsk))
		res, _ := call(t, b.clientSession(b.asker), mcptools.AskHuman, merge("wait_seconds", 0))
		require.Equal(t, mcptools.StatusPending, res.Status)
		require.Equal(t, inquiry.PolicyAsk, b.all(t)[0].Config.Policy)
	})
	t.Run("refuse declines", func(t *testing.T) {
		t.Parallel()
		b := setup(t, serverPolicy(inquiry.PolicyRefuse))
		res, raw := call(t, b.httpSession(b.asker), mcptools.AskHuman, merge())
		require.False(t, raw.IsError, "a refusal by policy is a decision to act on, not an error")
		require.Equal(t, mcptools.StatusDeclined, res.Status)
		require.Equal(t, string(inquiry.CodeDeclined), res.Code)
		require.Contains(t, res.Message, "decide yourself and say so")
	})
}

func TestExpiredAndDeclined(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.httpSession(b.asker)
	ctx := context.Background()

	// Expired with a default: assumed, and said so.
	res, _ := call(t, cs, mcptools.AskHuman, merge("wait_seconds", 0, "expires_in", "1h"))
	rec, err := b.svc.Get(ctx, res.Key)
	require.NoError(t, err)
	_, err = b.svc.Expire(ctx, rec)
	require.NoError(t, err)
	got, _ := call(t, cs, mcptools.GetAnswer, map[string]any{"key": res.Key})
	require.Equal(t, mcptools.StatusAssumed, got.Status)
	require.Equal(t, inquiry.SourceExpired, got.Source)
	require.Equal(t, "Nobody answered before the question expired; the default hold was assumed — act on it, and say it was assumed, not decided by a person.", got.Message)

	// Declined by the person, with a reason.
	res, _ = call(t, cs, mcptools.AskHuman, map[string]any{"question": "Drop the table?", "kind": "confirm", "wait_seconds": 0})
	_, err = b.api(b.answerer).Answer(ctx, res.Key, client.Reply{Declined: true, Text: "not my call"})
	require.NoError(t, err)
	got, raw := call(t, cs, mcptools.GetAnswer, map[string]any{"key": res.Key})
	require.False(t, raw.IsError)
	require.Equal(t, mcptools.StatusDeclined, got.Status)
	require.Equal(t, `Declined by alice: nobody could decide — decide yourself and say so. Their reason: "not my call"`, got.Message)

	// Cancelled by the asker.
	res, _ = call(t, cs, mcptools.AskHuman, map[string]any{"question": "Still needed?", "kind": "confirm", "wait_seconds": 0})
	_, err = b.api(b.asker).Cancel(ctx, res.Key)
	require.NoError(t, err)
	got, _ = call(t, cs, mcptools.GetAnswer, map[string]any{"key": res.Key})
	require.Equal(t, mcptools.StatusCancelled, got.Status)

	// A multiple choice with own words beside it, whose values differ from the labels.
	res, _ = call(t, cs, mcptools.AskHuman, map[string]any{
		"question": "Which checks?", "multiple": true, "allow_text": true, "wait_seconds": 0,
		"options": []any{map[string]any{"value": "lint", "label": "Linters"}, map[string]any{"value": "e2e", "label": "End to end"}, "unit"},
	})
	_, err = b.api(b.answerer).Answer(ctx, res.Key, client.Reply{Value: inquiry.Many("lint", "e2e"), Text: "and be quick"})
	require.NoError(t, err)
	got, _ = call(t, cs, mcptools.GetAnswer, map[string]any{"key": res.Key})
	require.Equal(t, `Linters, End to end (values "lint", "e2e"), with the words "and be quick" — answered by alice.`, got.Message)
	require.Equal(t, []string{"lint", "e2e"}, got.Values)
	require.Equal(t, "lint", got.Answer)
}

// TestApprovalOfTwoWhileAskHumanWaits: ask_human asks for two approvals; two answer tokens vote
// through the API while it waits. After the first, get_answer says the tally; after the second,
// ask_human returns the answer naming both, with every vote.
func TestApprovalOfTwoWhileAskHumanWaits(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
		ana, ben := b.token("ana", "", inquiry.ScopeAnswer), b.token("ben", "", inquiry.ScopeAnswer)
		done := make(chan mcptools.Result, 1)
		go func() {
			res, _ := call(t, cs, mcptools.AskHuman, map[string]any{
				"question": "Deploy v2 to production?", "kind": "confirm",
				"approvals": 2, "requested_by": []any{"U0AUTHOR"}, "reason": "on_no", "wait_seconds": 40,
			})
			done <- res
		}()
		key := b.pendingKey(t)
		rec, err := b.api(b.admin).Get(context.Background(), key, 0)
		require.NoError(t, err)
		require.Equal(t, 2, rec.Quorum())
		require.Equal(t, []string{"U0AUTHOR"}, rec.RequestedBy)
		require.Equal(t, inquiry.ReasonOnNo, rec.Reason)

		vote, err := b.api(ana).Answer(context.Background(), key, client.Reply{Value: inquiry.One("yes")})
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusPending, vote.Status)

		tally, _ := call(t, cs, mcptools.GetAnswer, map[string]any{"key": key, "wait_seconds": 0})
		require.Equal(t, mcptools.StatusPending, tally.Status)
		require.Contains(t, tally.Message, "Not decided yet; so far 1 of 2 approvals: ana.")
		require.Len(t, tally.Votes, 1)
		require.Equal(t, "ana", tally.Votes[0].By)
		select {
		case res := <-done:
			t.Fatalf("ask_human returned on one of two approvals: %+v", res)
		default:
		}

		_, err = b.api(ben).Answer(context.Background(), key, client.Reply{Value: inquiry.One("yes")})
		require.NoError(t, err)
		var res mcptools.Result
		select {
		case res = <-done:
		case <-time.After(40 * time.Second):
			t.Fatal("ask_human did not return after the second approval")
		}
		require.Equal(t, mcptools.StatusAnswered, res.Status)
		require.Equal(t, "Yes — approved by ana and ben.", res.Message)
		require.Equal(t, "yes", res.Answer)
		require.Equal(t, "ben", res.AnsweredBy, "whose vote decided it")
		require.Len(t, res.Votes, 2)
		for _, v := range res.Votes {
			require.Equal(t, inquiry.ViaAPI, v.Via)
			require.False(t, v.At.IsZero())
		}
	})
}

// TestApprovalVetoAndChoiceInWords: get_answer says a veto with its reason, and the people who
// chose an option of a choice that needed three.
func TestApprovalVetoAndChoiceInWords(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
		voters := map[string]string{}
		for _, name := range []string{"U1", "U2", "U3", "U4"} {
			voters[name] = b.token(name, "", inquiry.ScopeAnswer)
		}
		vote := func(key, who string, r client.Reply) {
			t.Helper()
			_, err := b.api(voters[who]).Answer(context.Background(), key, r)
			require.NoError(t, err)
		}

		asked, _ := call(t, cs, mcptools.AskHuman, map[string]any{"question": "Drop the old table?", "kind": "confirm", "approvals": 2, "reason": "on_no", "wait_seconds": 0})
		require.Equal(t, mcptools.StatusPending, asked.Status)
		require.Contains(t, asked.Message, "Nobody has answered yet (needs 2 approvals · a no needs a reason (a decline too)).")
		vote(asked.Key, "U1", client.Reply{Value: inquiry.One("yes")})
		vote(asked.Key, "U3", client.Reply{Value: inquiry.One("no"), Text: "backups are not verified"})
		got, _ := call(t, cs, mcptools.GetAnswer, map[string]any{"key": asked.Key, "wait_seconds": 0})
		require.Equal(t, mcptools.StatusAnswered, got.Status)
		require.Equal(t, `No — vetoed by U3: "backups are not verified".`, got.Message)
		require.Equal(t, "backups are not verified", got.Text)

		asked, _ = call(t, cs, mcptools.AskHuman, merge("approvals", 3, "wait_seconds", 0))
		for _, v := range []struct{ who, value string }{{"U1", "merge"}, {"U2", "merge"}, {"U3", "hold"}, {"U4", "merge"}} {
			vote(asked.Key, v.who, client.Reply{Value: inquiry.One(v.value)})
		}
		got, _ = call(t, cs, mcptools.GetAnswer, map[string]any{"key": asked.Key, "wait_seconds": 0})
		require.Equal(t, mcptools.StatusAnswered, got.Status)
		require.Equal(t, "Merge — chosen by U1, U2 and U4.", got.Message)
		require.Len(t, got.Votes, 4)
	})
}

// TestApprovalRefusedByTheServer: what the schema cannot say comes back as the server's
// sentence, naming the field.
func TestApprovalRefusedByTheServer(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
		res, raw := call(t, cs, mcptools.AskHuman, map[string]any{"question": "Which region?", "approvals": 2, "wait_seconds": 0})
		require.True(t, raw.IsError)
		require.Equal(t, mcptools.StatusError, res.Status)
		require.Equal(t, "approvals", res.Field)
		require.Contains(t, res.Message, "a quorum of free answers decides nothing")
	})
}

// TestAskHumanWithDeadlines: ask_human passes remind and extend through to the server, which
// keeps them; a reminder without an expiry comes back as the server's sentence.
func TestAskHumanWithDeadlines(t *testing.T) {
	t.Parallel()
	eachAsker(t, func(t *testing.T, b *bundle, cs *mcp.ClientSession) {
		res, _ := call(t, cs, mcptools.AskHuman, merge("wait_seconds", 0, "expires_in", "2h",
			"remind", []any{"10m", "30m"}, "extend", map[string]any{"by": "1h", "max": "2h"}))
		require.Equal(t, mcptools.StatusPending, res.Status, res.Message)
		recs := b.all(t)
		require.Len(t, recs, 1)
		require.Equal(t, []inquiry.Duration{inquiry.Duration(30 * time.Minute), inquiry.Duration(10 * time.Minute)}, recs[0].Remind)
		require.Equal(t, &inquiry.Extension{By: inquiry.Duration(time.Hour), Max: inquiry.Duration(2 * time.Hour)}, recs[0].Extend)

		res, raw := call(t, cs, mcptools.AskHuman, merge("question", "Tag it?", "remind", []any{"10m"}))
		require.True(t, raw.IsError)
		require.Equal(t, "remind", res.Field)
		require.Contains(t, res.Message, "remind needs an expiry to count back from")
	})
}

func TestGetAnswerOfAnotherNamespaceOrNoKey(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, connect func(*bundle, string) *mcp.ClientSession) {
		b := setup(t)
		res, _ := call(t, connect(b, b.asker), mcptools.AskHuman, merge("wait_seconds", 0))

		other := connect(b, b.otherAsker)
		got, raw := call(t, other, mcptools.GetAnswer, map[string]any{"key": res.Key, "wait_seconds": 0})
		require.True(t, raw.IsError)
		require.Equal(t, string(inquiry.CodeForbidden), got.Code)
		require.Contains(t, got.Message, "belongs to another namespace")

		got, raw = call(t, other, mcptools.GetAnswer, map[string]any{"key": "inq_nosuchkey", "wait_seconds": 0})
		require.True(t, raw.IsError)
		require.Equal(t, `No question has the key "inq_nosuchkey": pass the key ask_human returned (it starts with inq_), not the question's id.`, got.Message)
	})
}

func TestToolsListGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, be := range backends {
		list, err := be.connect(b, b.asker).ListTools(context.Background(), nil)
		require.NoError(t, err)
		got, err := json.MarshalIndent(list.Tools, "", "  ")
		require.NoError(t, err)
		got = append(got, '\n')
		path := filepath.Join("testdata", "tools_list.golden")
		if *update && be.name == backends[0].name {
			require.NoError(t, os.MkdirAll("testdata", 0o755))
			require.NoError(t, os.WriteFile(path, got, 0o644))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "run go test ./mcptools -run TestToolsListGolden -update to write it")
		require.Equal(t, string(want), string(got), "%s: tools/list differs from %s (rerun with -update if the change is meant)", be.name, path)
	}
}

func TestHTTPEndpointAuthentication(t *testing.T) {
	t.Parallel()
	b := setup(t)
	revoked := b.token("gone", "team-a", inquiry.ScopeAsk)
	require.NoError(t, b.store.RevokeToken(context.Background(), "gone", time.Now()))

	// A token that may ask connects and lists the tools.
	list, err := b.httpSession(b.asker).ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, list.Tools, 3)

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	post := func(token string) (*http.Response, map[string]any) {
		req, err := http.NewRequest(http.MethodPost, b.url+"/mcp", strings.NewReader(initialize))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var body map[string]any
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		}
		return resp, body
	}
	for _, tc := range []struct {
		name, token string
		status      int
		code        inquiry.Code
	}{
		{"no token", "", http.StatusUnauthorized, inquiry.CodeUnauthenticated},
		{"unknown token", "bot_nosuchid_secret", http.StatusUnauthorized, inquiry.CodeUnauthenticated},
		{"revoked token", revoked, http.StatusUnauthorized, inquiry.CodeUnauthenticated},
		{"answer scope only", b.answerer, http.StatusForbidden, inquiry.CodeForbidden},
	} {
		resp, body := post(tc.token)
		require.Equal(t, tc.status, resp.StatusCode, tc.name)
		e, ok := body["error"].(map[string]any)
		require.True(t, ok, "%s: the API's error body, got %v", tc.name, body)
		require.Equal(t, string(tc.code), e["code"], tc.name)
		require.NotEmpty(t, e["message"], tc.name)
		if tc.status == http.StatusUnauthorized {
			require.Contains(t, resp.Header.Get("WWW-Authenticate"), "Bearer", tc.name)
		}
	}
	resp, _ := post(b.asker)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	// Behind a reverse proxy on the same machine: a loopback address under the public Host.
	req, err := http.NewRequest(http.MethodPost, b.url+"/mcp", strings.NewReader(initialize))
	require.NoError(t, err)
	req.Host = "bot.example.com"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+b.asker)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	// The SDK's client without a token cannot connect.
	c := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	_, err = c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: b.url + "/mcp", MaxRetries: -1}, nil)
	require.Error(t, err)
}

func TestHTTPEndpointAuthenticatesEveryRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	revocable := b.token("short-lived", "team-a", inquiry.ScopeAsk)
	cs := b.httpSession(revocable)
	_, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)

	// Revoked after connecting (on the database, as another replica would): the next call is
	// refused, though the client connected.
	require.NoError(t, b.store.RevokeToken(context.Background(), "short-lived", time.Now()))
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcptools.AskHuman, Arguments: merge("wait_seconds", 0)})
	require.Error(t, err)
	require.Empty(t, b.all(t), "nothing was asked")

	// Stateless: POST only; a GET stream is the gateway's 405.
	req, err := http.NewRequest(http.MethodGet, b.url+"/mcp", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+b.asker)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}
