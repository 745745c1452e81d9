package mcptools_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/mcptools"
)

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
