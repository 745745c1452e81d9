package mcptools

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

// HTTPHandler serves ask_human and get_answer over streamable HTTP (the server's /mcp), in
// process over svc, behind the API's bearer tokens: every request is authenticated against
// svc.Store with inquiry.Authenticate, a token without the ask scope is refused, and each tool
// call asks as the token of its own request, in the token's namespace. Errors before MCP are the
// API's error bodies with the gateway's statuses (401 with WWW-Authenticate, 403, 503).
//
// The endpoint is stateless streamable HTTP: it takes POST only (GET and DELETE get 405).
func HTTPHandler(svc *inquiry.Service, opts Options) http.Handler {
	srv := newServer(func(req *mcp.CallToolRequest) (Backend, error) {
		tok := tokenOf(req)
		if tok == nil { // the handler below always sets it; a call without one is a wiring bug
			return nil, inquiry.Errorf(inquiry.CodeUnauthenticated, "the bearer token is missing, unknown or revoked: send Authorization: Bearer <token> with a token from `bot token create`")
		}
		return ServiceBackend{Service: svc, Token: tok}, nil
	}, opts)
	// Stateless: every POST is a session of its own. The tools keep no state between calls (a
	// pending question lives in the store, found again by its key), so any replica serves any
	// request, nothing is held per client, and no long-lived GET stream runs into the server's
	// write timeout.
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless: true,
		Logger:    sdkLogger(opts.Logger),
		// The SDK refuses a request that reached a loopback address under another Host, against
		// DNS rebinding of unauthenticated local servers. Every request here carries a bearer
		// token a rebinding page cannot have, and the check would refuse the common deployment
		// behind a reverse proxy on the same machine.
		DisableLocalhostProtection: true,
	})
	// RequireBearerToken is how a token reaches the tool calls (CallToolRequest.Extra.TokenInfo);
	// the token was authenticated just before, so the verifier only hands it on.
	verified := auth.RequireBearerToken(func(ctx context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		tok, _ := r.Context().Value(tokenKey{}).(*inquiry.Token)
		if tok == nil {
			return nil, auth.ErrInvalidToken
		}
		scopes := make([]string, len(tok.Scopes))
		for i, s := range tok.Scopes {
			scopes[i] = string(s)
		}
		return &auth.TokenInfo{Scopes: scopes, UserID: tok.ID, Extra: map[string]any{tokenExtra: tok}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamable)
	return &httpHandler{store: svc.Store, next: verified}
}

type tokenKey struct{}

// tokenExtra is the key of the token in auth.TokenInfo.Extra.
const tokenExtra = "inquiry.token"

func tokenOf(req *mcp.CallToolRequest) *inquiry.Token {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
		return nil
	}
	tok, _ := req.Extra.TokenInfo.Extra[tokenExtra].(*inquiry.Token)
	return tok
}

// httpHandler authenticates every request as the gateway does, then hands it on.
type httpHandler struct {
	store inquiry.Store
	next  http.Handler
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	plain, ok := gateway.Bearer(r.Header.Get("Authorization"))
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="inquiry-bot"`)
		writeError(w, inquiry.Errorf(inquiry.CodeUnauthenticated, "the bearer token is missing, unknown or revoked: send Authorization: Bearer <token> with a token from `bot token create`"))
		return
	}
	tok, err := inquiry.Authenticate(r.Context(), h.store, plain)
	if err != nil {
		if inquiry.ErrorCode(err) == inquiry.CodeUnauthenticated {
			w.Header().Set("WWW-Authenticate", `Bearer realm="inquiry-bot", error="invalid_token"`)
		}
		writeError(w, err)
		return
	}
	if !tok.Has(inquiry.ScopeAsk) {
		writeError(w, inquiry.Errorf(inquiry.CodeForbidden, "token %q lacks the ask scope /mcp needs: use a token created with `bot token create --scope ask`", tok.Name))
		return
	}
	h.next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tokenKey{}, tok)))
}

// writeError answers with the API's error body and the gateway's status for the code. A
// foreign error shows only the generic sentence.
func writeError(w http.ResponseWriter, err error) {
	code := inquiry.ErrorCode(err)
	if code == inquiry.CodeStorageUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(gateway.StatusOf(code))
	_ = json.NewEncoder(w).Encode(gateway.ErrorBody{Error: gateway.ErrorDetail{
		Code: code, Message: inquiry.ErrorMessage(err), Fatal: inquiry.Fatal(err), Field: inquiry.ErrorField(err),
	}})
}
