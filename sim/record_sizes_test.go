package sim

import (
	"testing"
	"unsafe"

	"epsim/model"
)

// TestPerPodRecordSizes guards the size of what the simulator keeps per pod, and per Service
// (issue 15's memory budget): each record's bound is the allocator's size class it fits in
// now, so a field that would move it to the next class fails here instead of costing every
// pod or Service of a large run 16 bytes or more unnoticed.
func TestPerPodRecordSizes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		size, max  uintptr
		whatIsKept string
	}{
		{"podState", unsafe.Sizeof(podState{}), 48, "one per pod of the run"},
		{"model.Pod", unsafe.Sizeof(model.Pod{}), 64, "one per pod, and a copy per update"},
		{"model.PodIdentity", unsafe.Sizeof(model.PodIdentity{}), 80, "one per pod"},
		{"serviceState", unsafe.Sizeof(serviceState{}), 224, "one per Service"},
		{"replicaSet", unsafe.Sizeof(replicaSet{}), 128, "one per Service, and one per template a rollout leaves behind"},
		{"proxyService", unsafe.Sizeof(proxyService{}), 56, "per Service, in each of the two kube-proxies' proxiers"},
		{"keyState", unsafe.Sizeof(keyState{}), 40, "per Service, in each controller's workqueue"},
		{"storedEndpoints", unsafe.Sizeof(storedEndpoints{}), 64, "per Service, the API server's Endpoints object"},
		{"serviceAcc", unsafe.Sizeof(serviceAcc{}), 72, "per Service, in each mode's accounting"},
		{"bucketTraffic", unsafe.Sizeof(bucketTraffic{}), 64, "per second of the traffic series, up to 65,536"},
	} {
		if tc.size > tc.max {
			t.Errorf("%s is %d bytes, over its %d-byte size class (%s)", tc.name, tc.size, tc.max, tc.whatIsKept)
		}
	}
}
