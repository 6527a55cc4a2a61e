package sim

import (
	"testing"

	"epsim/model"
)

// TestHeadlineSingleEndpointUpdate reproduces KEP-752's "single endpoint update" row on a
// 5,000-node cluster with a 10,000-pod Service (untruncated Endpoints): one write per mode,
// each fanned out to every node, and the bytes follow from the size model, not constants.
// Reference: DESIGN.md "Quality bars"; issue 4 "The headline comes out of the shipped scenario".
func TestHeadlineSingleEndpointUpdate(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 pods on 5,000 nodes")
	}
	cfg := testConfig(5000, 10000)
	cfg.ControlPlane.EndpointsTruncation = false
	cfg.Timeline = cfg.Timeline[:2] // create, one-endpoint-not-ready
	e, res := runEngineOf(t, cfg, nil)
	phase := res.Phases[1]
	var epWrite, esWrite *WriteRecord
	for i := range res.Writes {
		w := &res.Writes[i]
		if w.Phase != phase.Name {
			continue
		}
		if w.Mode == ModeEndpoints {
			epWrite = w
		} else {
			esWrite = w
		}
	}
	if epWrite == nil || esWrite == nil || phase.Endpoints.Writes.Total() != 1 || phase.EndpointSlices.Writes.Total() != 1 {
		t.Fatalf("want exactly one write per mode, got %+v and %+v", phase.Endpoints.Writes, phase.EndpointSlices.Writes)
	}

	// The Endpoints object the controller wrote, materialised and sized by walking it, must
	// equal what the engine accounted arithmetically from running sums.
	y := e.ctls[1].syncer.(*endpointsSyncer)
	obj := y.builders[0].Object()
	st := y.stored[0]
	obj.UID, obj.CreationTimestamp = st.uid, st.created
	obj.ResourceVersion = "x" // replaced below by the stored length
	meta := y.builders[0].ObjectMeta()
	obj.Labels, obj.Annotations = meta.Labels, meta.Annotations
	if got := len(obj.Subsets[0].Addresses) + len(obj.Subsets[0].NotReadyAddresses); got != 10000 {
		t.Fatalf("Endpoints has %d addresses, want 10000", got)
	}
	sizeOf := func(rv string) int64 {
		o := *obj
		o.ResourceVersion = rv
		o.ManagedFields = []model.ManagedFieldsEntry{model.EndpointsManagedFields(&o, timestamp(phase.Start))}
		return model.EndpointsSize(&o, model.Protobuf)
	}
	// The resourceVersion's digits are the only thing the test does not know; try lengths.
	found := false
	for _, rv := range []string{"1000", "10000", "100000", "1000000"} {
		if sizeOf(rv) == epWrite.ObjectBytes {
			found = true
		}
	}
	if !found {
		t.Errorf("engine sized the Endpoints write %d B; walking the object gives %d B", epWrite.ObjectBytes, sizeOf("100000"))
	}
	nodes := int64(5000)
	if want := model.WatchEventSize(epWrite.ObjectBytes, model.EventModified, model.Protobuf) * nodes; phase.Endpoints.FanoutBytes != want {
		t.Errorf("Endpoints fan-out %d, want event size × 5000 = %d", phase.Endpoints.FanoutBytes, want)
	}
	if want := model.WatchEventSize(esWrite.ObjectBytes, model.EventModified, model.Protobuf) * nodes; phase.EndpointSlices.FanoutBytes != want {
		t.Errorf("EndpointSlices fan-out %d, want event size × 5000 = %d", phase.EndpointSlices.FanoutBytes, want)
	}
	ratio := float64(phase.Endpoints.FanoutBytes) / float64(phase.EndpointSlices.FanoutBytes)
	t.Logf("one endpoint not ready: Endpoints %d B (object %d B), EndpointSlices %d B (slice %d B, %d endpoints), ratio %.1f×",
		phase.Endpoints.FanoutBytes, epWrite.ObjectBytes, phase.EndpointSlices.FanoutBytes, esWrite.ObjectBytes, esWrite.Endpoints, ratio)
	if phase.Endpoints.FanoutBytes < 4e9 || phase.Endpoints.FanoutBytes > 10e9 {
		t.Errorf("Endpoints fan-out %.2f GB, published figures say 5–6 GB", float64(phase.Endpoints.FanoutBytes)/1e9)
	}
	if ratio < 50 || ratio > 120 {
		t.Errorf("ratio %.1f×, want near 80× (one 10,000-address object vs one 100-endpoint slice)", ratio)
	}
}
