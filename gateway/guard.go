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

// Guard keeps callbacks away from the server's own network and from addresses that are not the
// internet's: a callback or resume URL must be http(s), and its host must not resolve to an
// address that is not global unicast by the IANA special-purpose registries — loopback, private,
// link-local (with the cloud metadata address), unspecified, carrier-grade NAT, documentation,
// discard, benchmarking, multicast, reserved and the rest of netrange.go's table — nor to an IPv6
// address carrying such an IPv4 address (Refused), unless its host[:port] is allow-listed
// (BOT_CALLBACK_HOSTS); a port it names must
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
			return refusedURL(field, host, hostport, why+", as "+ip.String()+" written another way")
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
			return refusedURL(field, host, hostport, "resolves to "+ip.WithZone("").String()+", "+why)
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

// refusedURL is the refusal of a URL whose host is (or resolves to) an address Refused names:
// why is "in PREFIX, WHAT" as Refused says it, or "resolves to ADDR, in PREFIX, WHAT".
func refusedURL(field, host, hostport, why string) error {
	if !strings.HasPrefix(why, "resolves to ") {
		why = "is " + why
	}
	return inquiry.FieldErrorf(inquiry.CodeInvalidInquiry, field, "%s host %q %s, which is not reachable on the internet: use a public address, or have the server's operator add %q to BOT_CALLBACK_HOSTS", field, host, why, hostport)
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
	return fmt.Sprintf("callback address %s is %s, and not in BOT_CALLBACK_HOSTS", e.Addr, e.Why)
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
