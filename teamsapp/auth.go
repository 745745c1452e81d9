package teamsapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// The Bot Framework's issuer of the tokens Teams sends, the clock skew allowed, and how often the
// keys are read: at least daily, and on an unknown key id at most every keyRetry.
const (
	connectorIssuer = "https://api.botframework.com"
	clockSkew       = 5 * time.Minute
	keysMaxAge      = 24 * time.Hour
	keyRetry        = 5 * time.Minute
)

var signingAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512}

// keySet reads the signing keys from the OpenID metadata's jwks_uri and keeps them a day.
type keySet struct {
	metadataURL string
	client      *http.Client
	now         func() time.Time

	mu           sync.Mutex
	keys         jose.JSONWebKeySet
	endorsements map[string][]string // key id → the channel ids it is endorsed for
	read, tried  time.Time
}

// key is the key with kid and its endorsements, reading the set again when it is old or the id
// is unknown (at most every keyRetry).
func (k *keySet) key(ctx context.Context, kid string) (*jose.JSONWebKey, []string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	stale := k.read.IsZero() || now.Sub(k.read) > keysMaxAge
	found := k.keys.Key(kid)
	if (stale || len(found) == 0) && (k.tried.IsZero() || now.Sub(k.tried) >= keyRetry || stale) {
		k.tried = now
		if err := k.refresh(ctx); err != nil {
			if len(found) == 0 {
				return nil, nil, err
			}
		} else {
			k.read = now
			found = k.keys.Key(kid)
		}
	}
	if len(found) == 0 {
		return nil, nil, fmt.Errorf("no key %q in the Bot Framework's key set", kid)
	}
	return &found[0], k.endorsements[kid], nil
}

func (k *keySet) refresh(ctx context.Context) error {
	var meta struct {
		JWKSURI string `json:"jwks_uri"`
	}
	if err := getJSON(ctx, k.client, k.metadataURL, &meta); err != nil {
		return fmt.Errorf("read the OpenID metadata: %w", err)
	}
	if meta.JWKSURI == "" {
		return errors.New("the OpenID metadata names no jwks_uri")
	}
	var raw struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := getJSON(ctx, k.client, meta.JWKSURI, &raw); err != nil {
		return fmt.Errorf("read the signing keys: %w", err)
	}
	var set jose.JSONWebKeySet
	ends := map[string][]string{}
	for _, r := range raw.Keys {
		var jwk jose.JSONWebKey
		if err := jwk.UnmarshalJSON(r); err != nil {
			continue // a key of a kind this bot cannot use: Teams signs with RSA
		}
		var e struct {
			Endorsements []string `json:"endorsements"`
		}
		_ = json.Unmarshal(r, &e)
		ends[jwk.KeyID] = e.Endorsements
		set.Keys = append(set.Keys, jwk)
	}
	k.keys, k.endorsements = set, ends
	return nil
}

func getJSON(ctx context.Context, c *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}

// claims are what a verified Connector token says of the request.
type claims struct {
	serviceURL   string
	endorsements []string
}

// verify checks the request's bearer token, reading nothing of its body: the signature by a key
// of the set, the issuer, the audience (the app id), the validity with clockSkew. The serviceurl
// claim is compared with the activity once it is read.
func (a *App) verify(r *http.Request) (claims, error) {
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(raw) == "" {
		return claims{}, errors.New("no bearer token")
	}
	tok, err := jwt.ParseSigned(strings.TrimSpace(raw), signingAlgs)
	if err != nil {
		return claims{}, fmt.Errorf("not a signed JWT: %w", err)
	}
	if len(tok.Headers) != 1 {
		return claims{}, errors.New("not one signature")
	}
	key, ends, err := a.keys.key(r.Context(), tok.Headers[0].KeyID)
	if err != nil {
		return claims{}, err
	}
	var std jwt.Claims
	var extra struct {
		ServiceURL string `json:"serviceurl"`
	}
	if err := tok.Claims(key.Key, &std, &extra); err != nil {
		return claims{}, fmt.Errorf("signature: %w", err)
	}
	if std.Expiry == nil {
		return claims{}, errors.New("the token has no expiry")
	}
	err = std.ValidateWithLeeway(jwt.Expected{Issuer: connectorIssuer, AnyAudience: jwt.Audience{a.cfg.AppID}, Time: a.now()}, clockSkew)
	if err != nil {
		return claims{}, err
	}
	return claims{serviceURL: extra.ServiceURL, endorsements: ends}, nil
}

// endorsed reports whether a key with endorsements may sign for channel: a key endorsed for
// some channels signs for those alone.
func (c claims) endorsed(channel string) bool {
	return len(c.endorsements) == 0 || slices.Contains(c.endorsements, channel)
}
