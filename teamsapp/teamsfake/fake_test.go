package teamsfake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/teamsapp/teamsfake"
)

func get(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func TestMetadataKeysAndToken(t *testing.T) {
	f := teamsfake.New("app", "pw")
	defer f.Close()
	var meta struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	get(t, f.OpenIDURL(), &meta)
	if meta.Issuer != teamsfake.Issuer || meta.JWKSURI == "" {
		t.Fatalf("metadata: %+v", meta)
	}
	var keys struct {
		Keys []struct {
			Kty, Kid     string
			Endorsements []string
		}
	}
	get(t, meta.JWKSURI, &keys)
	if len(keys.Keys) != 1 || keys.Keys[0].Kty != "RSA" || keys.Keys[0].Kid == "" || keys.Keys[0].Endorsements[0] != "msteams" {
		t.Fatalf("keys: %+v", keys)
	}

	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"app"}, "client_secret": {"wrong"}, "scope": {"https://api.botframework.com/.default"}}
	resp, err := http.PostForm(f.TokenURL(), form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a wrong secret: want 401, got %d", resp.StatusCode)
	}
	form.Set("client_secret", "pw")
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	resp, err = http.PostForm(f.TokenURL(), form)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" || tok.ExpiresIn != 3600 {
		t.Fatalf("token: %+v %v", tok, err)
	}
	resp.Body.Close()

	post := func(token string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, f.ServiceURL()+"v3/conversations/19:c@thread.tacv2/activities", strings.NewReader(`{"type":"message"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Retry-After") + string(b)
	}
	if s, _ := post("nope"); s != http.StatusUnauthorized {
		t.Fatalf("an unknown token: want 401, got %d", s)
	}
	f.FailNext(http.StatusTooManyRequests, "3")
	if s, body := post(tok.AccessToken); s != http.StatusTooManyRequests || !strings.HasPrefix(body, "3") {
		t.Fatalf("FailNext: want 429 with Retry-After 3, got %d %s", s, body)
	}
	if s, _ := post(tok.AccessToken); s != http.StatusCreated || len(f.Calls()) != 1 || f.Calls()[0].Conversation != "19:c@thread.tacv2" {
		t.Fatalf("a post: got %d %+v", s, f.Calls())
	}
	f.Forbid("19:c@thread.tacv2")
	if s, body := post(tok.AccessToken); s != http.StatusForbidden || !strings.Contains(body, "MessageWritesBlocked") {
		t.Fatalf("Forbid: want Teams' 403, got %d %s", s, body)
	}
}

// TestRoster: the roster answers a member it knows by their Entra object id or their 29: id,
// 404 for anybody else, and 401 without the bot's token; reading it records no call.
func TestRoster(t *testing.T) {
	f := teamsfake.New("app", "pw")
	defer f.Close()
	f.AddMember(teamsfake.Person{ID: "29:carol", Name: "Carol Ng", AADObjectID: "5d1e4a2c-7b1f-4c0e-9a55-0c2f3e8b6a11"})
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"app"}, "client_secret": {"pw"}, "scope": {"https://api.botframework.com/.default"}}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	resp, err := http.PostForm(f.TokenURL(), form)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	member := func(token, id string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, f.ServiceURL()+"v3/conversations/19:c@thread.tacv2/members/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m struct{ Name string }
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m.Name
	}
	for _, id := range []string{"5D1E4A2C-7B1F-4C0E-9A55-0C2F3E8B6A11", "29:carol"} {
		if s, name := member(tok.AccessToken, id); s != http.StatusOK || name != "Carol Ng" {
			t.Fatalf("member %s: want Carol Ng, got %d %q", id, s, name)
		}
	}
	if s, _ := member(tok.AccessToken, "29:nobody"); s != http.StatusNotFound {
		t.Fatalf("an unknown member: want 404, got %d", s)
	}
	if s, _ := member("nope", "29:carol"); s != http.StatusUnauthorized {
		t.Fatalf("no token: want 401, got %d", s)
	}
	if len(f.Calls()) != 0 {
		t.Fatalf("reading the roster recorded calls: %+v", f.Calls())
	}
}
