package model

import (
	"testing"
	"unsafe"
)

// TestPerPodRecordSizes guards the size of what the two builders keep per pod and per
// endpoint (issue 15's memory budget): each record's bound is the allocator's size class it
// fits in now, so a field that would move it to the next class fails here.
func TestPerPodRecordSizes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		size, max  uintptr
		whatIsKept string
	}{
		{"podEntry", unsafe.Sizeof(podEntry{}), 80, "the EndpointSlice builder's, one per pod"},
		{"endpointsPodState", unsafe.Sizeof(endpointsPodState{}), 80, "the Endpoints builder's, one per pod that has an address, and per update that moves it"},
		{"endpointsPodSlot", unsafe.Sizeof(endpointsPodSlot{}), 24, "the Endpoints builder's, one per pod"},
		{"endpointsEntry", unsafe.Sizeof(endpointsEntry{}), 32, "the Endpoints builder's, one per port and address"},
		{"Endpoint", unsafe.Sizeof(Endpoint{}), 80, "one per endpoint of every stored slice"},
	} {
		if tc.size > tc.max {
			t.Errorf("%s is %d bytes, over its %d-byte size class (%s)", tc.name, tc.size, tc.max, tc.whatIsKept)
		}
	}
}

// TestPerServiceRecordSizes does for the builders' per-Service records what
// TestPerPodRecordSizes does for the per-pod ones: a run of 50,000 small Services keeps one
// of each per Service.
func TestPerServiceRecordSizes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		size, max uintptr
	}{
		{"ServiceSlices", unsafe.Sizeof(ServiceSlices{}), 352},
		{"ServiceEndpoints", unsafe.Sizeof(ServiceEndpoints{}), 352},
		{"family", unsafe.Sizeof(family{}), 224},
		{"storedSlice", unsafe.Sizeof(storedSlice{}), 96},
	} {
		if tc.size > tc.max {
			t.Errorf("%s is %d bytes, over its %d-byte size class (one per Service)", tc.name, tc.size, tc.max)
		}
	}
}
