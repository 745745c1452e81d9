package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/storage/storagetest"
	"github.com/inquiry-bot/bot/teamsapp/teamsfake"
)

// TestTeamsEndToEnd runs the real binary on :0 against the fake Teams, on both databases: an
// inquiry asked with a teams object is posted as a card to its conversation, bad tokens are
// 401, a signed click answers it and gets the updated card, the posted message is updated
// with PUT, and a second click is told the question was decided.
func TestTeamsEndToEnd(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		const appID = "0b6fe6d1-fece-44f7-9a48-56465e2d5ab8"
		fake := teamsfake.New(appID, "s3cret")
		t.Cleanup(fake.Close)
		s := startServerIn(t, t.TempDir(), "DATABASE_URL="+databaseURL,
			"TEAMS_APP_ID="+appID, "TEAMS_APP_PASSWORD=s3cret",
			"TEAMS_OPENID_URL="+fake.OpenIDURL(), "TEAMS_TOKEN_URL="+fake.TokenURL())
		conv := "19:6848757105754c8981c67612732d9aa7@thread.tacv2"
		alice := teamsfake.Person{ID: "29:alice", Name: "Alice", AADObjectID: "b15a9416-0ad3-4172-9210-7beb711d3f70"}

		code, body := call(t, "POST", s.url+"/v1/inquiries", s.admin, fmt.Sprintf(
			`{"id":"t1","kind":"choice","question":"Roll out build 77?","options":["Roll out","Hold"],"config":{"policy":"ask"},"teams":{"conversation":%q,"service_url":%q,"answerers":[%q]}}`,
			conv, fake.ServiceURL(), alice.AADObjectID))
		require.Equal(t, 201, code, string(body))
		var rec struct {
			Key    string
			Config struct{ Transport string }
			Teams  struct{ Conversation string }
		}
		require.NoError(t, json.Unmarshal(body, &rec))
		require.Equal(t, "teams", rec.Config.Transport, "the teams object names the transport")
		require.Equal(t, conv, rec.Teams.Conversation)

		eventually(t, "the card to be posted to the conversation", func() bool { return len(fake.Calls()) >= 1 })
		posted := fake.Calls()[0]
		require.Equal(t, conv, posted.Conversation)
		require.Contains(t, string(posted.Card()), `"verb":"answer"`)

		endpoint := s.url + "/teams/messages"
		click := func(tok string, who teamsfake.Person, value string) (int, []byte) {
			act := fake.Action(conv, "17000000000001", who, value, map[string]any{"inquiry": rec.Key, "value": value})
			status, resp, err := fake.Send(context.Background(), endpoint, tok, act)
			require.NoError(t, err)
			return status, resp
		}
		for name, tok := range map[string]string{
			"missing":        "",
			"expired":        fake.Token(teamsfake.TokenOptions{Expired: true}),
			"forged":         fake.Token(teamsfake.TokenOptions{Forged: true}),
			"wrong audience": fake.Token(teamsfake.TokenOptions{Audience: "someone-else"}),
		} {
			status, _ := click(tok, alice, "roll out")
			require.Equal(t, http.StatusUnauthorized, status, name)
		}

		status, resp := click(fake.Token(teamsfake.TokenOptions{}), alice, "roll out")
		require.Equal(t, http.StatusOK, status, string(resp))
		require.Contains(t, string(resp), "application/vnd.microsoft.card.adaptive")
		require.NotContains(t, string(resp), "Action.Execute", "the answered card has no buttons left")

		eventually(t, "the posted message to be updated", func() bool {
			for _, c := range fake.Calls() {
				if c.Method == http.MethodPut && c.Conversation == conv && bytes.Contains(c.Card(), []byte("by "+alice.Name)) { // the card names the person, the record keeps the id
					return true
				}
			}
			return false
		})
		code, body = call(t, "GET", s.url+"/v1/inquiries/"+rec.Key, s.admin, "")
		require.Equal(t, 200, code, string(body))
		require.Contains(t, string(body), `"answered_by":"`+alice.AADObjectID+`"`)

		status, resp = click(fake.Token(teamsfake.TokenOptions{}), alice, "hold")
		require.Equal(t, http.StatusOK, status)
		require.True(t, strings.Contains(string(resp), "already decided"), "a late click: %s", resp)
	})
}

func TestTeamsConfig(t *testing.T) {
	c, err := LoadConfig(envOf("TEAMS_APP_ID", "app", "TEAMS_APP_PASSWORD", "pw", "TEAMS_TENANT_ID", "tenant"))
	require.NoError(t, err)
	require.True(t, c.TeamsEnabled())
	require.Equal(t, "tenant", c.TeamsTenantID)
	_, err = LoadConfig(envOf("TEAMS_APP_PASSWORD", "pw"))
	require.ErrorContains(t, err, "set TEAMS_APP_ID")
	c, err = LoadConfig(envOf())
	require.NoError(t, err)
	require.False(t, c.TeamsEnabled(), "Teams is off without TEAMS_APP_ID")
}

// TestTeamsDefaultTransport: BOT_DEFAULT_TRANSPORT=teams is taken when Teams is configured and
// refused at start, with what to set, when it is not.
func TestTeamsDefaultTransport(t *testing.T) {
	c, err := LoadConfig(envOf("TEAMS_APP_ID", "app", "TEAMS_APP_PASSWORD", "pw", "BOT_DEFAULT_TRANSPORT", "teams"))
	require.NoError(t, err)
	require.Equal(t, "teams", c.DefaultTransport)
	_, err = LoadConfig(envOf("BOT_DEFAULT_TRANSPORT", "teams"))
	require.ErrorContains(t, err, "BOT_DEFAULT_TRANSPORT is teams but TEAMS_APP_ID is unset: set TEAMS_APP_ID")
	_, err = LoadConfig(envOf("BOT_DEFAULT_TRANSPORT", "discord"))
	require.ErrorContains(t, err, "not one of slack, teams, email or inbox")
}

// TestTeamsDefaultTransportServes runs the real binary with BOT_DEFAULT_TRANSPORT=teams: an
// inquiry with a teams object is posted to its conversation, and one that names no transport
// and no conversation is asked through the default, Teams, so it is refused with what to add.
func TestTeamsDefaultTransportServes(t *testing.T) {
	const appID = "0b6fe6d1-fece-44f7-9a48-56465e2d5ab8"
	fake := teamsfake.New(appID, "s3cret")
	t.Cleanup(fake.Close)
	s := startServerIn(t, t.TempDir(), "DATABASE_URL="+storagetest.SQLiteURL(t), "BOT_DEFAULT_TRANSPORT=teams", "BOT_DEFAULT_POLICY=ask",
		"TEAMS_APP_ID="+appID, "TEAMS_APP_PASSWORD=s3cret",
		"TEAMS_OPENID_URL="+fake.OpenIDURL(), "TEAMS_TOKEN_URL="+fake.TokenURL())
	conv := "19:default@thread.tacv2"
	code, body := call(t, "POST", s.url+"/v1/inquiries", s.admin, fmt.Sprintf(
		`{"id":"d1","kind":"confirm","question":"Ship it?","teams":{"conversation":%q,"service_url":%q}}`, conv, fake.ServiceURL()))
	require.Equal(t, 201, code, string(body))
	require.Contains(t, string(body), `"transport":"teams"`)
	eventually(t, "the card to be posted to the conversation", func() bool {
		calls := fake.Calls()
		return len(calls) >= 1 && calls[0].Conversation == conv
	})
	code, body = call(t, "POST", s.url+"/v1/inquiries", s.admin, `{"id":"d2","kind":"confirm","question":"Ship it?"}`)
	require.Equal(t, 422, code, string(body))
	require.Contains(t, string(body), "the teams transport needs a conversation to post to: name it in teams.conversation")
}
