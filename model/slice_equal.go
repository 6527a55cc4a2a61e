package model

import "slices"

// SliceSpecEqual reports whether two EndpointSlices agree on everything but their object
// metadata: address type, ports and endpoints (hints included), as the API server compares
// them when it decides whether an update bumps metadata.generation.
// upstream: pkg/registry/discovery/endpointslice/strategy.go PrepareForUpdate
// (apiequality.Semantic.DeepEqual of the objects with their ObjectMeta cleared).
func SliceSpecEqual(a, b *EndpointSlice) bool {
	return a.AddressType == b.AddressType &&
		slices.EqualFunc(a.Ports, b.Ports, endpointPortEqual) &&
		slices.EqualFunc(a.Endpoints, b.Endpoints, func(x, y Endpoint) bool { return endpointEqual(&x, &y) })
}

// SliceSpecEqualByChanges is SliceSpecEqual for a, an update of stored slice b that
// ServiceSlices.ChangedEndpoints described by changes: every endpoint of a that changes does
// not list is a copy of one of b's, in b's order, so only the changed ones are compared.
func SliceSpecEqualByChanges(a, b *EndpointSlice, changes []EndpointChange) bool {
	if a.AddressType != b.AddressType || len(a.Endpoints) != len(b.Endpoints) ||
		!slices.EqualFunc(a.Ports, b.Ports, endpointPortEqual) {
		return false
	}
	for _, c := range changes {
		if c.Was == nil || c.Now == nil || !endpointEqual(c.Was, c.Now) {
			return false
		}
	}
	return true
}

// endpointPortEqual compares two EndpointPorts field by field (nil and a value differ).
func endpointPortEqual(a, b EndpointPort) bool {
	return !strPtrChanged(a.Name, b.Name) && !strPtrChanged(a.AppProtocol, b.AppProtocol) &&
		ptrEqual(a.Protocol, b.Protocol) && ptrEqual(a.Port, b.Port)
}

// endpointEqual compares two endpoints in every field.
func endpointEqual(a, b *Endpoint) bool {
	return slices.Equal(a.Addresses, b.Addresses) && !strPtrChanged(a.Hostname, b.Hostname) &&
		EndpointsEqualBeyondHash(a, b) && hintsEqual(a.Hints, b.Hints)
}

// hintsEqual compares two endpoints' hints (nil and empty hints differ, as on the wire: an
// empty hints field is written).
func hintsEqual(a, b *EndpointHints) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	return slices.Equal(a.ForZones, b.ForZones) && slices.Equal(a.ForNodes, b.ForNodes)
}

// ptrEqual compares two optional values: both nil, or both set and equal.
func ptrEqual[T comparable](a, b *T) bool {
	return a == b || a != nil && b != nil && *a == *b
}
