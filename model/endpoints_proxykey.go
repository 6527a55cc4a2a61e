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
// The key of a map is the sum of a hash of each of its entries (port name, protocol,
// number and IP), so that it is kept in O(addresses) without sorting: equal maps have equal
// keys, and unequal ones equal keys with a chance of 2⁻⁶⁴. Upstream compares each port's
// list in order, which differs from the multiset only where two subsets share a port name
// and protocol (pods that number one named port differently) and their order changes.

// proxyEntryHash is the hash of one entry of a kube-proxy's endpoints map: FNV-1a over the
// port's name, protocol and number and the IP, then a finalizer (so that sums of hashes
// of related entries do not cancel).
func proxyEntryHash(p *EndpointsPort, ip string) uint64 {
	const prime = 0x100000001b3
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(p.Name); i++ {
		h = (h ^ uint64(p.Name[i])) * prime
	}
	h = (h ^ 0xff) * prime // ends the name: ("a", "b...") and ("ab", "...") differ
	for i := 0; i < len(p.Protocol); i++ {
		h = (h ^ uint64(p.Protocol[i])) * prime
	}
	h = (h ^ 0xff) * prime
	h = (h ^ uint64(uint32(p.Port))) * prime
	for i := 0; i < len(ip); i++ {
		h = (h ^ uint64(ip[i])) * prime
	}
	// splitmix64's finalizer
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
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
// its ready addresses as they come and go, so it costs O(ports), but for an object
// truncated to fewer ready addresses than the Service has, O(ready addresses written ×
// ports). It is meant for a Sync that writes.
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
		for _, id := range l.portIDs {
			st := s.ports[id]
			switch {
			case !st.proxied():
			case !truncatedReady:
				key += st.proxyKey
			default:
				l.list.ready.each(l.keep, func(_ int, ps *endpointsPodState) {
					key += proxyEntryHash(&st.port, ps.ipOf())
				})
			}
		}
	}
	return key
}
