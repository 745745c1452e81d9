package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/slackapp/slackfake"
	"github.com/inquiry-bot/bot/slackapp/slackfake/slackfaketest"
	"github.com/inquiry-bot/bot/storage/storagetest"
	"github.com/inquiry-bot/bot/teamsapp/teamsfake"
)

// TestFanOutToSlackAndTeams runs the real binary against the fake Slack and the fake Teams at
// once, on both databases. One inquiry names a Slack channel and a Teams conversation: it is
// posted to both, a Teams click answers it, and the Slack message (chat.update) and the Teams
// card (PUT) both show the outcome. A second needs two approvals: one Slack click and one Teams
// click, from two people on two channels, resolve it, and both messages are updated.
func TestFanOutToSlackAndTeams(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		const appID = "0b6fe6d1-fece-44f7-9a48-56465e2d5ab8"
		teams := teamsfake.New(appID, "s3cret")
		t.Cleanup(teams.Close)
		slack := slackfaketest.New(t)
		s := startServerIn(t, t.TempDir(), "DATABASE_URL="+databaseURL,
			"SLACK_BOT_TOKEN="+slackfake.BotToken, "SLACK_SIGNING_SECRET="+slackfake.SigningSecret,
			"SLACK_API_URL="+slack.URL(),
			"TEAMS_APP_ID="+appID, "TEAMS_APP_PASSWORD=s3cret",
			"TEAMS_OPENID_URL="+teams.OpenIDURL(), "TEAMS_TOKEN_URL="+teams.TokenURL())
		slack.SetAppURL(s.url)
		channel := slackfake.DefaultChannel
		conv := "19:fanout@thread.tacv2"
		alice := teamsfake.Person{ID: "29:alice", Name: "Alice", AADObjectID: "b15a9416-0ad3-4172-9210-7beb711d3f70"}
		const bob = "U0BOB0001"

		type posted struct {
			Key      string
			Status   string
			Channels []string
			Config   struct{ Transport string }
			Slack    struct{ Channel, TS string }
			Answer   *struct {
				AnsweredBy string `json:"answered_by"`
				Votes      []struct{ By string }
			}
			Placements []struct {
				Step             int
				Via, Channel, TS string
			}
		}
		get := func(key string) posted {
			code, body := call(t, "GET", s.url+"/v1/inquiries/"+key, s.admin, "")
			require.Equal(t, 200, code, string(body))
			var rec posted
			require.NoError(t, json.Unmarshal(body, &rec))
			return rec
		}
		ask := func(body string) posted {
			code, out := call(t, "POST", s.url+"/v1/inquiries", s.admin, body)
			require.Equal(t, 201, code, string(out))
			var rec posted
			require.NoError(t, json.Unmarshal(out, &rec))
			return rec
		}
		// shown waits for the question to be posted on both channels and returns it as stored.
		shown := func(key string) posted {
			var rec posted
			eventually(t, "the question posted in Slack and in Teams", func() bool {
				rec = get(key)
				return rec.Slack.TS != "" && len(rec.Placements) == 1
			})
			require.Equal(t, 0, rec.Placements[0].Step)
			require.Equal(t, "teams", rec.Placements[0].Via)
			require.Equal(t, conv, rec.Placements[0].Channel)
			return rec
		}
		click := func(key, activity, value string) []byte {
			act := teams.Action(conv, activity, alice, value, map[string]any{"inquiry": key, "value": value})
			status, resp, err := teams.Send(context.Background(), s.url+"/teams/messages", teams.Token(teamsfake.TokenOptions{}), act)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, status, string(resp))
			return resp
		}
		// updated reports whether Teams activity id in conv was replaced by a card saying what.
		updated := func(activity, what string) bool {
			for _, c := range teams.Calls() {
				if c.Method == http.MethodPut && c.Conversation == conv && c.ActivityID == activity &&
					bytes.Contains(c.Card(), []byte(what)) && !bytes.Contains(c.Card(), []byte("Action.Execute")) {
					return true
				}
			}
			return false
		}
		settled := func(ts string) bool {
			m, ok := slack.Message(channel, ts)
			return ok && m.Edits > 0 && !m.HasControls()
		}

		// One inquiry, two channels, answered in Teams.
		rec := ask(fmt.Sprintf(`{"id":"f1","kind":"choice","question":"Roll out build 77?","options":["Roll out","Hold"],
			"slack":{"channel":%q},"teams":{"conversation":%q,"service_url":%q}}`, channel, conv, teams.ServiceURL()))
		require.Equal(t, "slack", rec.Config.Transport, "the first channel named is the transport")
		require.Equal(t, []string{"slack", "teams"}, rec.Channels)
		rec = shown(rec.Key)
		resp := click(rec.Key, rec.Placements[0].TS, "roll out")
		require.NotContains(t, string(resp), "Action.Execute", "the answered card has no buttons left")
		eventually(t, "the Slack message to show the Teams answer", func() bool { return settled(rec.Slack.TS) })
		eventually(t, "the Teams card to be updated", func() bool { return updated(rec.Placements[0].TS, "by "+alice.Name) }) // named as Teams showed her
		require.NotEmpty(t, slack.Calls("chat.update"))
		got := get(rec.Key)
		require.Equal(t, "answered", got.Status)
		require.Equal(t, alice.AADObjectID, got.Answer.AnsweredBy)

		// Two approvals: one person in Slack, one in Teams.
		rec = ask(fmt.Sprintf(`{"id":"f2","kind":"confirm","question":"Deploy to production?","approvals":2,
			"slack":{"channel":%q,"answerers":[%q]},"teams":{"conversation":%q,"service_url":%q,"answerers":[%q]}}`,
			channel, bob, conv, teams.ServiceURL(), alice.AADObjectID))
		rec = shown(rec.Key)
		r, err := slack.Click(bob, channel, rec.Slack.TS, "yes")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, r.Status, r.String())
		eventually(t, "the Slack vote to be counted", func() bool { return get(rec.Key).Answer == nil && len(slack.Calls("chat.update")) > 1 })
		require.Equal(t, "pending", get(rec.Key).Status, "one approval of two decides nothing")

		click(rec.Key, rec.Placements[0].TS, "yes")
		eventually(t, "two approvals to resolve it", func() bool { return get(rec.Key).Status == "answered" })
		got = get(rec.Key)
		var voters []string
		for _, v := range got.Answer.Votes {
			voters = append(voters, v.By)
		}
		require.ElementsMatch(t, []string{bob, alice.AADObjectID}, voters, "a Slack person and a Teams person are two voters")
		eventually(t, "the Slack message to show the approval", func() bool { return settled(rec.Slack.TS) })
		eventually(t, "the Teams card to show the approval", func() bool { return updated(rec.Placements[0].TS, "") })
	})
}
