package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

// Resolver looks up a host's addresses; *net.Resolver is one.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Guard keeps callbacks away from the server's own network: a callback or resume URL must be
// http(s), and its host must not resolve to a loopback, private (RFC 1918, unique local),
// link-local (169.254/16 with the cloud metadata address, fe80::/10), unspecified, carrier-grade
// NAT, multicast or reserved address, nor to an IPv6 address carrying one of those IPv4 addresses
// (Refused) — unless its host[:port] is allow-listed (BOT_CALLBACK_HOSTS); a port it names must
// be from 1 to 65535. The URL is checked when the inquiry or run is created, and every connection
// is checked again at dial time against the address actually dialled, so neither DNS rebinding
// nor a redirect (never followed anyway) can reach a refused address.
type Guard struct {
	hostPorts map[string]bool // "host:port", host lower-case, IPv6 in brackets
	hosts     map[string]bool // host alone: every port
	resolver  Resolver
}

// NewGuard returns a guard allowing hosts (host or host:port entries, as in BOT_CALLBACK_HOSTS);
// r nil means net.DefaultResolver.
func NewGuard(hosts []string, r Resolver) *Guard {
	g := &Guard{hostPorts: map[string]bool{}, hosts: map[string]bool{}, resolver: r}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		if host, port, err := net.SplitHostPort(h); err == nil {
			g.hostPorts[net.JoinHostPort(host, port)] = true
			continue
		}
		g.hosts[strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")] = true
	}
	return g
}

// Allowed reports whether host:port is on the allow-list.
func (g *Guard) Allowed(hostport string) bool {
	host, port, err := net.SplitHostPort(strings.ToLower(hostport))
	if err != nil {
		return g.hosts[strings.ToLower(hostport)]
	}
	return g.hosts[host] || g.hostPorts[net.JoinHostPort(host, port)]
}

// Check refuses a callback URL (field names it: callback_url or resume_url) that is not http(s)
// or whose host resolves to a refused address and is not allow-listed, with an invalid_inquiry
// error whose sentence says what to do. A host whose lookup fails for a passing reason is let
// through: the dial-time check still stands.
func (g *Guard) Check(ctx context.Context, field, raw string) error {
	u, err := parseCallbackURL(field, raw)
	if err != nil {
		return err
	}
	hostport := canonicalAddr(u)
	if g.Allowed(hostport) {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if why := Refused(ip); why != "" {
			return refusedURL(field, host, hostport, why)
		}
		return nil
	}
	if ip, ok := numericIPv4(host); ok {
		// 2130706433, 0177.0.0.1, 0x7f.1: what C's inet_aton (curl, a proxy, a browser) reads as
		// an address. Go dials none of them, but neither is a host name worth a lookup.
		if why := Refused(ip); why != "" {
			return refusedURL(field, host, hostport, why+" ("+ip.String()+" written another way)")
		}
		return inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, field, "%s host %q is the address %s written another way: write it as %s", field, host, ip, ip)
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	addrs, err := g.resolver.LookupIPAddr(ctx, host)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, field, "%s host %q does not exist: check the spelling of the URL", field, host)
		}
		return nil
	}
	for _, a := range addrs {
		ip, ok := netip.AddrFromSlice(a.IP)
		if !ok {
			continue
		}
		if why := Refused(ip); why != "" {
			return refusedURL(field, host, hostport, why)
		}
	}
	return nil
}

// numericIPv4 reads host as the IPv4 address C's inet_aton makes of it: one to four parts
// separated by dots (a trailing dot allowed), each decimal, octal (a leading 0) or hex (0x), the
// last filling the bytes left. ok is false for anything else, a host name among them.
func numericIPv4(host string) (netip.Addr, bool) {
	host = strings.TrimSuffix(host, ".")
	parts := strings.Split(host, ".")
	if host == "" || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" || strings.ContainsAny(digits, "+-_") {
			return netip.Addr{}, false
		}
		n, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 0xff {
			return netip.Addr{}, false
		}
		v |= n << (24 - 8*i)
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func refusedURL(field, host, hostport, why string) error {
	return inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, field, "%s host %q is %s, which callbacks may not reach: use a public host, or have the server's operator add %q to BOT_CALLBACK_HOSTS", field, host, why, hostport)
}

// parseCallbackURL accepts only absolute http(s) URLs without credentials (the URL is stored and
// shown to whoever reads the inquiry; the signature is how a receiver knows the sender).
func parseCallbackURL(field, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return nil, inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, field, "%s must be an absolute http or https URL such as \"https://ci.example.com/hooks/inquiry\"", field)
	}
	if u.User != nil {
		return nil, inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, field, "%s must not carry a user name or password (it is stored and shown with the inquiry): drop them and check the X-Inquiry-Signature header instead", field)
	}
	// url.Parse takes any digits as a port; one no address has would only fail every attempt.
	if p := u.Port(); p != "" && !validPort(p) {
		return nil, inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, field, "%s port %s is not a port: use one from 1 to 65535, or none for the scheme's own", field, p)
	}
	return u, nil
}

// validPort reports whether p is a decimal port from 1 to 65535.
func validPort(p string) bool {
	n, err := strconv.ParseUint(p, 10, 16)
	return err == nil && n > 0
}

// canonicalAddr is host:port of u, with the scheme's port when it names none.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

type refusedRange struct {
	prefix netip.Prefix
	what   string
}

const (
	whatPrivate   = "a private address"
	whatLoopback  = "a loopback address"
	whatLinkLocal = "a link-local address"
)

var refusedRanges = func() []refusedRange {
	var out []refusedRange
	for _, r := range []struct{ cidr, what string }{
		{"0.0.0.0/8", "an unspecified address"},
		{"10.0.0.0/8", whatPrivate},
		{"100.64.0.0/10", "a carrier-grade NAT address"},
		{"127.0.0.0/8", whatLoopback},
		{"169.254.0.0/16", whatLinkLocal + " (the cloud metadata service lives there)"},
		{"172.16.0.0/12", whatPrivate},
		{"192.0.0.0/24", "an IETF protocol address"},
		{"192.168.0.0/16", whatPrivate},
		{"198.18.0.0/15", "a benchmarking address"},
		{"224.0.0.0/4", "a multicast address"},
		{"240.0.0.0/4", "a reserved address"},
		{"::/128", "an unspecified address"},
		{"::1/128", whatLoopback},
		{"fc00::/7", whatPrivate + " (unique local)"},
		{"fe80::/10", whatLinkLocal},
		{"ff00::/8", "a multicast address"},
	} {
		out = append(out, refusedRange{netip.MustParsePrefix(r.cidr), r.what})
	}
	return out
}()

// IPv6 forms that carry an IPv4 address, and reach it: where each keeps it.
var (
	compatible = netip.MustParsePrefix("::/96")           // IPv4-compatible (deprecated), last 32 bits
	translated = netip.MustParsePrefix("::ffff:0:0:0/96") // IPv4-translated (SIIT), last 32 bits
	nat64      = netip.MustParsePrefix("64:ff9b::/96")    // NAT64 well-known prefix, last 32 bits
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")  // NAT64 local use: wherever its prefix ends
	sixToFour  = netip.MustParsePrefix("2002::/16")       // 6to4: bits 16..48
	teredo     = netip.MustParsePrefix("2001::/32")       // Teredo: server bits 32..64, client last 32 inverted
)

const whatNAT64Local = "a local-use NAT64 address (in 64:ff9b:1::/48, where the local translator alone knows which IPv4 address it reaches)"

// Refused says why callbacks may not reach ip ("" when they may): ip itself is in a refused
// range, or ip is an IPv6 form that carries a refused IPv4 address (mapped, compatible,
// translated, NAT64, 6to4, Teredo), which a translator, tunnel or the kernel delivers to that
// IPv4 address.
func Refused(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap() // IPv4-mapped is the IPv4 address itself
	if why := inRefusedRange(ip); why != "" {
		return why
	}
	if !ip.Is6() {
		return ""
	}
	if nat64Local.Contains(ip) {
		// The prefix may be /48, /56, /64 or /96 (RFC 6052), each putting the IPv4 address
		// elsewhere: which one the translator reads is its configuration, unknown here, and a
		// reading the guard did not make could reach the network behind it. An operator who
		// routes callbacks through such a translator allow-lists their hosts.
		return whatNAT64Local
	}
	b := ip.As16()
	var carried [][4]byte
	switch {
	case compatible.Contains(ip), translated.Contains(ip), nat64.Contains(ip):
		carried = append(carried, [4]byte(b[12:16]))
	case sixToFour.Contains(ip):
		carried = append(carried, [4]byte(b[2:6]))
	case teredo.Contains(ip):
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
		carried = append(carried, [4]byte(b[4:8]), client)
	}
	for _, v4 := range carried {
		a := netip.AddrFrom4(v4)
		if why := inRefusedRange(a); why != "" {
			return why + " (" + a.String() + " written as IPv6)"
		}
	}
	return ""
}

// inRefusedRange names the refused range holding ip ("" for none).
func inRefusedRange(ip netip.Addr) string {
	for _, r := range refusedRanges {
		if r.prefix.Contains(ip) {
			return r.what
		}
	}
	return ""
}

// RefusedAddrError is the dial-time refusal of an address.
type RefusedAddrError struct {
	Addr string
	Why  string

	badPort bool // no address has the port: the allow-list has nothing to do with it
}

func (e *RefusedAddrError) Error() string {
	if e.badPort {
		return fmt.Sprintf("callback address %s has %s: correct the URL", e.Addr, e.Why)
	}
	return fmt.Sprintf("callback address %s is %s and not in BOT_CALLBACK_HOSTS", e.Addr, e.Why)
}

// DialContext dials addr (host:port as in the URL) checking the address actually dialled,
// unless host:port is allow-listed.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	// A stored URL whose port no address has is refused like a refused address, so that its
	// delivery gives up at once rather than failing every retry.
	if _, port, err := net.SplitHostPort(addr); err != nil || !validPort(port) {
		return nil, &RefusedAddrError{Addr: addr, Why: "no port from 1 to 65535", badPort: true}
	}
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !g.Allowed(addr) {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return &RefusedAddrError{Addr: address, Why: "not an address"}
			}
			ip, err := netip.ParseAddr(host)
			if err != nil {
				return &RefusedAddrError{Addr: address, Why: "not an address"}
			}
			if why := Refused(ip); why != "" {
				return &RefusedAddrError{Addr: address, Why: why}
			}
			return nil
		}
	}
	return d.DialContext(ctx, network, addr)
}

// Client returns an HTTP client whose every connection passes the guard, that follows no
// redirect and uses no proxy from the environment (a proxy would dial for it, unchecked), with
// timeout per request.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
	}
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
