package sim

import (
	"time"

	"epsim/model"
)

// endpointsSyncer adapts the model's incremental legacy Endpoints builder to the engine.
//
// The builder holds one state that moves with every pod change, while a sync decides a write
// from the state at the moment it runs and the write lands an API latency later. So the
// syncer snapshots what the write needs when the sync runs, and holds back pod and Service
// changes that arrive while the write is in flight, feeding them to the builder once the
// write is stored (or failed). They are not lost: each one also queued the key, so the next
// sync sees them, as upstream's next sync would.
type endpointsSyncer struct {
	e        *Engine
	opts     model.EndpointsOptions
	builders []*model.ServiceEndpoints
	// settler keeps what makes the dropped builders of settled Services again.
	settler settler
	stored  []storedEndpoints
	// fields remembers the Endpoints objects' managedFields field sets.
	fields model.FieldsMemo
	// inflight marks services with a write between sync and commit; held are the changes
	// that arrived meanwhile, in order.
	inflight []bool
	held     [][]heldChange
	// spareHeld are emptied held lists, for any Service to reuse: a list kept by its
	// Service after use was 140 bytes per Service at 50,000 Services, where a few lists
	// are in use at once.
	spareHeld [][]heldChange
	// freeSnaps are snapshots of settled writes, kept for reuse with their buffers (one
	// snapshot per sync otherwise); mf is commit's managedFields buffer.
	freeSnaps []*endpointsSnapshot
	mf        [1]model.ManagedFieldsEntry
}

// heldChange is one input change held back while a write is in flight.
type heldChange struct {
	pod     *model.Pod             // SetPod, or DeletePod when deleted
	ref     *model.EndpointsPodRef // the pod's ref (podState.endpointsRef)
	deleted bool                   // pod is gone
	svc     *model.Service         // SetService
}

// storedEndpoints is what the API server stores for one Service's Endpoints.
type storedEndpoints struct {
	uid     string
	created model.Timestamp
	bytes   model.ByEncoding
	// addresses counts ready + not-ready addresses, for the write log.
	addresses int
	// manual is the user's object of a selector-less Service as stored.
	manual *model.Endpoints
	exists bool
	// selected is proxySelection of the stored object's labels. (The flags are kept
	// together: one record per Service is 64 bytes, 72 with them apart.)
	selected bool
	// watched is watcherSelection of the stored object's labels.
	watched bool
	// rvLen is the length of its resourceVersion: an update's body carries it (only its
	// length counts in the size).
	rvLen uint8
}

// digits is a resourceVersion of any length up to 20 (a uint64's), for sizes.
const digits = "99999999999999999999"

// endpointsSnapshot is what a sync decided to write, captured when it ran.
type endpointsSnapshot struct {
	decision  model.EndpointsDecision
	meta      model.ObjectMeta
	subsets   []model.SubsetSize
	unchanged bool
	// proxyKey is the object's key for a kube-proxy that watches Endpoints
	// (ServiceEndpoints.ProxyKey).
	proxyKey uint64
	// manual is the user's Endpoints object of a selector-less Service (then the rest is
	// unset).
	manual *model.Endpoints
	// annotations is a list to reuse for meta's annotations (nil: none yet).
	annotations model.StringMap
}

func newEndpointsSyncer(e *Engine) *endpointsSyncer {
	n := len(e.services)
	return &endpointsSyncer{
		e: e,
		// The controller syncs one Service at a time: its Services share one set of buffers.
		opts: model.EndpointsOptions{Truncate: e.cfg.ControlPlane.EndpointsTruncation,
			Buffers: new(model.EndpointsBuffers)},
		builders: make([]*model.ServiceEndpoints, n),
		settler:  newSettler(n),
		stored:   make([]storedEndpoints, n),
		inflight: make([]bool, n),
		held:     make([][]heldChange, n),
	}
}

// addressBytes is the size model's per-address cost in both encodings.
func addressBytes(a model.EndpointAddress) model.ByEncoding {
	var b model.ByEncoding
	b[model.Protobuf] = model.EndpointAddressSize(&a, model.Protobuf)
	b[model.JSON] = model.EndpointAddressSize(&a, model.JSON)
	return b
}

// addressProtobufBytes is addressBytes with the JSON cost left zero, for a run where no
// watcher asks for JSON (the object's JSON size is then not computed): the builders size
// every address a pod update changes.
func addressProtobufBytes(a model.EndpointAddress) model.ByEncoding {
	var b model.ByEncoding
	b[model.Protobuf] = model.EndpointAddressSize(&a, model.Protobuf)
	return b
}

// addressSizer is the per-address cost the builders use: addressBytes, or without JSON
// where no watcher asks for it.
func (y *endpointsSyncer) addressSizer() func(model.EndpointAddress) model.ByEncoding {
	if y.e.api.needJSON {
		return addressBytes
	}
	return addressProtobufBytes
}

func (y *endpointsSyncer) serviceAdded(s *serviceState) {
	b := model.NewServiceEndpoints(s.svc, y.opts, y.addressSizer())
	y.builders[s.idx] = b
	y.settler.forget(s.idx) // a Service added again: its old builder is not wanted
	for _, p := range s.pods {
		if p.stage != stageGone { // gone pods stay in s.pods until it is compacted
			b.SetPodRef(&p.endpointsRef, p.pod)
		}
	}
}

// settled notes that a sync of Service s ended with nothing left to do, and drops the
// builders that have stayed so for settleAfter (settle.go).
func (y *endpointsSyncer) settled(s *serviceState) {
	if b := y.builders[s.idx]; b != nil {
		y.settler.note(s, b.Pods(), y.e.now, y.e.actedOnNext(s), y.settle)
	}
}

// settle drops Service i's builder if it has no write in flight and holds nothing
// but what its stored object says (model.ServiceEndpoints.Settled), keeping its Service,
// pods and the stored trigger time; builder makes it again.
func (y *endpointsSyncer) settle(i int) {
	b := y.builders[i]
	if b == nil || y.inflight[i] || y.held[i] != nil {
		return
	}
	trigger, ok := b.Settled()
	if !ok {
		return
	}
	d := y.settler.gather(y.e.services[i], b.Pods(),
		func(p *podState) (*model.Pod, int) { return b.PodOf(&p.endpointsRef), 0 },
		func(p *podState) { p.endpointsRef = model.EndpointsPodRef{} })
	if d == nil {
		return
	}
	d.svc, d.trigger = b.Service(), trigger
	y.builders[i] = nil
	y.settler.keep(i, d)
}

// builder returns Service i's builder (nil if the Service has none), made again if settle
// dropped it.
func (y *endpointsSyncer) builder(i int) *model.ServiceEndpoints { return y.builderAt(i, nil, nil) }

// builderAt is builder when the change of pod changed from version old is to reach it.
func (y *endpointsSyncer) builderAt(i int, changed *podState, old *model.Pod) *model.ServiceEndpoints {
	if b := y.builders[i]; b != nil {
		return b
	}
	d, pods := y.settler.wake(i)
	if d == nil {
		return nil
	}
	b := model.NewServiceEndpoints(d.svc, y.opts, y.addressSizer())
	for _, p := range pods {
		b.SetPodRef(&p.endpointsRef, versionAt(p, changed, old))
	}
	b.Restore(d.trigger)
	y.builders[i] = b
	y.settler.release(d)
	return b
}

func (y *endpointsSyncer) serviceChanged(s *serviceState) {
	y.apply(s.idx, heldChange{svc: s.svc})
}

func (y *endpointsSyncer) staleGuard() bool { return true }

// takeEvents implements syncer: the Endpoints controller records an Event only when a write
// fails, which startEndpointsSync sends (a create refused as the object exists).
func (y *endpointsSyncer) takeEvents() model.SyncEvents { return model.SyncEvents{} }

// backoff is client-go's default controller rate limiter: 5 ms doubling to 1000 s.
// upstream: client-go util/workqueue DefaultControllerRateLimiter.
func (y *endpointsSyncer) backoff(_ *serviceState, n int) Time {
	return exponentialBackoff(Time(5*time.Millisecond), Time(1000*time.Second), n)
}

// podChanged feeds the builder the pod's change; the Service is queued by the pod queue
// (podQueue), as the EndpointSlice controller's is (upstream: endpoints_controller.go
// onPodUpdate → GetPodUpdateProjectionKey, then syncPod → GetServicesToUpdate).
func (y *endpointsSyncer) podChanged(p *podState, old *model.Pod, deleted bool) {
	if y.builderAt(p.svc().idx, p, old) == nil {
		return
	}
	y.apply(p.svc().idx, heldChange{pod: p.pod, ref: &p.endpointsRef, deleted: deleted})
}

// apply gives a change to the builder now, or holds it while a write is in flight.
func (y *endpointsSyncer) apply(i int, c heldChange) {
	if y.inflight[i] {
		if y.held[i] == nil && len(y.spareHeld) > 0 {
			n := len(y.spareHeld) - 1
			y.held[i], y.spareHeld[n] = y.spareHeld[n], nil
			y.spareHeld = y.spareHeld[:n]
		}
		y.held[i] = append(y.held[i], c)
		return
	}
	b := y.builder(i)
	switch {
	case c.deleted:
		b.DeletePodRef(c.ref, c.pod.Namespace, c.pod.Name)
	case c.pod != nil:
		b.SetPodRef(c.ref, c.pod)
	default:
		b.SetService(c.svc)
	}
}

func (y *endpointsSyncer) sync(s *serviceState, trigger model.Timestamp, buf []write) ([]write, error) {
	if s.manual != nil {
		// upstream: endpoints_controller.go syncService returns early for a Service without a
		// selector: the Endpoints object is the user's (userWrite).
		return buf[:0], nil
	}
	if y.settler.asleep(s.idx) {
		return buf[:0], nil // nothing to do (settler.asleep)
	}
	b := y.builder(s.idx)
	d := b.Sync(trigger)
	if d.Verb == "" {
		return buf[:0], nil
	}
	y.inflight[s.idx] = true
	snap := y.newSnapshot()
	snap.decision = d
	snap.meta = b.ObjectMetaInto(snap.annotations)
	snap.subsets = b.AppendSubsetSizes(snap.subsets[:0])
	snap.unchanged = b.Unchanged()
	if d.Verb != model.EndpointsDelete {
		snap.proxyKey = b.ProxyKey()
	}
	if d.Truncated {
		// An over-capacity object is re-PUT on every sync (UPSTREAM.md §3); the API server
		// drops the PUT only if the truncated object encodes the same.
		snap.unchanged = b.TruncatedUnchanged()
	}
	return append(buf[:0], write{verb: d.Verb, legacy: true, endpoints: snap}), nil
}

// newSnapshot returns an empty snapshot, with the buffers of a settled one when there is one.
func (y *endpointsSyncer) newSnapshot() *endpointsSnapshot { return takeFree(&y.freeSnaps) }

// freeSnapshot keeps the snapshot of a settled write for reuse: nothing refers to it once
// applied has run. It keeps its annotations list and subset list, and drops the rest.
func (y *endpointsSyncer) freeSnapshot(snap *endpointsSnapshot) {
	ann := snap.annotations
	if snap.meta.Annotations != nil {
		ann = snap.meta.Annotations
	}
	subsets := snap.subsets
	for i := range subsets {
		subsets[i] = model.SubsetSize{Ports: subsets[i].Ports[:0]}
	}
	*snap = endpointsSnapshot{annotations: ann, subsets: subsets[:0]}
	y.freeSnaps = append(y.freeSnaps, snap)
}

func (y *endpointsSyncer) commit(s *serviceState, w *write, meta apiMeta) committed {
	st := &y.stored[s.idx]
	snap := w.endpoints
	if snap.manual != nil {
		return y.commitManual(s, w, meta)
	}
	d := snap.decision
	cm := committed{kind: "Endpoints", namespace: s.svc.Namespace, name: s.svc.Name, truncated: d.Truncated, family: primaryFamily(s.svc)}
	if d.Truncated {
		cm.hidden = int64(d.DesiredAddresses + d.DesiredNotReadyAddresses - d.Addresses - d.NotReadyAddresses)
	}
	// A DELETED event carries the object with this write's resourceVersion; the record
	// keeps no object to size again, so it is sized with the stored one's (the sizes
	// differ when the two resourceVersions' lengths do).
	cm.oldBytes, cm.goneBytes = st.bytes, st.bytes
	if st.exists {
		cm.wasSelected, cm.wasWatched = st.selected, st.watched
	}
	if w.verb == model.EndpointsDelete {
		cm.objectBytes = st.bytes
		cm.endpoints = st.addresses
		return cm
	}
	om := snap.meta
	if st.exists {
		om.UID, om.CreationTimestamp = st.uid, st.created
	} else {
		om.UID, om.CreationTimestamp = meta.uid, meta.created
	}
	om.ResourceVersion = meta.resourceVersion
	cm.endpoints = d.Addresses + d.NotReadyAddresses
	cm.ready = d.Addresses
	if !s.portsAlike() {
		cm.byPort = subsetsByPort(s.svc.Ports, snap.subsets)
	}
	cm.proxyKey = snap.proxyKey
	// The request body: the object the controller built, or its informer's copy changed.
	var req model.ObjectMeta
	if st.exists {
		req = model.UpdateRequestMeta(om, digits[:st.rvLen], 0)
	} else {
		req = model.CreateRequestMeta(om, false)
	}
	// om lives only through this call: the buffer is reused.
	y.mf[0] = y.fields.EndpointsOf(&om, len(snap.subsets) > 0, meta.now)
	om.ManagedFields = kept(y.mf[:])
	cm.objectBytes[model.Protobuf], cm.requestBytes = model.EndpointsProtobufSizesFrom(&om, &req, snap.subsets)
	if y.e.api.needJSON {
		cm.objectBytes[model.JSON] = model.EndpointsSizeFrom(&om, snap.subsets, model.JSON)
	}
	cm.selected = proxySelection(om.Labels, true)
	cm.watched = watcherSelection(om.Labels)
	w.selected, w.watched = cm.selected, cm.watched
	cm.trigger, cm.hasTrigger = y.e.api.triggers.of(om.Annotations)
	cm.noop = w.verb == model.EndpointsUpdate && snap.unchanged
	if cm.noop {
		cm.objectBytes = st.bytes
	}
	w.uid = om.UID
	w.created = om.CreationTimestamp
	w.rvLen = uint8(len(om.ResourceVersion))
	w.bytes = cm.objectBytes
	w.addresses = cm.endpoints
	return cm
}

func (y *endpointsSyncer) applied(s *serviceState, w *write, ok bool) {
	i := s.idx
	defer y.freeSnapshot(w.endpoints)
	if ok {
		if w.endpoints.manual == nil {
			y.builder(i).Applied()
		}
		st := &y.stored[i]
		if w.verb == model.EndpointsDelete {
			*st = storedEndpoints{}
		} else {
			*st = storedEndpoints{exists: true, uid: w.uid, created: w.created, selected: w.selected, watched: w.watched,
				bytes: w.bytes, addresses: w.addresses, manual: w.endpoints.manual, rvLen: w.rvLen}
		}
	}
	// The write is settled: the changes held meanwhile reach the builder now.
	y.inflight[i] = false
	// apply holds nothing now (the write is settled), so the list is reused afterwards.
	if held := y.held[i]; held != nil {
		for _, c := range held {
			y.apply(i, c)
		}
		clear(held)
		y.held[i] = nil
		y.spareHeld = append(y.spareHeld, held[:0])
	}
}

// userWrite returns the user's write of selector-less Service s's Endpoints object as it
// is now, appended to buf: a create, or an update of the one stored; none when the stored
// one is current or a write of it is in flight (the next follows when it is done). We write
// it as the user does (when creating the Service, and again when it changes), so that the
// Endpoints mode counts what its kube-proxies receive.
func (y *endpointsSyncer) userWrite(s *serviceState, buf []write) []write {
	st := &y.stored[s.idx]
	if st.manual == s.manual || y.inflight[s.idx] {
		return buf[:0]
	}
	verb := model.EndpointsCreate
	if st.exists {
		verb = model.EndpointsUpdate
	}
	y.inflight[s.idx] = true
	snap := y.newSnapshot()
	snap.manual = s.manual
	return append(buf[:0], write{verb: verb, legacy: true, user: true, endpoints: snap})
}

// commitManual stores the user's Endpoints object of a selector-less Service. Its
// managedFields are those of a create by kubectl.
func (y *endpointsSyncer) commitManual(s *serviceState, w *write, meta apiMeta) committed {
	st := &y.stored[s.idx]
	obj := *w.endpoints.manual
	obj.ResourceVersion = meta.resourceVersion
	obj.CreationTimestamp = meta.created
	cm := committed{kind: "Endpoints", namespace: obj.Namespace, name: obj.Name, family: primaryFamily(s.svc)}
	if st.exists {
		obj.UID, obj.CreationTimestamp = st.uid, st.created
		cm.oldBytes, cm.goneBytes = st.bytes, st.bytes
		cm.wasSelected, cm.wasWatched = st.selected, st.watched
	}
	for _, ss := range obj.Subsets {
		cm.endpoints += len(ss.Addresses) + len(ss.NotReadyAddresses)
		cm.ready += len(ss.Addresses)
	}
	cm.byPort = manualSubsetsByPort(s.svc.Ports, obj.Subsets)
	cm.proxyKey = model.EndpointsProxyKey(&obj)
	// kubectl sends the user's object: what the API server assigns is not in it.
	body := obj
	body.ObjectMeta = model.CreateRequestMeta(obj.ObjectMeta, true)
	cm.requestBytes = model.EndpointsSize(&body, model.Protobuf)
	w.rvLen = uint8(len(obj.ResourceVersion))
	mf := model.EndpointsManagedFields(&obj, meta.now)
	mf.Manager = "kubectl-create"
	obj.ManagedFields = kept([]model.ManagedFieldsEntry{mf})
	cm.objectBytes[model.Protobuf] = model.EndpointsSize(&obj, model.Protobuf)
	if y.e.api.needJSON {
		cm.objectBytes[model.JSON] = model.EndpointsSize(&obj, model.JSON)
	}
	cm.selected = proxySelection(obj.Labels, true)
	cm.watched = watcherSelection(obj.Labels)
	w.selected, w.watched = cm.selected, cm.watched
	w.uid, w.created, w.bytes, w.addresses = obj.UID, obj.CreationTimestamp, cm.objectBytes, cm.endpoints
	return cm
}

// kept is the managedFields the API server stores of entries: none when the one entry owns
// no field (model.EmptyFieldSet), as for an Endpoints object without labels, annotations
// or subsets.
func kept(entries []model.ManagedFieldsEntry) []model.ManagedFieldsEntry {
	if len(entries) == 1 && entries[0].FieldsV1 == model.EmptyFieldSet {
		return nil
	}
	return entries
}
