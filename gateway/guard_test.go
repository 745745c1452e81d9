package gateway_test

import (
	"context"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/gateway"
	"github.com/inquiry-bot/bot/inquiry"
)

// specialPurpose are addresses of the IANA IPv4 and IPv6 Special-Purpose Address Registries (and
// the multicast and deprecated ranges beside them) that are not globally reachable, each with
// the range its refusal must name.
var specialPurpose = []struct{ ip, in string }{
	{"0.0.0.0", "0.0.0.0/32"},
	{"0.1.2.3", "0.0.0.0/8"},
	{"10.20.30.40", "10.0.0.0/8"},
	{"100.64.0.1", "100.64.0.0/10"},
	{"100.127.255.254", "100.64.0.0/10"},
	{"127.0.0.1", "127.0.0.0/8"},
	{"169.254.169.254", "169.254.0.0/16"},
	{"172.16.0.1", "172.16.0.0/12"},
	{"192.0.0.1", "192.0.0.0/29"},
	{"192.0.0.8", "192.0.0.8/32"},
	{"192.0.0.9", "192.0.0.0/24"}, // PCP anycast: globally reachable, but no place for a receiver
	{"192.0.0.170", "192.0.0.170/32"},
	{"192.0.0.200", "192.0.0.0/24"},
	{"192.0.2.10", "192.0.2.0/24"},
	{"192.88.99.1", "192.88.99.0/24"},
	{"192.168.1.1", "192.168.0.0/16"},
	{"198.18.0.1", "198.18.0.0/15"},
	{"198.19.255.255", "198.18.0.0/15"},
	{"198.51.100.7", "198.51.100.0/24"},
	{"203.0.113.9", "203.0.113.0/24"},
	{"224.0.0.1", "224.0.0.0/4"},
	{"240.0.0.1", "240.0.0.0/4"},
	{"255.255.255.255", "255.255.255.255/32"},

	{"::", "::/128"},
	{"::1", "::1/128"},
	{"::ffff:192.0.2.1", "192.0.2.0/24"},         // IPv4-mapped: the IPv4 address itself
	{"::8.8.8.8", "::/96"},                       // IPv4-compatible, deprecated, whatever it carries
	{"::ffff:0:8.8.8.8", "::ffff:0:0:0/96"},      // IPv4-translated (SIIT), not global unicast
	{"64:ff9b::c000:201", "192.0.2.0/24"},        // NAT64 well-known prefix carrying TEST-NET-1
	{"64:ff9b::a00:1", "10.0.0.0/8"},             // … carrying a private address
	{"64:ff9b:1::808:808", "64:ff9b:1::/48"},     // local-use NAT64, whatever it carries
	{"100::1", "100::/64"},                       // discard-only
	{"100::ffff:ffff:ffff:ffff", "100::/64"},     //
	{"100:0:0:1::1", "100:0:0:1::/64"},           // dummy prefix
	{"2001:0:5db8:d822::f7f7:f7f7", "2001::/32"}, // Teredo carrying public addresses
	{"2001:1::1", "2001::/23"},                   // PCP anycast, in the IETF protocol assignments
	{"2001:2::1", "2001:2::/48"},                 // benchmarking
	{"2001:3::1", "2001::/23"},                   // AMT
	{"2001:10::1", "2001:10::/28"},               // deprecated ORCHID
	{"2001:20::1", "2001::/23"},                  // ORCHIDv2
	{"2001:1ff:ffff::1", "2001::/23"},            // the last of the block
	{"2001:db8::1", "2001:db8::/32"},             // documentation
	{"2001:db8:ffff::7f00:1", "2001:db8::/32"},   //
	{"2002:c000:201::1", "192.0.2.0/24"},         // 6to4 carrying TEST-NET-1
	{"2002:6440:1::1", "100.64.0.0/10"},          // 6to4 carrying carrier-grade NAT
	{"3fff::1", "3fff::/20"},                     // documentation (RFC 9637)
	{"3fff:fff:ffff::1", "3fff::/20"},            //
	{"5f00::1", "5f00::/16"},                     // SRv6 SIDs
	{"fc00::1", "fc00::/7"},
	{"fd12:3456::1", "fc00::/7"},
	{"fe80::1", "fe80::/10"},
	{"fec0::1", "fec0::/10"},
	{"ff02::1", "ff00::/8"},
	{"4000::1", "2000::/3"},  // not global unicast: outside the space IANA hands out
	{"1234::1", "2000::/3"},  //
	{"e000::1", "2000::/3"},  //
	{"0:0:1::1", "2000::/3"}, //
}

// globalUnicast are public neighbours of the refused ranges: each is taken.
var globalUnicast = []string{
	"1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0",
	"126.255.255.255", "128.0.0.0", "169.253.255.255", "169.255.0.0", "172.15.255.255",
	"172.32.0.0", "192.0.1.0", "192.0.3.0", "192.31.196.1", "192.52.193.1", "192.88.98.255",
	"192.88.100.0", "192.167.255.255", "192.169.0.0", "192.175.48.1", "198.17.255.255",
	"198.20.0.0", "198.51.99.255", "198.51.101.0", "203.0.112.255", "203.0.114.0",
	"223.255.255.255", "93.184.216.34",
	"::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "2001:200::1", "2001:db7:ffff::1",
	"2001:db9::1", "2000::1", "2606:4700::1111", "2a00:1450:4001::a00:1", "2620:4f:8000::1",
	"3ffe:ffff::1", "3fff:1000::1",
}

// TestRefusedSpecialPurpose: every address that is not global unicast, by the registries'
// entries, is refused with the range it is in; its public neighbours are not. The dial-time check
// says the same before any connection.
func TestRefusedSpecialPurpose(t *testing.T) {
	t.Parallel()
	g := gateway.NewGuard(nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range specialPurpose {
		why := gateway.Refused(netip.MustParseAddr(c.ip))
		require.Contains(t, why, " "+c.in+",", c.ip)
		conn, err := g.DialContext(ctx, "tcp", netip.AddrPortFrom(netip.MustParseAddr(c.ip), 80).String())
		if conn != nil {
			conn.Close()
		}
		var refused *gateway.RefusedAddrError
		require.ErrorAs(t, err, &refused, c.ip)
		require.Contains(t, refused.Error(), c.in, c.ip)
	}
	for _, ip := range globalUnicast {
		require.Empty(t, gateway.Refused(netip.MustParseAddr(ip)), ip)
	}
}

// TestCallbackURLOnSpecialPurposeAddress: a callback or resume URL on such an address, written
// in the URL or behind a name, is 422 with one sentence naming the address, its range and the
// way out; an allow-listed one is taken.
func TestCallbackURLOnSpecialPurposeAddress(t *testing.T) {
	t.Parallel()
	dns := mapResolver{"docs.example": {"93.184.216.34", "2001:db8::5"}, "discard.example": {"100::7"}}
	b := setup(t, withPolicy(inquiry.PolicyAsk), withResolver(dns), withCallbackHosts("[100::1]:8080"))
	for _, c := range []struct{ url, says string }{
		{"http://[100::1]/x", `callback_url host "100::1" is in 100::/64, the IPv6 discard-only prefix (RFC 6666), which is not reachable on the internet: use a public address, or have the server's operator add "[100::1]:80" to BOT_CALLBACK_HOSTS`},
		{"https://[2001:db8::1]/x", `callback_url host "2001:db8::1" is in 2001:db8::/32, the IPv6 documentation prefix (RFC 3849)`},
		{"https://[3fff::1]/x", `is in 3fff::/20, the IPv6 documentation prefix (RFC 9637)`},
		{"http://198.51.100.7/x", `callback_url host "198.51.100.7" is in 198.51.100.0/24`},
		{"http://[2001:0:5db8:d822::f7f7:f7f7]/x", `is in 2001::/32, Teredo`},
		{"http://[5f00::1]/x", `is in 5f00::/16`},
		{"http://docs.example/x", `callback_url host "docs.example" resolves to 2001:db8::5, in 2001:db8::/32`},
		{"http://discard.example/x", `callback_url host "discard.example" resolves to 100::7, in 100::/64`},
	} {
		r := b.do("POST", "/v1/inquiries", b.askA, confirm("cb", "callback_url", c.url))
		e := r.errorOf(t, http.StatusUnprocessableEntity, inquiry.CodeInvalidInquiry)
		require.Equal(t, "callback_url", e["field"], c.url)
		require.Contains(t, e["message"], c.says, c.url)
		require.Contains(t, e["message"], "BOT_CALLBACK_HOSTS", c.url)
		requireOneSentence(t, c.url, str(e["message"]))
	}
	b.requireNothingStored()
	r := b.do("POST", "/v1/inquiries", b.askA, confirm("ok", "callback_url", "http://[100::1]:8080/x"))
	require.Equal(t, http.StatusCreated, r.status, "the operator's allow-list stands: %s", r.body)
}
