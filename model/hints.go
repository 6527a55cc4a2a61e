package model

// hintsMode is how a sync sets hints for one address type (UPSTREAM.md §2.9).
type hintsMode uint8

const (
	// hintsStrip (mode C): strip every hint.
	hintsStrip hintsMode = iota
	// hintsTopology (mode A): the topology-mode annotation, allocated by the TopologyCache.
	hintsTopology
	// hintsPreferClose (mode B): trafficDistribution PreferClose or PreferSameZone.
	hintsPreferClose
	// hintsPreferSameNode (mode B): trafficDistribution PreferSameNode (zone and node hints).
	hintsPreferSameNode
)

// hintsModeFor decides the hints mode of svc.
// upstream: reconciler.go reconcileByAddressType (validTrafficDistribution, hintsEnabled)
func hintsModeFor(svc *Service, opts *ReconcilerOptions) hintsMode {
	annotated := hintsAnnotationEnabled(svc.Annotations)
	if annotated && opts.Topology != nil {
		return hintsTopology
	}
	if annotated {
		return hintsStrip
	}
	switch svc.TrafficDistribution {
	case TrafficDistributionPreferClose:
		return hintsPreferClose
	case TrafficDistributionPreferSameZone:
		if !opts.DisablePreferSameTrafficDistribution {
			return hintsPreferClose
		}
	case TrafficDistributionPreferSameNode:
		if !opts.DisablePreferSameTrafficDistribution {
			return hintsPreferSameNode
		}
	}
	return hintsStrip
}

// sliceHasHints reports whether any endpoint of s carries hints.
// upstream: trafficdist/trafficdist.go defaultHeuristic.needsUpdate
func sliceHasHints(s *EndpointSlice) bool {
	for i := range s.Endpoints {
		if s.Endpoints[i].Hints != nil {
			return true
		}
	}
	return false
}

// stripHints clears every endpoint's hints in place.
func stripHints(s *EndpointSlice) {
	for i := range s.Endpoints {
		s.Endpoints[i].Hints = nil
	}
}

// preferCloseNeedsUpdate reports whether some ready endpoint of s lacks the exact expected
// zone (and, for sameNode, node) hint, or carries a stale one.
// upstream: trafficdist/trafficdist.go preferCloseHeuristic.needsUpdate
func preferCloseNeedsUpdate(s *EndpointSlice, sameNode bool) bool {
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		if !endpointReady(ep) {
			continue
		}
		if ep.Zone != nil {
			if ep.Hints == nil || len(ep.Hints.ForZones) != 1 || ep.Hints.ForZones[0] != *ep.Zone {
				return true
			}
		} else if ep.Hints != nil && len(ep.Hints.ForZones) > 0 {
			return true
		}
		if ep.NodeName != nil && sameNode {
			if ep.Hints == nil || len(ep.Hints.ForNodes) != 1 || ep.Hints.ForNodes[0] != *ep.NodeName {
				return true
			}
		} else if ep.Hints != nil && len(ep.Hints.ForNodes) > 0 {
			return true
		}
	}
	return false
}

// preferCloseUpdate sets the hints of every ready endpoint of s in place; non-ready endpoints
// are left alone. The endpoints of one zone (and node) share one hint (closeHints).
// upstream: trafficdist/trafficdist.go preferCloseHeuristic.update
func preferCloseUpdate(s *EndpointSlice, sameNode bool) {
	var c closeHints
	c.update(s, sameNode, false)
}

// closeHints are the hints preferCloseUpdate sets, one object for each zone (and node, for
// PreferSameNode), shared by every endpoint that gets it: a hint is never modified once set
// (as the topology cache's, hintFor), and a new one for every ready endpoint of every slice
// written was two allocations an endpoint, a quarter of the CPU of a Service of 100,000
// pods with PreferClose with the collections they caused.
type closeHints map[closeHintKey]*EndpointHints

// closeHintKey is what preferCloseUpdate's hint is made of: the zone, if hasZone, and the
// node, if hasNode.
type closeHintKey struct {
	zone, node       string
	hasZone, hasNode bool
}

// madeHint reports whether h holds what update's hint for k does: a zone hint for k's
// zone if it has one, a node hint for its node if it has one, and no other.
func (k *closeHintKey) madeHint(h *EndpointHints) bool {
	if k.hasZone != (len(h.ForZones) != 0) || k.hasNode != (len(h.ForNodes) != 0) {
		return false
	}
	return (!k.hasZone || len(h.ForZones) == 1 && h.ForZones[0] == k.zone) &&
		(!k.hasNode || len(h.ForNodes) == 1 && h.ForNodes[0] == k.node)
}

// update sets the hints of every ready endpoint of s as preferCloseUpdate does, taking them
// from (and adding them to) *c. With kept, the hint of a ready endpoint that has one is
// known to be what it would set (ServiceSlices.hintsKept): only the others are set.
func (c *closeHints) update(s *EndpointSlice, sameNode, kept bool) {
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		if !endpointReady(ep) || kept && ep.Hints != nil {
			continue
		}
		var k closeHintKey
		if ep.Zone != nil {
			k.zone, k.hasZone = *ep.Zone, true
		}
		if ep.NodeName != nil && sameNode {
			k.node, k.hasNode = *ep.NodeName, true
		}
		if !k.hasZone && !k.hasNode {
			ep.Hints = nil
			continue
		}
		if h := ep.Hints; h != nil && h.pbSize > 0 && k.madeHint(h) {
			// A shared hint with what this one would hold: a copy of a stored endpoint
			// mostly has it, and comparing its strings costs less than the lookup (hashing
			// the key's strings was a fifth of a Service of 20,000 pods with PreferClose).
			continue
		}
		h := (*c)[k]
		if h == nil {
			h = new(EndpointHints)
			if k.hasZone {
				h.ForZones = []string{k.zone}
			}
			if k.hasNode {
				h.ForNodes = []string{k.node}
			}
			h = sharedHints(h)
			if *c == nil {
				*c = closeHints{}
			}
			(*c)[k] = h
		}
		ep.Hints = h
	}
}

// copySlice returns a copy of s whose Endpoints array may be modified in place (endpoint
// field pointers stay shared; they are never written through).
func copySlice(s *EndpointSlice) *EndpointSlice {
	c := *s
	c.Endpoints = append(make([]Endpoint, 0, len(s.Endpoints)), s.Endpoints...)
	return &c
}

// sliceInfo is the hint passes' view of one address type: what is being written and what is
// not. upstream: topologycache/sliceinfo.go SliceInfo
type sliceInfo struct {
	service     *Service // its key, "namespace/name", is made only when its hints are new
	addressType AddressType
	toCreate    []*EndpointSlice
	toUpdate    []*EndpointSlice
	unchanged   []*EndpointSlice
}

// removeHintsFromSlices (mode C): strip hints from what is written, and move unchanged slices
// that carry any hint to toUpdate (stripped copies).
// upstream: topologycache/utils.go RemoveHintsFromSlices
func removeHintsFromSlices(si *sliceInfo) {
	for _, s := range si.toCreate {
		stripHints(s)
	}
	for _, s := range si.toUpdate {
		stripHints(s)
	}
	for _, s := range si.unchanged {
		if sliceHasHints(s) {
			c := copySlice(s)
			stripHints(c)
			si.toUpdate = append(si.toUpdate, c)
		}
	}
}

// reconcileTrafficDistribution (mode B): move unchanged slices whose hints are wrong to
// toUpdate, then set the hints of everything written.
// upstream: trafficdist/trafficdist.go ReconcileHints
func reconcileTrafficDistribution(si *sliceInfo, sameNode bool) {
	for _, s := range si.unchanged {
		if preferCloseNeedsUpdate(s, sameNode) {
			si.toUpdate = append(si.toUpdate, copySlice(s))
		}
	}
	for _, s := range si.toCreate {
		preferCloseUpdate(s, sameNode)
	}
	for _, s := range si.toUpdate {
		preferCloseUpdate(s, sameNode)
	}
}
