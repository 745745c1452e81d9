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
