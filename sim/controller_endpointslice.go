package sim

import (
	"slices"
	"strings"
	"time"

	"epsim/model"
)

// sliceSyncer adapts the model's EndpointSlice reconciler to the engine.
type sliceSyncer struct {
	e *Engine
	// names draws the names of the slices it creates, and its controller the UIDs of the
	// objects it creates (controller.names).
	names *nameGenerator
	opts  model.ReconcilerOptions
	// per service (by index): the incremental reconciler, and the slices the API server
	// stores, by name, with their sizes.
	reconcilers []*model.ServiceSlices
	stored      []sliceStore
	// settler keeps what makes the dropped reconcilers of settled Services again.
	settler settler
	// fields remembers the slices' managedFields field sets.
	fields model.FieldsMemo
	// events are the Events of the last sync, until the controller takes them.
	events model.SyncEvents
	// byKey finds a Service by "namespace/name" (built on first use).
	byKey map[string]int
	// mf is commit's managedFields buffer: the entry is needed only to size the object.
	mf [1]model.ManagedFieldsEntry
	// changes is commit's buffer for an update's changed endpoints.
	changes []model.EndpointChange
	// seeded says slices were stored before the run (markUntracked): only then can a
	// stored slice be untracked.
	seeded bool
}

// storedSlice is a slice as the API server stores it, with its cached sizes.
type storedSlice struct {
	slice *model.EndpointSlice
	bytes model.ByEncoding
	sums  endpointSums
	// selected is proxySelection of the slice's labels.
	selected bool
	// lists are the spec fields its managedFields entry lists (model.SliceListsAfter).
	lists model.SliceLists
	// untracked says the slice was stored before the run (a replay's existing slices) and
	// the controller has not written it since: the EndpointSlice tracker of a restarted
	// controller does not know it, so every informer event of it queues its Service again
	// (queueUntracked).
	untracked bool
}

func (ss *storedSlice) listName() string { return ss.slice.Name }

// sliceStore is one Service's stored slices by name.
type sliceStore struct {
	namedList[*storedSlice]
}

// get returns the stored slice of that name, or nil.
func (t *sliceStore) get(name string) *storedSlice {
	if i := t.find(name); i >= 0 {
		return t.list[i]
	}
	return nil
}

// remove forgets the slice of that name, if stored.
func (t *sliceStore) remove(name string) {
	if i := t.find(name); i >= 0 {
		t.removeAt(i)
	}
}

func newSliceSyncer(e *Engine) *sliceSyncer {
	// The controller's topology cache (for the topology-mode annotation's hints) always
	// exists in kube-controller-manager: the TopologyAwareHints gate is GA.
	topology := model.NewTopologyCache()
	topology.SetNodes(e.nodes)
	return &sliceSyncer{
		e:     e,
		names: newNameGenerator(e.cfg.Seed, streamEndpointSliceNames),
		// The controller syncs one Service at a time: its Services share one set of buffers.
		opts: model.ReconcilerOptions{MaxEndpointsPerSlice: e.cfg.ControlPlane.MaxEndpointsPerSlice, Topology: topology,
			Buffers: new(model.SyncBuffers)},
		stored:      make([]sliceStore, len(e.services)),
		reconcilers: make([]*model.ServiceSlices, len(e.services)),
		settler:     newSettler(len(e.services)),
	}
}

func (y *sliceSyncer) serviceAdded(s *serviceState) {
	y.stored[s.idx] = sliceStore{}
	r := model.NewServiceSlices(s.svc, y.e, y.opts)
	for _, p := range s.pods {
		if p.stage != stageGone { // gone pods stay in s.pods until it is compacted
			r.SetPodRef(&p.sliceRef, p.pod)
		}
	}
	y.reconcilers[s.idx] = r
	y.settler.forget(s.idx) // a Service added again: its old reconciler is not wanted
}

// settled notes that a sync of Service s ended with nothing left to do, and drops the
// reconcilers that have stayed so for settleAfter (settle.go).
func (y *sliceSyncer) settled(s *serviceState) {
	if r := y.reconcilers[s.idx]; r != nil && s.manual == nil {
		y.settler.note(s, r.Pods(), y.e.now, y.e.actedOnNext(s), y.settle)
	}
}

// settle drops Service i's reconciler if it has nothing to do
// (model.ServiceSlices.Settled), keeping its Service and pods; the stored slices are the
// API server's (stored). reconciler makes it again.
func (y *sliceSyncer) settle(i int) {
	r := y.reconcilers[i]
	if r == nil || !r.Settled() {
		return
	}
	d := y.settler.gather(y.e.services[i], r.Pods(),
		func(p *podState) (*model.Pod, int) { return r.PodOf(&p.sliceRef) },
		func(p *podState) { p.sliceRef = model.PodRef{} })
	if d == nil {
		return
	}
	d.svc = r.Service()
	y.reconcilers[i] = nil
	y.settler.keep(i, d)
}

// reconciler returns Service i's reconciler (nil if the Service has none), made again if
// settle dropped it: from its Service, the stored slices (by name, as Stored lists them)
// and its pods in its order.
func (y *sliceSyncer) reconciler(i int) *model.ServiceSlices { return y.reconcilerAt(i, nil, nil) }

// reconcilerAt is reconciler when the change of pod changed from version old is to reach it.
func (y *sliceSyncer) reconcilerAt(i int, changed *podState, old *model.Pod) *model.ServiceSlices {
	if r := y.reconcilers[i]; r != nil {
		return r
	}
	d, pods := y.settler.wake(i)
	if d == nil {
		return nil
	}
	r := model.NewServiceSlices(d.svc, y.e, y.opts)
	list := y.stored[i].list
	stored := make([]*model.EndpointSlice, len(list))
	for j, ss := range list {
		stored[j] = ss.slice
	}
	slices.SortFunc(stored, func(a, b *model.EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
	r.SetStoredSlices(stored)
	for _, p := range pods {
		r.SetPodRef(&p.sliceRef, versionAt(p, changed, old))
	}
	y.reconcilers[i] = r
	y.settler.release(d)
	return r
}

func (y *sliceSyncer) serviceChanged(s *serviceState) { y.reconciler(s.idx).SetService(s.svc) }
func (y *sliceSyncer) staleGuard() bool               { return true }

// takeEvents implements syncer: the hints Events of the last sync (SyncResult.Events), or
// the mirroring controller's Events of a mirroring sync (mirror).
func (y *sliceSyncer) takeEvents() model.SyncEvents {
	ev := y.events
	y.events = model.SyncEvents{}
	return ev
}

// backoff is the EndpointSlice controller's per-item limiter: 1 s doubling to 1000 s; and
// for a selector-less Service, the mirroring controller's: 1 s doubling to 100 s.
// upstream: endpointslice_controller.go defaultSyncBackOff, maxSyncBackOff;
// endpointslicemirroring_controller.go defaultSyncBackOff, maxSyncBackOff.
func (y *sliceSyncer) backoff(s *serviceState, n int) Time {
	if s.manual != nil {
		return exponentialBackoff(Time(time.Second), Time(100*time.Second), n)
	}
	return exponentialBackoff(Time(time.Second), Time(1000*time.Second), n)
}

// podChanged feeds the reconciler the pod's change; the Service is queued by the pod queue
// (podQueue). upstream: endpointslice_controller.go onPodUpdate.
func (y *sliceSyncer) podChanged(p *podState, old *model.Pod, deleted bool) {
	r := y.reconcilerAt(p.svc().idx, p, old)
	if r == nil {
		return
	}
	if deleted {
		r.DeletePodRef(&p.sliceRef, p.pod.Namespace, p.pod.Name)
		return
	}
	r.SetPodRef(&p.sliceRef, p.pod)
}

// podEndpointsChanged reports whether an update of a pod whose labels stay the same has a
// projection key, an item of the pod queues that queues the pod's Services: its deletion
// timestamp, readiness or IPs changed. (Its hostname and subdomain cannot change: the API
// server refuses an update of either. An update of equal resourceVersion, a resync, has
// none: the engine tells those apart, podResynced. A replay's relabelled pod has a key
// whatever changed: applyTrace.)
// upstream: k8s.io/endpointslice util/controller_utils.go podEndpointsChanged,
// GetPodUpdateProjectionKey, GetServicesToUpdate, determineNeededServiceUpdates.
func podEndpointsChanged(old, cur *model.Pod) bool {
	if old.Terminating != cur.Terminating || old.Terminating && cur.Terminating {
		// Both set: upstream compares deletionTimestamp pointers, which always differ.
		return true
	}
	return old.Ready != cur.Ready || !slices.Equal(old.IPs, cur.IPs)
}

func (y *sliceSyncer) sync(s *serviceState, trigger model.Timestamp, buf []write) ([]write, error) {
	if s.manual != nil {
		return y.mirror(s, buf), nil
	}
	if y.settler.asleep(s.idx) {
		y.events = model.SyncEvents{}
		return buf[:0], nil // nothing to do (settler.asleep)
	}
	res := y.reconciler(s.idx).Sync(trigger)
	y.events = res.Events
	writes := buf[:0]
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

// goneBytes sizes stored slice old as a DELETED event of a write with resourceVersion rv
// carries it: its content with rv. Only the length of a resourceVersion counts in a size,
// and the managedFields entry's time is sized alike at any whole second of this era (now
// stands for the time of the write that stored old).
func (y *sliceSyncer) goneBytes(old *storedSlice, rv string, now model.Timestamp) model.ByEncoding {
	if len(rv) == len(old.slice.ResourceVersion) {
		return old.bytes
	}
	gone := *old.slice
	gone.ResourceVersion = rv
	y.mf[0] = y.fields.EndpointSliceWith(&gone, now, old.lists)
	gone.ManagedFields = kept(y.mf[:])
	b, _ := sliceSizesFrom(&gone, &gone.ObjectMeta, sliceEndpoints(&gone, y.e.api.needJSON, y.e.proxyAt).size, y.e.api.needJSON)
	return b
}

// commit completes the slice as the API server stores it and sizes it.
func (y *sliceSyncer) commit(s *serviceState, w *write, meta apiMeta) committed {
	st := &y.stored[s.idx]
	cm := committed{kind: "EndpointSlice", namespace: s.svc.Namespace}
	if w.verb == "delete" {
		old := st.get(w.slice.Name)
		if old == nil {
			old = &storedSlice{slice: w.slice, bytes: sliceBytes(w.slice, y.e.api.needJSON), lists: model.SliceListsAfter(0, w.slice)}
			old.selected = proxySelection(w.slice.Labels, false)
		}
		cm.name = old.slice.Name
		cm.family = familyOf(old.slice.AddressType)
		cm.endpoints = len(old.slice.Endpoints)
		cm.objectBytes, cm.oldBytes = old.bytes, old.bytes
		cm.goneBytes = y.goneBytes(old, meta.resourceVersion, meta.now)
		cm.wasSelected = old.selected
		cm.wasWatched = watcherSelection(old.slice.Labels)
		return cm
	}
	// The plan's slice is the reconciler's fresh copy, used by this write only: the API
	// server's fields are set on it in place rather than on another copy.
	obj := w.slice
	if w.verb == "create" {
		obj.Name = y.names.generate(obj.GenerateName)
		for y.e.sliceNames.has(obj.Namespace, obj.Name) {
			obj.Name = y.names.generate(obj.GenerateName)
		}
		y.e.sliceNames.add(obj.Namespace, obj.Name)
		obj.UID = meta.uid
		obj.CreationTimestamp = meta.created
		obj.Generation = 1
	}
	var sums endpointSums
	summed := false
	var old *storedSlice
	if w.verb != "create" {
		old = st.get(obj.Name)
	}
	if old != nil {
		obj.UID = old.slice.UID
		obj.CreationTimestamp = old.slice.CreationTimestamp
		// The generation moves when anything but the metadata changed, or the labels; an
		// update that changes nothing at all stores nothing (no resourceVersion, no event).
		// upstream: registry/discovery/endpointslice/strategy.go PrepareForUpdate;
		// apiserver storage/etcd3/store.go GuaranteedUpdate (the new data equal to the old).
		cm.oldBytes = old.bytes
		cm.wasSelected = old.selected
		cm.wasWatched = watcherSelection(old.slice.Labels)
		if old.selected || cm.wasWatched {
			cm.goneBytes = y.goneBytes(old, meta.resourceVersion, meta.now)
		}
		var changes []model.EndpointChange
		if r := y.reconcilers[s.idx]; r != nil && s.manual == nil {
			changes, summed = r.ChangedEndpoints(obj, old.slice, y.changes[:0])
		}
		var specSame bool
		if summed {
			specSame = model.SliceSpecEqualByChanges(obj, old.slice, changes)
			if specCheck != nil {
				specCheck(specSame, model.SliceSpecEqual(obj, old.slice))
			}
		} else {
			specSame = model.SliceSpecEqual(obj, old.slice)
		}
		labelsSame := obj.Labels.Equal(old.slice.Labels)
		obj.Generation = old.slice.Generation
		if !specSame || !labelsSame {
			obj.Generation++
		}
		noop := specSame && labelsSame && obj.Annotations.Equal(old.slice.Annotations)
		if summed && !noop {
			sums = changedSums(old.sums, changes, y.e.api.needJSON, y.placeOf(s))
		}
		clear(changes)
		y.changes = changes[:0]
		if noop {
			return y.commitNoop(&cm, w, old)
		}
	}
	if !summed {
		sums = sliceEndpoints(obj, y.e.api.needJSON, y.placeOf(s))
	} else if sumsCheck != nil {
		sumsCheck(sums, sliceEndpoints(obj, y.e.api.needJSON, y.placeOf(s)))
	}
	obj.ResourceVersion = meta.resourceVersion
	// The field set of the object written: its labels (the Service's own among them) and
	// annotations as they are, not a fixed set.
	// The entry only counts in the sizes, which are cached with the stored slice: it is
	// set from a buffer for sizing and dropped (one allocation per write otherwise, kept
	// with every stored slice and copied into its next update).
	var listed model.SliceLists
	if old != nil {
		listed = old.lists
	}
	w.lists = model.SliceListsAfter(listed, obj)
	y.mf[0] = y.fields.EndpointSliceWith(obj, meta.now, w.lists)
	obj.ManagedFields = kept(y.mf[:])
	cm.name = obj.Name
	cm.family = familyOf(obj.AddressType)
	cm.endpoints = len(obj.Endpoints)
	cm.ready, cm.fallback = int(sums.ready), int(sums.fallback)
	cm.hints = sums.hints
	if !s.portsAlike() {
		if unlisted := unlistedSlicePorts(s.svc.Ports, obj.Ports); unlisted != 0 {
			cm.byPort = cm.proxyEndpoints().forPorts(unlisted, max(len(s.svc.Ports), 1)).byPort
		}
	}
	var req model.ObjectMeta
	if old == nil {
		req = model.CreateRequestMeta(obj.ObjectMeta, true)
	} else {
		req = model.UpdateRequestMeta(obj.ObjectMeta, old.slice.ResourceVersion, old.slice.Generation)
	}
	cm.objectBytes, cm.requestBytes = sliceSizesFrom(obj, &req, sums.size, y.e.api.needJSON)
	obj.ManagedFields = nil
	w.bytes, w.sums = cm.objectBytes, sums // applied stores them with the slice
	cm.selected = proxySelection(obj.Labels, false)
	cm.watched = watcherSelection(obj.Labels)
	w.selected = cm.selected
	cm.trigger, cm.hasTrigger = y.e.api.triggers.of(obj.Annotations)
	return cm
}

// commitNoop completes cm for an update of stored slice old that changes nothing: the
// object stays as stored, resourceVersion and sizes included.
func (y *sliceSyncer) commitNoop(cm *committed, w *write, old *storedSlice) committed {
	obj := w.slice
	obj.ResourceVersion = old.slice.ResourceVersion
	cm.noop = true
	cm.name = obj.Name
	cm.family = familyOf(obj.AddressType)
	cm.endpoints = len(obj.Endpoints)
	cm.ready, cm.fallback = int(old.sums.ready), int(old.sums.fallback)
	cm.hints = old.sums.hints
	cm.objectBytes = old.bytes
	cm.selected = old.selected
	cm.watched = watcherSelection(old.slice.Labels)
	w.bytes, w.sums, w.selected, w.lists = old.bytes, old.sums, old.selected, old.lists
	return *cm
}

func sliceBytes(s *model.EndpointSlice, needJSON bool) model.ByEncoding {
	b, _ := sliceSizes(s, needJSON)
	return b
}

// endpointSums are what a write of a slice reads of its endpoints: the sums of their sizes
// per encoding (EndpointSize), how many of them kube-proxy programs (ready: an unset ready
// condition reads as ready), how many it falls back to (serving and terminating), and the
// hints of the ready ones (proxyCounts). They are kept with the stored slice, so that an
// update the reconciler says how it made (ChangedEndpoints) is read only where it changed.
type endpointSums struct {
	size            model.ByEncoding
	ready, fallback int32
	hints           topologyHints
}

// add adds sign times one endpoint's counts (proxyCounts).
func (s *endpointSums) add(c proxyEndpoint, sign int32) {
	s.ready += sign * c.ready
	s.fallback += sign * c.fallback
	s.hints = s.hints.plus(c.hints, sign)
}

// sumsCheck, set by tests, is given the sums of each update read from its changes and of
// the same update walked whole.
var sumsCheck func(changed, walked endpointSums)

// specCheck, set by tests, is given for each update read from its changes whether they say
// the update leaves the slice's spec as it was, and whether a comparison of the whole
// slices says so.
var specCheck func(byChanges, whole bool)

// endpointPart is one endpoint's part of endpointSums.
func endpointPart(ep *model.Endpoint, needJSON bool, at proxyPlace) (pb, js int64, c proxyEndpoint) {
	pb, ok := model.EndpointSizeKnown(ep)
	if !ok {
		pb = model.EndpointSize(ep, model.Protobuf)
	}
	if needJSON {
		js = model.EndpointSize(ep, model.JSON)
	}
	return pb, js, proxyCounts(ep, at)
}

// proxyEndpoint is what one endpoint is to kube-proxy, as counts of 0 or 1 (endpointSums).
type proxyEndpoint struct {
	ready, fallback int32
	hints           topologyHints
}

// proxyCounts classifies an endpoint by its conditions: one kube-proxy programs (ready; an
// unset ready condition reads as ready), or one it falls back to (serving and terminating);
// and a ready one by its hints: zone hints, and one for the zone of at (the representative
// kube-proxy's node); node hints, and one for its node. For a Service of internal traffic
// policy Local (at.localOnly) only an endpoint on at's node counts, and hints do not
// (upstream: pkg/proxy/topology.go CategorizeEndpoints: a Service that uses only Local
// endpoints takes its node's ready ones, else its serving and terminating ones, and no
// topology).
func proxyCounts(ep *model.Endpoint, at proxyPlace) proxyEndpoint {
	if at.localOnly && (ep.NodeName == nil || *ep.NodeName != at.node) {
		return proxyEndpoint{}
	}
	c := &ep.Conditions
	switch {
	case c.Ready != model.ConditionFalse:
		e := proxyEndpoint{ready: 1}
		if h := ep.Hints; h != nil && !at.localOnly {
			if len(h.ForZones) > 0 {
				e.hints.zoneHinted = 1
				if slices.Contains(h.ForZones, at.zone) {
					e.hints.forZone = 1
				}
			}
			if len(h.ForNodes) > 0 {
				e.hints.nodeHinted = 1
				if slices.Contains(h.ForNodes, at.node) {
					e.hints.forNode = 1
				}
			}
		}
		return e
	case c.Serving != model.ConditionFalse && c.Terminating == model.ConditionTrue:
		return proxyEndpoint{fallback: 1}
	}
	return proxyEndpoint{}
}

// sliceEndpoints walks a slice's endpoints once for their endpointSums. (endpointPart's
// work, written out: its call in the loop took twice the instructions.)
func sliceEndpoints(s *model.EndpointSlice, needJSON bool, at proxyPlace) endpointSums {
	var pb, js int64 // on locals: the walk keeps them in registers
	var sums endpointSums
	eps := s.Endpoints
	for i := range eps {
		ep := &eps[i]
		n, ok := model.EndpointSizeKnown(ep)
		if !ok {
			n = model.EndpointSize(ep, model.Protobuf)
		}
		pb += n
		if needJSON {
			js += model.EndpointSize(ep, model.JSON)
		}
		sums.add(proxyCounts(ep, at), 1)
	}
	sums.size = model.ByEncoding{model.Protobuf: pb, model.JSON: js}
	return sums
}

// changedSums returns the endpointSums of an update from those of the slice it updates,
// old, and the endpoints it changed (model.ServiceSlices.ChangedEndpoints).
func changedSums(old endpointSums, changes []model.EndpointChange, needJSON bool, at proxyPlace) endpointSums {
	sums := old
	for _, c := range changes {
		if c.Was != nil {
			pb, js, p := endpointPart(c.Was, needJSON, at)
			sums.size[model.Protobuf] -= pb
			sums.size[model.JSON] -= js
			sums.add(p, -1)
		}
		if c.Now != nil {
			pb, js, p := endpointPart(c.Now, needJSON, at)
			sums.size[model.Protobuf] += pb
			sums.size[model.JSON] += js
			sums.add(p, 1)
		}
	}
	return sums
}

// sliceSizes sizes a stored slice per encoding and, in protobuf, without its managedFields
// (the body of a write that would carry its metadata as stored; a write's own body has the
// request metadata: see commit), walking the endpoints once: the rest is arithmetic on the
// metadata.
func sliceSizes(s *model.EndpointSlice, needJSON bool) (object model.ByEncoding, request int64) {
	return sliceSizesFrom(s, &s.ObjectMeta, sliceEndpoints(s, needJSON, proxyPlace{}).size, needJSON)
}

// sliceSizesFrom is sliceSizes given the sums of its endpoints' sizes (sliceEndpoints).
func sliceSizesFrom(s *model.EndpointSlice, req *model.ObjectMeta, sum model.ByEncoding, needJSON bool) (object model.ByEncoding, request int64) {
	object[model.Protobuf], request = model.EndpointSliceProtobufSizesFrom(s, req, sum[model.Protobuf])
	if needJSON {
		object[model.JSON] = model.EndpointSliceSizeFrom(s, len(s.Endpoints), sum[model.JSON], model.JSON)
	}
	return object, request
}

// placeOf is where the representative kube-proxy counts Service s's endpoints from: its node,
// and whether it uses only that node's endpoints for the Service (internal traffic policy
// Local, no traffic from outside the cluster: model.Service.LocalEndpointsOnly).
func (y *sliceSyncer) placeOf(s *serviceState) proxyPlace {
	at := y.e.proxyAt
	at.localOnly = s.svc.LocalEndpointsOnly
	return at
}

func (y *sliceSyncer) applied(s *serviceState, w *write, ok bool) {
	if !ok {
		return
	}
	if s.manual == nil {
		y.reconciler(s.idx).Applied(w.verb, w.slice)
	}
	st := &y.stored[s.idx]
	old := -1
	prev := st.get(w.slice.Name)
	if prev != nil {
		old = len(prev.slice.Endpoints)
	}
	if w.verb == "delete" {
		st.remove(w.slice.Name)
		y.e.sliceNames.remove(w.slice.Namespace, w.slice.Name)
		y.e.stats.sliceResized(old, -1)
		return
	}
	if prev != nil {
		// Nothing keeps a storedSlice but the store: it is updated in place.
		prev.slice, prev.bytes, prev.sums, prev.selected, prev.lists = w.slice, w.bytes, w.sums, w.selected, w.lists
		prev.untracked = false // the tracker holds what the write returned, a no-op's too
	} else {
		st.add(&storedSlice{slice: w.slice, bytes: w.bytes, sums: w.sums, selected: w.selected, lists: w.lists})
	}
	y.e.stats.sliceResized(old, len(w.slice.Endpoints))
}

// mirror is a sync of the EndpointSlice mirroring controller for a selector-less Service
// with a user-written Endpoints object: the slices to create, update and delete so that the
// stored mirrored slices (in lister order: by name) match the Endpoints object.
//
// The mirroring controller upstream has its own workqueue, workers and client, and so it
// has here (controller.mirror): its keys wait for its own workers (5 by default), its writes
// and Events take the tokens of its own client, and its failed syncs back off as its queue
// does (1 s doubling to 100 s, its own 10 qps / burst 100 overall limiter: controller.client,
// backoff). What it shares with the EndpointSlice controller is the stored slices and the
// stale-cache guard (its own EndpointSlice tracker upstream, with the same rule). Its
// Warning Events about the Endpoints object, InvalidIPAddress and TooManyAddressesToMirror,
// are recorded as the plan is made, before its writes.
// upstream: pkg/controller/endpointslicemirroring endpointslicemirroring_controller.go
// syncEndpoints, reconciler.go reconcile (eventRecorder.Eventf before reconcileByPortMapping).
func (y *sliceSyncer) mirror(s *serviceState, buf []write) []write {
	st := &y.stored[s.idx]
	existing := make([]*model.EndpointSlice, 0, len(st.list))
	for _, ss := range st.list {
		existing = append(existing, ss.slice)
	}
	slices.SortFunc(existing, func(a, b *model.EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
	plan := model.MirrorEndpoints(s.manual, s.svc, existing, model.MirroringMaxEndpointsPerSubset)
	if plan.InvalidAddresses > 0 {
		y.events.Warning++ // InvalidIPAddress
	}
	if plan.AddressesSkipped > plan.InvalidAddresses {
		y.events.Warning++ // TooManyAddressesToMirror
	}
	writes := buf[:0]
	for _, x := range []struct {
		verb string
		list []*model.EndpointSlice
	}{{"create", plan.ToCreate}, {"update", plan.ToUpdate}, {"delete", plan.ToDelete}} {
		for _, sl := range x.list {
			// upstream finalize stops at the first failed write, whatever its address type.
			writes = append(writes, write{verb: x.verb, slice: sl, addressType: mirroredWrites})
		}
	}
	return writes
}

// proxySelection reports whether kube-proxy's informer selects an object with these labels.
// A kube-proxy that watches Endpoints (legacy, before 1.19) selected neither objects labelled
// headless nor those labelled service.kubernetes.io/service-proxy-name. Today's kube-proxy
// leaves only slices labelled headless out: the proxy-name filter is on its Service informer
// alone, so it still receives such slices (Services copy their labels to them), decodes them,
// syncs for them and observes their trigger times. Whether it writes rules for an object it
// selects is its Service's to say (kubeProxyServes), not the object's labels: a mirrored
// slice carries the Endpoints object's labels, not its headless Service's. Watchers without
// the headless filter (CoreDNS) select every object.
// upstream: cmd/kube-proxy/app/server.go (v1.37: labelSelectorNoHeadlessEndpoints for
// EndpointSlices, labelSelectorNoProxyName for Services; v1.18: both on Endpoints).
func proxySelection(labels model.StringMap, legacy bool) bool {
	if labels.Has(model.LabelHeadless) {
		return false
	}
	return !legacy || !labels.Has(model.LabelServiceProxyName)
}

// watcherSelection reports whether the extra watcher groups (apiServer.watchers) without
// includeHeadless select an object with these labels: all but headless Services' objects,
// in both modes. The service-proxy-name label hides a Service from kube-proxy alone (its
// Service informer's selector, and in the Endpoints mode its Endpoints informer's, as
// proxySelection has it); a service mesh or DNS server watches those objects as any other.
// upstream: cmd/kube-proxy/app/server.go (*ProxyServer).Run (labelSelectorNoProxyName is
// kube-proxy's own Service informer's).
func watcherSelection(labels model.StringMap) bool {
	return !labels.Has(model.LabelHeadless)
}

// nodeChanged refreshes the topology cache's zone weights after a node changed from old to
// now (its readiness) and queues (without the batch period) every Service whose hints the
// new weights overload. The weights are SetNodes' of all the nodes, kept up to date one
// change at a time (NodeChanged; old and now both nil: a node that changes no weight, as
// one added not ready).
// upstream: endpointslice_controller.go updateNode, addNode → checkNodeTopologyDistribution
// (SetNodes, GetOverloadedServices, serviceQueue.Add).
func (y *sliceSyncer) nodeChanged(c *controller, old, now *model.Node) {
	t := y.opts.Topology
	t.NodeChanged(old, now)
	keys := t.OverloadedServices()
	if len(keys) == 0 {
		return
	}
	if y.byKey == nil {
		y.byKey = make(map[string]int, len(y.e.services))
		for _, s := range y.e.services {
			y.byKey[s.svc.Key()] = s.idx
		}
	}
	for _, k := range keys {
		if i, ok := y.byKey[k]; ok {
			c.add(i)
		}
	}
}

// mirroredWrites groups all writes of a mirroring sync for the stop-at-first-error rule.
const mirroredWrites model.AddressType = "mirrored"
