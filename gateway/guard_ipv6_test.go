package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

// embeddedIPv4 are IPv6 addresses that carry a refused IPv4 address, by the form that carries
// it, with what the refusal must name.
var embeddedIPv4 = []struct{ ip, why string }{
	{"::127.0.0.1", "loopback"}, // IPv4-compatible, ::/96
	{"::7f00:2", "loopback"},
	{"::169.254.169.254", "link-local"},
	{"::10.0.0.1", "private"},
	{"::ffff:0:127.0.0.1", "loopback"}, // IPv4-translated, ::ffff:0:0:0/96
	{"::ffff:0:a9fe:a9fe", "link-local"},
	{"::ffff:127.0.0.1", "loopback"},            // IPv4-mapped, ::ffff:0:0/96
	{"64:ff9b::7f00:1", "loopback"},             // NAT64 well-known prefix, 64:ff9b::/96
	{"64:ff9b::c0a8:101", "private"},            // 192.168.1.1
	{"64:ff9b:1::7f00:1", "NAT64"},              // NAT64 local-use, 64:ff9b:1::/48, as a /96 prefix
	{"64:ff9b:1::a00:1", "NAT64"},               // 10.0.0.1
	{"64:ff9b:1:7f00:0:100::", "NAT64"},         // 127.0.0.1 behind a /48 prefix
	{"64:ff9b:1:7f:0:1::", "NAT64"},             // … a /56 prefix
	{"64:ff9b:1:0:7f:0:100:0", "NAT64"},         // … a /64 prefix
	{"64:ff9b:1:abcd::808:808", "NAT64"},        // whatever the translator's prefix, it is inside
	{"2002:7f00:1::1", "loopback"},              // 6to4, 2002::/16, bits 16..48
	{"2002:a9fe:a9fe:1::", "link-local"},        // 169.254.169.254
	{"2002:c0a8:101::", "private"},              // 192.168.1.1
	{"2001:0:7f00:1::a247:27dd", "loopback"},    // Teredo server 127.0.0.1, client 93.184.216.34
	{"2001:0:5db8:d822::f5ff:fffe", "private"},  // Teredo client 10.0.0.1 (XOR-ed)
	{"2001:0:5db8:d822::80ff:fffe", "loopback"}, // Teredo client 127.0.0.1 (XOR-ed)
	{"2001:0:a9fe:a9fe::a247:27dd", "link-local"},
}

// TestRefusedIPv6CarryingIPv4: every IPv6 form that carries an IPv4 address is refused when the
// IPv4 address is, and the same forms carrying a public address are not (but for the local-use
// NAT64 prefix 64:ff9b:1::/48, refused whole: its prefix length, and so where the IPv4 address
// sits, is the local translator's choice, and a reading the guard did not make could reach the
// network behind it).
func TestRefusedIPv6CarryingIPv4(t *testing.T) {
	t.Parallel()
	for _, c := range embeddedIPv4 {
		why := gateway.Refused(netip.MustParseAddr(c.ip))
		require.Contains(t, why, c.why, c.ip)
	}
	for _, ip := range []string{
		"::ffff:8.8.8.8", "::ffff:0:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
		"2001:0:5db8:d822::f7f7:f7f7", // Teredo: server 93.184.216.34, client 8.8.8.8
		"2001:db8::7f00:1",            // documentation prefix, not Teredo
		"2606:4700::7f00:1", "2a00:1450:4001::a00:1",
	} {
		require.Empty(t, gateway.Refused(netip.MustParseAddr(ip)), ip)
	}
	// A plain IPv6 refusal keeps its own name: ::1 is loopback, though it is ::0.0.0.1 too.
	require.Equal(t, "a loopback address", gateway.Refused(netip.MustParseAddr("::1")))
	require.Equal(t, "an unspecified address", gateway.Refused(netip.MustParseAddr("::")))
	require.Contains(t, gateway.Refused(netip.MustParseAddr("64:ff9b:1::808:808")), "NAT64")
}

// TestCallbackURLsInIPv6SpellingsRefused: a callback or resume URL whose host is an IPv6 spelling
// of a refused IPv4 address, written in the URL or behind a name, is refused when given, as is a
// port outside 1..65535; nothing is stored.
func TestCallbackURLsInIPv6SpellingsRefused(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db string) {
		dns := mapResolver{
			"compat.example":     {"::127.0.0.1"},
			"translated.example": {"::ffff:0:169.254.169.254"},
			"teredo.example":     {"93.184.216.34", "2001:0:5db8:d822::f5ff:fffe"},
		}
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withResolver(dns))
		type refusal struct{ url, says string }
		var cases []refusal
		for _, c := range embeddedIPv4 {
			cases = append(cases, refusal{"http://[" + c.ip + "]:8080/x", c.why})
		}
		cases = append(cases,
			refusal{"http://compat.example/x", "loopback"},
			refusal{"https://translated.example/x", "link-local"},
			refusal{"http://teredo.example/x", "private"},
			refusal{"http://public.example:65536/x", "port 65536"},
			refusal{"http://[2606:4700::1111]:65536/x", "port 65536"},
			refusal{"http://93.184.216.34:0/x", "port 0"},
			refusal{"https://public.example:99999999999999999999/x", "port 99999999999999999999"},
		)
		for _, c := range cases {
			for _, target := range []struct{ path, field string }{{"/v1/inquiries", "callback_url"}, {"/v1/runs", "resume_url"}} {
				body := confirm("cb", "callback_url", c.url)
				if target.field == "resume_url" {
					body = map[string]any{"id": "r", "resume_url": c.url}
				}
				e := b.do("POST", target.path, b.askA, body).errorOf(t, 422, inquiry.CodeInvalidInquiry)
				require.Equal(t, target.field, e["field"], c.url)
				require.Contains(t, e["message"], c.says, c.url)
				require.Contains(t, e["message"], target.field, c.url)
				requireOneSentence(t, c.url, str(e["message"]))
			}
		}
		b.requireNothingStored()
		// The ports at the ends of the range are ports.
		for i, u := range []string{"https://[2606:4700::1111]:65535/x", "http://93.184.216.34:1/x"} {
			r := b.do("POST", "/v1/inquiries", b.askA, confirm(fmt.Sprint("ok", i), "callback_url", u))
			require.Equal(t, http.StatusCreated, r.status, "%s: %s", u, r.body)
		}
	})
}

// TestDialRefusesIPv6CarryingIPv4: the dial-time check (what DNS rebinding or a stored URL
// reaches) refuses the same forms, before any connection, and refuses a port outside 1..65535
// as it does a refused address, so that the delivery gives up instead of being retried.
func TestDialRefusesIPv6CarryingIPv4(t *testing.T) {
	t.Parallel()
	g := gateway.NewGuard(nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range embeddedIPv4 {
		addr := "[" + c.ip + "]:8080"
		conn, err := g.DialContext(ctx, "tcp", addr)
		if conn != nil {
			conn.Close()
		}
		var refused *gateway.RefusedAddrError
		require.ErrorAs(t, err, &refused, addr)
		require.Contains(t, refused.Why, c.why, addr)
	}
	// Through the guard's client too, as a callback is sent.
	client := g.Client(5 * time.Second)
	for _, u := range []string{"http://[::127.0.0.1]:1/x", "http://[::ffff:0:127.0.0.1]:1/x", "http://[64:ff9b:1::7f00:1]:1/x"} {
		_, err := client.Get(u)
		var refused *gateway.RefusedAddrError
		require.ErrorAs(t, err, &refused, u)
	}
	// A port outside the range is refused for an allow-listed host as well: no address has it.
	allowing := gateway.NewGuard([]string{"127.0.0.1", "public.example"}, nil)
	for _, addr := range []string{"127.0.0.1:65536", "public.example:65536", "[2606:4700::1111]:0", "127.0.0.1:-1"} {
		for _, guard := range []*gateway.Guard{g, allowing} {
			_, err := guard.DialContext(ctx, "tcp", addr)
			var refused *gateway.RefusedAddrError
			require.ErrorAs(t, err, &refused, addr)
			require.Contains(t, refused.Why, "port", addr)
		}
	}
}
