package sim

import (
	"slices"
	"time"

	"epsim/model"
)

// sliceSyncer adapts the model's EndpointSlice reconciler to the engine.
type sliceSyncer struct {
	e    *Engine
	opts model.ReconcilerOptions
	// per service (by index): the incremental reconciler, and the slices the API server
	// stores, by name, with their sizes.
	reconcilers []*model.ServiceSlices
	stored      []map[string]*storedSlice
}

// storedSlice is a slice as the API server stores it, with its cached sizes.
type storedSlice struct {
	slice *model.EndpointSlice
	bytes model.ByEncoding
}

func newSliceSyncer(e *Engine) *sliceSyncer {
	// The controller's topology cache (for the topology-mode annotation's hints) always
	// exists in kube-controller-manager: the TopologyAwareHints gate is GA.
	topology := model.NewTopologyCache()
	topology.SetNodes(e.nodes)
	return &sliceSyncer{
		e:           e,
		opts:        model.ReconcilerOptions{MaxEndpointsPerSlice: e.cfg.ControlPlane.MaxEndpointsPerSlice, Topology: topology},
		stored:      make([]map[string]*storedSlice, len(e.services)),
		reconcilers: make([]*model.ServiceSlices, len(e.services)),
	}
}

func (y *sliceSyncer) serviceAdded(s *serviceState) {
	y.stored[s.idx] = map[string]*storedSlice{}
	r := model.NewServiceSlices(s.svc, y.e, y.opts)
	for _, p := range s.pods {
		r.SetPod(p.pod)
	}
	y.reconcilers[s.idx] = r
}

func (y *sliceSyncer) serviceChanged(s *serviceState) { y.reconcilers[s.idx].SetService(s.svc) }
func (y *sliceSyncer) staleGuard() bool               { return true }

// backoff is the EndpointSlice controller's per-item limiter: 1 s doubling to 1000 s.
// upstream: endpointslice_controller.go defaultSyncBackOff, maxSyncBackOff.
func (y *sliceSyncer) backoff(n int) Time {
	return exponentialBackoff(Time(time.Second), Time(1000*time.Second), n)
}

// podChanged is the EndpointSlice controller's pod event filter.
// upstream: util/controller_utils.go GetPodUpdateProjectionKey, podEndpointsChanged.
func (y *sliceSyncer) podChanged(p *podState, old *model.Pod, deleted bool) bool {
	r := y.reconcilers[p.svc.idx]
	if r == nil {
		return false
	}
	if deleted {
		r.DeletePod(p.pod.Namespace, p.pod.Name)
		return true
	}
	r.SetPod(p.pod)
	return old == nil || podEndpointsChanged(old, p.pod)
}

// podEndpointsChanged reports whether an update can change a pod's endpoints: deletion
// timestamp, readiness, IPs, labels, hostname or subdomain.
func podEndpointsChanged(old, cur *model.Pod) bool {
	if old.ResourceVersion == cur.ResourceVersion && old.ResourceVersion != "" {
		return false
	}
	if old.Terminating != cur.Terminating || old.Terminating && cur.Terminating {
		// Both set: upstream compares deletionTimestamp pointers, which always differ.
		return true
	}
	if old.Ready != cur.Ready || !slices.Equal(old.IPs, cur.IPs) {
		return true
	}
	return old.Hostname != cur.Hostname || old.Subdomain != cur.Subdomain
}

func (y *sliceSyncer) sync(s *serviceState, trigger model.Timestamp) ([]write, error) {
	res := y.reconcilers[s.idx].Sync(trigger)
	var writes []write
	for i := range res.Plans {
		p := &res.Plans[i]
		for _, sl := range p.ToCreate {
			writes = append(writes, write{verb: "create", slice: sl, addressType: p.AddressType})
		}
		for _, sl := range p.ToUpdate {
			writes = append(writes, write{verb: "update", slice: sl, addressType: p.AddressType})
		}
		for _, sl := range p.ToDelete {
			writes = append(writes, write{verb: "delete", slice: sl, addressType: p.AddressType})
		}
	}
	return writes, res.Err
}

// commit completes the slice as the API server stores it and sizes it.
func (y *sliceSyncer) commit(s *serviceState, w *write, meta apiMeta) committed {
	st := y.stored[s.idx]
	cm := committed{kind: "EndpointSlice", namespace: s.svc.Namespace}
	if w.verb == "delete" {
		old := st[w.slice.Name]
		if old == nil {
			old = &storedSlice{slice: w.slice, bytes: sliceBytes(w.slice, y.e.api.needJSON)}
		}
		cm.name = old.slice.Name
		cm.endpoints = len(old.slice.Endpoints)
		cm.objectBytes, cm.oldBytes = old.bytes, old.bytes
		cm.wasSelected, cm.wasSelectedAll = proxySelects(old.slice.Labels), proxySelectsAll(old.slice.Labels)
		return cm
	}
	obj := *w.slice
	if w.verb == "create" {
		obj.Name = y.e.names.generate(obj.GenerateName)
		for y.e.sliceNames[obj.Name] {
			obj.Name = y.e.names.generate(obj.GenerateName)
		}
		y.e.sliceNames[obj.Name] = true
		obj.UID = meta.uid
		obj.CreationTimestamp = meta.created
		obj.Generation = 1
	} else if old := st[obj.Name]; old != nil {
		obj.UID = old.slice.UID
		obj.CreationTimestamp = old.slice.CreationTimestamp
		obj.Generation = old.slice.Generation + 1
		cm.oldBytes = old.bytes
		cm.wasSelected, cm.wasSelectedAll = proxySelects(old.slice.Labels), proxySelectsAll(old.slice.Labels)
	}
	obj.ResourceVersion = meta.resourceVersion
	obj.ManagedFields = sliceManagedFields(meta.now)
	w.slice = &obj
	cm.name = obj.Name
	cm.endpoints = len(obj.Endpoints)
	cm.objectBytes, cm.requestBytes = sliceSizes(&obj, y.e.api.needJSON)
	w.bytes = cm.objectBytes // applied stores it with the slice
	cm.selected, cm.selectedAll = proxySelects(obj.Labels), proxySelectsAll(obj.Labels)
	cm.trigger, cm.hasTrigger = triggerOf(obj.Annotations)
	for i := range obj.Endpoints {
		if r := obj.Endpoints[i].Conditions.Ready; r == nil || *r {
			cm.ready++
		}
	}
	return cm
}

func sliceBytes(s *model.EndpointSlice, needJSON bool) model.ByEncoding {
	b, _ := sliceSizes(s, needJSON)
	return b
}

// sliceSizes sizes a stored slice per encoding and its request body (protobuf, without
// managedFields), walking the endpoints once: the rest is arithmetic on the metadata.
func sliceSizes(s *model.EndpointSlice, needJSON bool) (object model.ByEncoding, request int64) {
	var sum model.ByEncoding
	for i := range s.Endpoints {
		sum[model.Protobuf] += model.EndpointSize(&s.Endpoints[i], model.Protobuf)
		if needJSON {
			sum[model.JSON] += model.EndpointSize(&s.Endpoints[i], model.JSON)
		}
	}
	n := len(s.Endpoints)
	object[model.Protobuf] = model.EndpointSliceSizeFrom(s, n, sum[model.Protobuf], model.Protobuf)
	if needJSON {
		object[model.JSON] = model.EndpointSliceSizeFrom(s, n, sum[model.JSON], model.JSON)
	}
	req := *s
	req.ManagedFields = nil
	request = model.EndpointSliceSizeFrom(&req, n, sum[model.Protobuf], model.Protobuf)
	return object, request
}

func (y *sliceSyncer) applied(s *serviceState, w *write, ok bool) {
	if !ok {
		return
	}
	y.reconcilers[s.idx].Applied(w.verb, w.slice)
	st := y.stored[s.idx]
	old := -1
	if prev := st[w.slice.Name]; prev != nil {
		old = len(prev.slice.Endpoints)
	}
	if w.verb == "delete" {
		delete(st, w.slice.Name)
		delete(y.e.sliceNames, w.slice.Name)
		y.e.stats.sliceResized(old, -1)
		return
	}
	st[w.slice.Name] = &storedSlice{slice: w.slice, bytes: w.bytes}
	y.e.stats.sliceResized(old, len(w.slice.Endpoints))
}

// proxySelects is kube-proxy's informer selector:
// !service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless.
// upstream: cmd/kube-proxy/app/server.go.
func proxySelects(labels map[string]string) bool {
	_, named := labels[model.LabelServiceProxyName]
	_, headless := labels[model.LabelHeadless]
	return !named && !headless
}

// proxySelectsAll is the selector of watchers that also take headless services (CoreDNS).
func proxySelectsAll(labels map[string]string) bool {
	_, named := labels[model.LabelServiceProxyName]
	return !named
}

// sliceManagedFields is the managedFields entry the API server records for an Update by
// kube-controller-manager of a controller-written EndpointSlice.
func sliceManagedFields(t model.Timestamp) []model.ManagedFieldsEntry {
	return []model.ManagedFieldsEntry{{
		Manager: "kube-controller-manager", Operation: "Update", APIVersion: "discovery.k8s.io/v1",
		Time: t, FieldsType: "FieldsV1", FieldsV1: sliceFieldsV1,
	}}
}

const sliceFieldsV1 = `{"f:addressType":{},"f:endpoints":{},"f:metadata":{"f:annotations":{".":{},"f:endpoints.kubernetes.io/last-change-trigger-time":{}},"f:generateName":{},"f:labels":{".":{},"f:endpointslice.kubernetes.io/managed-by":{},"f:kubernetes.io/service-name":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"00000000-0000-0000-0000-000000000000\"}":{}}},"f:ports":{}}`

// nodesChanged refreshes the topology cache's zone weights after node readiness changed.
// upstream: endpointslice_controller.go updateNode → checkNodeTopologyDistribution → SetNodes.
// Upstream then queues the services SetNodes finds overloaded; here they sync on their next
// pod event instead (their pods' readiness changes soon after a node fails).
func (y *sliceSyncer) nodesChanged() { y.opts.Topology.SetNodes(y.e.nodes) }
