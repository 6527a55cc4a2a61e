package sim

import (
	"time"

	"epsim/model"
)

// endpointsSyncer adapts the model's incremental legacy Endpoints builder to the engine.
type endpointsSyncer struct {
	e        *Engine
	opts     model.EndpointsOptions
	builders []*model.ServiceEndpoints
	stored   []storedEndpoints
}

// storedEndpoints is what the API server stores for one Service's Endpoints.
type storedEndpoints struct {
	exists  bool
	uid     string
	created model.Timestamp
	labels  map[string]string
	bytes   model.ByEncoding
	// addresses counts ready + not-ready addresses, for the write log.
	addresses int
}

func newEndpointsSyncer(e *Engine) *endpointsSyncer {
	return &endpointsSyncer{
		e:        e,
		opts:     model.EndpointsOptions{Truncate: e.cfg.ControlPlane.EndpointsTruncation},
		builders: make([]*model.ServiceEndpoints, len(e.services)),
		stored:   make([]storedEndpoints, len(e.services)),
	}
}

// addressBytes is the size model's per-address cost in both encodings.
func addressBytes(a *model.EndpointAddress) model.ByEncoding {
	var b model.ByEncoding
	b[model.Protobuf] = model.EndpointAddressSize(a, model.Protobuf)
	b[model.JSON] = model.EndpointAddressSize(a, model.JSON)
	return b
}

func (y *endpointsSyncer) serviceAdded(s *serviceState) {
	y.builders[s.idx] = model.NewServiceEndpoints(s.svc, y.opts, addressBytes)
	for _, p := range s.pods {
		y.builders[s.idx].SetPod(p.pod)
	}
}

func (y *endpointsSyncer) serviceChanged(s *serviceState) { y.builders[s.idx].SetService(s.svc) }
func (y *endpointsSyncer) staleGuard() bool               { return true }

// backoff is client-go's default controller rate limiter: 5 ms doubling to 1000 s.
// upstream: client-go util/workqueue DefaultControllerRateLimiter.
func (y *endpointsSyncer) backoff(n int) Time {
	return exponentialBackoff(Time(5*time.Millisecond), Time(1000*time.Second), n)
}

// podChanged feeds the builder and applies the same update filter as the EndpointSlice
// controller (upstream: endpoints_controller.go updatePod → GetServicesToUpdateOnPodChange).
func (y *endpointsSyncer) podChanged(p *podState, old *model.Pod, deleted bool) bool {
	b := y.builders[p.svc.idx]
	if b == nil {
		return false
	}
	if deleted {
		b.DeletePod(p.pod.Key())
		return true
	}
	b.SetPod(p.pod)
	return old == nil || podEndpointsChanged(old, p.pod)
}

func (y *endpointsSyncer) sync(s *serviceState, trigger model.Timestamp) ([]write, error) {
	d := y.builders[s.idx].Sync(trigger)
	if d.Verb == "" {
		return nil, nil
	}
	return []write{{verb: d.Verb, legacy: true}}, nil
}

func (y *endpointsSyncer) commit(s *serviceState, w *write, meta apiMeta) committed {
	b := y.builders[s.idx]
	st := &y.stored[s.idx]
	d := b.Decision()
	cm := committed{kind: "Endpoints", namespace: s.svc.Namespace, name: s.svc.Name, truncated: d.Truncated}
	if d.Truncated {
		cm.hidden = int64(d.DesiredAddresses + d.DesiredNotReadyAddresses - d.Addresses - d.NotReadyAddresses)
	}
	cm.oldBytes = st.bytes
	cm.wasSelected, cm.wasSelectedAll = st.exists && proxySelects(st.labels), st.exists && proxySelectsAll(st.labels)
	if w.verb == model.EndpointsDelete {
		cm.objectBytes = st.bytes
		cm.endpoints = st.addresses
		return cm
	}
	om := b.ObjectMeta()
	if st.exists {
		om.UID, om.CreationTimestamp = st.uid, st.created
	} else {
		om.UID, om.CreationTimestamp = meta.uid, meta.created
	}
	om.ResourceVersion = meta.resourceVersion
	subsets := b.SubsetSizes()
	cm.endpoints = d.Addresses + d.NotReadyAddresses
	cm.requestBytes = model.EndpointsSizeFrom(&om, subsets, model.Protobuf)
	om.ManagedFields = []model.ManagedFieldsEntry{model.EndpointsManagedFields(&model.Endpoints{ObjectMeta: om, Subsets: make([]model.EndpointSubset, len(subsets))}, meta.now)}
	cm.objectBytes[model.Protobuf] = model.EndpointsSizeFrom(&om, subsets, model.Protobuf)
	if y.e.api.needJSON {
		cm.objectBytes[model.JSON] = model.EndpointsSizeFrom(&om, subsets, model.JSON)
	}
	cm.selected, cm.selectedAll = proxySelects(om.Labels), proxySelectsAll(om.Labels)
	cm.noop = w.verb == model.EndpointsUpdate && b.Unchanged()
	if cm.noop {
		cm.objectBytes = st.bytes
	}
	w.labels = om.Labels
	w.uid = om.UID
	w.created = om.CreationTimestamp
	w.bytes = cm.objectBytes
	w.addresses = cm.endpoints
	return cm
}

func (y *endpointsSyncer) applied(s *serviceState, w *write, ok bool) {
	if !ok {
		return
	}
	st := &y.stored[s.idx]
	y.builders[s.idx].Applied()
	if w.verb == model.EndpointsDelete {
		*st = storedEndpoints{}
		return
	}
	*st = storedEndpoints{exists: true, uid: w.uid, created: w.created, labels: w.labels, bytes: w.bytes, addresses: w.addresses}
}
