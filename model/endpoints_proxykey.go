package model

// A kube-proxy that watches Endpoints (before 1.19, when kube-proxy moved to EndpointSlices)
// reads of an object only its endpoints map: for each port of each subset (but ports
// numbered 0), "IP:port" of each ready address, under the port's name and protocol. Its
// change tracker compares that map with the one as of its last sync, and an update that
// leaves it equal is no change: it is dropped with the Service's pending trigger times, and
// no sync is asked for. So a write that only moves not-ready addresses, or that changes the
// addresses a truncated object leaves out, costs that kube-proxy a decode and nothing more.
// upstream (v1.18): pkg/proxy/endpoints.go endpointsToEndpointsMap and
// EndpointChangeTracker.Update (reflect.DeepEqual of the previous and current maps);
// iptables/proxier.go OnEndpointsUpdate (Sync only when Update returns true).
//
// The key of a map is the sum of a hash of each of its entries, so that it is kept in
// O(addresses) without sorting: equal maps have equal keys, and unequal ones equal keys with
// a chance of about 2⁻⁶⁴. An entry's hash is the product of a hash of its port (name,
// protocol and number) and one of its IP, so that a port's part of the sum is its hash times
// the sum over its addresses' IPs: a truncated object's key takes the sum over the addresses
// it keeps from the address list's running sums (addrList.prefixIPHash), not a hash of each.
// Upstream compares each port's list in order, which differs from the multiset only where
// two subsets share a port name and protocol (pods that number one named port differently)
// and their order changes.

// proxyEntryHash is the hash of one entry of a kube-proxy's endpoints map.
func proxyEntryHash(p *EndpointsPort, ip string) uint64 {
	return proxyPortHash(p) * proxyIPHash(ip)
}

// proxyPortHash is the hash of a port of a kube-proxy's endpoints map: FNV-1a over its
// name, protocol and number, then a finalizer.
func proxyPortHash(p *EndpointsPort) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(p.Name); i++ {
		h = (h ^ uint64(p.Name[i])) * fnvPrime
	}
	h = (h ^ 0xff) * fnvPrime // ends the name: ("a", "b...") and ("ab", "...") differ
	for i := 0; i < len(p.Protocol); i++ {
		h = (h ^ uint64(p.Protocol[i])) * fnvPrime
	}
	h = (h ^ 0xff) * fnvPrime
	h = (h ^ uint64(uint32(p.Port))) * fnvPrime
	return mix64(h)
}

// proxyIPHash is the hash of an IP of a kube-proxy's endpoints map.
func proxyIPHash(ip string) uint64 { return proxyIPHashOf(keyOf(ip), ip) }

// proxyIPHashOf is proxyIPHash(ip) for ip's sort key k, read from k alone when k is an
// IPv4 address's (a key names one such address): a list sums it without reading the pod.
func proxyIPHashOf(k addrKey, ip string) uint64 {
	if k != addrKeyOther {
		return mix64(uint64(k))
	}
	h := uint64(fnvOffset)
	for i := 0; i < len(ip); i++ {
		h = (h ^ uint64(ip[i])) * fnvPrime
	}
	return mix64(h ^ 0x9e3779b97f4a7c15) // apart from the IPv4 keys' range
}

// FNV-1a's 64-bit offset basis and prime.
const (
	fnvOffset = 0xcbf29ce484222325
	fnvPrime  = 0x100000001b3
)

// mix64 is splitmix64's finalizer: every bit of x moves about half of the result's.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// EndpointsProxyKey returns the key of obj's endpoints map as a kube-proxy that watches
// Endpoints builds it (see ServiceEndpoints.ProxyKey).
func EndpointsProxyKey(obj *Endpoints) uint64 {
	var key uint64
	for i := range obj.Subsets {
		ss := &obj.Subsets[i]
		for j := range ss.Ports {
			p := &ss.Ports[j]
			if p.Port == 0 {
				continue
			}
			for k := range ss.Addresses {
				if ip := ss.Addresses[k].IP; ip != "" { // upstream skips them
					key += proxyEntryHash(p, ip)
				}
			}
		}
	}
	return key
}

// ProxyKey returns the key of the endpoints map a kube-proxy that watches Endpoints (before
// 1.19) builds from the object of the last Sync: equal keys, the same map (with a chance of
// 2⁻⁶⁴ of a collision), so an update from one to the other is no change to it. It is
// EndpointsProxyKey(s.Object()) without making the object: each port keeps the sum over
// its ready addresses as they come and go, so it costs O(ports), and for an object truncated
// to fewer ready addresses than the Service has, O(ports + chunks of its address lists).
// It is meant for a Sync that writes.
func (s *ServiceEndpoints) ProxyKey() uint64 {
	if s.deleted || s.svc.ExternalName || s.svc.Selector == nil {
		return 0
	}
	truncatedReady := s.last.truncated && s.truncateReady
	if truncatedReady {
		s.orderLayout() // the kept counts are of the subsets in the object's order
	}
	var key uint64
	for _, l := range s.layout {
		if !truncatedReady {
			for _, id := range l.portIDs {
				if st := s.ports[id]; st.listed() {
					key += st.proxyKey
				}
			}
			continue
		}
		var ports uint64 // Σ of the subset's ports' hashes: each has the same addresses
		proxied := false
		for _, id := range l.portIDs {
			if st := s.ports[id]; st.listed() {
				ports += proxyPortHash(&st.port)
				proxied = true
			}
		}
		if proxied {
			key += ports * l.list.ready.prefixIPHash(l.keep)
		}
	}
	return key
}
