package mcptools

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/inquiry-bot/bot/inquiry"
)

// hostGuard is the transport's defence against DNS rebinding (MCP 2025-11-25, "Security
// Warning": servers must validate Origin): a request whose Origin names a host other than the
// bot's public one (BOT_PUBLIC_URL) or a loopback name is refused with 403, and so is one that
// reached a loopback address under such a Host. A page that rebinds its name to this machine
// sends its own name in both.
//
// A request with no Origin (every agent harness: they are not browsers) is let through, and the
// Host is only checked where the connection came in on loopback, so that a deployment reached
// under an internal name keeps working; the bearer token stays the real gate there.
type hostGuard struct {
	public string // the host name of BOT_PUBLIC_URL, lower case; "" when unset
	next   http.Handler
}

func newHostGuard(publicURL string, next http.Handler) http.Handler {
	g := hostGuard{next: next}
	if u, err := url.Parse(publicURL); err == nil {
		g.public = strings.ToLower(u.Hostname())
	}
	return g
}

func (g hostGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || !g.allowed(u.Hostname()) {
			g.refuse(w, fmt.Sprintf("The Origin %q is neither this bot's public address nor localhost: call /mcp from a client rather than a web page, or set BOT_PUBLIC_URL to the address it is served under.", origin))
			return
		}
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil && loopbackAddr(local.String()) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !g.allowed(strings.Trim(host, "[]")) {
			g.refuse(w, fmt.Sprintf("The Host %q is neither this bot's public address nor localhost: send the request to BOT_PUBLIC_URL's host, or set BOT_PUBLIC_URL to the address the reverse proxy serves.", r.Host))
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// allowed reports whether host (no port) is the public host or a loopback name.
func (g hostGuard) allowed(host string) bool {
	host = strings.ToLower(strings.Trim(host, "[]"))
	if host == "" {
		return false
	}
	if host == g.public || host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// refuse writes the API's error body (as the gateway's bearer check does) with 403.
func (hostGuard) refuse(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": inquiry.CodeForbidden, "message": msg}})
}

// loopbackAddr reports whether addr (host:port) is a loopback address.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
