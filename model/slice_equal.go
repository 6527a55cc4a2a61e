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
