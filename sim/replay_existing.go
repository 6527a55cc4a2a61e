package sim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"epsim/model"
)

// seedExisting stores, before the controllers start, the objects the cluster had when the
// recording began, as if written before time 0, and counts no write for them: the
// EndpointSlices of ReplayOptions.Slices when given, and otherwise, for each Service
// created before the recording's first second (or at a time unknown), each controller's
// objects for the pods as listed (what its sync of the listing writes), which a restarted
// controller finds up to date. Its first syncs then reconcile against them. A Service
// created since has none yet: its first syncs create them.
func (e *Engine) seedExisting() {
	r := e.replay
	start := e.timestamp(0)
	existed := func(s *serviceState) bool {
		return s.created && s.manual == nil && s.svc.CreationTimestamp < start
	}
	for _, c := range e.ctls {
		if _, ok := c.syncer.(*sliceSyncer); ok && len(r.slices) > 0 {
			r.stats.SeededSlices, r.stats.UnseededSlices = e.seedSlices(r.slices)
			r.slices = nil
			continue
		}
		for _, s := range e.services {
			if existed(s) {
				e.seedSync(c, s)
			}
		}
	}
	for _, s := range e.services {
		switch {
		case existed(s):
			r.stats.SeededServices++
		case s.created && s.manual == nil:
			r.stats.CreatedDuring++ // in the recording's first second
		}
	}
	if len(r.slices) > 0 { // the EndpointSlice controller does not run
		r.stats.UnseededSlices = int64(len(r.slices))
		r.slices = nil
	}
	for _, c := range e.ctls {
		if y, ok := c.syncer.(*sliceSyncer); ok {
			y.markUntracked()
		}
	}
}

// endpointSliceChangeMinSyncDelay is the least delay with which the EndpointSlice
// controller queues a Service for an event of one of its slices that its tracker does not
// expect. upstream: endpointslice_controller.go endpointSliceChangeMinSyncDelay.
const endpointSliceChangeMinSyncDelay = Time(time.Second)

// markUntracked marks every slice stored so far, the slices the run begins with, as
// untracked: written before the controller started.
func (y *sliceSyncer) markUntracked() {
	for i := range y.stored {
		for _, ss := range y.stored[i].list {
			ss.untracked = true
			y.seeded = true
		}
	}
}

// hasUntracked reports whether Service idx has a stored slice the controller has not
// written since the run began.
func (y *sliceSyncer) hasUntracked(idx int) bool {
	if !y.seeded {
		return false
	}
	for _, ss := range y.stored[idx].list {
		if ss.untracked {
			return true
		}
	}
	return false
}

// queueUntracked queues, one second from now (or the batch period, if longer), each
// created Service with a slice the EndpointSlice controller has not written since the run
// began. A restarted controller's EndpointSlice tracker knows none of the slices it finds
// (it learns a slice's generation from its own writes), so the informer's add of each slice
// as the caches sync, and its update of each at every resync, pass ShouldSync and queue the
// Service with that delay: a second sync of every such Service a second after the start,
// and two syncs per resync instead of one (the Service's own update queues it at once).
// At the start (hold), the phase is held open until they are due, so that a warm start's
// start-up phase takes in those syncs; a resync's hold no phase open, as the resync itself.
// upstream: endpointslice_controller.go onEndpointSliceAdd, onEndpointSliceUpdate,
// queueServiceForEndpointSlice; k8s.io/endpointslice/util endpointslice_tracker.go
// ShouldSync.
func (e *Engine) queueUntracked(hold bool) {
	for _, c := range e.ctls {
		y, ok := c.syncer.(*sliceSyncer)
		if !ok || !y.seeded {
			continue
		}
		d := max(endpointSliceChangeMinSyncDelay, Time(c.cfg.BatchPeriod))
		queued := false
		for _, s := range e.services {
			if s.created && y.hasUntracked(s.idx) {
				c.addAfter(s.idx, d)
				queued = true
			}
		}
		if hold && queued {
			// After the adds: at the same time it is applied after them, when the keys
			// they queued hold the phase.
			e.after(d, evUntrackedDue{})
		}
	}
}

// evUntrackedDue holds the phase open until queueUntracked's adds are due; it does nothing
// itself.
type evUntrackedDue struct{}

func (evUntrackedDue) String() string { return "found slices' adds due" }
func (evUntrackedDue) apply(*Engine)  {}

// seedSync stores what a sync of Service s by controller c writes now, as the API server
// stores it, without a write: the objects exist before the run (seedExisting).
func (e *Engine) seedSync(c *controller, s *serviceState) {
	writes, _ := c.syncer.sync(s, s.svc.CreationTimestamp, nil)
	c.syncer.takeEvents()
	mi := modeIndex(c.mode)
	for i := range writes {
		w := &writes[i]
		meta := apiMeta{now: e.timestamp(0), resourceVersion: e.api.revs[mi].next(), uid: c.names.uid(),
			created: e.timestamp(0), generation: 1}
		cm := c.syncer.commit(s, w, meta)
		c.syncer.applied(s, w, true)
		e.seedObject(mi, s, cm.name, cm.family, cm.objectBytes[model.Protobuf], cm.selected, cm.proxyEndpoints(), cm.proxyKey)
	}
}

// seedObject counts an object of Service s the run begins with, in mode index mi: among the
// objects, in kube-proxy's LIST (bytes, protobuf) and, when kube-proxy selects it, in the
// representative kube-proxy's rules (its counts, and an Endpoints object's readyKey).
func (e *Engine) seedObject(mi int, s *serviceState, name string, family int, bytes int64, selected bool, counts objectEndpoints, readyKey uint64) {
	e.stats.objects[mi]++
	if selected {
		e.api.listed[mi].add(bytes)
		e.kubeProxies[mi].proxier(family).seed(name, s.idx, len(s.svc.Ports), counts, !e.kubeProxyServesService(s, family), readyKey)
	}
}

// seedSlices stores the cluster's EndpointSlices (ReplayOptions.Slices) before the
// controllers start, as if written before time 0, and returns how many it stored and how
// many it left out (see ReplayOptions.Slices). No write is counted for them.
func (e *Engine) seedSlices(list []*model.EndpointSlice) (seeded, unseeded int64) {
	var y *sliceSyncer
	for _, c := range e.ctls {
		if s, ok := c.syncer.(*sliceSyncer); ok {
			y = s
		}
	}
	type key struct{ namespace, name string }
	byKey := map[key]int{}
	for i, s := range e.services {
		if y.reconcilers[i] != nil { // a Service whose endpoints the controller manages
			byKey[key{s.svc.Namespace, s.svc.Name}] = i
		}
	}
	// Grouped by Service, each group by name (the lister's order).
	groups := map[int][]*model.EndpointSlice{}
	for _, sl := range list {
		i, ok := byKey[key{sl.Namespace, sl.Labels.Get(model.LabelServiceName)}]
		if !ok || sl.Labels.Get(model.LabelManagedBy) != model.ControllerName {
			unseeded++
			continue
		}
		e.api.followRecorded(sl.ResourceVersion)
		groups[i] = append(groups[i], sl)
	}
	for _, idx := range slices.Sorted(maps.Keys(groups)) {
		g := groups[idx]
		slices.SortStableFunc(g, func(a, b *model.EndpointSlice) int { return cmp.Compare(a.Name, b.Name) })
		g = slices.CompactFunc(g, func(a, b *model.EndpointSlice) bool { return a.Name == b.Name })
		seeded += int64(len(g))
		unseeded += int64(len(groups[idx]) - len(g))
		y.seed(e.services[idx], g)
	}
	return seeded, unseeded
}

// seed stores slices, the existing EndpointSlices of Service s (sorted by name, unique),
// as the API server stores them before the run: the reconciler starts from them, every
// kube-proxy has programmed them, and the run's counts of objects and slice sizes include
// them. Each is copied; a slice's managedFields count in its stored size only.
func (y *sliceSyncer) seed(s *serviceState, list []*model.EndpointSlice) {
	e := y.e
	mi := modeIndex(ModeEndpointSlices)
	st := &y.stored[s.idx]
	stored := make([]*model.EndpointSlice, len(list))
	for j, in := range list {
		sl := *in
		lists := recordedLists(&sl)
		if len(sl.ManagedFields) == 0 {
			y.mf[0] = y.fields.EndpointSliceWith(&sl, sl.CreationTimestamp, lists)
			sl.ManagedFields = kept(y.mf[:])
		}
		sums := sliceEndpoints(&sl, e.api.needJSON, y.placeOf(s))
		bytes, _ := sliceSizesFrom(&sl, &sl.ObjectMeta, sums.size, e.api.needJSON)
		sl.ManagedFields = nil
		selected := proxySelection(sl.Labels, false)
		st.add(&storedSlice{slice: &sl, bytes: bytes, sums: sums, selected: selected, lists: lists})
		e.sliceNames.add(sl.Namespace, sl.Name)
		e.stats.sliceResized(-1, len(sl.Endpoints))
		// The cluster's own slice: whatever ports it lists (kube-proxy reads them one by one).
		counts := objectEndpoints{ready: sums.ready, fallback: sums.fallback, all: int32(len(sl.Endpoints)), hints: sums.hints}
		counts = counts.forPorts(unlistedSlicePorts(s.svc.Ports, sl.Ports), max(len(s.svc.Ports), 1))
		e.seedObject(mi, s, sl.Name, familyOf(sl.AddressType), bytes[model.Protobuf], selected, counts, 0)
		stored[j] = &sl
	}
	y.reconciler(s.idx).SetStoredSlices(stored)
}

// seed records an object the kube-proxy had programmed before the run began, with its
// endpoint counts (and, for an Endpoints object, the key of its endpoints map): they are in
// its rules, and no sync is due for it.
func (k *kubeProxy) seed(name string, svc, ports int, counts objectEndpoints, unserved bool, readyKey uint64) {
	k.service(svc, ports)
	if k.legacy {
		if len(k.legacyServices) <= svc {
			k.legacyServices = append(k.legacyServices, make([]legacyService, len(k.services)-len(k.legacyServices))...)
		}
		ls := &k.legacyServices[svc]
		ls.seen, ls.seenExists = readyKey, true
	}
	old := k.services[svc].objects.set(name, counts)
	c := kubeProxyChange{svc: svc, unserved: unserved}
	c.changes(counts, old)
	k.apply(&c)
}

// nodeJoin is a replay's node created after the recording began: its kube-proxy watches
// from then on, and the EndpointSlice controller counts it in the zones' weights if it is
// ready.
type nodeJoin struct {
	node  int
	at    Time // on the recording's clock
	ready bool // as --nodes lists it
}

// nodeJoins finds the nodes created after the recording's first second: they are no
// watchers until they join (evNodeJoin), when their kube-proxy starts and lists what it
// watches, and the topology cache leaves them out until then (as not ready: nothing else
// reads a node no pod is on). The representative kube-proxy is one of the nodes there from
// the start.
func (e *Engine) nodeJoins() {
	r := e.replay
	start := e.timestamp(0)
	var existing []*model.Node
	for i, n := range e.nodes {
		if n.CreationTimestamp > start {
			r.joins = append(r.joins, nodeJoin{node: i, at: Time(int64(n.CreationTimestamp) - e.epoch), ready: n.Ready})
			e.api.proxies[0]--
			e.api.proxies[1]--
			if n.Ready {
				e.setNodeReady(i, false) // no Service has hints yet: nothing is queued
			}
			continue
		}
		existing = append(existing, n)
	}
	if len(r.joins) == 0 {
		return
	}
	slices.SortStableFunc(r.joins, func(a, b nodeJoin) int { return cmp.Compare(a.at, b.at) })
	if len(existing) > 0 {
		e.proxyAt = representativeNode(existing, nil)
	}
}

// scheduleJoins schedules the joins nodeJoins found and the Services addReplayServices left
// for later, as the churn starts (shifted with it).
func (e *Engine) scheduleJoins() {
	r := e.replay
	for _, j := range r.joins {
		e.schedule(j.at+r.offset, evNodeJoin{j.node, j.ready})
	}
	r.joins = nil
	for _, c := range r.creates {
		managed := replayManaged(e.services[c.svc])
		if r.ended { // the recording is its listing
			if managed {
				r.stats.CreatedAfterEnd++
			}
			continue
		}
		e.schedule(c.at+r.offset, evServiceCreate{c.svc})
		if managed {
			r.pendingCreates++
		}
	}
	r.creates = nil
}

// evNodeJoin is a node created during the recording: its kube-proxy starts and lists
// everything it watches, and receives the watch events from then on; a ready one counts in
// the zones' weights (setNodeReady). Either way the EndpointSlice controller's node add
// handler runs its topology check, which queues every Service whose hints the zone weights
// overload: for a node that is not ready the weights stay as they were, but a Service they
// overload may be waiting out a retry's backoff, and is queued at once. It holds no phase
// open.
// upstream: endpointslice_controller.go addNode → checkNodeTopologyDistribution (SetNodes,
// GetOverloadedServices, serviceQueue.Add).
type evNodeJoin struct {
	node  int
	ready bool
}

func (ev evNodeJoin) String() string { return fmt.Sprintf("node %d joins", ev.node) }
func (ev evNodeJoin) apply(e *Engine) {
	e.api.proxies[0]++
	e.api.proxies[1]++
	e.rewatch(ev.node, true)
	if ev.ready {
		e.setNodeReady(ev.node, true) // the topology check with the new weights
		return
	}
	for _, c := range e.ctls {
		if y, ok := c.syncer.(*sliceSyncer); ok {
			y.nodeChanged(c, nil, nil) // the weights of the nodes as they were
		}
	}
}

// recordedLists returns the spec fields kube-controller-manager's managedFields entry of
// recorded slice sl lists: those its recorded entry names, or, without one, those a create
// of sl would list (model.SliceListsAfter).
func recordedLists(sl *model.EndpointSlice) model.SliceLists {
	for _, m := range sl.ManagedFields {
		if m.Manager != model.KubeControllerManager {
			continue
		}
		var top map[string]json.RawMessage // the entry's top-level fields only
		if json.Unmarshal([]byte(m.FieldsV1), &top) != nil {
			break
		}
		var lists model.SliceLists
		for leaf, list := range map[string]model.SliceLists{"f:addressType": model.ListsAddressType,
			"f:endpoints": model.ListsEndpoints, "f:ports": model.ListsPorts} {
			if _, ok := top[leaf]; ok {
				lists |= list
			}
		}
		return lists
	}
	return model.SliceListsAfter(0, sl)
}
