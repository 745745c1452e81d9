package gateway

import (
	"cmp"
	"net/netip"
	"slices"
)

// special is one range callbacks may not reach: what the registry calls it, and whether it is an
// IPv6 form that carries an IPv4 address (then a refused IPv4 address it carries is named first,
// as the more useful reason).
type special struct {
	prefix  netip.Prefix
	what    string
	carrier bool
}

// specialRanges are the entries of the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (RFC 6890 and its updates) that are not globally reachable, with multicast and the deprecated
// ranges beside them, most specific first so that an address is named by its own entry. A few
// registry entries marked globally reachable lie inside refused blocks (the PCP and TURN anycast
// addresses in 192.0.0.0/24, the 6a44 relay in 192.88.99.0/24, AMT, AS112, ORCHIDv2 and DRIP in
// 2001::/23): anycast and overlay services, never a callback receiver, so the blocks are refused
// whole rather than punched with exceptions. BOT_CALLBACK_HOSTS is the way through for anything
// here.
var specialRanges = func() []special {
	var out []special
	for _, r := range []struct {
		cidr, what string
		carrier    bool
	}{
		// IPv4 Special-Purpose Address Registry.
		{"0.0.0.0/8", `the "this network" block (RFC 791)`, false},                                       // "This network"
		{"0.0.0.0/32", "the unspecified address (RFC 1122)", false},                                      // "This host on this network"
		{"10.0.0.0/8", "a private network (RFC 1918)", false},                                            // Private-Use
		{"100.64.0.0/10", "the carrier-grade NAT shared space (RFC 6598)", false},                        // Shared Address Space
		{"127.0.0.0/8", "the loopback block (RFC 1122)", false},                                          // Loopback
		{"169.254.0.0/16", "the link-local block (RFC 3927), home of the cloud metadata service", false}, // Link Local
		{"172.16.0.0/12", "a private network (RFC 1918)", false},                                         // Private-Use
		{"192.0.0.0/24", "the IETF protocol assignments (RFC 6890)", false},                              // IETF Protocol Assignments
		{"192.0.0.0/29", "the IPv4 service continuity prefix (RFC 7335)", false},                         // IPv4 Service Continuity Prefix
		{"192.0.0.8/32", "the IPv4 dummy address (RFC 7600)", false},                                     // IPv4 dummy address
		{"192.0.0.170/32", "a NAT64/DNS64 discovery address (RFC 8880)", false},                          // NAT64/DNS64 Discovery
		{"192.0.0.171/32", "a NAT64/DNS64 discovery address (RFC 8880)", false},                          // NAT64/DNS64 Discovery
		{"192.0.2.0/24", "documentation, TEST-NET-1 (RFC 5737)", false},                                  // Documentation (TEST-NET-1)
		{"192.88.99.0/24", "the deprecated 6to4 relay anycast block (RFC 7526)", false},                  // Deprecated (6to4 Relay Anycast)
		{"192.168.0.0/16", "a private network (RFC 1918)", false},                                        // Private-Use
		{"198.18.0.0/15", "the benchmarking block (RFC 2544)", false},                                    // Benchmarking
		{"198.51.100.0/24", "documentation, TEST-NET-2 (RFC 5737)", false},                               // Documentation (TEST-NET-2)
		{"203.0.113.0/24", "documentation, TEST-NET-3 (RFC 5737)", false},                                // Documentation (TEST-NET-3)
		{"240.0.0.0/4", "the reserved block (RFC 1112)", false},                                          // Reserved
		{"255.255.255.255/32", "the limited broadcast address (RFC 919)", false},                         // Limited Broadcast
		// IPv4 Multicast Address Space Registry.
		{"224.0.0.0/4", "multicast (RFC 5771)", false},

		// IPv6 Special-Purpose Address Registry. ::ffff:0:0/96 (IPv4-mapped) is read as the IPv4
		// address it is (Refused unmaps it), and 64:ff9b::/96 (the NAT64 well-known prefix,
		// globally reachable) by the IPv4 address it carries.
		{"::/128", "the unspecified address (RFC 4291)", false}, // Unspecified Address
		{"::1/128", "the loopback address (RFC 4291)", false},   // Loopback Address
		{"64:ff9b:1::/48", "the local-use NAT64 prefix (RFC 8215), where the local translator alone knows which IPv4 address it reaches", false}, // IPv4-IPv6 Translat.
		{"100::/64", "the IPv6 discard-only prefix (RFC 6666)", false},                                                                           // Discard-Only Address Block
		{"100:0:0:1::/64", "the dummy IPv6 prefix (RFC 9780)", false},                                                                            // Dummy IPv6 Prefix
		{"2001::/23", "the IETF protocol assignments (RFC 2928)", false},                                                                         // IETF Protocol Assignments
		{"2001::/32", "Teredo (RFC 4380), a tunnel to the IPv4 address it carries", true},                                                        // TEREDO
		{"2001:2::/48", "the IPv6 benchmarking prefix (RFC 5180)", false},                                                                        // Benchmarking
		{"2001:10::/28", "the deprecated ORCHID prefix (RFC 4843)", false},                                                                       // Deprecated (previously ORCHID)
		{"2001:db8::/32", "the IPv6 documentation prefix (RFC 3849)", false},                                                                     // Documentation
		{"3fff::/20", "the IPv6 documentation prefix (RFC 9637)", false},                                                                         // Documentation
		{"5f00::/16", "the segment routing (SRv6) SID prefix (RFC 9602)", false},                                                                 // Segment Routing (SRv6) SIDs
		{"fc00::/7", "a private network, unique local (RFC 4193)", false},                                                                        // Unique-Local
		{"fe80::/10", "the link-local range (RFC 4291)", false},                                                                                  // Link-Local Unicast
		// Outside the registry: deprecated forms and the multicast space.
		{"::/96", "the deprecated IPv4-compatible form (RFC 4291)", true},  // IPv4-compatible
		{"::ffff:0:0:0/96", "the IPv4-translated form (RFC 2765)", true},   // SIIT
		{"fec0::/10", "the deprecated site-local range (RFC 3879)", false}, // Site-Local
		{"ff00::/8", "multicast (RFC 4291)", false},                        // Multicast
	} {
		out = append(out, special{netip.MustParsePrefix(r.cidr), r.what, r.carrier})
	}
	slices.SortStableFunc(out, func(a, b special) int { return cmp.Compare(b.prefix.Bits(), a.prefix.Bits()) })
	return out
}()

// IPv6 forms that carry an IPv4 address, and reach it: where each keeps it.
var (
	compatible  = netip.MustParsePrefix("::/96")           // IPv4-compatible (deprecated), last 32 bits
	translated  = netip.MustParsePrefix("::ffff:0:0:0/96") // IPv4-translated (SIIT), last 32 bits
	nat64       = netip.MustParsePrefix("64:ff9b::/96")    // NAT64 well-known prefix, last 32 bits
	sixToFour   = netip.MustParsePrefix("2002::/16")       // 6to4: bits 16..48
	teredo      = netip.MustParsePrefix("2001::/32")       // Teredo: server bits 32..64, client last 32 inverted
	globalSpace = netip.MustParsePrefix("2000::/3")        // the only IPv6 space IANA hands out for global unicast
)

// Refused says why callbacks may not reach ip ("" when they may), as "in PREFIX, WHAT" or
// "outside 2000::/3, …": ip is in a range that is not global unicast, or is an IPv6 form that
// carries an IPv4 address that is (mapped, compatible, translated, NAT64, 6to4, Teredo), which a
// translator, tunnel or the kernel delivers to that IPv4 address.
func Refused(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap() // IPv4-mapped is the IPv4 address itself
	r, in := specialRange(ip)
	if in && !r.carrier {
		return r.why()
	}
	if !ip.Is6() {
		return ""
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
		if c, in := specialRange(a); in {
			return c.why() + ", as " + a.String() + " written in IPv6"
		}
	}
	switch {
	case in: // a form that carries an IPv4 address, refused whatever it carries
		return r.why()
	case nat64.Contains(ip): // globally reachable: the IPv4 address it carries decides
		return ""
	case !globalSpace.Contains(ip):
		return "outside 2000::/3, the only IPv6 space handed out for global unicast"
	}
	return ""
}

func (s special) why() string { return "in " + s.prefix.String() + ", " + s.what }

// specialRange is the most specific refused range holding ip.
func specialRange(ip netip.Addr) (special, bool) {
	for _, r := range specialRanges {
		if r.prefix.Contains(ip) {
			return r, true
		}
	}
	return special{}, false
}
