package model

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"net"
	"slices"
	"strings"
)

// endpointHash is an endpoint's identity: the FNV-1a 128-bit hash of its sorted addresses,
// hostname and targetRef namespace/name, as upstream keys its EndpointSet, of which it keeps
// the high 64 bits. UID, node, zone, conditions and hints are not part of it. A fixed-size
// key keeps the reconciler's maps and sorts cheap and allocation-free, and 8 bytes instead of
// 16 keep them small: an identity is in an endpoint, two index entries and a stored slice's
// list, for every pod. Two different identities of one Service agree on 64 bits with a
// chance of about n²/2^65 (below 10^-9 at 100,000 endpoints).
// upstream: util/endpointset.go hashEndpoint (fnv128a of a deep dump of those fields).
type endpointHash uint64

// compare orders identities (the fixed order in which the port places new endpoints; upstream's
// is random map order).
func (h endpointHash) compare(o endpointHash) int { return cmp.Compare(h, o) }

// FNV-1a 128-bit parameters (offset basis and prime 2^88 + 2^8 + 0x3b).
const (
	fnv128OffsetHi = 0x6c62272e07bb0142
	fnv128OffsetLo = 0x62b821756295c58d
	fnv128PrimeLo  = 0x13b
	fnv128PrimeHi  = 1 << 24
)

// fnv128 accumulates FNV-1a over strings and separator bytes without allocating.
type fnv128 struct{ hi, lo uint64 }

func newFNV128() fnv128 { return fnv128{fnv128OffsetHi, fnv128OffsetLo} }

func (h *fnv128) byte(c byte) {
	h.lo ^= uint64(c)
	// (hi, lo) × prime mod 2^128.
	carry, lo := bits.Mul64(h.lo, fnv128PrimeLo)
	h.hi = h.hi*fnv128PrimeLo + h.lo*fnv128PrimeHi + carry
	h.lo = lo
}

func (h *fnv128) string(s string) {
	// byte's steps on locals: the state stays in registers across the string.
	hi, lo := h.hi, h.lo
	for i := 0; i < len(s); i++ {
		lo ^= uint64(s[i])
		carry, next := bits.Mul64(lo, fnv128PrimeLo)
		hi = hi*fnv128PrimeLo + lo*fnv128PrimeHi + carry
		lo = next
	}
	h.hi, h.lo = hi, lo
}

// WriteString adds s (a hashDumpWriter for dumps hashed as upstream hashes them).
func (h *fnv128) WriteString(s string) (int, error) {
	h.string(s)
	return len(s), nil
}

// sum returns the hash as hash/fnv's New128a Sum writes it (big-endian).
func (h *fnv128) sum() [16]byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], h.hi)
	binary.BigEndian.PutUint64(b[8:], h.lo)
	return b
}

// hashEndpoint returns ep's identity. ep.Addresses must already be sorted (every endpoint
// this package builds is); upstream sorts them in place here.
// upstream: util/endpointset.go hashEndpoint
func hashEndpoint(ep *Endpoint) endpointHash {
	if ep.hasIdentity {
		return ep.identity // small enough to inline: Applied asks it of every endpoint written
	}
	return computeEndpointHash(ep)
}

// computeEndpointHash is hashEndpoint of an endpoint that does not carry its identity.
func computeEndpointHash(ep *Endpoint) endpointHash {
	h := newFNV128()
	addrs := ep.Addresses
	if !slices.IsSorted(addrs) {
		addrs = slices.Sorted(slices.Values(addrs))
	}
	for _, a := range addrs {
		h.string(a)
		h.byte(1)
	}
	h.byte(0)
	if ep.Hostname != nil {
		h.string(*ep.Hostname)
	}
	h.byte(0)
	if ep.TargetRef != nil {
		h.string(ep.TargetRef.Namespace)
		h.byte(0)
		h.string(ep.TargetRef.Name)
	} else {
		h.byte(0)
	}
	return endpointHash(h.hi)
}

// EndpointsEqualBeyondHash reports whether two endpoints with the same identity also agree on
// nodeName, zone, the three conditions and targetRef (ignoring nothing else: hints are not
// compared). nil and a value differ; nil and nil are equal.
// upstream: util/controller_utils.go EndpointsEqualBeyondHash
func EndpointsEqualBeyondHash(a, b *Endpoint) bool {
	if strPtrChanged(a.NodeName, b.NodeName) || strPtrChanged(a.Zone, b.Zone) {
		return false
	}
	if a.Conditions != b.Conditions {
		return false
	}
	if a.TargetRef == b.TargetRef {
		return true
	}
	if a.TargetRef == nil || b.TargetRef == nil {
		return false
	}
	return *a.TargetRef == *b.TargetRef
}

// strPtrChanged compares optional fields. Copies of one endpoint share their pointers, which
// settles most comparisons without reading the values.
func strPtrChanged(a, b *string) bool {
	return a != b && ((a == nil) != (b == nil) || *a != *b)
}

// copiesAlike reports whether a and b share the pointers and conditions that
// EndpointsEqualBeyondHash compares, as copies of one endpoint do: then it is true, known
// inline (an Applied of a slice of 100 endpoints asks it of each).
func copiesAlike(a, b *Endpoint) bool {
	return a.NodeName == b.NodeName && a.Zone == b.Zone && a.TargetRef == b.TargetRef && a.Conditions == b.Conditions
}

// shouldPodBeInEndpoints: terminal pods and pods without an IP are left out; terminating pods
// are kept. upstream: util/controller_utils.go ShouldPodBeInEndpoints(pod, true)
func shouldPodBeInEndpoints(pod *Pod) bool {
	if pod.Phase.Terminal() {
		return false
	}
	return len(pod.IPs) > 0
}

// shouldSetHostname: upstream: util/controller_utils.go ShouldSetHostname
func shouldSetHostname(pod *Pod, svc *Service) bool {
	return pod.Hostname != "" && pod.Subdomain == svc.Name && svc.Namespace == pod.Namespace
}

// parseIPSloppy parses an IP address as k8s.io/utils/net ParseIPSloppy does: as net.ParseIP,
// but as Go's parser did before 1.17, which upstream's fork keeps: the parts of an IPv4
// address, alone or ending an IPv6 one, may have leading zeros, any number of them
// ("010.0.0.1" and "::ffff:0010.0.0.1" hold 10.0.0.1), and so may an IPv6 address's hex
// fields ("fd00::00001" is fd00::1), whose value must still fit 16 bits. It returns nil for
// anything else.
// upstream: k8s.io/utils/net ParseIPSloppy (a fork of Go 1.16's ParseIP: parseIPv6, xtoi).
func parseIPSloppy(s string) net.IP {
	if ip := net.ParseIP(s); ip != nil {
		return ip
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return parseIPv4Sloppy(s)
	}
	head, tail := s[:i+1], s[i+1:]
	if strings.IndexByte(head, '.') >= 0 {
		return nil
	}
	// Hex fields of more than four digits, with their leading zeros dropped.
	fields := strings.Split(head, ":")
	for j, f := range fields {
		fields[j] = trimLongField(f)
	}
	head = strings.Join(fields, ":")
	if !strings.Contains(tail, ".") {
		return net.ParseIP(head + trimLongField(tail))
	}
	// The IPv4 address an IPv6 one may end in, with its parts' leading zeros dropped.
	v4 := parseIPv4Sloppy(tail)
	if v4 == nil {
		return nil
	}
	return net.ParseIP(head + v4.String())
}

// trimLongField drops the leading zeros of an IPv6 hex field longer than four characters,
// down to four: the value is the same, and net.ParseIP takes no more digits.
func trimLongField(f string) string {
	for len(f) > 4 && f[0] == '0' {
		f = f[1:]
	}
	return f
}

// parseIPv4Sloppy parses dotted-decimal IPv4 whose parts may have leading zeros.
// upstream: k8s.io/utils internal/third_party/forked/golang/net parseIPv4 and dtoi.
func parseIPv4Sloppy(s string) net.IP {
	var b [4]byte
	for i := range 4 {
		if len(s) == 0 {
			return nil
		}
		if i > 0 {
			if s[0] != '.' {
				return nil
			}
			s = s[1:]
		}
		n, digits := 0, 0
		for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
			n = n*10 + int(s[digits]-'0')
			digits++
			if n >= 0xFFFFFF {
				return nil // dtoi's limit
			}
		}
		if digits == 0 || n > 0xFF {
			return nil
		}
		s = s[digits:]
		b[i] = byte(n)
	}
	if len(s) != 0 {
		return nil
	}
	return net.IPv4(b[0], b[1], b[2], b[3])
}

// isCanonicalIPv4 reports whether s is an IPv4 address in dotted decimal as net.IP.String
// writes it (no leading zeros): then parseIPSloppy(s) is IPv4 and its String() is s, known
// without parsing into a net.IP (an allocation per address of every pod change).
func isCanonicalIPv4(s string) bool {
	// One pass over the bytes: four parts of digits between three dots, each at most 255
	// and without a leading zero (which also bounds each to three digits).
	if len(s) < len("0.0.0.0") || len(s) > len("255.255.255.255") {
		return false
	}
	dots, n, digits := 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if digits == 0 || dots == 3 {
				return false
			}
			dots, n, digits = dots+1, 0, 0
			continue
		}
		if c < '0' || c > '9' || digits == 1 && n == 0 {
			return false
		}
		n, digits = n*10+int(c-'0'), digits+1
		if n > 255 {
			return false
		}
	}
	return dots == 3 && digits > 0
}

// endpointAddresses returns the pod IPs of one family, canonicalised, sorted.
// upstream: utils.go getEndpointAddresses (and the in-place sort of hashEndpoint)
//
// The result shares the pod's strings, and its IP list when that is the one address already
// in canonical form (the common case, found without allocating): pods and endpoint address
// lists are never modified. The incremental reconciler calls it each time it reads a desired
// endpoint.
func endpointAddresses(pod *Pod, addressType AddressType) []string {
	var addrs []string
	only := -1 // the index in pod.IPs of the one canonical address so far, not yet in addrs
	for i, s := range pod.IPs {
		c, isV6 := canonicalPodIP(s)
		if isV6 != (addressType == AddressTypeIPv6) {
			continue
		}
		if only >= 0 {
			addrs = append(addrs, pod.IPs[only])
			only = -1
		}
		if c == s && addrs == nil {
			only = i
		} else {
			addrs = append(addrs, c)
		}
	}
	if only >= 0 {
		return pod.IPs[only : only+1 : only+1]
	}
	if len(addrs) > 1 {
		slices.Sort(addrs)
	}
	return addrs
}

// podToEndpoint builds the endpoint of pod for one address family. node may be nil.
// upstream: utils.go podToEndpoint
func podToEndpoint(pod *Pod, node *Node, svc *Service, addressType AddressType) Endpoint {
	return podToEndpointWithAddresses(pod, node, svc, endpointAddresses(pod, addressType))
}

// podToEndpointWithAddresses is podToEndpoint with the pod's addresses of the family already
// worked out (the incremental reconciler caches them per pod).
func podToEndpointWithAddresses(pod *Pod, node *Node, svc *Service, addresses []string) Endpoint {
	var ep Endpoint
	fillEndpoint(&ep, pod, node, svc, addresses)
	return ep
}

// fillEndpoint builds pod's endpoint into ep. Its pointer fields point into the pod, its
// identity and its node, which are never modified once passed (a change is a new object),
// so that building it allocates nothing and ep's copies keep no state of the reconciler
// alive.
// upstream: utils.go podToEndpoint
func fillEndpoint(ep *Endpoint, pod *Pod, node *Node, svc *Service, addresses []string) {
	serving := pod.Ready
	terminating := pod.Terminating
	ready := svc.PublishNotReadyAddresses || (serving && !terminating)
	*ep = Endpoint{
		Addresses: addresses,
		Conditions: EndpointConditions{
			Ready:       ConditionOf(ready),
			Serving:     ConditionOf(serving),
			Terminating: ConditionOf(terminating),
		},
		TargetRef: pod.targetRef(),
	}
	switch {
	case node != nil && node.Name == pod.NodeName && pod.NodeName != "":
		// The node's name, not the pod's: a pointer into the pod would keep that version
		// of the pod alive as long as any stored copy of the endpoint, long after the pod
		// was updated. The node outlives its pods' updates.
		ep.NodeName = &node.Name
	case pod.NodeName != "":
		ep.NodeName = &pod.NodeName
	}
	if node != nil && node.Zone != "" {
		ep.Zone = &node.Zone
	}
	if shouldSetHostname(pod, svc) {
		ep.Hostname = &pod.Hostname
	}
}

// endpointReady: upstream: topologycache/utils.go EndpointReady
func endpointReady(ep *Endpoint) bool {
	return ep.Conditions.Ready == ConditionTrue
}
