// Package teamsfake is a fake Microsoft Teams for tests and local runs: the Bot Framework's
// OpenID metadata and the key set it signs with (an RSA key of its own), the token endpoint
// (client credentials), the Connector's conversation endpoints, which record what was posted
// and updated, and the roster's lookup of one member (AddMember). It sends invoke activities
// shaped like real ones (adaptiveCard/action), signed as the Connector signs them, or wrongly on
// purpose, and answers 429 with Retry-After, a 5xx or a 403 on demand. It imports no testing
// package, so a local bot can run against it too.
package teamsfake

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Issuer is the issuer of the Connector's tokens, as Bot Framework's metadata names it.
const Issuer = "https://api.botframework.com"

// Call is one request the Connector received from the bot.
type Call struct {
	Method       string
	Conversation string
	ActivityID   string          // the activity updated (PUT) or replied to (POST), or "" for a post
	Body         json.RawMessage // the activity sent
}

// Card is the Adaptive Card of the call's first attachment, as JSON ("" when none).
func (c Call) Card() json.RawMessage {
	var a struct {
		Attachments []struct {
			ContentType string          `json:"contentType"`
			Content     json.RawMessage `json:"content"`
		} `json:"attachments"`
	}
	if json.Unmarshal(c.Body, &a) != nil || len(a.Attachments) == 0 {
		return nil
	}
	return a.Attachments[0].Content
}

// Fake is a running fake Teams.
type Fake struct {
	AppID, Password string

	srv   *httptest.Server
	other *rsa.PrivateKey // a key nobody publishes: tokens signed with it are forged

	// key signs, under kid; the key set lists it alone.
	key *rsa.PrivateKey
	kid string
	now func() time.Time

	mu        sync.Mutex
	calls     []Call
	failures  []failure
	forbidden map[string]bool
	tokens    map[string]time.Time // access tokens issued, and when each expires
	members   []Person             // who the roster knows, in every conversation
	lookups   int                  // the roster's GETs of one member
	fetches   int
	nextID    int
}

type failure struct {
	status     int
	retryAfter string
}

// New starts a fake Teams for the bot with appID and password (its client id and secret).
func New(appID, password string) *Fake {
	f := &Fake{AppID: appID, Password: password, now: time.Now, kid: "fake-key-1", forbidden: map[string]bool{}, tokens: map[string]time.Time{}}
	var err error
	if f.key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		panic(err)
	}
	if f.other, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/.well-known/openidconfiguration", f.metadata)
	mux.HandleFunc("GET /v1/.well-known/keys", f.keys)
	mux.HandleFunc("POST /botframework.com/oauth2/v2.0/token", f.token)
	mux.HandleFunc("POST /teams/v3/conversations/{conversation}/activities", f.activity)
	mux.HandleFunc("PUT /teams/v3/conversations/{conversation}/activities/{activity}", f.activity)
	mux.HandleFunc("POST /teams/v3/conversations/{conversation}/activities/{activity}", f.activity)
	mux.HandleFunc("GET /teams/v3/conversations/{conversation}/members/{member}", f.member)
	f.srv = httptest.NewServer(mux)
	return f
}

// Close stops the fake.
func (f *Fake) Close() { f.srv.Close() }

// SetClock makes the fake sign and expire with now instead of the wall clock.
func (f *Fake) SetClock(now func() time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = now
}

func (f *Fake) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now()
}

// OpenIDURL is the OpenID metadata's URL (TEAMS_OPENID_URL).
func (f *Fake) OpenIDURL() string { return f.srv.URL + "/v1/.well-known/openidconfiguration" }

// TokenURL is the token endpoint's URL (TEAMS_TOKEN_URL).
func (f *Fake) TokenURL() string { return f.srv.URL + "/botframework.com/oauth2/v2.0/token" }

// ServiceURL is the serviceUrl of the fake's conversations, as a real one ends: with "/".
func (f *Fake) ServiceURL() string { return f.srv.URL + "/teams/" }

// Calls are the posts and updates received so far, in order.
func (f *Fake) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// TokenFetches is how many access tokens the bot fetched.
func (f *Fake) TokenFetches() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fetches
}

// FailNext makes the next Connector call answer status (429, a 5xx), with Retry-After when
// retryAfter is not "". Calls queue: each answers one request.
func (f *Fake) FailNext(status int, retryAfter string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = append(f.failures, failure{status, retryAfter})
}

// Forbid makes conversation refuse the bot, as Teams does when the bot was removed or never
// added: 403 with Teams' own body.
func (f *Fake) Forbid(conversation string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forbidden[conversation] = true
}

// AddMember makes the roster of every conversation know p: GET …/members/{id} answers p for
// their 29: id or their Entra object id, as Teams does; anybody else is 404.
func (f *Fake) AddMember(p Person) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.members = append(f.members, p)
}

// MemberLookups is how many times the bot read one member of a roster (GET …/members/{id}).
func (f *Fake) MemberLookups() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lookups
}

// member answers the roster's GET of one member, after the bot's token.
func (f *Fake) member(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("member")
	f.mu.Lock()
	f.lookups++
	exp, known := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	valid := known && f.now().Before(exp)
	var found *Person
	for i, p := range f.members {
		if p.ID == id || strings.EqualFold(p.AADObjectID, id) {
			found = &f.members[i]
		}
	}
	f.mu.Unlock()
	switch {
	case !valid:
		writeJSON(w, http.StatusUnauthorized, errorBody("Unauthorized", "Authorization has been denied for this request."))
	case found == nil:
		writeJSON(w, http.StatusNotFound, errorBody("MemberNotFoundInConversation", "The member is not in the conversation."))
	default:
		writeJSON(w, http.StatusOK, map[string]any{"id": found.ID, "name": found.Name, "aadObjectId": found.AADObjectID,
			"tenantId": "50612dbb-0237-4969-b378-8d42590f9c00", "userRole": "user"})
	}
}

// Mentions are the mention entities of the call's card (none when it mentions nobody): who it names, as
// Teams reads them from the card's msteams object.
func (c Call) Mentions() []Mention {
	var card struct {
		MSTeams struct {
			Entities []Mention `json:"entities"`
		} `json:"msteams"`
	}
	_ = json.Unmarshal(c.Card(), &card)
	return card.MSTeams.Entities
}

// Mention is one mention entity of a card.
type Mention struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Mentioned struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"mentioned"`
}

func (f *Fake) metadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                Issuer,
		"authorization_endpoint":                "https://invalid.botframework.com",
		"jwks_uri":                              f.srv.URL + "/v1/.well-known/keys",
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"token_endpoint_auth_methods_supported": []string{"private_key_jwt"},
	})
}

func (f *Fake) keys(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	keys := []jose.JSONWebKey{{Key: &f.key.PublicKey, KeyID: f.kid, Algorithm: "RS256", Use: "sig"}}
	f.mu.Unlock()
	var set []any
	for _, jwk := range keys {
		b, err := jwk.MarshalJSON()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		m["endorsements"] = []string{"msteams", "webchat"}
		set = append(set, m)
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": set})
}

// Rotate signs from now on with a new key under a new key id, as the Bot Framework rolls its
// keys; the key set lists the new key.
func (f *Fake) Rotate() {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.key = key
	f.kid += "-next"
}

// token issues an access token for the client credentials the fake was made with.
func (f *Fake) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	if r.PostFormValue("grant_type") != "client_credentials" || id != f.AppID || secret != f.Password {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client", "error_description": "AADSTS7000215: Invalid client secret provided."})
		return
	}
	if r.PostFormValue("scope") != "https://api.botframework.com/.default" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_scope"})
		return
	}
	f.mu.Lock()
	f.fetches++
	tok := fmt.Sprintf("fake-access-%d", f.fetches)
	f.tokens[tok] = f.now().Add(time.Hour)
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"token_type": "Bearer", "expires_in": 3600, "ext_expires_in": 3600, "access_token": tok})
}

// activity records a post or an update, after the bot's token and any failure asked for.
func (f *Fake) activity(w http.ResponseWriter, r *http.Request) {
	conv, act := r.PathValue("conversation"), r.PathValue("activity")
	f.mu.Lock()
	exp, known := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	valid := known && f.now().Before(exp)
	var fail *failure
	if valid && len(f.failures) > 0 {
		fail = &f.failures[0]
		f.failures = f.failures[1:]
	}
	forbidden := f.forbidden[conv]
	f.mu.Unlock()
	switch {
	case !valid:
		writeJSON(w, http.StatusUnauthorized, errorBody("Unauthorized", "Authorization has been denied for this request."))
		return
	case fail != nil:
		if fail.retryAfter != "" {
			w.Header().Set("Retry-After", fail.retryAfter)
		}
		writeJSON(w, fail.status, errorBody("ServiceError", http.StatusText(fail.status)))
		return
	case forbidden:
		writeJSON(w, http.StatusForbidden, map[string]any{"errorCode": 209, "message": `{"errorCode":209,"message":"Bot is not part of the conversation roster.","subCode":"MessageWritesBlocked"}`})
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil || !json.Valid(body) {
		writeJSON(w, http.StatusBadRequest, errorBody("BadArgument", "The activity is not JSON."))
		return
	}
	f.mu.Lock()
	call := Call{Method: r.Method, Conversation: conv, ActivityID: act, Body: body}
	if r.Method == http.MethodPost { // a new activity (a reply names the one it answers)
		f.nextID++
		act = fmt.Sprintf("17%011d", f.nextID)
	}
	f.calls = append(f.calls, call)
	f.mu.Unlock()
	w.Header().Set("X-Correlating-OperationId", "fake")
	writeJSON(w, http.StatusCreated, map[string]any{"id": act})
}

func errorBody(code, message string) map[string]any {
	return map[string]any{"error": map[string]any{"code": code, "message": message}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// TokenOptions bend a signed token for the tests of a bot's checks: each zero value is the
// Connector's own.
type TokenOptions struct {
	Audience   string        // default the fake's AppID
	Issuer     string        // default Issuer
	ServiceURL string        // the serviceurl claim; default ServiceURL()
	Expired    bool          // expired an hour ago
	Forged     bool          // signed by a key the metadata does not list
	Lifetime   time.Duration // default 1h
}

// Token is a Connector token as the fake signs it.
func (f *Fake) Token(o TokenOptions) string {
	f.mu.Lock()
	key, kid := f.key, f.kid
	f.mu.Unlock()
	if o.Forged {
		key = f.other
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		panic(err)
	}
	now := f.clock()
	if o.Lifetime == 0 {
		o.Lifetime = time.Hour
	}
	if o.Expired {
		now = now.Add(-o.Lifetime - time.Hour)
	}
	claims := map[string]any{
		"iss":        cmpOr(o.Issuer, Issuer),
		"aud":        cmpOr(o.Audience, f.AppID),
		"nbf":        now.Add(-time.Minute).Unix(),
		"exp":        now.Add(o.Lifetime).Unix(),
		"serviceurl": cmpOr(o.ServiceURL, f.ServiceURL()),
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		panic(err)
	}
	return tok
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Person is who clicks in Teams: their MRI, name and Entra object id.
type Person struct {
	ID, Name, AADObjectID string
}

// Action is an Action.Execute invoke from the card posted as replyToID in conversation, by who,
// with data (the button's data merged with the card's inputs): the shape of a real
// adaptiveCard/action invoke from a channel.
func (f *Fake) Action(conversation, replyToID string, who Person, title string, data map[string]any) []byte {
	return f.Execute(conversation, replyToID, who, title, "answer", data)
}

// Execute is Action with another verb than "answer": the Action.Execute of another of the
// card's buttons.
func (f *Fake) Execute(conversation, replyToID string, who Person, title, verb string, data map[string]any) []byte {
	act := map[string]any{
		"type":       "invoke",
		"name":       "adaptiveCard/action",
		"channelId":  "msteams",
		"id":         "f:" + replyToID,
		"serviceUrl": f.ServiceURL(),
		"channelData": map[string]any{
			"tenant": map[string]any{"id": "50612dbb-0237-4969-b378-8d42590f9c00"},
			"source": map[string]any{"name": "message"},
		},
		"from":         map[string]any{"id": who.ID, "name": who.Name, "aadObjectId": who.AADObjectID},
		"recipient":    map[string]any{"id": "28:" + f.AppID, "name": "inquiry bot"},
		"conversation": map[string]any{"id": conversation, "conversationType": "channel", "isGroup": true, "tenantId": "50612dbb-0237-4969-b378-8d42590f9c00"},
		"value": map[string]any{
			"action":  map[string]any{"type": "Action.Execute", "id": "", "title": title, "verb": verb, "data": data},
			"trigger": "manual",
		},
		"timestamp": f.clock().UTC().Format(time.RFC3339Nano),
		"replyToId": replyToID,
		"locale":    "en-US",
	}
	b, _ := json.Marshal(act)
	return b
}

// Message is a message to the bot in a thread of channel, as Teams delivers an @mention: the
// conversation is the thread (channel;messageid=…), channelData names the channel.
func (f *Fake) Message(channel string, who Person, text string) []byte {
	act := map[string]any{
		"type":       "message",
		"channelId":  "msteams",
		"id":         "1759881511856",
		"serviceUrl": f.ServiceURL(),
		"channelData": map[string]any{
			"channel": map[string]any{"id": channel},
			"tenant":  map[string]any{"id": "50612dbb-0237-4969-b378-8d42590f9c00"},
		},
		"from":         map[string]any{"id": who.ID, "name": who.Name, "aadObjectId": who.AADObjectID},
		"recipient":    map[string]any{"id": "28:" + f.AppID, "name": "inquiry bot"},
		"conversation": map[string]any{"id": channel + ";messageid=1759881511856", "conversationType": "channel", "isGroup": true},
		"text":         "<at>inquiry bot</at> " + text,
		"timestamp":    f.clock().UTC().Format(time.RFC3339Nano),
	}
	b, _ := json.Marshal(act)
	return b
}

// Send posts activity to the bot's endpoint with token as the bearer ("" sends no
// Authorization), as the Connector does, and returns the status and body of the bot's answer.
func (f *Fake) Send(ctx context.Context, endpoint, token string, activity []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(activity))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}
