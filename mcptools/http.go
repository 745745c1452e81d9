package mcptools

import (
	"context"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/inquiry-bot/bot/inquiry"
)

// HTTPHandler serves the tools over streamable HTTP (the server's /mcp), in
// process over svc. It is mounted behind the gateway's bearer check (gateway.Config.MCP), which
// puts the caller in the request's context (inquiry.WithCaller): each tool call asks as that
// token, in its namespace. A request that reaches it with no caller is refused.
//
// The endpoint is stateless streamable HTTP: it takes POST only (GET and DELETE get 405), so it
// has no stream to send a notification on, and initialize advertises no tools.listChanged.
func HTTPHandler(svc *inquiry.Service, opts Options) http.Handler {
	var taskKey func(*mcp.RequestExtra) ([]byte, string)
	if len(svc.LinkSecret) > 0 {
		// Task ids are signed with the key material of answer links, bound to the caller's
		// namespace: another namespace's id, or a forged one, names no task.
		taskKey = func(extra *mcp.RequestExtra) ([]byte, string) {
			if tok := tokenOf(extra); tok != nil {
				return svc.LinkSecret, tok.Namespace
			}
			return nil, ""
		}
	}
	srv := newStatelessServer(func(extra *mcp.RequestExtra) (Backend, error) {
		tok := tokenOf(extra)
		if tok == nil { // the handler below always sets it; a call without one is a wiring bug
			return nil, inquiry.Errorf(inquiry.CodeUnauthenticated, "the bearer token is missing, unknown or revoked: send Authorization: Bearer <token> with a token from `bot token create`")
		}
		return ServiceBackend{Service: svc, Token: tok}, nil
	}, taskKey, opts)
	// Stateless: every POST is a session of its own. The tools keep no state between calls (a
	// pending question lives in the store, found again by its key), so any replica serves any
	// request, nothing is held per client, and no long-lived GET stream runs into the server's
	// write timeout.
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless: true,
		Logger:    sdkLogger(opts.Logger),
		// The SDK's own check refuses a loopback request under any Host but localhost, which
		// would refuse the common deployment behind a reverse proxy on the same machine:
		// hostGuard checks Host and Origin against BOT_PUBLIC_URL's host as well.
		DisableLocalhostProtection: true,
	})
	// RequireBearerToken is how a token reaches the tool calls (CallToolRequest.Extra.TokenInfo);
	// the token was authenticated just before, so the verifier only hands it on.
	verified := auth.RequireBearerToken(func(ctx context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		tok := inquiry.CallerFrom(r.Context())
		if tok == nil {
			return nil, auth.ErrInvalidToken
		}
		scopes := make([]string, len(tok.Scopes))
		for i, s := range tok.Scopes {
			scopes[i] = string(s)
		}
		return &auth.TokenInfo{Scopes: scopes, UserID: tok.ID, Extra: map[string]any{tokenExtra: tok}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(liftTaskParamHTTP(streamable))
	// permission_prompt waits up to DefaultPermissionTimeout for a person, past the server's
	// WriteTimeout (ask_human's waits stay under it): the response may be written that late.
	extended := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(DefaultPermissionTimeout + 2*time.Minute)) // a writer without deadlines has nothing to extend
		verified.ServeHTTP(w, r)
	})
	return newHostGuard(svc.PublicURL, extended)
}

// tokenExtra is the key of the token in auth.TokenInfo.Extra.
const tokenExtra = "inquiry.token"

func tokenOf(extra *mcp.RequestExtra) *inquiry.Token {
	if extra == nil || extra.TokenInfo == nil {
		return nil
	}
	tok, _ := extra.TokenInfo.Extra[tokenExtra].(*inquiry.Token)
	return tok
}
