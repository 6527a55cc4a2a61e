package model

import (
	"testing"
	"unsafe"
)

// TestRecordSizes guards the size of what the two builders keep per pod, per endpoint and
// per Service (issue 15's memory budget): each record's bound is the allocator's size class
// it fits in now, so a field that would move it to the next class fails here.
func TestRecordSizes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		size, max  uintptr
		whatIsKept string
	}{
		{"podEntry", unsafe.Sizeof(podEntry{}), 48, "the EndpointSlice builder's, one per pod"},
		{"endpointsPodState", unsafe.Sizeof(endpointsPodState{}), 32, "the Endpoints builder's, one per pod that has an address, and per update that moves it"},
		{"endpointsPodSlot", unsafe.Sizeof(endpointsPodSlot{}), 24, "the Endpoints builder's, one per pod"},
		{"endpointsEntry", unsafe.Sizeof(endpointsEntry{}), 32, "the Endpoints builder's, one per port and address"},
		{"ServiceEndpoints", unsafe.Sizeof(ServiceEndpoints{}), 256, "the Endpoints builder, one per Service"},
		{"Endpoint", unsafe.Sizeof(Endpoint{}), 80, "one per endpoint of every stored slice"},
		{"ServiceSlices", unsafe.Sizeof(ServiceSlices{}), 288, "one per Service"},
		{"family", unsafe.Sizeof(family{}), 192, "one per Service and IP family"},
		{"identity table slot", unsafe.Sizeof(identitySlot[identityState]{}), 16, "one per endpoint identity desired or stored, in tables up to 7/8 full"},
		{"storedSlice", unsafe.Sizeof(storedSlice{}), 96, "one per stored slice"},
		{"Service", unsafe.Sizeof(Service{}), 192, "one per Service"},
		{"EndpointSlice", unsafe.Sizeof(EndpointSlice{}), 256, "one per stored slice"},
	} {
		if tc.size > tc.max {
			t.Errorf("%s is %d bytes, over its %d-byte size class (%s)", tc.name, tc.size, tc.max, tc.whatIsKept)
		}
	}
}
